import Foundation
import PhotosCore

/// `photos rating delete ID`.
enum RatingDeleteCommand: Command {
    static let configuration = CommandConfiguration(
        path: ["rating", "delete"],
        abstract: "Delete one rating by its id (see 'photos rating list').",
        discussion:
            "On a terminal it asks first, naming the rating's value, author and photo (--yes skips the question; never asked when not on a terminal); --dry-run prints what would be deleted and changes nothing."
    )

    struct Options: ParsableOptions {
        var id: Int64 = 0
        var dryRun = false
        var yes = false
        static var options: [Option<Options>] { [Confirmation.dryRun(\.dryRun), Confirmation.yes(\.yes)] }
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
        let library = try ctx.openLibrary(dryRun: options.dryRun)
        let rating = try ctx.confirmingDestruction(
            library, yes: options.yes, dryRun: options.dryRun,
            question: { (preview: RatingInfo) in ("Delete rating \(describe(preview, author: true))?", 1) },
            run: { try library.deleteRating(id: options.id, author: ctx.historyAuthor) })
        if ctx.global.json {
            guard options.dryRun, case .object(var pairs) = rating.json else {
                return ctx.console.printJSON(rating.json)
            }
            pairs.append(("dryRun", .bool(true)))
            ctx.console.printJSON(.object(pairs))
        } else if !ctx.global.quiet {
            ctx.console.print(
                "\(options.dryRun ? "Would delete" : "Deleted") rating \(describe(rating, author: false))")
        }
    }

    /// "4 (value 3) of photo 3F2A…", with `author` "4 (value 3 by ann) of photo 3F2A…".
    private static func describe(_ rating: RatingInfo, author: Bool) -> String {
        let by = author ? rating.author.map { " by " + TerminalText.printable($0) } ?? "" : ""
        return "\(rating.id) (value \(rating.value)\(by)) of photo \(rating.photo)"
    }
}
