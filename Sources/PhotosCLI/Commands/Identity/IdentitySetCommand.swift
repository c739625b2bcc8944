import Foundation
import PhotosCore
import PhotosModel

/// `photos identity set EMAIL`: records the library owner's address (issue #29 item 1).
enum IdentitySetCommand: Command {
    static let configuration = CommandConfiguration(
        path: ["identity", "set"],
        abstract: "Record the library owner's e-mail address: who changes in its own zones are by.",
        discussion: """
            Records EMAIL (lower-cased; one @, at most 254 bytes, no spaces or control characters,
            else 64) as this library's owner address, replacing the one recorded. From the next
            command on, changes in the library's own zones (ratings, tags, imports, shares it
            created) are authored by it in history, and a rating made here is the owner's
            rating; changes in a share accepted here are authored by this library's participant
            in that share. --author or $PHOTOS_AUTHOR still override for a run, --owner or
            $PHOTOS_OWNER replace the owner address for a run. Ratings made before keep their
            authors ('photos' for those made without an identity).
            """,
        examples: ["photos identity set owner@example.org"])

    struct Options: ParsableOptions {
        var email = Email(rawValue: "")
        static var arguments: [Argument<Options>] {
            [
                .one(
                    \.email, "email", help: "The owner's e-mail address.",
                    parse: { text in try parseOption("<email>", text) { try Email(parsing: $0) } })
            ]
        }
    }

    static func run(_ options: Options, _ ctx: CommandContext) throws {
        let library = try ctx.openLibrary()
        let previous = try library.setOwnerAddress(options.email)
        if ctx.global.json {
            ctx.console.printJSON(
                .object([
                    ("owner", .string(options.email.rawValue)), ("previous", .optional(previous?.rawValue))
                ]))
        } else if !ctx.global.quiet {
            let was = previous.map { TerminalText.printable($0.rawValue) } ?? "none"
            ctx.console.print(
                "The library's owner address is now \(TerminalText.printable(options.email.rawValue)) (was \(was))")
        }
    }
}
