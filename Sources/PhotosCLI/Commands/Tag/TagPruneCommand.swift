import Foundation
import PhotosCore

/// `photos tag prune [--zone ID] [--dry-run]` (issue 32 item 8).
enum TagPruneCommand: Command {
    static let configuration = CommandConfiguration(
        path: ["tag", "prune"],
        abstract: "Delete the tags no photo has.",
        discussion:
            "Deletes every tag that no photo has, in the zone given by --zone or in every zone, in one history transaction (context 'tag prune', a tombstone with the name and uuid per tag). No photo changes. Prints 'Deleted 2 unused tags: Beach, Kite' (each tag's zone beside it when there are several), or 'No unused tags' (exit 0). --dry-run prints what would be deleted and changes nothing.",
        examples: ["photos tag prune --dry-run", "photos tag prune"])

    struct Options: ParsableOptions {
        var zone: String?
        var dryRun = false
        static var options: [Option<Options>] {
            [
                TagArguments.zone(\.zone),
                .flag(\.dryRun, "--dry-run", help: "Print what would be deleted; change nothing.")
            ]
        }
        static var arguments: [Argument<Options>] { [] }
    }

    static func run(_ options: Options, _ ctx: CommandContext) throws {
        let library = try ctx.openLibrary(dryRun: options.dryRun)
        let pruned = try library.pruneTags(
            zone: options.zone.map(ZoneID.init(rawValue:)), author: ctx.historyAuthor)
        if ctx.global.json {
            ctx.console.printJSON(
                .object([
                    ("deleted", .int(pruned.count)), ("dryRun", .bool(options.dryRun)),
                    (
                        "tags",
                        .array(
                            pruned.map {
                                .object([
                                    ("uuid", .string($0.uuid)), ("name", .string($0.name)), ("zone", .string($0.zone))
                                ])
                            })
                    )
                ]))
            return
        }
        guard !ctx.global.quiet else { return }
        guard !pruned.isEmpty else { return ctx.console.print("No unused tags") }
        let zones = Set(pruned.map(\.zone)).count > 1
        let names = pruned.map { TerminalText.printable($0.name) + (zones ? " (\($0.zone))" : "") }
        ctx.console.print(
            "\(options.dryRun ? "Would delete" : "Deleted") \(TerminalText.plural(pruned.count, "unused tag")): "
                + names.joined(separator: ", "))
    }
}
