import Foundation
import PhotosCore

/// `photos share add ID PHOTO... [--move]`.
enum ShareAddCommand: Command {
    static let configuration = CommandConfiguration(
        path: ["share", "add"],
        abstract: "Move photos into an existing share.",
        discussion: """
            Moves the photos into the share's zone the way 'share create' does, then merges the
            zone's same-named tags: the tag with the smallest uuid wins, the photos of the others are
            re-pointed to it and the others are deleted. A photo already in another share is refused
            (exit 65) unless --move.
            """)

    struct Options: ParsableOptions {
        var share = ""
        var photos: [String] = []
        var move = false
        static var options: [Option<Options>] { [ShareArguments.move(\.move)] }
        static var arguments: [Argument<Options>] {
            [ShareArguments.share(\.share), .many(\.photos, "photo", help: PhotoArguments.many)]
        }
    }

    static func run(_ options: Options, _ ctx: CommandContext) throws {
        let library = try ctx.openLibrary()
        let share = try library.resolveShare(options.share)
        let photos = try ctx.resolvePhotos(options.photos, in: library)
        let result = try library.addToShare(share, photos: photos, allowMove: options.move, author: ctx.historyAuthor)
        if ctx.global.json {
            ctx.console.printJSON(
                .object([
                    ("share", .string(share.id)), ("moved", .int(result.moved)), ("mergedTags", .int(result.mergedTags))
                ]))
        } else if !ctx.global.quiet {
            var line = "Moved \(TerminalText.plural(result.moved, "photo")) into share \(share.id)"
            if result.mergedTags > 0 { line += "; merged \(TerminalText.plural(result.mergedTags, "duplicate tag"))" }
            ctx.console.print(line)
        }
    }
}
