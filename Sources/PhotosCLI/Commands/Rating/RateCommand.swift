import Foundation
import PhotosCore

/// `photos rate PHOTO... VALUE` and `photos rate PHOTO --clear` (SPEC §5, issue 14 item 4;
/// many photos and `-` for stdin, issue 32 item 3).
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
            from 1 to 5 exits 64. Several photos (or - for uniqueNames on stdin) before the value are
            rated in one transaction, recorded as one history transaction; every photo is resolved
            first, and if one is unknown or ambiguous nothing changes. --clear takes one photo.
            """,
        examples: [
            "photos rate 3f2a 5", "photos rate 3f2a 9b1c 4",
            "photos list --tag best --json | jq -r .uniqueName | photos rate - 5",
            "photos --author alice rate 3f2a 4", "photos rate 3f2a --clear"
        ]
    )

    struct Options: ParsableOptions {
        var words: [String] = []
        var value: RatingValue?
        var clear = false
        /// The photos: every word but the value.
        var photos: [String] { clear ? words : Array(words.dropLast()) }

        static var options: [Option<Options>] {
            [.flag(\.clear, "--clear", help: "Remove your rating of the photo instead of setting one.")]
        }
        static var arguments: [Argument<Options>] {
            [
                .many(
                    \.words, "photo-and-value",
                    help:
                        "The photos (uniqueNames or prefixes; - reads them from stdin), then a whole number from 1 to 5 (no value with --clear)."
                )
            ]
        }

        mutating func validate() throws {
            if clear {
                // A one- or two-character word is no photo (prefixes have 4 or more characters).
                if words.count > 1, let last = words.last, last.count <= 2, Int(last) != nil {
                    throw UsageError("give a value or --clear, not both")
                }
                if words.count != 1 { throw UsageError("--clear takes one photo") }
                return
            }
            guard words.count >= 2, let last = words.last else {
                throw UsageError("missing <value> (a whole number from 1 to 5), or --clear")
            }
            value = try RatingValue(parsing: last)
        }
    }

    static func run(_ options: Options, _ ctx: CommandContext) throws {
        let library = try ctx.openLibrary()
        guard let value = options.value else {
            let photo = try ctx.resolvePhoto(options.words[0], in: library)
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
                        "Removed \($0.author ?? author)'s rating \($0.value) of \(photo.uniqueName) (the photo's rating is now \(mean))"
                    } ?? "\(photo.uniqueName) has no rating by \(author); nothing changed")
            }
            return
        }
        let photos = try ctx.resolvePhotos(options.photos, in: library)
        if photos.count != 1 {
            let results = try library.setRatings(value, of: photos, author: ctx.historyAuthor)
            if ctx.global.json {
                for (rating, _) in results { ctx.console.printJSON(rating.json) }
            } else if !ctx.global.quiet {
                var added = 0, replaced = 0, unchanged = 0
                for (_, change) in results {
                    switch change {
                    case .added: added += 1
                    case .replaced: replaced += 1
                    case .unchanged: unchanged += 1
                    }
                }
                // Each rating's own author: a photo in a shared zone is rated by this library's
                // participant there (issue #29 "Identity").
                let authors = Set(results.compactMap { $0.rating.author }).sorted().joined(separator: ", ")
                ctx.console.print(
                    "Rated \(TerminalText.plural(results.count, "photo")) \(value.rawValue) by \(authors.isEmpty ? ctx.historyAuthor.name(for: .rate) : authors) (\(added) added, \(replaced) replaced, \(unchanged) unchanged)"
                )
            }
            return
        }
        let photo = photos[0]
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
