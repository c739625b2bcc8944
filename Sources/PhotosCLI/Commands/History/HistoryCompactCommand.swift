import Foundation
import PhotosCore

/// `photos history compact (--before DATE | --keep-days N | --before-token T) [--force] [--dry-run]`.
enum HistoryCompactCommand: Command {
    static let configuration = CommandConfiguration(
        path: ["history", "compact"],
        abstract: "Delete old history transactions and reclaim their space.",
        discussion: """
            Deletes transactions before a cut-off, never past the lowest token of a registered
            consumer unless --force (a consumer must still see what it has not processed), then
            returns the freed pages to the file system. Same semantics as Core Data's
            deleteHistory(before:). With --before or --keep-days it also compacts the sync
            state's tombstones of deletions before the cut-off that every known library (peers of
            the whole library, each share's participants, a shared zone's owner) acknowledged: a
            library that syncs from here for the first time then gets the current state without
            them; a share's own tombstone is kept. On a terminal, deleting more than one transaction asks first
            (--yes skips the question; never asked when not on a terminal).
            """)

    struct Options: ParsableOptions {
        var before: Date?
        var keepDays: Int?
        var beforeToken: Int64?
        var force = false
        var dryRun = false
        var yes = false
        /// The one cut-off given, set by `validate()`.
        var cutoff = CompactionCutoff.token(0)

        static var options: [Option<Options>] {
            [
                .value(
                    \.before, "--before", value: "DATE",
                    help:
                        "Delete transactions with a timestamp before DATE (YYYY-MM-DD, ISO 8601, today, yesterday, -7d).",
                    parser: ValueParser { text, name in
                        guard let (date, _) = ISODate.parse(text) else {
                            throw UsageError("\(name) takes a date like 2024-05-01, yesterday or -30d, not '\(text)'")
                        }
                        return date
                    }),
                .value(
                    \.keepDays, "--keep-days", value: "N", help: "Delete transactions older than N days.",
                    parser: .int(in: 0...1_000_000)),
                .value(
                    \.beforeToken, "--before-token", value: "T", help: "Delete transactions with a token below T.",
                    parser: .token),
                .flag(\.force, "--force", help: "Delete past the lowest consumer token."),
                .flag(\.dryRun, "--dry-run", help: "Print what would be deleted; change nothing."),
                Confirmation.yes(\.yes)
            ]
        }

        mutating func validate() throws {
            let cutoffs: [CompactionCutoff] = [
                before.map { .date($0) },
                keepDays.map { .date(Date().addingTimeInterval(-Double($0) * 86_400)) },
                beforeToken.map { .token($0) }
            ].compactMap { $0 }
            guard cutoffs.count == 1, let cutoff = cutoffs.first else {
                throw UsageError("give exactly one of --before DATE, --keep-days N, --before-token T")
            }
            self.cutoff = cutoff
        }
    }

    static func run(_ options: Options, _ ctx: CommandContext) throws {
        let library = try ctx.openLibrary(dryRun: options.dryRun)
        if ctx.mayAsk(yes: options.yes, dryRun: options.dryRun) {
            let preview = try library.compactHistory(options.cutoff, force: options.force, dryRun: true)
            try ctx.confirm(
                "Delete \(TerminalText.plural(preview.transactions, "history transaction")) (\(TerminalText.plural(preview.changes, "change")))?",
                objects: preview.transactions, yes: options.yes)
        }
        let report = try library.compactHistory(options.cutoff, force: options.force, dryRun: options.dryRun)
        if ctx.global.json {
            ctx.console.printJSON(report.json)
        } else if !ctx.global.quiet {
            let through = report.transactions > 0 ? " (through token \(report.throughToken))" : ""
            ctx.console.print(
                "\(report.dryRun ? "Would delete" : "Deleted") \(TerminalText.plural(report.transactions, "transaction")) and \(TerminalText.plural(report.changes, "change"))\(through)\(report.dryRun ? "" : "; \(TerminalText.bytes(Int64(report.bytes))) reclaimed")"
            )
            if report.tombstones > 0 {
                ctx.console.print(
                    "\(report.dryRun ? "Would compact" : "Compacted") \(TerminalText.plural(report.tombstones, "sync tombstone")) every known library acknowledged (\(report.syncEntries) sync \(report.syncEntries == 1 ? "entry" : "entries"))"
                )
            }
            if let consumer = report.limitedByConsumer {
                ctx.console.note("stopped at the token of consumer '\(consumer)'; --force deletes past it")
            }
        }
    }
}
