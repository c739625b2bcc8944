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
            """)

    struct Options: ParsableOptions {
        var share = ""
        var dryRun = false
        static var options: [Option<Options>] {
            [
                .required(
                    \.share, "--share", value: "ID",
                    help: "The share (or zone) id, or an unambiguous prefix of at least 4 characters."),
                .flag(\.dryRun, "--dry-run", help: "Print the counts only; change nothing.")
            ]
        }
    }

    static func run(_ options: Options, _ ctx: CommandContext) throws {
        let library = try ctx.openLibrary(dryRun: options.dryRun)
        let zone = try library.resolveZone(options.share)
        let report = try library.purge(zone: zone, dryRun: options.dryRun, author: ctx.historyAuthor)
        if ctx.global.json {
            ctx.console.printJSON(report.json)
        } else if !ctx.global.quiet {
            let t = TerminalText.self
            let counts = [
                t.plural(report.photos, "photo"), t.plural(report.ratings, "rating"), t.plural(report.tags, "tag"),
                t.plural(report.participants, "participant"), t.plural(report.shares, "share")
            ].joined(separator: ", ")
            ctx.console.print(
                "\(report.dryRun ? "Would purge" : "Purged") zone \(zone): \(counts)\(report.dryRun ? "" : "; \(t.plural(report.filesRemoved, "original file")) removed")"
            )
        }
    }
}
