import Foundation
import PhotosCore

/// `photos share invite ID EMAIL [--permission P]`.
enum ShareInviteCommand: Command {
    static let configuration = CommandConfiguration(
        path: ["share", "invite"],
        abstract: "Invite someone to a share by e-mail.",
        discussion:
            "The address is checked (one @, a name and a domain, no spaces) and stored lower-cased; the participant gets role private-user and acceptance pending. Inviting the same address again changes nothing, unless --permission gives another permission: then only that is updated."
    )

    struct Options: ParsableOptions {
        var share = ""
        var email = Email(rawValue: "")
        var permission: SharePermission?
        static var options: [Option<Options>] {
            [
                .value(
                    \.permission, "--permission", value: "PERMISSION",
                    help:
                        "read-only or read-write (default: read-only for a new participant; an existing one keeps its own).",
                    parser: .permission(allowNone: false))
            ]
        }
        static var arguments: [Argument<Options>] { [ShareArguments.share(\.share), ShareArguments.email(\.email)] }
    }

    static func run(_ options: Options, _ ctx: CommandContext) throws {
        let email = options.email
        let library = try ctx.openLibrary()
        let share = try library.resolveShare(options.share)
        let result = try library.inviteParticipant(
            email, to: share, permission: options.permission, author: ctx.historyAuthor)
        let permission = result.permission
        let changed = result.changed
        if ctx.global.json {
            ctx.console.printJSON(
                .object([
                    ("share", .string(share.id)), ("email", .string(email.rawValue)),
                    ("permission", .string(permission.rawValue)), ("changed", .bool(changed))
                ]))
        } else if !ctx.global.quiet {
            ctx.console.print(
                result.permissionUpdated
                    ? "Changed \(email)'s permission in share \(share.id) to \(permission.rawValue)"
                    : changed
                        ? "Invited \(email) to share \(share.id) (\(permission.rawValue))"
                        : "\(email) is already invited to share \(share.id) (\(permission.rawValue)); nothing changed")
        }
    }
}
