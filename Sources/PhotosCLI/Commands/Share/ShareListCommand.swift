import Foundation
import PhotosCore

/// `photos share list`.
enum ShareListCommand: Command {
    static let configuration = CommandConfiguration(
        path: ["share", "list"],
        abstract: "List shares: id, photos, participants, public permission, title.",
        discussion: #"With --json, one {"id","title","scope","publicPermission","photoCount","participants"} per line."#
    )

    static func run(_ options: NoOptions, _ ctx: CommandContext) throws {
        let library = try ctx.openLibraryForReading()
        let shares = try library.shares()
        if ctx.global.json {
            for share in shares { ctx.console.printJSON(share.json) }
            return
        }
        if !ctx.global.quiet { ctx.console.print(row("ID", "PHOTOS", "PEOPLE", "PUBLIC", "TITLE")) }
        for s in shares {
            ctx.console.print(
                row(
                    s.id, String(s.photoCount), String(s.participants.count), s.publicPermission,
                    TerminalText.printable(s.title)))
        }
    }

    private static func row(_ id: String, _ photos: String, _ people: String, _ permission: String, _ title: String)
        -> String
    {
        let t = TerminalText.self
        return
            "\(t.padRight(id, 36))  \(t.padRight(photos, 6))  \(t.padRight(people, 6))  \(t.padRight(permission, 10))  \(title)"
    }
}
