import Foundation
import PhotosCore

/// `photos rate PHOTO VALUE` (SPEC §5).
enum RateCommand: Command {
    static let configuration = CommandConfiguration(
        path: ["rate"],
        abstract: "Add a rating (1 to 5) to a photo.",
        discussion:
            "Each rating is its own row (as in the seed); the photo's rating in list and show is the mean of its ratings, rounded half up. A value that is not a whole number exits 64, one outside 1 to 5 exits 65."
    )

    struct Options: ParsableOptions {
        var photo = ""
        var value: RatingValue?
        static var arguments: [Argument<Options>] {
            [
                .one(\.photo, "photo", help: PhotoArguments.one),
                .one(\.value, "value", help: "A whole number from 1 to 5.", parse: { try RatingValue(parsing: $0) })
            ]
        }
    }

    static func run(_ options: Options, _ ctx: CommandContext) throws {
        guard let value = options.value else { throw UsageError("missing value") }
        let library = try ctx.openLibrary()
        let photo = try library.resolvePhoto(options.photo)
        let rating = try library.addRating(value, to: photo, author: ctx.historyAuthor)
        if ctx.global.json {
            ctx.console.printJSON(rating.json)
        } else if !ctx.global.quiet {
            let mean = try library.resolvePhoto(photo.uniqueName).rating.map(String.init) ?? "-"
            ctx.console.print(
                "Rated \(photo.uniqueName) \(value.rawValue) (rating id \(rating.id); the photo's rating is now \(mean))"
            )
        }
    }
}
