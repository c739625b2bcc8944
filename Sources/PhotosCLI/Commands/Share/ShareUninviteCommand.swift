import Foundation
import PhotosCore

/// `photos share uninvite ID EMAIL`.
enum ShareUninviteCommand: Command {
    static let configuration = CommandConfiguration(
        path: ["share", "uninvite"],
        abstract: "Remove a participant from a share.",
        discussion:
            "Exit 66 when the address is not a participant; the owner cannot be removed. On a terminal it asks first (--yes skips the question; never asked when not on a terminal); --dry-run checks and prints what would be removed, changing nothing."
    )

    struct Options: ParsableOptions {
        var share = ""
        var email = Email(rawValue: "")
        var dryRun = false
        var yes = false
        static var options: [Option<Options>] { [Confirmation.dryRun(\.dryRun), Confirmation.yes(\.yes)] }
        static var arguments: [Argument<Options>] { [ShareArguments.share(\.share), ShareArguments.email(\.email)] }
    }

    static func run(_ options: Options, _ ctx: CommandContext) throws {
        let library = try ctx.openLibrary(dryRun: options.dryRun)
        let share = try library.resolveShare(options.share)
        try ctx.confirmingDestruction(
            library, yes: options.yes, dryRun: options.dryRun,
            question: { (_: Void) in ("Remove \(options.email) from share \(share.id)?", 1) },
            run: { try library.uninvite(options.email, from: share, author: ctx.historyAuthor) })
        if ctx.global.json {
            ctx.console.printJSON(
                .object([
                    ("share", .string(share.id)), ("email", .string(options.email.rawValue)),
                    ("removed", .bool(!options.dryRun)),
                    ("dryRun", .bool(options.dryRun))
                ]))
        } else if !ctx.global.quiet {
            ctx.console.print("\(options.dryRun ? "Would remove" : "Removed") \(options.email) from share \(share.id)")
        }
    }
}
