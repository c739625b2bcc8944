import Foundation
import PhotosCore

/// `photos tag remove NAME PHOTO...`.
enum TagRemoveCommand: Command {
    static let configuration = CommandConfiguration(
        path: ["tag", "remove"],
        abstract: "Remove a tag from photos (the tag itself stays).",
        discussion:
            "Removes every tag of that name in each photo's zone from the photo. Exit 66 when no tag of that name exists in the photos' zones."
    )

    typealias Options = TagAddCommand.Options

    static func run(_ options: Options, _ ctx: CommandContext) throws {
        let library = try ctx.openLibrary()
        let photos = try ctx.resolvePhotos(options.photos, in: library)
        let removed = try library.removeTag(options.name, from: photos, author: ctx.historyAuthor)
        if ctx.global.json {
            ctx.console.printJSON(.object([("tag", .string(options.name.rawValue)), ("removed", .int(removed))]))
        } else if !ctx.global.quiet {
            ctx.console.print(
                "Removed '\(TerminalText.printable(options.name.rawValue))' from \(TerminalText.plural(removed, "photo"))"
            )
        }
    }
}
