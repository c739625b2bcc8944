import Foundation
import PhotosCore

/// `photos export DEST` (SPEC §5, issue #5); it selects photos with the same options as `list`.
enum ExportCommand {
    static let spec = CommandSpec(
        path: ["export"],
        abstract: "Export originals byte for byte, with XMP or JSON sidecars, into a folder.",
        discussion: """
        Originals are copied byte for byte from the library (their SHA-256 is checked while
        copying), each to a hidden temporary name in its folder, fsynced and renamed into place:
        an interrupted export never leaves part of a file under a real name. Nothing is written
        outside DEST. Names come from --name (default {name}, the original file name); fields:
        {name} {stem} {ext} {uniqueName} {share} (the zone id) {capture:FORMAT} (capture date in the
        photo's own local time, else import date) {imported:FORMAT} (UTC), FORMAT in strftime(3)
        style (%Y %m %d %H %M %S ...); each original and sidecar gets the capture time as mtime;
        '/' makes folders; without {name} or {ext}, '.{ext}' is appended. Names are NFC; control
        characters become '_', '..' and empty parts are dropped, a leading '.' becomes '_'; an
        empty name falls back to the uniqueName. Two photos with the same name get ' (1)', ' (2)'
        ... before the extension, in uniqueName order, the same on every run. An existing file
        with the same bytes is skipped; a different one is never overwritten (the photo takes the
        next free suffix) - except with --update, which rewrites a file this export wrote that
        changed since. Sidecars: NAME.EXT.xmp (dc:subject tags, xmp:Rating, photos:uniqueName) or
        NAME.EXT.json (the photo's JSON object); thumbnails: NAME.thumb.jpg. What was written is
        kept in DEST/.photos-export.sqlite (paths relative to DEST; rebuilt from the files when
        missing or damaged). 'photos import DEST' reads the sidecars back (but also imports
        *.thumb.jpg files: export without --thumbnails for a round trip). Exit status 1 when some
        photos failed (each named on stderr), 73 when DEST cannot be created.
        """,
        arguments: [ArgumentSpec("dest", help: "The export folder (created when absent).")],
        options: PhotoFilterOptions.options + [
            OptionSpec(["--name"], value: "TEMPLATE", help: "File name template, e.g. '{capture:%Y/%m}/{name}'.", default: "{name}"),
            OptionSpec(["--thumbnails"], help: "Also write each thumbnail as NAME.thumb.jpg."),
            OptionSpec(["--sidecar"], value: "FORMAT", help: "Sidecar beside each original: xmp, json or none.", default: "xmp"),
            OptionSpec(["--update"], help: "Trust what an earlier export to DEST recorded: skip unchanged files without re-reading them, keep earlier names, rewrite files that changed."),
            OptionSpec(["--cleanup"], help: "Remove files an earlier export to DEST wrote that this one no longer produces (photo deleted or filtered out)."),
            OptionSpec(["--dry-run"], help: "Report what would be written; write nothing (an existing export state is read, not changed)."),
        ],
        positionals: (1, 1),
        run: run)

    /// The export options the arguments describe.
    /// - Throws: `PhotosError` 64 for a bad date, rating, sidecar format or template, 65 for a bad
    ///   tag name.
    static func options(_ args: ParsedArguments, destination: String) throws -> ExportOptions {
        var options = ExportOptions(destination: destination)
        options.filter = try PhotoFilterOptions.filter(args)
        for tag in options.filter.tags { _ = try TagName.normalize(tag) }
        if let text = args.value("name") { options.template = try ExportNameTemplate(parsing: text) }
        if let text = args.value("sidecar") {
            guard let format = SidecarFormat(rawValue: text.lowercased()) else {
                throw PhotosError.usage("--sidecar takes xmp, json or none, not '\(text)'")
            }
            options.sidecar = format
        }
        options.thumbnails = args.flag("thumbnails")
        options.update = args.flag("update")
        options.cleanup = args.flag("cleanup")
        options.dryRun = args.flag("dry-run")
        return options
    }

    static func run(_ args: ParsedArguments, _ ctx: CommandContext) throws -> ExitStatus {
        let options = try options(args, destination: args.positionals[0])
        let library = try ctx.openLibraryForReading(dryRun: options.dryRun)
        // An unknown or ambiguous share fails before DEST is created.
        if let share = options.filter.share { _ = try library.resolveShare(share) }
        let exporter = Exporter(library: library, options: options)
        exporter.onFailure = { failure in
            let name = failure.displayName.unicodeScalars.map { $0.properties.generalCategory == .control ? "?" : String($0) }.joined()
            ctx.itemError("\(failure.uniqueName) (\(name))", failure.reason)
        }
        exporter.onNote = { ctx.note($0) }
        let progress = ProgressBar(context: ctx, label: options.dryRun ? "checking" : "exporting")
        exporter.onProgress = { done, total in progress.update(done: done, total: total) }
        let summary: ExportSummary
        do {
            summary = try exporter.run()
        } catch let interrupted as Interrupted<ExportSummary> {
            // Stopped by the environment (busy state, read-only or full DEST) after writing some
            // files: say what was written, then why it stopped (issue 9 item 9).
            progress.finish()
            printSummary(interrupted.report, options: options, ctx: ctx, interrupted: true)
            throw PhotosError(interrupted.error.status, interrupted.error.message
                + "; the files written before stay: run the same export again to continue")
        } catch {
            progress.finish()
            throw error
        }
        progress.finish()
        printSummary(summary, options: options, ctx: ctx, interrupted: false)
        return summary.failed > 0 ? .partial : .ok
    }

    /// The summary line (or JSON object, with `"interrupted":true` when an error stopped it).
    static func printSummary(_ summary: ExportSummary, options: ExportOptions, ctx: CommandContext, interrupted: Bool) {
        if ctx.json {
            var json = summary.json(cleanup: options.cleanup, dryRun: options.dryRun)
            if interrupted, case .object(var pairs) = json {
                pairs.append(("interrupted", .bool(true)))
                json = .object(pairs)
            }
            ctx.printJSON(json)
        } else if interrupted || !ctx.quiet || summary.failed > 0 {
            let verb = options.dryRun ? "Would export" : "Exported"
            var line = "\(verb): \(summary.written) written, \(summary.updated) updated, \(summary.skipped) skipped, \(summary.failed) failed"
            if options.cleanup { line += ", \(summary.removed) file\(summary.removed == 1 ? "" : "s") removed" }
            line += "; \(formatBytes(summary.bytes)) in \(String(format: "%.1f", summary.seconds)) s"
            ctx.print(line + (interrupted ? " (interrupted)" : ""))
        }
    }
}
