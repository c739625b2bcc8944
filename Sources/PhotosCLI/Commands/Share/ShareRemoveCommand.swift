import Foundation
import PhotosCore

/// `photos share remove ID PHOTO... [--dry-run] [--yes]` (issue 32 item 4).
enum ShareRemoveCommand: Command {
    static let configuration = CommandConfiguration(
        path: ["share", "remove"],
        abstract: "Move photos out of a share, back to the private default zone.",
        discussion: """
            The inverse of 'share add': each photo goes back to the default zone with its photo
            data, thumbnail and ratings, each of its tags replaced by the default zone's tag of that
            name (created when absent), then the default zone's same-named tags are merged. A photo
            not in the share is refused (65); in a share shared with this library by someone else,
            exit 77. On a terminal it asks first (--yes skips the question); --dry-run checks and
            prints what would move, changing nothing.
            """,
        examples: ["photos share remove 'Paris 2024' 6C46 9F1B --dry-run"])

    struct Options: ParsableOptions {
        var share = ""
        var photos: [String] = []
        var dryRun = false
        var yes = false
        static var options: [Option<Options>] { [Confirmation.dryRun(\.dryRun), Confirmation.yes(\.yes)] }
        static var arguments: [Argument<Options>] {
            [ShareArguments.share(\.share), .many(\.photos, "photo", help: PhotoArguments.many)]
        }
    }

    static func run(_ options: Options, _ ctx: CommandContext) throws {
        let library = try ctx.openLibrary(dryRun: options.dryRun)
        let share = try library.resolveShare(options.share)
        let photos = try ctx.resolvePhotos(options.photos, in: library)
        let named = "share '\(TerminalText.printable(share.title))' (\(share.id))"
        let result = try ctx.confirmingDestruction(
            library, yes: options.yes, dryRun: options.dryRun,
            question: { (preview: ShareAddResult) in
                ("Move \(TerminalText.plural(preview.moved, "photo")) out of \(named)?", preview.moved)
            },
            run: { try library.removeFromShare(share, photos: photos, author: ctx.historyAuthor) })
        if ctx.global.json {
            ctx.console.printJSON(
                .object([
                    ("share", .string(share.id)), ("moved", .int(result.moved)),
                    ("mergedTags", .int(result.mergedTags)), ("dryRun", .bool(options.dryRun))
                ]))
        } else if !ctx.global.quiet {
            var line =
                "\(options.dryRun ? "Would move" : "Moved") \(TerminalText.plural(result.moved, "photo")) out of \(named) into the default zone"
            if result.mergedTags > 0 { line += "; merged \(TerminalText.plural(result.mergedTags, "duplicate tag"))" }
            ctx.console.print(line)
        }
    }
}
