import Foundation
import PhotosCore
import PhotosModel

/// `photos identity show`: who this library's changes are authored by (issue #29 item 1).
enum IdentityShowCommand: Command {
    static let configuration = CommandConfiguration(
        path: ["identity", "show"],
        abstract: "Show who this library is: its owner address and its participant in each share accepted here.",
        discussion: #"""
            Prints the owner address in effect and where it comes from (--owner, $PHOTOS_OWNER, or
            recorded by 'photos identity set'; none: changes in the library's own zones are
            authored 'photos'), then one line per share accepted here with this library's
            participant e-mail in it, who changes in that share are authored by. With --json,
            {"owner":"email" or null,"source":"--owner", "$PHOTOS_OWNER", "recorded" or null,
            "recorded":"email" or null,"shares":[{"share":"id","participant":"email"}]}.
            """#,
        examples: ["photos identity show", "PHOTOS_OWNER=me@example.org photos identity show --json"])

    struct Options: ParsableOptions {}

    static func run(_ options: Options, _ ctx: CommandContext) throws {
        let library = try ctx.openLibraryForReading()
        let recorded = try library.ownerAddress()
        let owner = try ctx.ownerAddress(of: library)
        let source: String? =
            ctx.global.owner == nil
            ? (recorded == nil ? nil : "recorded") : (ctx.global.ownerFromEnvironment ? "$PHOTOS_OWNER" : "--owner")
        let shares = try library.participantIdentities()
        if ctx.global.json {
            ctx.console.printJSON(
                .object([
                    ("owner", .optional(owner?.rawValue)), ("source", .optional(source)),
                    ("recorded", .optional(recorded?.rawValue)),
                    (
                        "shares",
                        .array(
                            shares.map {
                                .object([
                                    ("share", .string($0.share)), ("participant", .string($0.participant.rawValue))
                                ])
                            })
                    )
                ]))
            return
        }
        let t = TerminalText.self
        if let owner, let source {
            let from = source == "recorded" ? "recorded by 'photos identity set'" : source
            ctx.console.print("owner: \(t.printable(owner.rawValue)) (\(from))")
        } else {
            ctx.console.print("owner: none (changes in this library's own zones are authored photos)")
        }
        for share in shares {
            ctx.console.print("share \(share.share): \(t.printable(share.participant.rawValue))")
        }
    }
}
