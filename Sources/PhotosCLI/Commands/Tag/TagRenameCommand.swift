import Foundation
import PhotosCore

/// `photos tag rename OLD NEW [--zone ID]`.
enum TagRenameCommand: Command {
    static let configuration = CommandConfiguration(
        path: ["tag", "rename"],
        abstract: "Rename a tag (merging it into an existing tag of the new name).",
        discussion: """
            Renames the tag OLD finds (ignoring case and diacritics, as --tag) in the zone given by
            --zone, or in every zone, and moves the tags beneath it along: renaming Places to
            Locations makes Places/France/Paris Locations/France/Paris. Where a zone already has a
            tag of a new name, the moved tag is merged into it: its photos get the existing tag and
            it is deleted, so a rename never makes duplicate tags. Exit 66 when there is no tag OLD
            nor any tag beneath it; 65 when OLD or a new name finds several tags of one zone (they
            are listed); 64 when NEW lies beneath OLD.
            On a terminal, a rename that merges asks first, naming the photos whose tag changes
            (--yes skips the question; never asked when not on a terminal); --dry-run prints what
            would be renamed and merged and changes nothing.
            """)

    struct Options: ParsableOptions {
        var old = TagName(rawValue: "")
        var new = TagName(rawValue: "")
        var zone: String?
        var dryRun = false
        var yes = false
        static var options: [Option<Options>] {
            [TagArguments.zone(\.zone), Confirmation.dryRun(\.dryRun), Confirmation.yes(\.yes)]
        }
        static var arguments: [Argument<Options>] {
            [
                TagArguments.name(\.old, "old", help: "The current name."),
                TagArguments.name(\.new, "new", help: "The new name.")
            ]
        }
    }

    static func run(_ options: Options, _ ctx: CommandContext) throws {
        let library = try ctx.openLibrary(dryRun: options.dryRun)
        if TagName.suffix(of: options.new.rawValue, below: options.old.rawValue) != nil {
            throw UsageError(
                "cannot move '\(TerminalText.printable(options.old.rawValue))' beneath itself ('\(TerminalText.printable(options.new.rawValue))')"
            )
        }
        let old = TerminalText.printable(options.old.rawValue)
        let new = TerminalText.printable(options.new.rawValue)
        // A merge takes the old tag off its photos (they get the existing one): that is asked.
        let report = try ctx.confirmingDestruction(
            library, yes: options.yes, dryRun: options.dryRun,
            question: { (preview: TagRenameReport) in
                (
                    "Merge tag '\(old)' into the existing tag '\(new)' on \(TerminalText.plural(preview.photosMerged, "photo"))?",
                    preview.merged
                )
            },
            run: {
                try library.renameTagReporting(
                    options.old, to: options.new, zone: options.zone.map(ZoneID.init(rawValue:)),
                    author: ctx.historyAuthor)
            })
        if ctx.global.json {
            ctx.console.printJSON(
                .object([
                    ("from", .string(options.old.rawValue)), ("to", .string(options.new.rawValue)),
                    ("renamed", .int(report.tags)), ("merged", .int(report.merged)),
                    ("photosMerged", .int(report.photosMerged)), ("beneath", .int(report.beneath)),
                    ("dryRun", .bool(options.dryRun))
                ]))
        } else if !ctx.global.quiet {
            let verb = options.dryRun ? "Would rename" : "Renamed"
            let merged =
                report.merged == 0
                ? ""
                : " (\(TerminalText.plural(report.merged, "tag")) merged into the existing '\(new)' on \(TerminalText.plural(report.photosMerged, "photo")))"
            let beneath = report.beneath == 0 ? "" : " (\(report.beneath) of them beneath it)"
            ctx.console.print(
                "\(verb) \(TerminalText.plural(report.tags, "tag")) '\(old)' to '\(new)'\(beneath)\(merged)")
        }
    }
}
