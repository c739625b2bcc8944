import Foundation
import PhotosCore

/// `photos duplicates [filters] [--threshold same|similar|N]` (issue 27 item 2) and
/// `--resolve [--keep RULE|PHOTO]... [--dry-run] [--yes]` (item 3).
enum DuplicatesCommand: Command {
    static let configuration = CommandConfiguration(
        path: ["duplicates"],
        abstract: "Find photos that are the same picture in other bytes (near-duplicates), with the one to keep.",
        discussion: """
            Compares the perceptual signatures import records (a 64-bit DCT hash of the picture,
            Zauner 2010, and its mean colour): a recompressed, resized or converted copy, or one
            cropped by a few percent, is the same picture at --threshold same (the default);
            similar also takes light edits; N is a Hamming distance 0-32. Each group lists its
            members, their distance to the first, the suggested keeper and why: more pixels, then
            RAW over a camera JPEG over other formats, then the earliest capture time, then the
            earliest import. Near-uniform or tiny pictures are never grouped. Photos imported
            before signatures existed have none: 'photos thumbnails --rebuild' computes them.
            Without --resolve it reads only; with --json, one group object per line.

            --resolve resolves every group found, in one transaction with one history transaction
            (author duplicates unless --author), so a peer's sync carries it: the keeper takes the
            union of the others' tags (the same-named tag of its zone), their ratings (one per
            author; when several have one by the same author the later wins, by the rule sync
            applies: the later change, ties by library id) and the earliest capture time of a
            better source than its own (set by hand, then EXIF DateTimeOriginal, DateTimeDigitized,
            a container's or sidecar's time, EXIF DateTime, GPS, the file's time); then the others
            are deleted as 'photos delete' deletes them (originals removed once unreferenced,
            the same tombstones). The keeper stays in its zone, except that a keeper of the default
            zone whose duplicates are all in one share of this library joins that share (the share's
            participants keep the picture). A member in another share than the keeper's stays, and
            so does every member of a group whose keeper is in a share this library may only read.
            --keep RULE[,RULE...] puts rules first in the keeper chain: pixels, raw, earliest,
            first-imported (the default chain is that order); --keep PHOTO makes that photo the
            keeper of its group. On a terminal it lists what goes and asks (--yes skips the
            question; never asked when not on a terminal, as 'photos delete'). --dry-run prints what
            would change and changes nothing. With --json, one object: the groups, what each keeper
            gained and what was deleted.
            """,
        examples: [
            "photos duplicates",
            "photos duplicates --threshold similar --tag holidays",
            "photos duplicates --json | jq -r .keeper",
            "photos duplicates --resolve --dry-run",
            "photos duplicates --resolve --keep earliest --yes"
        ])

    struct Options: ParsableOptions {
        var selection = PhotoFilterOptions()
        var threshold: DuplicateThreshold?
        var resolve = false
        var keep: [String] = []
        var dryRun = false
        var yes = false

        static var options: [Option<Options>] {
            PhotoFilterOptions.options.map { $0.lifted(\.selection) } + [
                .value(
                    \.threshold, "--threshold", value: "LEVEL",
                    help: "same, similar, or a Hamming distance 0-32 between signatures.", default: "same",
                    parser: ValueParser { text, name in
                        guard let threshold = DuplicateThreshold(argument: text) else {
                            throw UsageError("\(name) takes same, similar or a number 0-32, not '\(text)'")
                        }
                        return threshold
                    }),
                .flag(
                    \.resolve, "--resolve",
                    help: "Keep one photo per group with the others' tags and ratings; delete the others."),
                .values(
                    \.keep, "--keep", value: "RULE|PHOTO",
                    help:
                        "With --resolve: rules first in the keeper chain (pixels, raw, earliest, first-imported, comma-separated), or a photo to keep in its group; repeatable."
                ),
                .flag(\.dryRun, "--dry-run", help: "With --resolve: print what would change; change nothing."),
                Confirmation.yes(\.yes)
            ]
        }

        func validate() throws {
            try selection.validate()
            if !resolve {
                for (given, name) in [(!keep.isEmpty, "--keep"), (dryRun, "--dry-run"), (yes, "--yes")] where given {
                    throw UsageError("\(name) is an option of --resolve")
                }
            }
            _ = try keepArguments
        }

        /// The `--keep` values: the rules they name, and the other words (photos).
        /// - Throws: `UsageError` for a comma-separated list with a word that is no rule.
        var keepArguments: (rules: [KeeperRule], photos: [String]) {
            get throws {
                var rules: [KeeperRule] = []
                var photos: [String] = []
                for value in keep {
                    let parts = value.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
                    if parts.allSatisfy({ KeeperRule(rawValue: $0) != nil }) {
                        rules += parts.compactMap(KeeperRule.init(rawValue:))
                    } else if parts.count > 1 {
                        let bad = parts.first { KeeperRule(rawValue: $0) == nil } ?? value
                        throw UsageError("--keep: unknown rule '\(bad)' (rules: \(DuplicatesCommand.ruleNames))")
                    } else {
                        photos.append(value)
                    }
                }
                return (rules, photos)
            }
        }
    }

    /// `pixels, raw, earliest, first-imported`.
    static var ruleNames: String { KeeperRule.allCases.map(\.rawValue).joined(separator: ", ") }

    static func run(_ options: Options, _ ctx: CommandContext) throws {
        let filter = options.selection.filter
        let library = options.resolve ? try ctx.openLibrary(dryRun: options.dryRun) : try ctx.openLibraryForReading()
        if let share = filter.share { _ = try library.resolveShare(share) }
        let keep = try options.keepArguments
        let report = try library.findDuplicates(
            matching: filter, threshold: options.threshold ?? .same, rules: keep.rules)
        let t = TerminalText.self
        if options.resolve {
            try resolve(report, keepPhotos: keep.photos, options, library, ctx)
            return
        }
        if report.withoutSignature > 0 {
            ctx.console.note(
                "\(t.plural(report.withoutSignature, "photo")) of \(report.photos) have no signature and were not compared; 'photos thumbnails --rebuild' computes them"
            )
        }
        if ctx.global.json {
            for group in report.groups { ctx.console.printJSON(group.json) }
            return
        }
        for (n, group) in report.groups.enumerated() {
            if n > 0 { ctx.console.print("") }
            ctx.console.print(
                "group \(n + 1): \(group.members.count) photos, distance \(group.distance); keep \(group.keeper.uniqueName): \(group.reason)"
            )
            for (i, member) in group.members.enumerated() {
                let p = member.photo
                ctx.console.print(
                    "  \(i == 0 ? "keep" : "    ")  \(p.uniqueName)  \(t.printable(p.displayName))  \(p.width)×\(p.height) \(p.format.rawValue)  distance \(member.distance)"
                )
            }
        }
        if !ctx.global.quiet {
            let grouped = report.groups.reduce(0) { $0 + $1.members.count }
            ctx.console.note(
                "\(t.plural(report.groups.count, "group")) of \(t.plural(grouped, "photo")) at --threshold \((options.threshold ?? .same).name); \(report.lowInformation) near-uniform or tiny not compared"
            )
        }
    }

    /// `--resolve`: the groups (a `--keep PHOTO` made keeper of its group), the question on a
    /// terminal, the resolution, and what changed.
    static func resolve(
        _ report: DuplicateReport, keepPhotos: [String], _ options: Options, _ library: Library, _ ctx: CommandContext
    ) throws {
        let t = TerminalText.self
        var groups = report.groups
        var named = Set<String>()
        var namedGroups: [Int: String] = [:]
        for word in keepPhotos {
            let photo: PhotoRecord
            do {
                photo = try ctx.resolvePhoto(word, in: library)
            } catch let e as LibraryError {
                switch e {
                case .notFound, .prefixTooShort:
                    throw UsageError(
                        "--keep takes a rule (\(ruleNames)) or a photo of a duplicate group, not '\(word)'")
                default: throw e
                }
            }
            guard named.insert(photo.uniqueName).inserted else {
                throw UsageError("--keep names photo \(photo.uniqueName) twice")
            }
            guard let g = groups.firstIndex(where: { $0.members.contains { $0.photo.uniqueName == photo.uniqueName } })
            else {
                throw UsageError(
                    "--keep \(word): photo \(photo.uniqueName) (\(t.printable(photo.displayName))) is in no duplicate group at --threshold \((options.threshold ?? .same).name)"
                )
            }
            if let other = namedGroups[g] {
                throw UsageError(
                    "--keep names two keepers of one group: \(other) and \(photo.uniqueName); name one")
            }
            namedGroups[g] = photo.uniqueName
            var members = groups[g].members
            if let i = members.firstIndex(where: { $0.photo.uniqueName == photo.uniqueName }), i > 0 {
                members.insert(members.remove(at: i), at: 0)
                groups[g].members = members
                groups[g].reason = "named by --keep"
            }
        }
        if report.withoutSignature > 0 {
            ctx.console.note(
                "\(t.plural(report.withoutSignature, "photo")) of \(report.photos) have no signature and were not compared; 'photos thumbnails --rebuild' computes them"
            )
        }
        let result = try ctx.confirmingDestruction(
            library, yes: options.yes, dryRun: options.dryRun,
            question: { (preview: DuplicateResolveReport) in
                guard preview.deletedCount > 0 else { return nil }
                for line in describe(preview) { ctx.console.errorText(t.escaped(line) + "\n") }
                return (
                    "Delete \(t.plural(preview.deletedCount, "photo")) of \(t.plural(preview.groups.count, "duplicate group")), their keepers taking their tags and ratings?",
                    preview.deletedCount
                )
            },
            run: { try library.resolveDuplicates(groups, author: ctx.historyAuthor) })
        for file in result.filesLeft {
            ctx.console.itemError(file.path, "not removed (the photo is deleted): \(file.reason)")
        }
        if ctx.global.json {
            ctx.console.printJSON(
                .object([
                    ("dryRun", .bool(result.dryRun)), ("groups", .array(result.groups.map(\.json))),
                    (
                        "skipped",
                        .array(
                            result.skipped.map { .object([("keeper", .string($0.keeper)), ("why", .string($0.why))]) })
                    ),
                    ("deleted", .int(result.deletedCount)), ("token", result.token.map { .int(Int($0)) } ?? .null),
                    ("filesLeft", .array(result.filesLeft.map(\.json)))
                ]))
            return
        }
        guard !ctx.global.quiet else { return }
        for line in describe(result) { ctx.console.print(line) }
        let verb = result.dryRun ? "Would delete" : "Deleted"
        ctx.console.print(
            "\(verb) \(t.plural(result.deletedCount, "photo")) in \(t.plural(result.groups.count, "group"))\(result.skipped.isEmpty ? "" : "; \(t.plural(result.skipped.count, "group")) left as they are")"
        )
    }

    /// The lines that say what a resolution changes (or would change), per group: the keeper,
    /// what it gains, what is deleted and what stays.
    static func describe(_ report: DuplicateResolveReport) -> [String] {
        let t = TerminalText.self
        let would = report.dryRun ? "would " : ""
        var lines: [String] = []
        for g in report.groups {
            lines.append("keep \(g.keeper)  \(t.printable(g.keeperName))")
            if g.zone != g.zoneBefore { lines.append("  \(would)move into share \(g.zone)") }
            if !g.tagsAdded.isEmpty {
                lines.append("  \(would)add tags: \(g.tagsAdded.map { t.printable($0) }.joined(separator: ", "))")
            }
            for r in g.ratings {
                let who = r.author.map { t.printable($0) } ?? "(anonymous)"
                let change = r.before.map { "\($0) → \(r.after)" } ?? "\(r.after)"
                lines.append("  \(would)set rating by \(who): \(change) (from \(r.from))")
            }
            if let c = g.capture {
                lines.append(
                    "  \(would)set capture time: \(c.before ?? "none") → \(c.after) (\(c.source), from \(c.from))")
            }
            if let x = g.title { lines.append("  \(would)set title: \(t.printable(x.value)) (from \(x.from))") }
            if let x = g.description {
                lines.append("  \(would)set description: \(t.printable(x.value)) (from \(x.from))")
            }
            for d in g.deleted { lines.append("  \(would)delete \(d.uniqueName)  \(t.printable(d.displayName))") }
            for k in g.kept { lines.append("  stays \(k.uniqueName): \(k.why)") }
        }
        for s in report.skipped { lines.append("left group of \(s.keeper): \(s.why)") }
        return lines
    }
}
