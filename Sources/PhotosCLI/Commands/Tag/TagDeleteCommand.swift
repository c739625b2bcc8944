import Foundation
import PhotosCore

/// `photos tag delete NAME [--zone ID]`.
enum TagDeleteCommand: Command {
    static let configuration = CommandConfiguration(
        path: ["tag", "delete"],
        abstract: "Delete a tag; its photos stay.",
        discussion:
            "Deletes every tag of that name in the zone given by --zone, or in every zone. The photos keep everything else (delete rule nullify). History keeps a tombstone with the name and uuid. Exit 66 when there is no such tag. On a terminal, deleting a tag that any photo has asks first, naming the photos it is removed from (--yes skips the question; never asked when not on a terminal); --dry-run prints what would be deleted."
    )

    struct Options: ParsableOptions {
        var name = ""
        var zone: String?
        var dryRun = false
        var yes = false
        static var options: [Option<Options>] {
            [
                TagArguments.zone(\.zone),
                .flag(\.dryRun, "--dry-run", help: "Print what would be deleted; change nothing."),
                Confirmation.yes(\.yes)
            ]
        }
        // As given: a name the library holds is found even when it would not normalize today.
        static var arguments: [Argument<Options>] { [.one(\.name, "name", help: TagArguments.nameHelp)] }
    }

    static func run(_ options: Options, _ ctx: CommandContext) throws {
        let library = try ctx.openLibrary(dryRun: options.dryRun)
        // Parsed after the library is opened, as before: a missing library is told first.
        let name = try TagName(parsing: options.name)
        let zone = options.zone.map(ZoneID.init(rawValue:))
        // What would go, from the same code rolled back, so the question can name it: the
        // photos that lose the tag are what is destroyed, not the tag rows.
        let deleted = try ctx.confirmingDestruction(
            library, yes: options.yes, dryRun: options.dryRun,
            question: { (preview: [TagInfo]) in (question(options.name, preview), photos(preview)) },
            run: { try library.deleteTag(name, zone: zone, author: ctx.historyAuthor) })
        if ctx.global.json {
            ctx.console.printJSON(
                .object([
                    ("deleted", .int(deleted.count)), ("dryRun", .bool(options.dryRun)),
                    (
                        "tags",
                        .array(
                            deleted.map {
                                .object([
                                    ("uuid", .string($0.uuid)), ("name", .string($0.name)), ("zone", .string($0.zone)),
                                    ("photoCount", .int($0.photoCount))
                                ])
                            })
                    ),
                    ("photos", .int(photos(deleted)))
                ]))
        } else if !ctx.global.quiet {
            let zones = Set(deleted.map(\.zone)).sorted().joined(separator: ", ")
            ctx.console.print(
                "\(options.dryRun ? "Would delete" : "Deleted") \(TerminalText.plural(deleted.count, "tag")) named '\(TerminalText.printable(deleted.first?.name ?? ""))' (zone \(zones)) from \(TerminalText.plural(photos(deleted), "photo"))"
            )
        }
    }

    /// The photos that lose the tag (a photo has at most one tag of a name per zone).
    private static func photos(_ tags: [TagInfo]) -> Int { tags.reduce(0) { $0 + $1.photoCount } }

    /// `Delete tag 'bench' from 34 photos?`, with the zones when tags of several are deleted.
    private static func question(_ name: String, _ tags: [TagInfo]) -> String {
        let zones = Set(tags.map(\.zone)).sorted()
        let tagWords = tags.count == 1 ? "tag" : "\(tags.count) tags named"
        let zoneWords = zones.count > 1 ? " (zones \(zones.joined(separator: ", ")))" : ""
        return "Delete \(tagWords) '\(name)'\(zoneWords) from \(TerminalText.plural(photos(tags), "photo"))?"
    }
}
