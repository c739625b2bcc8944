import Foundation
import PhotosCore

/// `photos dedupe-tags [--all] [--dry-run]`.
enum DedupeTagsCommand {
    static let spec = CommandSpec(
        path: ["dedupe-tags"],
        abstract: "Merge tags with the same name in the same zone; the smallest uuid wins.",
        discussion: """
        For every tag that history shows inserted since this command's consumer token (or every
        tag with --all), finds the tags with the same NFC name in the same zone, keeps the one
        with the smallest uuid (byte order), re-points the photos of the others to it and deletes
        the others. One transaction, author dedupe-tags (unless --author). Running it in any
        order, any number of times, on any copy of the data gives the same winners.
        """,
        options: [
            OptionSpec(["--all"], help: "Examine every tag, not only those inserted since the last run."),
            OptionSpec(["--dry-run"], help: "List what would merge; change nothing."),
        ],
        run: { args, ctx in
            let library = try ctx.openLibrary(dryRun: args.flag("dry-run"))
            let report = try library.dedupeTags(all: args.flag("all"), dryRun: args.flag("dry-run"), author: ctx.historyAuthor)
            if ctx.json { ctx.printJSON(report.json); return .ok }
            for group in report.groups where !ctx.quiet {
                ctx.print("\(report.dryRun ? "would merge" : "merged") \(group.losers.count) × '\(group.name)' in zone \(group.zone) into \(group.winner) (\(group.photosRelinked) photo\(group.photosRelinked == 1 ? "" : "s") relinked)")
            }
            if !ctx.quiet {
                ctx.print("\(report.dryRun ? "Would merge" : "Merged") \(report.merged) duplicate tag\(report.merged == 1 ? "" : "s") in \(report.groups.count) group\(report.groups.count == 1 ? "" : "s"); \(report.photosRelinked) photo\(report.photosRelinked == 1 ? "" : "s") relinked")
            }
            return .ok
        })
}

/// `photos purge --share ID [--dry-run]`.
enum PurgeCommand {
    static let spec = CommandSpec(
        path: ["purge"],
        abstract: "Delete every object of a share's zone, and its original files.",
        discussion: """
        Deletes the zone's photos with their photo data, thumbnails and ratings, the zone's tags,
        the share and its participants, in one transaction recorded in history (author purge,
        unless --author) with a tombstone for every delete. Originals are removed after the
        commit, and only those no remaining photo references. Works on private zones (the owner
        stops sharing) and shared ones (a participant leaves). The default zone cannot be purged.
        """,
        options: [
            OptionSpec(["--share"], value: "ID", help: "The share (or zone) id, or an unambiguous prefix of at least 4 characters."),
            OptionSpec(["--dry-run"], help: "Print the counts only; change nothing."),
        ],
        run: { args, ctx in
            guard let share = args.value("share") else { throw PhotosError.usage("missing --share ID") }
            let library = try ctx.openLibrary(dryRun: args.flag("dry-run"))
            let zone = try library.resolveZone(share)
            let report = try library.purge(zone: zone, dryRun: args.flag("dry-run"), author: ctx.historyAuthor)
            if ctx.json { ctx.printJSON(report.json) } else if !ctx.quiet {
                let counts = [plural(report.photos, "photo"), plural(report.ratings, "rating"), plural(report.tags, "tag"),
                              plural(report.participants, "participant"), plural(report.shares, "share")].joined(separator: ", ")
                ctx.print("\(report.dryRun ? "Would purge" : "Purged") zone \(zone): \(counts)\(report.dryRun ? "" : "; \(plural(report.filesRemoved, "original file")) removed")")
            }
            return .ok
        })
}

/// `photos history [filters] [--consumer NAME [--advance]]`.
enum HistoryCommand {
    static let spec = CommandSpec(
        path: ["history"],
        abstract: "List persistent-history transactions, optionally for a consumer.",
        discussion: """
        Each transaction has a token, a UTC timestamp, an author, a context (the command) and its
        changes (entity, object id, insert/update/delete, updated attributes, tombstone for
        deletes). With --consumer, lists what that consumer has not seen (after its token) and,
        with --advance, moves its token to the newest transaction. Here --author is a filter;
        the global --author does not apply.
        """,
        options: [
            OptionSpec(["--since"], value: "TOKEN", help: "Only transactions after this token."),
            OptionSpec(["--author"], value: "NAME", help: "Only transactions by this author.", repeatable: true),
            OptionSpec(["--exclude-author"], value: "NAME", help: "Leave out transactions by this author.", repeatable: true),
            OptionSpec(["--entity"], value: "NAME", help: "Only changes of this entity (Photo, PhotoData, Thumbnail, Tag, Rating, Share, Participant).", repeatable: true),
            OptionSpec(["--zone"], value: "ID", help: "Only changes in this zone."),
            OptionSpec(["--consumer"], value: "NAME", help: "List what this consumer has not processed yet."),
            OptionSpec(["--advance"], help: "With --consumer: move its token to the newest transaction."),
        ],
        run: { args, ctx in
            var filter = HistoryFilter()
            if let since = args.value("since") {
                guard let token = Int64(since), token >= 0 else { throw PhotosError.usage("--since takes a token (a whole number ≥ 0), not '\(since)'") }
                filter.sinceToken = token
            }
            filter.authors = args.all("author")
            filter.excludedAuthors = args.all("exclude-author")
            filter.entities = try args.all("entity").map { raw in
                guard let entity = HistoryEntity.allCases.first(where: { $0.rawValue.lowercased() == raw.lowercased() }) else {
                    throw PhotosError.usage("--entity takes one of \(HistoryEntity.allCases.map(\.rawValue).joined(separator: ", ")), not '\(raw)'")
                }
                return entity.rawValue
            }
            filter.zone = args.value("zone")
            if args.flag("advance") && args.value("consumer") == nil { throw PhotosError.usage("--advance needs --consumer NAME") }
            let library = try ctx.openLibraryForReading(!args.flag("advance"))
            let consumer = args.value("consumer")
            if let consumer {
                guard !consumer.isEmpty else { throw PhotosError.usage("--consumer needs a name") }
                let registered = try library.consumerToken(consumer)
                let token = registered ?? 0
                filter.sinceToken = max(filter.sinceToken, token)
                if registered != nil, try library.historyExpired(after: token) {
                    // Core Data's NSPersistentHistoryTokenExpiredError: said even with --quiet.
                    ctx.rawError("photos history: warning: transactions after token \(token) were compacted before consumer '\(consumer)' read them; it missed those changes\n")
                }
            }
            let newest = try library.currentHistoryToken()
            try library.forEachHistoryTransaction(matching: filter) { t in
                if ctx.json { ctx.printJSON(t.json); return }
                ctx.print("token \(t.token)  \(t.timestamp)  author \(t.author)  context \(t.context)  (\(t.changes.count) change\(t.changes.count == 1 ? "" : "s"))")
                for c in t.changes {
                    var line = "  \(c.type.rawValue) \(c.entity) \(c.objectID)"
                    if !c.updated.isEmpty { line += " [\(c.updated.joined(separator: ", "))]" }
                    if let tomb = c.tombstone { line += " tombstone " + JSONValue.object(tomb.map { ($0.0, .string($0.1)) }).serialized() }
                    if let zone = c.zone { line += " zone \(zone)" }
                    ctx.print(line)
                }
            }
            if let consumer, args.flag("advance") {
                try library.write { try library.setConsumerToken(consumer, max(newest, try library.consumerToken(consumer) ?? 0)) }
                ctx.note("consumer \(consumer) advanced to token \(newest)")
            }
            return .ok
        })
}

/// `photos history consumers [--remove NAME]`.
enum HistoryConsumersCommand {
    static let spec = CommandSpec(
        path: ["history", "consumers"],
        abstract: "List history consumers and the last token each processed.",
        options: [OptionSpec(["--remove"], value: "NAME", help: "Unregister a consumer, so it no longer holds compaction back.")],
        run: { args, ctx in
            let library = try ctx.openLibraryForReading(args.value("remove") == nil)
            if let name = args.value("remove") {
                guard try library.removeConsumer(name) else { throw PhotosError.noInput("no history consumer '\(name)'") }
                ctx.note("removed consumer \(name)")
                return .ok
            }
            for consumer in try library.historyConsumers() {
                if ctx.json { ctx.printJSON(.object([("name", .string(consumer.name)), ("token", .int(Int(consumer.token)))])) }
                else { ctx.print("\(consumer.name)\t\(consumer.token)") }
            }
            return .ok
        })
}

/// `photos history compact (--before DATE | --keep-days N | --before-token T) [--force] [--dry-run]`.
enum HistoryCompactCommand {
    static let spec = CommandSpec(
        path: ["history", "compact"],
        abstract: "Delete old history transactions and reclaim their space.",
        discussion: """
        Deletes transactions before a cut-off, never past the lowest token of a registered
        consumer unless --force (a consumer must still see what it has not processed), then
        returns the freed pages to the file system. Same semantics as Core Data's
        deleteHistory(before:).
        """,
        options: [
            OptionSpec(["--before"], value: "DATE", help: "Delete transactions with a timestamp before DATE (YYYY-MM-DD or ISO 8601)."),
            OptionSpec(["--keep-days"], value: "N", help: "Delete transactions older than N days."),
            OptionSpec(["--before-token"], value: "T", help: "Delete transactions with a token below T."),
            OptionSpec(["--force"], help: "Delete past the lowest consumer token."),
            OptionSpec(["--dry-run"], help: "Print what would be deleted; change nothing."),
        ],
        run: { args, ctx in
            var cutoffs: [CompactionCutoff] = []
            if let text = args.value("before") {
                guard let (date, _) = ISODate.parse(text) else { throw PhotosError.usage("--before takes a date like 2024-05-01, not '\(text)'") }
                cutoffs.append(.date(date))
            }
            if let days = try args.int("keep-days", in: 0...1_000_000) {
                cutoffs.append(.date(Date().addingTimeInterval(-Double(days) * 86_400)))
            }
            if let text = args.value("before-token") {
                guard let token = Int64(text), token >= 0 else { throw PhotosError.usage("--before-token takes a token (a whole number ≥ 0), not '\(text)'") }
                cutoffs.append(.token(token))
            }
            guard cutoffs.count == 1, let cutoff = cutoffs.first else {
                throw PhotosError.usage("give exactly one of --before DATE, --keep-days N, --before-token T")
            }
            let library = try ctx.openLibrary(dryRun: args.flag("dry-run"))
            let report = try library.compactHistory(cutoff, force: args.flag("force"), dryRun: args.flag("dry-run"))
            if ctx.json { ctx.printJSON(report.json) } else if !ctx.quiet {
                ctx.print("\(report.dryRun ? "Would delete" : "Deleted") \(report.transactions) transactions and \(report.changes) changes\(report.transactions > 0 ? " (through token \(report.throughToken))" : "")\(report.dryRun ? "" : "; \(report.bytes) bytes reclaimed")")
                if let consumer = report.limitedByConsumer {
                    ctx.note("stopped at consumer '\(consumer)''s token; --force deletes past it")
                }
            }
            return .ok
        })
}

/// `photos merge --from LIBRARY [--dry-run]`.
enum MergeCommand {
    static let spec = CommandSpec(
        path: ["merge"],
        abstract: "Bring another library's photos, tags, ratings and shares into this one.",
        discussion: """
        Photos are matched by uniqueName, then by SHA-256 (same bytes = same photo; this
        library's uniqueName stays); new photos come with their original, thumbnail and ratings;
        zones and shares are matched by id, tags by uuid (created with the same uuid when
        absent), and tag links are unioned. Same-named tags with different uuids are then
        duplicates, which dedupe-tags resolves the same way on every peer. Merging the same
        library again changes nothing. One transaction, author merge (unless --author).
        """,
        options: [
            OptionSpec(["--from"], value: "LIBRARY", help: "The other library's folder."),
            OptionSpec(["--dry-run"], help: "Print what would come in; change nothing."),
        ],
        run: { args, ctx in
            guard let fromPath = args.value("from") else { throw PhotosError.usage("missing --from LIBRARY") }
            let library = try ctx.openLibrary(dryRun: args.flag("dry-run"))
            let otherRoot = Library.resolvePath(explicit: fromPath, environment: ctx.environment)
            guard Library.exists(at: otherRoot) else { throw PhotosError.noInput("no library at \(otherRoot)") }
            // Read as it is, never migrated (merge writes nothing there); `merge` reads older schemas.
            let other = try Library(root: otherRoot, create: false, busyTimeout: ctx.wait, readOnly: true,
                                    acceptingOlderSchema: true)
            let report = try library.merge(from: other, dryRun: args.flag("dry-run"), author: ctx.historyAuthor)
            if ctx.json { ctx.printJSON(report.json) } else if !ctx.quiet {
                ctx.print("\(report.dryRun ? "Would merge" : "Merged") \(report.photos) new photos (\(report.matchedPhotos) already here\(report.movedPhotos > 0 ? ", \(report.movedPhotos) moved to their share's zone" : "")), \(report.ratings) ratings, \(report.tags) tags, \(report.tagLinks) tag links, \(report.zones) zones, \(report.shares) shares, \(report.participants) participants\(report.originalsRestored > 0 ? "; \(report.originalsRestored) missing or damaged originals \(report.dryRun ? "to restore" : "restored")" : "")")
            }
            return .ok
        })
}

/// `photos stats`.
enum StatsCommand {
    static let spec = CommandSpec(
        path: ["stats"],
        abstract: "Counts and sizes: photos, originals, thumbnails, tags, zones, history.",
        run: { _, ctx in
            let s = try ctx.openLibraryForReading().stats()
            if ctx.json { ctx.printJSON(s.json); return .ok }
            ctx.print("photos:        \(s.photos)")
            ctx.print("originals:     \(s.originalBytes) bytes (\(formatBytes(s.originalBytes)))")
            ctx.print("thumbnails:    \(s.thumbnailBytes) bytes (\(formatBytes(s.thumbnailBytes)))")
            ctx.print("tags:          \(s.tags)")
            ctx.print("ratings:       \(s.ratings)")
            ctx.print("shares:        \(s.shares) (\(s.participants) participants)")
            for zone in s.zones { ctx.print("zone:          \(zone.id) (\(zone.scope)): \(zone.photos) photos") }
            ctx.print("history:       \(s.historyTransactions) transactions, \(s.historyChanges) changes, \(s.consumers) consumers")
            ctx.print("database:      \(s.databaseBytes) bytes (\(formatBytes(s.databaseBytes))), schema version \(s.schemaVersion)")
            return .ok
        })
}
