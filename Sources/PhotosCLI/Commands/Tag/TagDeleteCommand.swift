import Foundation
import PhotosCore

/// `photos tag delete NAME [--zone ID]`.
enum TagDeleteCommand: Command {
    static let configuration = CommandConfiguration(
        path: ["tag", "delete"],
        abstract: "Delete a tag; its photos stay.",
        discussion:
            "Deletes every tag of that name in the zone given by --zone, or in every zone. The photos keep everything else (delete rule nullify). History keeps a tombstone with the name and uuid. Exit 66 when there is no such tag. On a terminal, deleting tags in more than one zone asks first (--yes skips the question; never asked when not on a terminal); --dry-run prints what would be deleted."
    )

    struct Options: ParsableOptions {
        var name = ""
        var zone: String?
        var dryRun = false
        var yes = false
        static var options: [Option<Options>] {
            [
                TagArguments.zone(\.zone),
                .flag(\.dryRun, "--dry-run", help: "Print what would be deleted; change nothing."),
                Confirmation.yes(\.yes)
            ]
        }
        // As given: a name the library holds is found even when it would not normalize today.
        static var arguments: [Argument<Options>] { [.one(\.name, "name", help: TagArguments.nameHelp)] }
    }

    static func run(_ options: Options, _ ctx: CommandContext) throws {
        let library = try ctx.openLibrary(dryRun: options.dryRun)
        // Parsed after the library is opened, as before: a missing library is told first.
        let name = try TagName(parsing: options.name)
        let zone = options.zone.map(ZoneID.init(rawValue:))
        if ctx.mayAsk(yes: options.yes) {
            // What would go, from the same code rolled back, so the question can name it.
            let preview = try library.dryRun(true) {
                try library.deleteTag(name, zone: zone, author: ctx.historyAuthor)
            }
            try ctx.confirm(
                "Delete \(TerminalText.plural(preview.count, "tag")) named '\(options.name)' (zones \(Set(preview.map(\.zone)).sorted().joined(separator: ", ")))?",
                objects: preview.count, yes: options.yes)
        }
        let deleted = try library.deleteTag(name, zone: zone, author: ctx.historyAuthor)
        if ctx.global.json {
            ctx.console.printJSON(
                .object([
                    ("deleted", .int(deleted.count)), ("dryRun", .bool(options.dryRun)),
                    (
                        "tags",
                        .array(
                            deleted.map {
                                .object([
                                    ("uuid", .string($0.uuid)), ("name", .string($0.name)), ("zone", .string($0.zone))
                                ])
                            })
                    )
                ]))
        } else if !ctx.global.quiet {
            let zones = Set(deleted.map(\.zone)).sorted().joined(separator: ", ")
            ctx.console.print(
                "\(options.dryRun ? "Would delete" : "Deleted") \(TerminalText.plural(deleted.count, "tag")) named '\(TerminalText.printable(deleted.first?.name ?? ""))' (zone \(zones))"
            )
        }
    }
}
