import Foundation
import PhotosCore

/// `photos export DEST` (SPEC §5, issue #5); it selects photos with the same options as `list`.
enum ExportCommand: Command {
    static let configuration = CommandConfiguration(
        path: ["export"],
        abstract: "Export originals byte for byte, with XMP or JSON sidecars, into a folder.",
        discussion: """
            Originals are copied byte for byte from the library, inside the kernel (copy_file_range(2))
            after their size is checked against the library's; with --check-hashes each is read and
            its SHA-256 checked while it is copied (a damaged original is not exported; 'photos
            verify' checks them all). Each goes to a hidden temporary name in its folder and is renamed into place: an
            interrupted export never leaves part of a file under a real name. --jobs threads write
            the files of 64 photos at a time; each such batch is made durable with one syncfs(2)
            of DEST's file system before the export state records it. Nothing is written
            outside DEST. Names come from --template (default {name}, the original file name); fields:
            {name} {stem} {ext} {uniqueName} {share} (the share's title; default for the private zone)
            {shareId} (the zone id) {author} (who imported it: the insert's transaction author, else
            unknown) {rating} {tag} (the first tag; with --per-tag, one copy per tag, each with its
            own) {title} {capture:FORMAT} (capture date in the
            photo's own local time, else import date) {imported:FORMAT} (UTC), FORMAT in strftime(3)
            style (%Y %m %d %H %M %S ...); each original and sidecar gets the capture time as mtime;
            '/' makes folders; without {name} or {ext}, '.{ext}' is appended. Names are NFC; control
            characters become '_', '..' and empty parts are dropped, a leading '.' becomes '_'; an
            empty name falls back to the uniqueName. Two photos with the same name get ' (1)', ' (2)'
            ... before the extension, in uniqueName order, the same on every run; so does one whose
            written sidecar or thumbnail clashes (--thumbnails: storm.jpg and storm.heic share
            storm.thumb.jpg, the later becomes 'storm (1).heic'). An existing file
            with the same bytes is skipped; a different one is never overwritten (the photo takes the
            next free suffix) - except with --update, which rewrites a file this export wrote that
            changed since. Sidecars: NAME.EXT.xmp (dc:subject tags, xmp:Rating, photos:uniqueName) or
            NAME.EXT.json (the photo's JSON object); thumbnails: NAME.thumb.jpg. What was written is
            kept in DEST/.photos-export.sqlite (paths relative to DEST; rebuilt from the files when
            missing or damaged). 'photos import DEST' reads the sidecars back (but also imports
            *.thumb.jpg files: export without --thumbnails for a round trip). Exit status 1 when some
            photos failed (each named on stderr), 73 when DEST cannot be created.
            """,
        examples: [
            "photos export /media/usb/photos --update --cleanup",
            "photos export ~/out --tag sea --template '{capture:%Y/%m}/{name}'",
            "photos export ~/out --dry-run --template '{capture:%Y}/{name}'",
            "photos export ~/by-tag --per-tag --template '{tag}/{name}'",
            "photos list --tag x --json | jq -r .uniqueName | photos export ~/out -"
        ])

    struct Options: ParsableOptions {
        var destination = ""
        var photos: [String] = []
        var selection = PhotoFilterOptions()
        var template: ExportNameTemplate?
        var perTag = false
        var thumbnails = false
        var sidecar: SidecarFormat?
        var update = false
        var cleanup = false
        var dryRun = false
        var checkHashes = false
        var jobs: Int?
        var yes = false

        static var options: [Option<Options>] {
            PhotoFilterOptions.options.map { $0.lifted(\.selection) } + [
                .value(
                    \.template, "--template", value: "TEMPLATE",
                    help: "File name template, e.g. '{capture:%Y/%m}/{name}'.", default: "{name}",
                    parser: ValueParser { text, _ in try ExportNameTemplate(parsing: text) }),
                .flag(
                    \.perTag, "--per-tag",
                    help: "One copy per tag of each photo, named with that tag as {tag} (--template needs {tag})."),
                .flag(\.thumbnails, "--thumbnails", help: "Also write each thumbnail as NAME.thumb.jpg."),
                .value(
                    \.sidecar, "--sidecar", value: "FORMAT", help: "Sidecar beside each original: xmp, json or none.",
                    default: "xmp",
                    parser: ValueParser { text, name in
                        guard let format = SidecarFormat(rawValue: text.lowercased()) else {
                            throw UsageError("\(name) takes xmp, json or none, not '\(text)'")
                        }
                        return format
                    }),
                .flag(
                    \.update, "--update",
                    help:
                        "Trust what an earlier export to DEST recorded: skip unchanged files without re-reading them, keep earlier names, rewrite files that changed."
                ),
                .flag(
                    \.cleanup, "--cleanup",
                    help:
                        "Remove files an earlier export to DEST wrote that this one no longer produces (photo deleted or filtered out)."
                ),
                .flag(
                    \.dryRun, "--dry-run",
                    help: "Report what would be written; write nothing (an existing export state is read, not changed)."
                ),
                .flag(
                    \.checkHashes, "--check-hashes",
                    help:
                        "Hash every original while copying it; one whose SHA-256 is not the library's is not exported (default: check sizes only)."
                ),
                .value(
                    \.jobs, "--jobs", "-j", value: "N", help: "Worker threads copying and writing files.",
                    default: "number of cores", parser: .int(in: 1...256)),
                Confirmation.yes(\.yes)
            ]
        }
        static var arguments: [Argument<Options>] {
            [
                .one(\.destination, "dest", help: "The export folder (created when absent)."),
                .optionalMany(
                    \.photos, "photo",
                    help: "Only these photos (and those of the filters): " + PhotoArguments.many)
            ]
        }

        func validate() throws {
            // --name selects photos, as in list (one meaning per option name); the file name
            // template was --name before: refuse a value that can only be a template.
            if let name = selection.filter.name, name.contains("{") {
                throw UsageError(
                    "--name selects photos by name (a glob, as in list); the file name template is --template '\(name)'"
                )
            }
            // --per-tag names each copy by its tag: without {tag} every copy would get one name.
            if perTag && !(template ?? .default).usesTag {
                throw UsageError(
                    "--per-tag writes one copy per tag, named by --template's {tag}; the template '\((template ?? .default).text)' has no {tag} (e.g. --template '{tag}/{name}')"
                )
            }
            try selection.validate()
        }

        /// The export options for Core.
        var exportOptions: ExportOptions {
            var options = ExportOptions(destination: destination)
            options.filter = selection.filter
            if let template { options.template = template }
            options.perTag = perTag
            if let sidecar { options.sidecar = sidecar }
            options.thumbnails = thumbnails
            options.update = update
            options.cleanup = cleanup
            options.dryRun = dryRun
            options.checkHashes = checkHashes
            if let jobs { options.jobs = jobs }
            return options
        }
    }

    static func run(_ arguments: Options, _ ctx: CommandContext) throws {
        var options = arguments.exportOptions
        let library = try ctx.openLibraryForReading(dryRun: options.dryRun)
        // An unknown or ambiguous share, or an unknown photo, fails before DEST is created.
        if let share = options.filter.share { _ = try library.resolveShare(share) }
        // An unknown tag or zone, too (the filter checked without reading a photo).
        var check = options.filter
        check.limit = 0
        try library.forEachPhoto(matching: check) { _ in }
        if !arguments.photos.isEmpty {
            options.filter.uniqueNames = Set(try ctx.resolvePhotos(arguments.photos, in: library).map(\.uniqueName))
        }
        // --cleanup removes files in DEST: on a terminal, a dry run of the same export counts them
        // first and the question names them (issue 31 A10).
        if options.cleanup, ctx.mayAsk(yes: arguments.yes, dryRun: options.dryRun) {
            var dry = options
            dry.dryRun = true
            let preview = try Exporter(library: library, options: dry).run()
            try ctx.confirm(
                "Remove \(TerminalText.plural(preview.removed, "file")) from \(TerminalText.escaped(options.destination)) that this export no longer produces?",
                objects: preview.removed, yes: arguments.yes)
        }
        let exporter = Exporter(library: library, options: options)
        exporter.onFailure = { failure in
            ctx.console.itemError(
                "\(failure.uniqueName) (\(TerminalText.printable(failure.displayName)))", failure.reason)
        }
        exporter.onNote = { ctx.console.note($0) }
        // --dry-run lists the files the template would produce, one per line (not with --json).
        if options.dryRun && !ctx.global.json && !ctx.global.quiet {
            exporter.onPlannedFile = { ctx.console.print("would write " + TerminalText.escaped($0)) }
        }
        let summary: ExportSummary
        do {
            summary = try ctx.console.withProgress(options.dryRun ? "checking" : "exporting") { bar in
                // Only a shown bar needs the total, which costs the exporter a counting pass.
                if bar.enabled { exporter.onProgress = { done, total in bar.update(done: done, total: total) } }
                return try exporter.run()
            }
        } catch let interrupted as Interrupted<ExportSummary> {
            // Stopped by the environment (busy state, read-only or full DEST) after writing some
            // files: say what was written, then why it stopped (issue 9 item 9).
            printSummary(interrupted.report, options: options, ctx: ctx, interrupted: true)
            throw ErrorReporting.interrupted(
                interrupted.error, libraryPath: ctx.libraryPath,
                addendum: "; the files written before stay: run the same export again to continue")
        }
        printSummary(summary, options: options, ctx: ctx, interrupted: false)
    }

    /// The summary line (or JSON object, with `"interrupted":true` when an error stopped it).
    static func printSummary(_ summary: ExportSummary, options: ExportOptions, ctx: CommandContext, interrupted: Bool) {
        if ctx.global.json {
            var json = summary.json(cleanup: options.cleanup, dryRun: options.dryRun)
            if interrupted, case .object(var pairs) = json {
                pairs.append(("interrupted", .bool(true)))
                json = .object(pairs)
            }
            ctx.console.printJSON(json)
        } else if interrupted || !ctx.global.quiet || summary.failed > 0 {
            let verb = options.dryRun ? "Would export" : "Exported"
            var line =
                "\(verb): \(summary.written) written, \(summary.updated) updated, \(summary.skipped) skipped, \(summary.failed) failed"
            if options.cleanup { line += ", \(TerminalText.plural(summary.removed, "file")) removed" }
            line += "; \(TerminalText.bytes(summary.bytes)) in \(TerminalText.seconds(summary.seconds)) s"
            ctx.console.print(line + (interrupted ? " (interrupted)" : ""))
        }
    }
}
