import Foundation
import PhotosCore

/// `photos dedupe-tags [--all] [--dry-run]`.
enum DedupeTagsCommand: Command {
    static let configuration = CommandConfiguration(
        path: ["dedupe-tags"],
        abstract: "Merge tags with the same name in the same zone; the smallest uuid wins.",
        discussion: """
            For every tag that history shows inserted since this command's consumer token (or every
            tag with --all), finds the tags with the same NFC name in the same zone, keeps the one
            with the smallest uuid (byte order), re-points the photos of the others to it and deletes
            the others. One transaction, author dedupe-tags (unless --author). Running it in any
            order, any number of times, on any copy of the data gives the same winners. On a
            terminal it asks before deleting duplicates, naming the tags and photos relinked (--yes
            skips the question; never asked when not on a terminal, so cron runs it as before).
            --fold also takes names that differ only by case or accents ('Café' and 'cafe') as the
            same, the rule by which every command finds a tag by name, and examines every tag; the
            smallest uuid still wins and keeps its name. Named for folding (Unicode's case folding
            and Foundation's diacritic folding, both at once), not --fold-case: accents fold too.
            """)

    struct Options: ParsableOptions {
        var all = false
        var fold = false
        var dryRun = false
        var yes = false
        static var options: [Option<Options>] {
            [
                .flag(\.all, "--all", help: "Examine every tag, not only those inserted since the last run."),
                .flag(
                    \.fold, "--fold",
                    help: "Also merge names that differ only by case or accents (Café, cafe); implies --all."),
                .flag(\.dryRun, "--dry-run", help: "List what would merge; change nothing."),
                Confirmation.yes(\.yes)
            ]
        }
    }

    static func run(_ options: Options, _ ctx: CommandContext) throws {
        let library = try ctx.openLibrary(dryRun: options.dryRun)
        let t = TerminalText.self
        let report = try ctx.confirmingDestruction(
            library, yes: options.yes, dryRun: options.dryRun,
            question: { (preview: DedupeReport) in
                (
                    "Delete \(t.plural(preview.merged, "duplicate tag")) in \(t.plural(preview.groups.count, "group")), relinking \(t.plural(preview.photosRelinked, "photo")) to the tags that stay?",
                    preview.merged
                )
            },
            run: {
                try library.dedupeTags(
                    all: options.all, dryRun: options.dryRun, author: ctx.historyAuthor, fold: options.fold)
            })
        if ctx.global.json {
            ctx.console.printJSON(report.json)
            return
        }
        guard !ctx.global.quiet else { return }
        for group in report.groups {
            ctx.console.print(
                "\(report.dryRun ? "would merge" : "merged") \(group.losers.count) × '\(t.printable(group.name))' in zone \(group.zone) into \(group.winner) (\(t.plural(group.photosRelinked, "photo")) relinked)"
            )
        }
        for group in report.leftToOwners {
            ctx.console.print(
                "left \(group.losers.count + 1) × '\(t.printable(group.name))' in shared zone \(group.zone) to its owner (only the owner of a share merges its tags)"
            )
        }
        ctx.console.print(
            "\(report.dryRun ? "Would merge" : "Merged") \(t.plural(report.merged, "duplicate tag")) in \(t.plural(report.groups.count, "group")); \(t.plural(report.photosRelinked, "photo")) relinked"
        )
    }
}
