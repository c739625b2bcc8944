import Foundation
import PhotosCore

/// `photos share uninvite ID EMAIL`.
enum ShareUninviteCommand: Command {
    static let configuration = CommandConfiguration(
        path: ["share", "uninvite"],
        abstract: "Remove a participant from a share.",
        discussion: "Exit 66 when the address is not a participant; the owner cannot be removed.")

    struct Options: ParsableOptions {
        var share = ""
        var email = Email(rawValue: "")
        static var arguments: [Argument<Options>] { [ShareArguments.share(\.share), ShareArguments.email(\.email)] }
    }

    static func run(_ options: Options, _ ctx: CommandContext) throws {
        let library = try ctx.openLibrary()
        let share = try library.resolveShare(options.share)
        try library.uninvite(options.email, from: share, author: ctx.historyAuthor)
        if ctx.global.json {
            ctx.console.printJSON(
                .object([
                    ("share", .string(share.id)), ("email", .string(options.email.rawValue)), ("removed", .bool(true))
                ]))
        } else if !ctx.global.quiet {
            ctx.console.print("Removed \(options.email) from share \(share.id)")
        }
    }
}
