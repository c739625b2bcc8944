import Foundation
import PhotosCore

/// `photos rate`, `photos rating list|delete` (SPEC §5).
enum RatingCommands {
    static let rate = CommandSpec(
        path: ["rate"],
        abstract: "Add a rating (1 to 5) to a photo.",
        discussion: "Each rating is its own row (as in the seed); the photo's rating in list and show is the mean of its ratings, rounded half up. A value that is not a whole number exits 64, one outside 1 to 5 exits 65.",
        arguments: [ArgumentSpec("photo", help: "A uniqueName, or an unambiguous prefix of at least 4 characters."),
                    ArgumentSpec("value", help: "A whole number from 1 to 5.")],
        positionals: (2, 2),
        run: { args, ctx in
            let value = try RatingValue(parsing: args.positionals[1])
            let library = try ctx.openLibrary()
            let photo = try library.resolvePhoto(args.positionals[0])
            let rating = try library.addRating(value, to: photo, author: ctx.historyAuthor)
            if ctx.json { ctx.printJSON(rating.json) }
            else if !ctx.quiet {
                let mean = try library.resolvePhoto(photo.uniqueName).rating.map(String.init) ?? "-"
                ctx.print("Rated \(photo.uniqueName) \(value.rawValue) (rating id \(rating.id); the photo's rating is now \(mean))")
            }
            return .ok
        })

    static let list = CommandSpec(
        path: ["rating", "list"],
        abstract: "List a photo's ratings with their ids.",
        discussion: #"With --json, one {"id":N,"value":N,"photo":"uniqueName"} per line."#,
        arguments: [ArgumentSpec("photo", help: "A uniqueName, or an unambiguous prefix of at least 4 characters.")],
        positionals: (1, 1),
        run: { args, ctx in
            let library = try ctx.openLibraryForReading()
            let photo = try library.resolvePhoto(args.positionals[0])
            let ratings = try library.ratings(of: photo)
            if ctx.json {
                for rating in ratings { ctx.printJSON(rating.json) }
                return .ok
            }
            if !ctx.quiet { ctx.print("ID      VALUE") }
            for rating in ratings { ctx.print(String(rating.id).padding(toLength: 8, withPad: " ", startingAt: 0) + String(rating.value)) }
            return .ok
        })

    static let delete = CommandSpec(
        path: ["rating", "delete"],
        abstract: "Delete one rating by its id (see 'photos rating list').",
        arguments: [ArgumentSpec("id", help: "The rating's id.")],
        positionals: (1, 1),
        run: { args, ctx in
            guard let id = Int64(args.positionals[0]), id > 0 else {
                throw PhotosError.usage("rating id '\(args.positionals[0])' is not a positive whole number")
            }
            let library = try ctx.openLibrary()
            let rating = try library.deleteRating(id: id, author: ctx.historyAuthor)
            if ctx.json { ctx.printJSON(rating.json) }
            else if !ctx.quiet { ctx.print("Deleted rating \(rating.id) (value \(rating.value)) of photo \(rating.photo)") }
            return .ok
        })
}
