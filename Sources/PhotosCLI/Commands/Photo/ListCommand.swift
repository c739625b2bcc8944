import Foundation
import PhotosCore

/// `photos list`.
enum ListCommand: Command {
    static let configuration = CommandConfiguration(
        path: ["list"],
        abstract: "List photos: uniqueName, name, size, tags, rating, zone.")

    static func run(_ options: PhotoFilterOptions, _ ctx: CommandContext) throws {
        let filter = options.filter
        let library = try ctx.openLibraryForReading()
        // An unknown or ambiguous share fails before the header reaches stdout.
        if let share = filter.share { _ = try library.resolveShare(share) }
        if !ctx.global.json && !ctx.global.quiet {
            ctx.console.print(row("UNIQUENAME", "NAME", "SIZE", "TAGS", "RATING", "ZONE"))
        }
        try library.forEachPhoto(matching: filter) { photo in
            if ctx.global.json {
                ctx.console.printJSON(photo.json)
            } else {
                ctx.console.print(
                    row(
                        photo.uniqueName, photo.displayName, String(photo.byteSize), photo.tags.joined(separator: ","),
                        photo.rating.map(String.init) ?? "-", photo.zone))
            }
        }
    }

    static func row(
        _ uniqueName: String, _ name: String, _ size: String, _ tags: String, _ rating: String, _ zone: String
    ) -> String {
        let t = TerminalText.self
        return "\(t.padRight(uniqueName, 36))  \(t.padRight(t.printable(name), 32)) \(t.padLeft(size, 10))  "
            + "\(t.padRight(tags.isEmpty ? "-" : tags, 20)) \(t.padLeft(rating, 6))  \(zone)"
    }
}
