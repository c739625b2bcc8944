import Foundation
import PhotosCore

/// `photos history [filters] [--consumer NAME [--advance]]`.
enum HistoryCommand: Command {
    static let configuration = CommandConfiguration(
        path: ["history"],
        abstract: "List persistent-history transactions, optionally for a consumer.",
        discussion: """
            Each transaction has a token, a UTC timestamp, an author, a context (the command) and its
            changes (entity, object id, insert/update/delete, updated attributes, tombstone for
            deletes). With --consumer, lists what that consumer has not seen (after its token) and,
            with --advance, moves its token to the newest transaction. Here --author is a filter;
            the global --author does not apply.
            """,
        examples: ["photos history --since 2026-11-01", "photos history --since-token 120 --entity Photo --json"])

    struct Options: ParsableOptions {
        var sinceToken: Int64?
        var since: String?
        var until: String?
        var authors: [String] = []
        var excludedAuthors: [String] = []
        /// `--entity` as typed; `validate()` parses them into `entityFilter`.
        var entities: [String] = []
        var entityFilter: [HistoryEntity] = []
        var zone: ZoneID?
        var consumer: String?
        var advance = false
        var limit: Int?
        var reverse = false

        static var options: [Option<Options>] {
            [
                .value(
                    \.since, "--since", value: "DATE",
                    help:
                        "Only transactions at or after DATE (YYYY-MM-DD, midnight UTC; ISO 8601; today, yesterday, -7d, -2w, -3h).",
                    parser: .historyTime(endOfDay: false)),
                .value(
                    \.until, "--until", value: "DATE",
                    help: "Only transactions before DATE; a day-only DATE includes that day.",
                    parser: .historyTime(endOfDay: true)),
                .value(
                    \.sinceToken, "--since-token", value: "TOKEN", help: "Only transactions after this token.",
                    parser: .token),
                .values(\.authors, "--author", value: "NAME", help: "Only transactions by this author."),
                .values(
                    \.excludedAuthors, "--exclude-author", value: "NAME", help: "Leave out transactions by this author."
                ),
                .values(
                    \.entities, "--entity", value: "NAME",
                    help: "Only changes of this entity (Photo, PhotoData, Thumbnail, Tag, Rating, Share, Participant)."),
                .value(
                    \.zone, "--zone", value: "ID", help: "Only changes in this zone.",
                    parser: .zoneID),
                .value(\.consumer, "--consumer", value: "NAME", help: "List what this consumer has not processed yet."),
                .flag(\.advance, "--advance", help: "With --consumer: move its token to the newest transaction."),
                .value(
                    \.limit, "--limit", "-n", value: "N", help: "Only the N newest of the transactions that match.",
                    parser: .int(in: 0...Int(Int32.max))),
                .flag(\.reverse, "--reverse", "-r", help: "Newest first (the default is oldest first, by token).")
            ]
        }

        mutating func validate() throws {
            entityFilter = try entities.map { raw in
                guard let entity = HistoryEntity.allCases.first(where: { $0.rawValue.lowercased() == raw.lowercased() })
                else {
                    throw UsageError(
                        "--entity takes one of \(HistoryEntity.allCases.map(\.rawValue).joined(separator: ", ")), not '\(raw)'"
                    )
                }
                return entity
            }
            if advance && consumer == nil { throw UsageError("--advance needs --consumer NAME") }
            if consumer?.isEmpty == true { throw UsageError("--consumer needs a name") }
            // --advance moves the token past every unseen transaction: with -n it would skip
            // those not listed.
            if advance && limit != nil { throw UsageError("--advance lists every unseen transaction; drop -n") }
        }
    }

    static func run(_ options: Options, _ ctx: CommandContext) throws {
        var filter = HistoryFilter()
        if let since = options.sinceToken { filter.sinceToken = since }
        filter.sinceTimestamp = options.since
        filter.untilTimestamp = options.until
        filter.authors = options.authors
        filter.excludedAuthors = options.excludedAuthors
        filter.entities = options.entityFilter
        filter.zone = options.zone
        let library = try ctx.openLibraryForReading(!options.advance)
        // An unknown zone is 66, as in every command (it listed nothing and exited 0).
        if let zone = options.zone, !(try library.zoneExists(zone)) { throw LibraryError.notFound(.zone(zone)) }
        if let consumer = options.consumer {
            let registered = try library.consumerToken(consumer)
            let token = registered ?? 0
            filter.sinceToken = max(filter.sinceToken, token)
            if registered != nil, try library.historyExpired(after: token) {
                // Core Data's NSPersistentHistoryTokenExpiredError: said even with --quiet.
                ctx.console.warning(
                    command: configuration.path.joined(separator: " "),
                    "transactions after token \(token) were compacted before consumer '\(consumer)' read them; it missed those changes"
                )
            }
        }
        let newest = try library.currentHistoryToken()
        // Plain listing streams; -n keeps only the N newest (memory bounded by N) and --reverse
        // holds the matching transactions to print them newest first.
        var held: [HistoryTransaction] = []
        if options.limit == nil && !options.reverse {
            try library.forEachHistoryTransaction(matching: filter) { print($0, ctx) }
        } else {
            let limit = options.limit ?? Int.max
            if limit > 0 {
                try library.forEachHistoryTransaction(matching: filter) { t in
                    held.append(t)
                    // Trimmed in batches: at most 2N + 1024 held, each dropped once.
                    if held.count - limit >= max(limit, 1024) { held.removeFirst(held.count - limit) }
                }
                if held.count > limit { held.removeFirst(held.count - limit) }
            }
            for t in options.reverse ? held.reversed() : held { print(t, ctx) }
        }
        if let consumer = options.consumer, options.advance {
            try library.write {
                try library.setConsumerToken(consumer, max(newest, try library.consumerToken(consumer) ?? 0))
            }
            ctx.console.note("consumer \(consumer) advanced to token \(newest)")
        }
    }

    /// Prints one transaction: a JSON object with --json, else its line and one line per change.
    private static func print(_ t: HistoryTransaction, _ ctx: CommandContext) {
        if ctx.global.json {
            ctx.console.printJSON(t.json)
            return
        }
        ctx.console.print(
            "token \(t.token)  \(t.timestamp)  author \(t.author)  context \(t.context)  (\(TerminalText.plural(t.changes.count, "change")))"
        )
        for c in t.changes {
            var line = "  \(c.type.rawValue) \(c.entity) \(c.objectID)"
            if !c.updated.isEmpty { line += " [\(c.updated.joined(separator: ", "))]" }
            if let tomb = c.tombstone {
                line += " tombstone " + JSONValue.object(tomb.map { ($0.0, .string($0.1)) }).serialized()
            }
            if let zone = c.zone { line += " zone \(zone)" }
            ctx.console.print(line)
        }
    }
}

extension ValueParser where Value == String {
    /// A history bound: a date or instant (`ISODate.parse`) as the `YYYY-MM-DDTHH:MM:SS.fffZ`
    /// text history stores (milliseconds, so that bounds and timestamps compare as strings); with `endOfDay`, a day-only DATE means the next midnight (the day is
    /// included). A whole number is refused with a pointer to `--since-token` (dates take
    /// dates everywhere; tokens are `--since-token`, `--before-token`).
    static func historyTime(endOfDay: Bool) -> ValueParser {
        ValueParser { text, name in
            guard let (date, dayOnly) = ISODate.parse(text) else {
                let hint = Int64(text) != nil ? "; for a token use \(name)-token \(text)" : ""
                throw UsageError(
                    "\(name) takes a date like 2024-05-01, 2024-05-01T12:00:00Z, yesterday or -7d, not '\(text)'\(hint)"
                )
            }
            return ISODate.millisecondString(from: endOfDay && dayOnly ? date.addingTimeInterval(86_400) : date)
        }
    }
}
