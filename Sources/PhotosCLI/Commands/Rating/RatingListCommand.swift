import Foundation
import PhotosCore

/// `photos rating list PHOTO`.
enum RatingListCommand: Command {
    static let configuration = CommandConfiguration(
        path: ["rating", "list"],
        abstract: "List a photo's ratings with their ids and authors.",
        discussion:
            #"AUTHOR is - for an anonymous rating (from before ratings had authors, or read from an XMP sidecar on import). With --json, one {"id":N,"value":N,"photo":"uniqueName","author":"name" or null} per line."#
    )

    struct Options: ParsableOptions {
        var photo = ""
        static var arguments: [Argument<Options>] { [.one(\.photo, "photo", help: PhotoArguments.one)] }
    }

    static func run(_ options: Options, _ ctx: CommandContext) throws {
        let library = try ctx.openLibraryForReading()
        let photo = try ctx.resolvePhoto(options.photo, in: library)
        let ratings = try library.ratings(of: photo)
        if ctx.global.json {
            for rating in ratings { ctx.console.printJSON(rating.json) }
            return
        }
        let t = TerminalText.self
        if !ctx.global.quiet { ctx.console.print("ID      VALUE  AUTHOR") }
        for rating in ratings {
            ctx.console.print(
                t.padRight(String(rating.id), 8) + t.padRight(String(rating.value), 7)
                    + t.printable(rating.author ?? "-"))
        }
    }
}
