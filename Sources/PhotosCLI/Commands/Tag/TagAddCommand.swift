import Foundation
import PhotosCore

/// `photos tag add NAME PHOTO...`.
enum TagAddCommand: Command {
    static let configuration = CommandConfiguration(
        path: ["tag", "add"],
        abstract: "Add a tag to photos.",
        discussion: """
            The name is trimmed and stored NFC-normalized; an empty name or one with control
            characters is refused (exit 65). Each photo gets the same-named tag of its own zone,
            created with a fresh random UUID when the zone has none. A photo that already has the tag
            is left unchanged. Every photo is resolved first: if one is unknown or ambiguous, nothing
            changes.
            """,
        examples: [
            "photos tag add Beach 3f2a 9b1c",
            "photos list --untagged --json | jq -r .uniqueName | photos tag add inbox -"
        ])

    struct Options: ParsableOptions {
        var name = TagName(rawValue: "")
        var photos: [String] = []
        static var arguments: [Argument<Options>] {
            [TagArguments.name(\.name), .many(\.photos, "photo", help: PhotoArguments.many)]
        }
    }

    static func run(_ options: Options, _ ctx: CommandContext) throws {
        let library = try ctx.openLibrary()
        let photos = try ctx.resolvePhotos(options.photos, in: library)
        let added = try library.addTag(options.name, to: photos, author: ctx.historyAuthor)
        if ctx.global.json {
            ctx.console.printJSON(.object([("tag", .string(options.name.rawValue)), ("added", .int(added))]))
        } else if !ctx.global.quiet {
            ctx.console.print(
                "Tagged \(TerminalText.plural(added, "photo")) with '\(TerminalText.printable(options.name.rawValue))'")
        }
    }
}
