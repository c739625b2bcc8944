import Foundation
import PhotosCore

/// `photos tag remove NAME PHOTO... [--dry-run] [--yes]`.
enum TagRemoveCommand: Command {
    static let configuration = CommandConfiguration(
        path: ["tag", "remove"],
        abstract: "Remove a tag from photos (the tag itself stays).",
        discussion:
            "Removes every tag of that name in each photo's zone from the photo. Exit 66 when no tag of that name exists in the photos' zones. On a terminal it asks first, naming the photos that have the tag (--yes skips the question; never asked when not on a terminal); --dry-run prints what would be removed and changes nothing."
    )

    struct Options: ParsableOptions {
        var name = TagName(rawValue: "")
        var photos: [String] = []
        var dryRun = false
        var yes = false
        static var options: [Option<Options>] { [Confirmation.dryRun(\.dryRun), Confirmation.yes(\.yes)] }
        static var arguments: [Argument<Options>] {
            [TagArguments.name(\.name), .many(\.photos, "photo", help: PhotoArguments.many)]
        }
    }

    static func run(_ options: Options, _ ctx: CommandContext) throws {
        let library = try ctx.openLibrary(dryRun: options.dryRun)
        let photos = try ctx.resolvePhotos(options.photos, in: library)
        let name = TerminalText.printable(options.name.rawValue)
        let removed = try ctx.confirmingDestruction(
            library, yes: options.yes, dryRun: options.dryRun,
            question: { (preview: Int) in
                ("Remove tag '\(name)' from \(TerminalText.plural(preview, "photo"))?", preview)
            },
            run: { try library.removeTag(options.name, from: photos, author: ctx.historyAuthor) })
        if ctx.global.json {
            ctx.console.printJSON(
                .object([
                    ("tag", .string(options.name.rawValue)), ("removed", .int(removed)),
                    ("dryRun", .bool(options.dryRun))
                ]))
        } else if !ctx.global.quiet {
            ctx.console.print(
                "\(options.dryRun ? "Would remove" : "Removed") '\(name)' from \(TerminalText.plural(removed, "photo"))"
            )
        }
    }
}
