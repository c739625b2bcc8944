import Foundation
import PhotosCore
import PhotosImaging

/// `photos import PATH...` (SPEC §5).
enum ImportCommand {
    static let spec = CommandSpec(
        path: ["import"],
        abstract: "Import JPEG and PNG files and folders, with 120-pixel thumbnails.",
        discussion: """
        Folders are read recursively (symbolic links followed, never in a loop); hidden files and
        folders are skipped unless --hidden. The type comes from the file's bytes, not its name:
        other files are counted as skipped, but a .jpg/.jpeg/.png whose bytes are not JPEG or PNG
        is a failure. A file already in the library (same SHA-256) is a duplicate; when that
        photo's original is missing or damaged, the file restores it (said per file, and counted
        as restored). Tags and a
        rating are read from XMP sidecars (IMG.jpg.xmp or IMG.xmp). Rows are committed in
        batches: an interrupted import loses at most the batch in flight, and running it again
        finishes the job. Exit status 1 when some files failed (each is named on stderr).
        """,
        arguments: [ArgumentSpec("path", help: "Files or folders to import.", variadic: true)],
        options: [
            OptionSpec(["--tag"], value: "NAME", help: "Add this tag to every imported photo.", repeatable: true),
            OptionSpec(["--share"], value: "ID", help: "Import straight into this share's zone (an id or an unambiguous prefix of at least 4 characters)."),
            OptionSpec(["--dry-run"], help: "Check and decode everything, write nothing."),
            OptionSpec(["--jobs", "-j"], value: "N", help: "Worker threads.", default: "number of cores"),
            OptionSpec(["--hidden"], help: "Also import hidden files and folders."),
            OptionSpec(["--max-pixels"], value: "N", help: "Refuse images larger than N pixels, before decoding.", default: "100000000"),
            OptionSpec(["--thumbnail-quality"], value: "Q", help: "JPEG quality of thumbnails, 1-100.", default: "85"),
            OptionSpec(["--batch-size"], value: "N", help: "Photos per committed transaction (an interrupted import loses at most one batch).", default: "64"),
        ],
        positionals: (1, nil),
        run: run)

    static func run(_ args: ParsedArguments, _ ctx: CommandContext) throws -> ExitStatus {
        var options = ImportOptions(paths: args.positionals)
        options.tags = args.all("tag")
        options.dryRun = args.flag("dry-run")
        options.includeHidden = args.flag("hidden")
        options.author = ctx.historyAuthor
        if let jobs = try args.int("jobs", in: 1...256) { options.jobs = jobs }
        if let maxPixels = try args.int("max-pixels", in: 1...Int(Int32.max) * 64) { options.thumbnail.maxPixels = maxPixels }
        if let quality = try args.int("thumbnail-quality", in: 1...100) { options.thumbnail.quality = quality }
        if let batch = try args.int("batch-size", in: 1...100_000) { options.batchSize = batch }
        // The Importer checks these too; checking first means bad input never creates a library.
        for tag in options.tags { _ = try TagName.normalize(tag) }
        for path in options.paths where !FileManager.default.fileExists(atPath: path) {
            throw PhotosError.noInput("\(path): no such file or directory")
        }

        let root = ctx.libraryPath
        if let shareArgument = args.value("share"), !Library.exists(at: root) {
            throw PhotosError.noInput("no share '\(shareArgument)': there is no library at \(root)")
        }
        let library: Library?
        if options.dryRun && !Library.exists(at: root) {
            library = nil
        } else if options.dryRun {
            library = try ctx.openLibrary(dryRun: true)
        } else {
            library = try ctx.openOrCreateLibrary()
        }
        if let shareArgument = args.value("share") {
            guard let library else { throw PhotosError.noInput("no share '\(shareArgument)': there is no library at \(root)") }
            let share = try library.resolveShare(shareArgument)
            guard share.scope == "private" else {
                throw PhotosError.dataError("share \(share.id) was shared with this library by someone else; import into it is not possible")
            }
            options.zone = share.id
        }
        let importer = Importer(library: library, libraryRoot: root, options: options)
        importer.onFailure = { ctx.itemError($0.path, $0.reason) }
        importer.onRestore = { r in
            ctx.note("\(r.path): \(options.dryRun ? "would restore" : "restored") the original of photo \(r.uniqueName) (\(r.displayName)): \(r.reason)")
        }
        let progress = ProgressBar(context: ctx, label: options.dryRun ? "checking" : "importing")
        importer.onProgress = { done, total in progress.update(done: done, total: total) }
        let summary: ImportSummary
        do {
            summary = try importer.run()
        } catch let interrupted as Interrupted<ImportSummary> {
            // Some batches committed before the error: say what stays imported, then why it stopped.
            progress.finish()
            let error = CLIError(interrupted.error, libraryPath: ctx.libraryPath).photosError
            printSummary(interrupted.report, options: options, ctx: ctx, interruptedBy: error)
            let n = interrupted.report.imported
            throw PhotosError(error.status, error.message
                + "; the \(n) photo\(n == 1 ? "" : "s") committed before stay imported: run the same command again to import the rest")
        } catch {
            progress.finish()
            throw error
        }
        progress.finish()
        printSummary(summary, options: options, ctx: ctx, interruptedBy: nil)
        return summary.failed > 0 ? .partial : .ok
    }

    /// The summary line (or JSON object); an interrupted import's JSON has `"interrupted":true`
    /// and the `"error"`.
    static func printSummary(_ summary: ImportSummary, options: ImportOptions, ctx: CommandContext, interruptedBy error: PhotosError?) {
        if ctx.json {
            var json = summary.json
            if case .object(var pairs) = json {
                if options.dryRun { pairs.append(("dryRun", .bool(true))) }
                if let error { pairs += [("interrupted", .bool(true)), ("error", .string(error.message))] }
                json = .object(pairs)
            }
            ctx.printJSON(json)
        } else if !ctx.quiet || summary.failed > 0 || error != nil {
            let verb = options.dryRun ? "Would import" : "Imported"
            let restored = summary.restored > 0 ? ", \(summary.restored) original\(summary.restored == 1 ? "" : "s") \(options.dryRun ? "to restore" : "restored")" : ""
            ctx.print("\(verb) \(summary.imported) photo\(summary.imported == 1 ? "" : "s"), \(summary.duplicates) duplicate\(summary.duplicates == 1 ? "" : "s")\(restored), \(summary.skipped) skipped, \(summary.failed) failed; \(formatBytes(summary.bytes)) in \(String(format: "%.1f", summary.seconds)) s\(error == nil ? "" : " (interrupted)")")
        }
    }
}

/// A progress bar on stderr, drawn only when stderr is a terminal and not `--quiet`.
final class ProgressBar {
    private let context: CommandContext
    private let label: String
    private let enabled: Bool
    private var lastDraw = Date.distantPast
    private var drawn = false

    init(context: CommandContext, label: String) {
        self.context = context
        self.label = label
        self.enabled = context.stderrIsTerminal && !context.quiet
    }

    func update(done: Int, total: Int) {
        guard enabled, total > 0 else { return }
        let now = Date()
        guard done == total || now.timeIntervalSince(lastDraw) > 0.1 else { return }
        lastDraw = now
        let width = 30
        let filled = width * done / total
        let bar = String(repeating: "=", count: filled) + (filled < width ? ">" : "") + String(repeating: " ", count: max(0, width - filled - 1))
        context.rawError("\r\(label) [\(bar)] \(done)/\(total)")
        drawn = true
    }

    func finish() {
        if drawn { context.rawError("\r\u{1B}[K") }
        drawn = false
    }
}

/// `bytes` in binary units: `512 B`, `1.5 MiB`.
func formatBytes(_ bytes: Int64) -> String {
    let units = ["B", "KiB", "MiB", "GiB", "TiB"]
    var value = Double(bytes)
    var unit = 0
    while value >= 1024 && unit < units.count - 1 { value /= 1024; unit += 1 }
    return unit == 0 ? "\(bytes) B" : String(format: "%.1f", value) + " " + units[unit]
}
