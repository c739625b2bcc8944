import Foundation
import PhotosCore

/// `photos share set ID [--title T] [--public-permission P]`.
enum ShareSetCommand: Command {
    static let configuration = CommandConfiguration(
        path: ["share", "set"],
        abstract: "Change a share's title or public permission.")

    struct Options: ParsableOptions {
        var share = ""
        var title: ShareTitle?
        var publicPermission: SharePermission?
        static var options: [Option<Options>] {
            [
                .value(\.title, "--title", value: "TITLE", help: "The new title.", parser: .shareTitle),
                .value(
                    \.publicPermission, "--public-permission", value: "PERMISSION",
                    help:
                        "none, read-only or read-write: the share's public permission (CloudKit's CKShare.publicPermission), recorded and synced; photos makes no links, so it grants nothing by itself.",
                    parser: .permission(allowNone: true))
            ]
        }
        static var arguments: [Argument<Options>] { [ShareArguments.share(\.share)] }

        func validate() throws {
            guard title != nil || publicPermission != nil else {
                throw UsageError("give --title or --public-permission")
            }
        }
    }

    static func run(_ options: Options, _ ctx: CommandContext) throws {
        let library = try ctx.openLibrary()
        let share = try library.resolveShare(options.share)
        let changed = try library.updateShare(
            share, title: options.title, publicPermission: options.publicPermission, author: ctx.historyAuthor)
        let now = try library.share(id: share.id)
        if ctx.global.json {
            ctx.console.printJSON(now.json)
        } else if !ctx.global.quiet {
            ctx.console.print(
                changed
                    ? "Updated share \(now.id): title '\(TerminalText.printable(now.title))', public permission \(now.publicPermission)"
                    : "Share \(now.id) already has these settings; nothing changed")
        }
    }
}
