import Foundation
import PhotosCore

/// `photos rating delete ID`.
enum RatingDeleteCommand: Command {
    static let configuration = CommandConfiguration(
        path: ["rating", "delete"],
        abstract: "Delete one rating by its id (see 'photos rating list').")

    struct Options: ParsableOptions {
        var id: Int64 = 0
        static var arguments: [Argument<Options>] {
            [
                .one(\.id, "id", help: "The rating's id.") { text in
                    guard let id = Int64(text), id > 0 else {
                        throw UsageError("rating id '\(text)' is not a positive whole number")
                    }
                    return id
                }
            ]
        }
    }

    static func run(_ options: Options, _ ctx: CommandContext) throws {
        let library = try ctx.openLibrary()
        let rating = try library.deleteRating(id: options.id, author: ctx.historyAuthor)
        if ctx.global.json {
            ctx.console.printJSON(rating.json)
        } else if !ctx.global.quiet {
            ctx.console.print("Deleted rating \(rating.id) (value \(rating.value)) of photo \(rating.photo)")
        }
    }
}
