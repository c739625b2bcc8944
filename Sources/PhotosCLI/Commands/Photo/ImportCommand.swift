import Foundation
import PhotosCore

/// `photos import PATH...` (SPEC §5).
enum ImportCommand: Command {
    static let configuration = CommandConfiguration(
        path: ["import"],
        abstract: "Import JPEG, PNG, HEIF/HEIC, AVIF, WebP, TIFF and GIF files and folders, with 120-pixel thumbnails.",
        discussion: """
            Folders are read recursively (symbolic links followed, never in a loop); hidden files and
            folders are skipped unless --hidden. The type comes from the file's bytes, not its name:
            other files are counted as skipped, but a .jpg/.jpeg/.png/.heic/.heif/.hif/.avif/.webp/.tif/.tiff/.gif whose
            bytes are not JPEG, PNG, HEIF, AVIF, WebP, TIFF, GIF, JPEG XL or camera RAW is a failure. Originals are stored byte for
            byte. HEIF/AVIF: the primary image, upright by its irot/imir (EXIF Orientation is not
            applied on top), thumbnailed from an embedded thumbnail of at least 120 pixels when
            there is one. A file already in the library (same SHA-256) is a duplicate; when that
            photo's original is missing or damaged, the file restores it (said per file, and counted
            as restored). Tags and a
            rating are read from XMP sidecars (IMG.jpg.xmp or IMG.xmp) and embedded XMP: dc:subject,
            hierarchical keywords (lr:hierarchicalSubject A|B|C, digiKam:TagsList A/B/C) as tags A/B/C,
            xmp:Rating, the capture date, and photos:uniqueName, which a sidecar written by
            'photos export' carries: the new photo gets that uniqueName when no photo has it. With
            --refresh-metadata, files already in the library have their metadata read again, and
            what changed in the file since it was last read is applied to their photos (a keyword
            added or removed in the file adds or removes its tag, a changed rating changes the
            file's rating, a changed capture time replaces it; what the library added is never
            removed), each change said per photo (+tag Bug, -tag Insect), recorded in history as
            'import --refresh-metadata'. A file with the image data of a photo of the target zone
            but other bytes (its metadata rewritten by another tool) is that photo: it becomes its
            original, and its metadata is applied the same way. A camera's RAW+JPEG pair (one folder,
            one base name ignoring case, a RAW and a JPEG/HEIF whose capture times are within 2 s, or
            neither with one) is one photo with two originals: the JPEG is the primary (thumbnail,
            size, capture time: what the camera showed), the RAW its raw original; a half imported
            later joins the photo of the other (the same base name and capture times within 2 s),
            a JPEG taking over from its RAW as the primary; --no-pairing keeps them apart. Rows are committed in
            batches: an interrupted import loses at most the batch in flight, and running it again
            finishes the job. Exit status 1 when some files failed (each is named on stderr).
            """,
        examples: [
            "photos import ~/Pictures/2024 --tag 2024", "photos import --dry-run /media/card/DCIM",
            "photos import --share 5d1e ~/Pictures/summer"
        ])

    struct Options: ParsableOptions {
        var paths: [String] = []
        var tags: [String] = []
        var share: String?
        var dryRun = false
        var jobs: Int?
        var hidden = false
        var maxPixels: Int?
        var thumbnailQuality: Int?
        var batchSize: Int?
        var verbose = false
        var refreshMetadata = false
        var move = false
        var noPairing = false

        static var options: [Option<Options>] {
            [
                .values(\.tags, "--tag", value: "NAME", help: "Add this tag to every imported photo."),
                .value(
                    \.share, "--share", value: "ID",
                    help:
                        "Import straight into this share's zone (an id, an unambiguous prefix of at least 4 characters, or the share's title)."
                ),
                .flag(\.dryRun, "--dry-run", help: "Check and decode everything, write nothing."),
                .flag(
                    \.move, "--move",
                    help:
                        "With --share: move a photo already in the library (another zone) into the share, as 'share add --move'."
                ),
                .value(
                    \.jobs, "--jobs", "-j", value: "N", help: "Worker threads.", default: "number of cores",
                    parser: .int(in: 1...256)),
                .flag(\.hidden, "--hidden", help: "Also import hidden files and folders."),
                .flag(
                    \.noPairing, "--no-pairing",
                    help:
                        "Import a camera's RAW+JPEG pair (IMG_1234.CR2 + IMG_1234.JPG) or a Live Photo's still and movie (IMG_1234.HEIC + IMG_1234.MOV) as two photos, not one photo with two originals."
                ),
                .flag(
                    \.refreshMetadata, "--refresh-metadata",
                    help:
                        "For files already in the library, read their sidecars and embedded metadata again and apply what changed (tags, rating, capture time)."
                ),
                .value(
                    \.maxPixels, "--max-pixels", value: "N",
                    help: "Refuse images larger than N pixels, before decoding.", default: "100000000",
                    parser: .int(in: 1...Int(Int32.max) * 64)),
                .value(
                    \.thumbnailQuality, "--thumbnail-quality", value: "Q", help: "JPEG quality of thumbnails, 1-100.",
                    default: "85",
                    parser: .int(in: 1...100)),
                .value(
                    \.batchSize, "--batch-size", value: "N",
                    help: "Photos per committed transaction (an interrupted import loses at most one batch).",
                    default: "256", parser: .int(in: 1...100_000)),
                .flag(
                    \.verbose, "--verbose", "-v",
                    help: "Name every skipped and duplicate file (JSON: skippedFiles, duplicateFiles).")
            ]
        }
        static var arguments: [Argument<Options>] { [.many(\.paths, "path", help: "Files or folders to import.")] }

        func validate() throws {
            // The Importer checks these too; checking first means bad input never creates a library.
            for tag in tags { _ = try TagName.normalize(tag) }
        }
    }

    static func run(_ arguments: Options, _ ctx: CommandContext) throws {
        var options = ImportOptions(paths: arguments.paths)
        options.tags = arguments.tags
        options.dryRun = arguments.dryRun
        options.includeHidden = arguments.hidden
        options.refreshMetadata = arguments.refreshMetadata
        options.pairing = !arguments.noPairing
        // Only --verbose names skipped and duplicate files: without it their counts suffice.
        options.listSkippedAndDuplicates = arguments.verbose
        options.author = ctx.historyAuthor
        if let jobs = arguments.jobs { options.jobs = jobs }
        if let maxPixels = arguments.maxPixels { options.thumbnail.maxPixels = maxPixels }
        if let quality = arguments.thumbnailQuality { options.thumbnail.quality = quality }
        if let batch = arguments.batchSize { options.batchSize = batch }
        for path in options.paths where !FileManager.default.fileExists(atPath: path) {
            throw CommandFailure.noInput("\(path): no such file or directory")
        }

        let root = ctx.libraryPath
        if let shareArgument = arguments.share, !CompositionRoot.libraryExists(at: root) {
            throw CommandFailure.noInput("no share '\(shareArgument)': there is no library at \(root)")
        }
        let library: Library?
        if options.dryRun && !CompositionRoot.libraryExists(at: root) {
            library = nil
        } else if options.dryRun {
            library = try ctx.openLibrary(dryRun: true)
        } else {
            library = try ctx.openOrCreateLibrary()
        }
        if let shareArgument = arguments.share {
            guard let library else {
                throw CommandFailure.noInput("no share '\(shareArgument)': there is no library at \(root)")
            }
            let share = try library.resolveShare(shareArgument)
            // A zone shared with this library takes imports only from a read-write participant
            // (77 otherwise, naming the share and the permission).
            if share.scope != .private { try library.checkWritable(share: share.id, by: .import) }
            options.zone = share.id
        }
        if arguments.move && arguments.share == nil { throw UsageError("--move needs --share ID") }
        let importer = Importer(library: library, libraryRoot: root, options: options)
        var alreadyThere: [String] = []
        importer.onFailure = { ctx.console.itemError($0.path, $0.reason) }
        importer.onDuplicateInAnotherZone = { path, found in
            if arguments.move {
                if !alreadyThere.contains(found.uniqueName) { alreadyThere.append(found.uniqueName) }
                return
            }
            let move =
                found.zone == ZoneID.default.rawValue
                ? "; 'photos share add \(options.zone) \(found.uniqueName)' moves it there" : ""
            ctx.console.note(
                "\(path): not imported into share \(options.zone): it is photo \(found.uniqueName) (\(found.displayName)) of zone \(found.zone) already\(move)"
            )
        }
        importer.onWarning = { path, message in
            ctx.console.warning(command: "import", message.hasPrefix(path) ? message : "\(path): \(message)")
        }
        importer.onRestore = { r in
            ctx.console.note(
                "\(r.path): \(options.dryRun ? "would restore" : "restored") the original of photo \(r.uniqueName) (\(r.displayName)): \(r.reason)"
            )
        }
        // Each photo a refresh (or a file with its image data: the same photo with rewritten
        // metadata) changed, as it commits: `kite.png (UNIQUENAME): +tag Bug, −tag Insect`.
        if !ctx.global.json && !ctx.global.quiet {
            importer.onMetadataChange = { change in
                ctx.console.print(
                    TerminalText.escaped(change.path) + " (\(change.uniqueName)): "
                        + (options.dryRun ? "would change " : "") + change.descriptions.joined(separator: ", "))
            }
        }
        let summary: ImportSummary
        do {
            summary = try ctx.console.withProgress(options.dryRun ? "checking" : "importing") { bar in
                importer.onProgress = { [unowned importer] done, found in
                    // While the folders are still walked, `found` is a lower bound: no bar, no ETA.
                    bar.update(done: done, total: found, bytes: importer.bytesSoFar, totalKnown: importer.scanFinished)
                }
                return try importer.run()
            }
        } catch let interrupted as Interrupted<ImportSummary> {
            // Some batches committed before the error: say what stays imported, then why it stopped.
            let n = interrupted.report.imported
            let cause = ErrorReporting.report(for: interrupted.error, libraryPath: root)
            printSummary(interrupted.report, options: options, ctx: ctx, interruptedBy: cause)
            throw ErrorReporting.interrupted(
                interrupted.error, libraryPath: root,
                addendum:
                    "; the \(TerminalText.plural(n, "photo")) committed before stay imported: run the same command again to import the rest"
            )
        }
        printSummary(summary, options: options, ctx: ctx, interruptedBy: nil, verbose: arguments.verbose)
        // Issue 32 item 4: with --move, the photos the files already are move into the share once
        // the import's batches have committed (one `share add` transaction).
        if let library, !alreadyThere.isEmpty {
            let share = try library.share(id: options.zone)
            let photos = try ctx.resolvePhotos(alreadyThere, in: library)
            let result = try library.addToShare(share, photos: photos, allowMove: true, author: ctx.historyAuthor)
            ctx.console.note(
                "\(options.dryRun ? "would move" : "moved") \(TerminalText.plural(result.moved, "photo")) already in the library into share '\(TerminalText.printable(share.title))' (\(share.id)): \(alreadyThere.joined(separator: ", "))"
            )
        }
    }

    /// The summary line (or JSON object); an interrupted import's JSON has `"interrupted":true`
    /// and the `"error"`.
    static func printSummary(
        _ summary: ImportSummary, options: ImportOptions, ctx: CommandContext,
        interruptedBy error: ErrorReporting.Report?, verbose: Bool = false
    ) {
        if ctx.global.json {
            var json = summary.json
            if case .object(var pairs) = json {
                if verbose {
                    pairs += [
                        ("skippedFiles", .array(summary.skippedPaths.map(JSONValue.string))),
                        ("duplicateFiles", .array(summary.duplicatePaths.map(JSONValue.string)))
                    ]
                }
                if options.dryRun { pairs.append(("dryRun", .bool(true))) }
                if let error { pairs += [("interrupted", .bool(true)), ("error", .string(error.message))] }
                json = .object(pairs)
            }
            ctx.console.printJSON(json)
        } else if !ctx.global.quiet || summary.failed > 0 || error != nil {
            if verbose {
                for path in summary.skippedPaths { ctx.console.print("skipped: " + TerminalText.escaped(path)) }
                for path in summary.duplicatePaths { ctx.console.print("duplicate: " + TerminalText.escaped(path)) }
            }
            let t = TerminalText.self
            let verb = options.dryRun ? "Would import" : "Imported"
            let restored =
                summary.restored > 0
                ? ", \(t.plural(summary.restored, "original")) \(options.dryRun ? "to restore" : "restored")" : ""
            let refreshed =
                summary.refreshed.map {
                    " (metadata of \(t.plural($0, "photo")) \(options.dryRun ? "would change" : "refreshed"))"
                } ?? ""
            let replaced =
                summary.replaced > 0
                ? ", \(t.plural(summary.replaced, "original")) \(options.dryRun ? "to replace" : "replaced") by the same image with new metadata"
                : ""
            // A RAW+JPEG pair is one photo (issue 24 item 2): its RAW is said apart, and so is a
            // half that joined a photo already here.
            let pairs =
                (summary.paired > 0 ? [t.plural(summary.paired, "RAW+JPEG pair")] : [])
                + (summary.livePaired > 0 ? [t.plural(summary.livePaired, "Live Photo")] : [])
            let paired = pairs.isEmpty ? "" : " (\(pairs.joined(separator: " and ")) as one photo each)"
            let joined =
                summary.joined > 0
                ? ", \(summary.joined) \(summary.joined == 1 ? "file" : "files") \(options.dryRun ? "to join" : "joined") to the photo of its pair"
                : ""
            ctx.console.print(
                "\(verb) \(t.plural(summary.imported, "photo"))\(paired)\(joined), \(t.plural(summary.duplicates, "duplicate"))\(refreshed)\(replaced)\(restored), "
                    + "\(summary.skipped) skipped, \(summary.failed) failed; \(t.bytes(summary.bytes)) in \(t.seconds(summary.seconds)) s"
                    + (error == nil ? "" : " (interrupted)"))
        }
    }
}
