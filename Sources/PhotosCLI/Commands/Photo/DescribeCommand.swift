import Foundation
import PhotosCore

/// `photos describe PHOTO… [--title T] [--description D]` (issue 26 item 6).
enum DescribeCommand: Command {
    static let configuration = CommandConfiguration(
        path: ["describe"],
        abstract: "Set or clear the title and description of photos.",
        discussion: """
            Sets the title (--title) and/or description (--description) of each photo; an empty
            string clears it, and what is not given stays. Surrounding white space is trimmed and
            control characters become spaces (a description keeps its line breaks); a title holds
            at most 2000 bytes of UTF-8 and a description 65536 (longer exits 64). Several photos
            (or - for uniqueNames on stdin) are described in one transaction, recorded as one
            history transaction (context describe) that sync carries; if one is unknown or
            ambiguous nothing changes, and a photo in a share shared with this library read-only
            exits 77. Import reads titles and descriptions from XMP dc:title and dc:description,
            and EXIF ImageDescription; show prints them, list --json gives them as title and
            description, list --search finds them.
            """,
        examples: [
            "photos describe 3f2a --title 'Kite festival' --description 'Berck, April'",
            "photos describe 3f2a 9b1c --description ''"
        ]
    )

    struct Options: ParsableOptions {
        var photos: [String] = []
        var title: String?
        var description: String?

        static var options: [Option<Options>] {
            [
                .value(\.title, "--title", value: "TEXT", help: "The title (empty: clear it)."),
                .value(\.description, "--description", value: "TEXT", help: "The description (empty: clear it).")
            ]
        }
        static var arguments: [Argument<Options>] {
            [.many(\.photos, "photo", help: "The photos (uniqueNames or prefixes; - reads them from stdin).")]
        }

        mutating func validate() throws {
            if photos.isEmpty { throw UsageError("missing <photo>") }
            if title == nil && description == nil { throw UsageError("give --title, --description or both") }
            if let title, title.utf8.count > PhotoText.maxTitleBytes {
                throw UsageError("--title is longer than \(PhotoText.maxTitleBytes) bytes")
            }
            if let description, description.utf8.count > PhotoText.maxDescriptionBytes {
                throw UsageError("--description is longer than \(PhotoText.maxDescriptionBytes) bytes")
            }
        }
    }

    static func run(_ options: Options, _ ctx: CommandContext) throws {
        let library = try ctx.openLibrary()
        let photos = try ctx.resolvePhotos(options.photos, in: library)
        let changes = try library.describePhotos(
            photos, title: options.title, description: options.description, author: ctx.historyAuthor)
        if ctx.global.json {
            for change in changes { ctx.console.printJSON(change.json) }
        } else if !ctx.global.quiet {
            let changed = changes.filter(\.changed).count
            ctx.console.print(
                "Described \(changed) photo\(changed == 1 ? "" : "s")\(changes.count > changed ? " (\(changes.count - changed) unchanged)" : "")"
            )
        }
    }
}
