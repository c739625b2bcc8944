import Foundation
import PhotosCore

/// `photos tag delete NAME [--zone ID]`.
enum TagDeleteCommand: Command {
    static let configuration = CommandConfiguration(
        path: ["tag", "delete"],
        abstract: "Delete a tag; its photos stay.",
        discussion:
            "Deletes the tag the name finds (ignoring case and diacritics, as --tag) in the zone given by --zone, or in every zone. The photos keep everything else (delete rule nullify). History keeps a tombstone with the name and uuid. Tags beneath it (Places/France beneath Places) go too with --recursive; --only deletes the tag alone and keeps them; when the tag has tags beneath it and neither is given, a terminal is asked which (r/o/N), and elsewhere the command refuses (exit 64) naming them. Exit 66 when there is no such tag, 65 when the name finds several tags of one zone (they are listed). On a terminal, deleting a tag that any photo has asks first, naming the photos it is removed from (--yes skips the question; never asked when not on a terminal); --dry-run prints what would be deleted."
    )

    struct Options: ParsableOptions {
        var name = ""
        var zone: String?
        var dryRun = false
        var yes = false
        var recursive = false
        var only = false
        static var options: [Option<Options>] {
            [
                TagArguments.zone(\.zone),
                .flag(\.recursive, "--recursive", "-r", help: "Delete the tags beneath it too (the whole branch)."),
                .flag(\.only, "--only", help: "Delete only this tag; the tags beneath it stay."),
                .flag(\.dryRun, "--dry-run", help: "Print what would be deleted; change nothing."),
                Confirmation.yes(\.yes)
            ]
        }
        // As given: a name the library holds is found even when it would not normalize today.
        static var arguments: [Argument<Options>] { [.one(\.name, "name", help: TagArguments.nameHelp)] }

        func validate() throws {
            if recursive && only { throw UsageError("give --recursive or --only, not both") }
        }
    }

    static func run(_ options: Options, _ ctx: CommandContext) throws {
        let library = try ctx.openLibrary(dryRun: options.dryRun)
        // Parsed after the library is opened, as before: a missing library is told first.
        let name = try TagName(parsing: options.name)
        let zone = options.zone.map(ZoneID.init(rawValue:))
        var recursive = options.recursive
        var asked = false
        if !options.recursive && !options.only {
            let beneath = try library.tagBranch(name, zone: zone).beneath
            if !beneath.isEmpty {
                let list = Confirmation.names(beneath.map(\.name))
                let count = TerminalText.plural(beneath.count, "tag")
                guard ctx.mayAsk(yes: false, dryRun: options.dryRun) else {
                    throw UsageError(
                        "tag '\(TerminalText.printable(name.rawValue))' has \(count) beneath it (\(list)): give --recursive to delete them too, or --only to keep them"
                    )
                }
                let streams = ctx.console.streams
                streams.err(
                    TerminalText.escaped(
                        "Tag '\(name.rawValue)' has \(count) beneath it (\(list)). Delete the whole branch (r), only '\(name.rawValue)' (o), or nothing?"
                    ) + " [r/o/N] ")
                let answer = streams.readAnswer()?.trimmingCharacters(in: .whitespaces).lowercased()
                switch answer {
                case "r", "recursive": recursive = true
                case "o", "only": recursive = false
                default:
                    throw CommandFailure(status: .partial, message: "not confirmed: nothing was changed")
                }
                asked = true
            }
        }
        // What would go, from the same code rolled back, so the question can name it: the
        // photos that lose the tag are what is destroyed, not the tag rows.
        let deleted = try ctx.confirmingDestruction(
            library, yes: options.yes || asked, dryRun: options.dryRun,
            question: { (preview: [TagInfo]) in (question(options.name, preview), photos(preview)) },
            run: { try library.deleteTag(name, zone: zone, recursive: recursive, author: ctx.historyAuthor) })
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
            let names = Set(deleted.map(\.name)).count == 1 ? "named" : "in the branch"
            ctx.console.print(
                "\(options.dryRun ? "Would delete" : "Deleted") \(TerminalText.plural(deleted.count, "tag")) \(names) '\(TerminalText.printable(deleted.first?.name ?? ""))' (zone \(zones)) from \(TerminalText.plural(photos(deleted), "photo"))"
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
