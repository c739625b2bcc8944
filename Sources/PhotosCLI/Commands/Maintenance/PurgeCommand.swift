import Foundation
import PhotosCore

/// `photos purge --share ID [--dry-run]`.
enum PurgeCommand: Command {
    static let configuration = CommandConfiguration(
        path: ["purge"],
        abstract: "Delete every object of a share's zone, and its original files.",
        discussion: """
            Deletes the zone's photos with their photo data, thumbnails and ratings, the zone's tags,
            the share and its participants, in one transaction recorded in history (author purge,
            unless --author) with a tombstone for every delete. Originals are removed after the
            commit, and only those no remaining photo references. Works on private zones (the owner
            stops sharing) and shared ones (a participant leaves). The default zone cannot be purged.
            On a terminal it prints what it would delete and asks first (--yes skips the question;
            never asked when stdin or stderr is not a terminal, so cron keeps working).
            On a terminal a progress line counts the purge's phases (the count, one set-wise delete
            per kind of object, the zone, the original files), not single objects.
            An original that cannot be removed after the commit (a folder in its place, a permission
            or I/O error) is named on stderr with why ("PATH: error: not removed (the purge is done):
            REASON") and not counted as removed; the purge stands, and the exit status is 1 (0 when
            everything was removed). verify --repair removes such a file later once it can.
            """)

    struct Options: ParsableOptions {
        var share = ""
        var dryRun = false
        var yes = false
        static var options: [Option<Options>] {
            [
                .required(
                    \.share, "--share", value: "ID",
                    help:
                        "The share (or zone) id, an unambiguous prefix of at least 4 characters, or the share's title."),
                .flag(\.dryRun, "--dry-run", help: "Print the counts only; change nothing."),
                Confirmation.yes(\.yes)
            ]
        }
    }

    /// `share 'TITLE' (ID)` for a share's zone, else `zone ID`: prompts name the title beside
    /// the id (issue 32 item 4).
    static func named(_ zone: ZoneID, in library: Library) -> String {
        guard let share = try? library.share(id: zone.rawValue) else { return "zone \(zone)" }
        return "share '\(TerminalText.printable(share.title))' (\(share.id))"
    }

    static func run(_ options: Options, _ ctx: CommandContext) throws {
        let library = try ctx.openLibrary(dryRun: options.dryRun)
        let zone = try library.resolveZone(options.share)
        if ctx.mayAsk(yes: options.yes) {
            let preview = try library.purge(zone: zone, dryRun: true, author: ctx.historyAuthor)
            try ctx.confirm(
                "Purge \(named(zone, in: library)): \(counts(preview)), and its original files?",
                objects: preview.photos + preview.ratings + preview.tags + preview.participants + preview.shares,
                yes: options.yes)
        }
        let report = try ctx.console.withProgress(options.dryRun ? "checking" : "purging") { bar in
            try library.purge(
                zone: zone, dryRun: options.dryRun, author: ctx.historyAuthor,
                progress: { done, total in bar.update(done: done, total: total) })
        }
        // Each original that could not be removed, on stderr: the purge itself is committed, so
        // it is a partial result (exit 1, as for import's files that failed), not an error.
        for left in report.filesLeft {
            ctx.console.itemError(
                left.path,
                "\(report.dryRun ? "would not be removed" : "not removed") (the purge is \(report.dryRun ? "possible" : "done")): \(left.reason)"
            )
        }
        if ctx.global.json {
            ctx.console.printJSON(report.json)
        } else if !ctx.global.quiet {
            let t = TerminalText.self
            let left = report.filesLeft.isEmpty ? "" : ", \(report.filesLeft.count) left in place"
            ctx.console.print(
                "\(report.dryRun ? "Would purge" : "Purged") zone \(zone): \(counts(report))\(report.dryRun ? "" : "; \(t.plural(report.filesRemoved, "original file")) removed\(left)")"
            )
        }
    }

    /// "3 photos, 2 ratings, 1 tag, 0 participants, 1 share".
    static func counts(_ report: PurgeReport) -> String {
        let t = TerminalText.self
        return [
            t.plural(report.photos, "photo"), t.plural(report.ratings, "rating"), t.plural(report.tags, "tag"),
            t.plural(report.participants, "participant"), t.plural(report.shares, "share")
        ].joined(separator: ", ")
    }
}
