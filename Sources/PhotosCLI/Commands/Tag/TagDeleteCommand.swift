import Foundation
import PhotosCore

/// `photos tag delete NAME [--zone ID]`.
enum TagDeleteCommand: Command {
    static let configuration = CommandConfiguration(
        path: ["tag", "delete"],
        abstract: "Delete a tag; its photos stay.",
        discussion:
            "Deletes every tag of that name in the zone given by --zone, or in every zone. The photos keep everything else (delete rule nullify). History keeps a tombstone with the name and uuid. Exit 66 when there is no such tag."
    )

    struct Options: ParsableOptions {
        var name = ""
        var zone: String?
        static var options: [Option<Options>] { [TagArguments.zone(\.zone)] }
        // As given: a name the library holds is found even when it would not normalize today.
        static var arguments: [Argument<Options>] { [.one(\.name, "name", help: TagArguments.nameHelp)] }
    }

    static func run(_ options: Options, _ ctx: CommandContext) throws {
        let library = try ctx.openLibrary()
        // Parsed after the library is opened, as before: a missing library is told first.
        let deleted = try library.deleteTag(
            TagName(parsing: options.name), zone: options.zone.map(ZoneID.init(rawValue:)), author: ctx.historyAuthor)
        if ctx.global.json {
            ctx.console.printJSON(
                .object([
                    ("deleted", .int(deleted.count)),
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
                "Deleted \(TerminalText.plural(deleted.count, "tag")) named '\(TerminalText.printable(deleted.first?.name ?? ""))' (zone \(zones))"
            )
        }
    }
}
