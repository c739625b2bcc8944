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
            DeleteCommand.question(photos), objects: count, yes: options.yes, dryRun: options.dryRun)
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

    /// The question `delete` asks on a terminal: the photos, and what goes with them counted
    /// (issue 31 A10: the objects affected are named): their thumbnails, their ratings and their
    /// tag links (the tags stay), and how many are photos of a share (they go for its
    /// participants too). `Delete 1 photo (storm.jpg) with its thumbnail, 2 ratings and 3 tag
    /// links?`; counts of 0 are left out.
    static func question(_ photos: [PhotoRecord]) -> String {
        var seen = Set<String>()
        let unique = photos.filter { seen.insert($0.uniqueName).inserted }
        let count = unique.count
        let ratings = unique.reduce(0) { $0 + $1.ratings.count }
        let links = unique.reduce(0) { $0 + $1.tags.count }
        let inShares = unique.filter { $0.zone != ZoneID.default.rawValue }.count
        var parts = [count == 1 ? "its thumbnail" : "their thumbnails"]
        if ratings > 0 { parts.append(TerminalText.plural(ratings, "rating")) }
        if links > 0 { parts.append(TerminalText.plural(links, "tag link")) }
        let what =
            parts.count == 1 ? parts[0] : parts.dropLast().joined(separator: ", ") + " and " + parts[parts.count - 1]
        let photosText =
            count == 1
            ? "1 photo (\(TerminalText.printable(unique[0].displayName)))" : TerminalText.plural(count, "photo")
        var question = "Delete \(photosText) with \(what)"
        if inShares > 0 {
            question +=
                count == 1
                ? ", from its share (for the share's participants too)"
                : "; \(inShares) of them from shares (for their participants too)"
        }
        return question + "?"
    }
}
