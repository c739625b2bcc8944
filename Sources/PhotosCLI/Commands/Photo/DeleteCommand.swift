import Foundation
import PhotosCore

/// `photos delete PHOTO...`.
enum DeleteCommand: Command {
    static let configuration = CommandConfiguration(
        path: ["delete"],
        abstract: "Delete photos with their data, thumbnails and ratings.",
        discussion:
            "Tags stay (their links are removed). An original is removed from the library once no photo references it. Every photo is resolved first: if one is unknown or ambiguous, nothing is deleted."
    )

    struct Options: ParsableOptions {
        var photos: [String] = []
        static var arguments: [Argument<Options>] { [.many(\.photos, "photo", help: PhotoArguments.many)] }
    }

    static func run(_ options: Options, _ ctx: CommandContext) throws {
        let library = try ctx.openLibrary()
        let photos = try ctx.resolvePhotos(options.photos, in: library)
        let deleted = try library.deletePhotos(photos, author: ctx.historyAuthor)
        if ctx.global.json {
            ctx.console.printJSON(
                .object([("deleted", .int(deleted.count)), ("uniqueNames", .array(deleted.map(JSONValue.string)))]))
        } else if !ctx.global.quiet {
            ctx.console.print("Deleted \(TerminalText.plural(deleted.count, "photo"))")
        }
    }
}
