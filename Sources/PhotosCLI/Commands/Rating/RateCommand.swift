import Foundation
import PhotosCore

/// `photos rate PHOTO VALUE` and `photos rate PHOTO --clear` (SPEC §5, issue 14 item 4).
enum RateCommand: Command {
    static let configuration = CommandConfiguration(
        path: ["rate"],
        abstract: "Set your rating (1 to 5) of a photo, or remove it with --clear.",
        discussion: """
            A photo keeps one rating per author (the history author: --author, else $PHOTOS_AUTHOR,
            else photos): rating it again replaces your earlier rating, --clear removes it, and other
            authors' ratings stay. Ratings from before ratings had authors, and those read from XMP
            sidecars on import, are anonymous: they stay and count. The photo's rating in list and
            show is the mean of all its ratings, rounded half up. A value that is not a whole number
            from 1 to 5 exits 64.
            """,
        examples: ["photos rate 3f2a 5", "photos --author alice rate 3f2a 4", "photos rate 3f2a --clear"]
    )

    struct Options: ParsableOptions {
        var photo = ""
        var value: RatingValue?
        var clear = false

        static var options: [Option<Options>] {
            [.flag(\.clear, "--clear", help: "Remove your rating of the photo instead of setting one.")]
        }
        static var arguments: [Argument<Options>] {
            [
                .one(\.photo, "photo", help: PhotoArguments.one),
                .optional(
                    \.value, "value", help: "A whole number from 1 to 5 (not with --clear).",
                    parse: { try RatingValue(parsing: $0) })
            ]
        }

        func validate() throws {
            if clear && value != nil { throw UsageError("give a value or --clear, not both") }
            if !clear && value == nil { throw UsageError("missing <value> (a whole number from 1 to 5), or --clear") }
        }
    }

    static func run(_ options: Options, _ ctx: CommandContext) throws {
        let library = try ctx.openLibrary()
        let photo = try ctx.resolvePhoto(options.photo, in: library)
        guard let value = options.value else {
            let removed = try library.clearRating(of: photo, author: ctx.historyAuthor)
            if ctx.global.json {
                ctx.console.printJSON(
                    .object([
                        ("cleared", .bool(removed != nil)), ("photo", .string(photo.uniqueName)),
                        ("rating", removed?.json ?? .null)
                    ]))
            } else if !ctx.global.quiet {
                let author = ctx.historyAuthor.name(for: .rate)
                let mean = try library.resolvePhoto(photo.uniqueName).rating.map(String.init) ?? "-"
                ctx.console.print(
                    removed.map {
                        "Removed \(author)'s rating \($0.value) of \(photo.uniqueName) (the photo's rating is now \(mean))"
                    } ?? "\(photo.uniqueName) has no rating by \(author); nothing changed")
            }
            return
        }
        let (rating, change) = try library.setRating(value, of: photo, author: ctx.historyAuthor)
        if ctx.global.json {
            ctx.console.printJSON(rating.json)
        } else if !ctx.global.quiet {
            let mean = try library.resolvePhoto(photo.uniqueName).rating.map(String.init) ?? "-"
            let what: String
            switch change {
            case .added: what = "Rated \(photo.uniqueName) \(value.rawValue)"
            case .replaced(let previous): what = "Rated \(photo.uniqueName) \(value.rawValue) (was \(previous))"
            case .unchanged: what = "\(photo.uniqueName) was already rated \(value.rawValue)"
            }
            ctx.console.print(
                "\(what) by \(rating.author ?? "-") (rating id \(rating.id); the photo's rating is now \(mean))")
        }
    }
}
