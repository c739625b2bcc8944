import Foundation
import PhotosCore

/// `photos delete PHOTO...`.
enum DeleteCommand: Command {
    static let configuration = CommandConfiguration(
        path: ["delete"],
        abstract: "Delete photos with their data, thumbnails and ratings.",
        discussion:
            "Tags stay (their links are removed). An original is removed from the library once no photo references it; one that cannot be (a folder in its place, a permission or I/O error) is named on stderr with why and the exit status is 1, the photos deleted. Every photo is resolved first: if one is unknown or ambiguous, nothing is deleted. On a terminal, deleting photos asks first (--yes skips the question; never asked when stdin or stderr is not a terminal). --dry-run deletes and rolls back: it prints what would be deleted."
    )

    struct Options: ParsableOptions {
        var photos: [String] = []
        var dryRun = false
        var yes = false
        static var options: [Option<Options>] {
            [
                .flag(\.dryRun, "--dry-run", help: "Print what would be deleted; change nothing."),
                Confirmation.yes(\.yes)
            ]
        }
        static var arguments: [Argument<Options>] { [.many(\.photos, "photo", help: PhotoArguments.many)] }
    }

    static func run(_ options: Options, _ ctx: CommandContext) throws {
        let library = try ctx.openLibrary(dryRun: options.dryRun)
        let photos = try ctx.resolvePhotos(options.photos, in: library)
        let count = Set(photos.map(\.uniqueName)).count
        try ctx.confirm(
            count == 1
                ? "Delete 1 photo (\(TerminalText.printable(photos[0].displayName))) with its thumbnail and ratings?"
                : "Delete \(TerminalText.plural(count, "photo")) with their thumbnails and ratings?", objects: count,
            yes: options.yes, dryRun: options.dryRun)
        let (deleted, left) = try library.deletePhotosSayingWhy(photos, author: ctx.historyAuthor)
        // An original that could not be removed after the commit: the photos are deleted, so a
        // partial result (exit 1), named on stderr as purge names them.
        for file in left {
            ctx.console.itemError(file.path, "not removed (the photo is deleted): \(file.reason)")
        }
        if ctx.global.json {
            ctx.console.printJSON(
                .object([
                    ("deleted", .int(deleted.count)), ("uniqueNames", .array(deleted.map(JSONValue.string))),
                    ("filesLeft", .array(left.map(\.json))), ("dryRun", .bool(options.dryRun))
                ]))
        } else if !ctx.global.quiet {
            let verb = options.dryRun ? "Would delete" : "Deleted"
            ctx.console.print("\(verb) \(TerminalText.plural(deleted.count, "photo"))")
            if options.dryRun { for name in deleted { ctx.console.print("  " + name) } }
        }
    }
}
