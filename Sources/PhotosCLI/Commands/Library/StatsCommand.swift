import Foundation
import PhotosCore

/// `photos stats`.
enum StatsCommand: Command {
    static let configuration = CommandConfiguration(
        path: ["stats"],
        abstract: "Counts and sizes: photos, originals, thumbnails, tags, zones, history.")

    static func run(_ options: NoOptions, _ ctx: CommandContext) throws {
        let s = try ctx.openLibraryForReading().stats()
        if ctx.global.json {
            ctx.console.printJSON(s.json)
            return
        }
        let out = ctx.console
        out.print("library id:    \(s.libraryID)")
        out.print("photos:        \(s.photos)")
        if !s.kinds.isEmpty {
            let kinds = s.kinds.map { "\($0.photos) \($0.kind)" }.joined(separator: ", ")
            out.print("kinds:         \(kinds); \(String(format: "%.3f", Double(s.durationMS) / 1000)) s of video")
        }
        if !s.formats.isEmpty {
            // Issue 24 item 7: `3 jpeg, 2 raw (1 cr2, 1 nef), 1 png`.
            let raws = s.cameraFormats.map { "\($0.photos) \($0.format)" }.joined(separator: ", ")
            let formats = s.formats.map {
                "\($0.photos) \($0.format)" + ($0.format == "raw" && !raws.isEmpty ? " (\(raws))" : "")
            }
            out.print("formats:       \(formats.joined(separator: ", "))")
        }
        out.print("originals:     \(s.originalBytes) bytes (\(TerminalText.bytes(s.originalBytes)))")
        out.print("thumbnails:    \(s.thumbnailBytes) bytes (\(TerminalText.bytes(s.thumbnailBytes)))")
        out.print("tags:          \(s.tags)")
        out.print("ratings:       \(s.ratings)")
        out.print("shares:        \(s.shares) (\(TerminalText.plural(s.participants, "participant")))")
        for zone in s.zones {
            out.print("zone:          \(zone.id) (\(zone.scope)): \(TerminalText.plural(zone.photos, "photo"))")
        }
        out.print(
            "history:       \(TerminalText.plural(s.historyTransactions, "transaction")), \(TerminalText.plural(s.historyChanges, "change")), \(TerminalText.plural(s.consumers, "consumer"))"
        )
        out.print(
            "database:      \(s.databaseBytes) bytes (\(TerminalText.bytes(s.databaseBytes))), schema version \(s.schemaVersion)"
        )
    }
}
