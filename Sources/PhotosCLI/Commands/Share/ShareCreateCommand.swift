import Foundation
import PhotosCore

/// `photos share create PHOTO... [--title T] [--move]` (the owner: the global `--owner`).
enum ShareCreateCommand: Command {
    static let configuration = CommandConfiguration(
        path: ["share", "create"],
        abstract: "Share photos: a new share zone, with the photos moved in.",
        discussion: """
            Creates a share, its own record zone with a fresh random UUID as id, and moves the photos
            into it with their originals, thumbnails and ratings. Each of their tags is replaced by
            the same-named tag of the new zone; the old tag stays with the photos that remain. The
            default title is 'Share-' and the creation date and time in UTC. An owner participant
            (role owner, read-write, accepted) is recorded for the library's owner address (--owner,
            $PHOTOS_OWNER, else 'photos identity set'). A photo
            already in another share is refused (exit 65) unless --move. Prints the new share.
            """,
        examples: [
            "photos share create 3f2a 9b1c --title Summer",
            "photos list --tag sea --json | jq -r .uniqueName | photos share create -"
        ])

    struct Options: ParsableOptions {
        var photos: [String] = []
        var title: ShareTitle?
        var move = false

        static var options: [Option<Options>] {
            [
                .value(
                    \.title, "--title", value: "TITLE", help: "The share's title.",
                    default: "Share-YYYY-MM-DD HH:MM:SS (UTC)", parser: .shareTitle),
                ShareArguments.move(\.move)
            ]
        }
        static var arguments: [Argument<Options>] { [.many(\.photos, "photo", help: PhotoArguments.many)] }
    }

    static func run(_ options: Options, _ ctx: CommandContext) throws {
        let library = try ctx.openLibrary()
        let owner = try ctx.ownerAddress(of: library)
        let photos = try ctx.resolvePhotos(options.photos, in: library)
        let share = try library.createShare(
            photos: photos, title: options.title, owner: owner, allowMove: options.move, author: ctx.historyAuthor)
        if ctx.global.json {
            ctx.console.printJSON(share.json)
        } else if !ctx.global.quiet {
            ctx.console.print(
                "Created share \(share.id) '\(TerminalText.printable(share.title))' with \(TerminalText.plural(share.photoCount, "photo"))"
            )
        }
    }
}
