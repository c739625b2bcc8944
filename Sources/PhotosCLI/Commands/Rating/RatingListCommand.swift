import Foundation
import PhotosCore

/// `photos rating list PHOTO`.
enum RatingListCommand: Command {
    static let configuration = CommandConfiguration(
        path: ["rating", "list"],
        abstract: "List a photo's ratings with their ids.",
        discussion: #"With --json, one {"id":N,"value":N,"photo":"uniqueName"} per line."#)

    struct Options: ParsableOptions {
        var photo = ""
        static var arguments: [Argument<Options>] { [.one(\.photo, "photo", help: PhotoArguments.one)] }
    }

    static func run(_ options: Options, _ ctx: CommandContext) throws {
        let library = try ctx.openLibraryForReading()
        let photo = try library.resolvePhoto(options.photo)
        let ratings = try library.ratings(of: photo)
        if ctx.global.json {
            for rating in ratings { ctx.console.printJSON(rating.json) }
            return
        }
        if !ctx.global.quiet { ctx.console.print("ID      VALUE") }
        for rating in ratings { ctx.console.print(TerminalText.padRight(String(rating.id), 8) + String(rating.value)) }
    }
}
