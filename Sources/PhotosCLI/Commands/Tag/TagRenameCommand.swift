import Foundation
import PhotosCore

/// `photos tag rename OLD NEW [--zone ID]`.
enum TagRenameCommand: Command {
    static let configuration = CommandConfiguration(
        path: ["tag", "rename"],
        abstract: "Rename a tag (merging it into an existing tag of the new name).",
        discussion: """
            Renames the tags named OLD in the zone given by --zone, or in every zone. Where a zone
            already has a tag named NEW, OLD is merged into it: its photos get the existing tag and
            OLD is deleted, so a rename never makes duplicate tags. Exit 66 when there is no tag OLD.
            """)

    struct Options: ParsableOptions {
        var old = TagName(rawValue: "")
        var new = TagName(rawValue: "")
        var zone: String?
        static var options: [Option<Options>] { [TagArguments.zone(\.zone)] }
        static var arguments: [Argument<Options>] {
            [
                TagArguments.name(\.old, "old", help: "The current name."),
                TagArguments.name(\.new, "new", help: "The new name.")
            ]
        }
    }

    static func run(_ options: Options, _ ctx: CommandContext) throws {
        let library = try ctx.openLibrary()
        let count = try library.renameTag(
            options.old, to: options.new, zone: options.zone.map(ZoneID.init(rawValue:)), author: ctx.historyAuthor)
        if ctx.global.json {
            ctx.console.printJSON(
                .object([
                    ("from", .string(options.old.rawValue)), ("to", .string(options.new.rawValue)),
                    ("renamed", .int(count))
                ]))
        } else if !ctx.global.quiet {
            ctx.console.print(
                "Renamed \(TerminalText.plural(count, "tag")) '\(TerminalText.printable(options.old.rawValue))' to '\(TerminalText.printable(options.new.rawValue))'"
            )
        }
    }
}
