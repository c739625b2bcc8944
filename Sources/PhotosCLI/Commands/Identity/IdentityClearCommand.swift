import Foundation
import PhotosCore
import PhotosModel

/// `photos identity clear`: removes the recorded owner address (issue #29 item 1).
enum IdentityClearCommand: Command {
    static let configuration = CommandConfiguration(
        path: ["identity", "clear"],
        abstract: "Remove the recorded owner address: changes in the library's zones are by 'photos' again.",
        discussion: """
            Removes the address 'photos identity set' recorded. Changes in the library's own zones
            are then authored 'photos' (unless --owner, $PHOTOS_OWNER, --author or
            $PHOTOS_AUTHOR); ratings made before keep their authors. Nothing recorded: nothing
            changes (exit 0).
            """,
        examples: ["photos identity clear"])

    struct Options: ParsableOptions {}

    static func run(_ options: Options, _ ctx: CommandContext) throws {
        let library = try ctx.openLibrary()
        let previous = try library.clearOwnerAddress()
        if ctx.global.json {
            ctx.console.printJSON(
                .object([("cleared", .bool(previous != nil)), ("previous", .optional(previous?.rawValue))]))
        } else if !ctx.global.quiet {
            ctx.console.print(
                previous.map { "Removed the owner address \(TerminalText.printable($0.rawValue))" }
                    ?? "No owner address was recorded; nothing changed")
        }
    }
}
