import Foundation
import PhotosCore

/// `photos share show ID`.
enum ShareShowCommand: Command {
    static let configuration = CommandConfiguration(
        path: ["share", "show"],
        abstract: "Show a share: title, permission, participants and photos.",
        discussion: #"With --json, the share object of 'share list' with "created" and "photos" (uniqueNames) added."#)

    struct Options: ParsableOptions {
        var share = ""
        static var arguments: [Argument<Options>] { [ShareArguments.share(\.share)] }
    }

    static func run(_ options: Options, _ ctx: CommandContext) throws {
        let library = try ctx.openLibraryForReading()
        let share = try library.resolveShare(options.share)
        var filter = PhotoFilter()
        filter.zone = ZoneID(rawValue: share.id)
        var photos: [PhotoRecord] = []
        try library.forEachPhoto(matching: filter) { photos.append($0) }
        let console = ctx.console
        if ctx.global.json {
            var pairs: [(String, JSONValue)] = []
            if case .object(let shareFields) = share.json { pairs = shareFields }
            pairs.append(("created", .string(share.created)))
            pairs.append(("photos", .array(photos.map { .string($0.uniqueName) })))
            console.printJSON(.object(pairs))
            return
        }
        console.printFields([
            ("id", share.id), ("title", TerminalText.printable(share.title)), ("created", share.created),
            ("scope", share.scope.rawValue),
            ("public", share.publicPermission), ("photos", String(share.photoCount))
        ])
        console.print("participants:" + (share.participants.isEmpty ? " -" : ""))
        for p in share.participants { console.print("  \(p.email) (\(p.role), \(p.permission), \(p.acceptance))") }
        if !photos.isEmpty { console.print("photos:") }
        for p in photos { console.print("  \(p.uniqueName)  \(TerminalText.printable(p.displayName))") }
    }
}
