import Foundation
import PhotosFiles
import PhotosCore

/// Options shared by `list` and (later) `export` to choose photos.
enum PhotoFilterOptions {
    static let options: [OptionSpec] = [
        OptionSpec(["--tag"], value: "NAME", help: "Only photos with this tag (all given tags must match).", repeatable: true),
        OptionSpec(["--since"], value: "DATE", help: "Only photos captured (or, without a capture date, imported) at or after DATE (YYYY-MM-DD or ISO 8601), compared with each photo's own local time; a DATE with Z or an offset is an instant."),
        OptionSpec(["--until"], value: "DATE", help: "Only photos captured (or imported) before DATE; a day-only DATE includes that day."),
        OptionSpec(["--zone"], value: "ID", help: "Only photos in this record zone."),
        OptionSpec(["--share"], value: "ID", help: "Only photos in this share (an id or an unambiguous prefix of at least 4 characters)."),
        OptionSpec(["--min-rating"], value: "N", help: "Only photos whose rating (the mean, rounded half up) is at least N, 1-5; unrated photos are left out."),
    ]

    /// The filter the options describe.
    /// - Throws: `PhotosError` 64 for a date that does not parse, a --min-rating outside 1…5, or
    ///   --zone together with --share.
    static func filter(_ args: ParsedArguments) throws -> PhotoFilter {
        var filter = PhotoFilter()
        filter.tags = args.all("tag")
        if let text = args.value("since") {
            guard let bound = CaptureBound.parse(text) else { throw PhotosError.usage("--since takes a date like 2024-05-01 or 2024-05-01T12:00:00Z, not '\(text)'") }
            filter.since = bound
        }
        if let text = args.value("until") {
            guard let bound = CaptureBound.parse(text, endOfDay: true) else { throw PhotosError.usage("--until takes a date like 2024-05-31 or 2024-05-31T12:00:00Z, not '\(text)'") }
            filter.until = bound
        }
        filter.zone = args.value("zone")
        filter.share = args.value("share")
        if filter.zone != nil && filter.share != nil { throw PhotosError.usage("give --zone or --share, not both") }
        filter.minRating = try args.int("min-rating", in: RatingValue.range)
        return filter
    }
}

/// `photos list`.
enum ListCommand {
    static let spec = CommandSpec(
        path: ["list"],
        abstract: "List photos: uniqueName, name, size, tags, rating, zone.",
        options: PhotoFilterOptions.options,
        run: { args, ctx in
            let filter = try PhotoFilterOptions.filter(args)
            let library = try ctx.openLibraryForReading()
            // An unknown or ambiguous share fails before the header reaches stdout.
            if let share = filter.share { _ = try library.resolveShare(share) }
            if !ctx.json && !ctx.quiet {
                ctx.print(row("UNIQUENAME", "NAME", "SIZE", "TAGS", "RATING", "ZONE"))
            }
            try library.forEachPhoto(matching: filter) { photo in
                if ctx.json { ctx.printJSON(photo.json) } else {
                    ctx.print(row(photo.uniqueName, photo.displayName, String(photo.byteSize), photo.tags.joined(separator: ","),
                                  photo.rating.map(String.init) ?? "-", photo.zone))
                }
            }
            return .ok
        })

    static func row(_ a: String, _ b: String, _ c: String, _ d: String, _ e: String, _ f: String) -> String {
        func pad(_ s: String, _ n: Int) -> String { s.count >= n ? s : s + String(repeating: " ", count: n - s.count) }
        func lpad(_ s: String, _ n: Int) -> String { s.count >= n ? s : String(repeating: " ", count: n - s.count) + s }
        let name = b.unicodeScalars.map { isControlCharacter($0) ? "?" : String($0) }.joined()
        return "\(pad(a, 36))  \(pad(name, 32)) \(lpad(c, 10))  \(pad(d.isEmpty ? "-" : d, 20)) \(lpad(e, 6))  \(f)"
    }
}

/// `photos show PHOTO`.
enum ShowCommand {
    static let spec = CommandSpec(
        path: ["show"],
        abstract: "Show one photo's attributes.",
        arguments: [ArgumentSpec("photo", help: "A uniqueName, or an unambiguous prefix of at least 4 characters.")],
        options: [OptionSpec(["--share"], value: "ID", help: "Require the photo to be in this share (exit 66 when it is not).")],
        positionals: (1, 1),
        run: { args, ctx in
            let library = try ctx.openLibraryForReading()
            let p = try library.resolvePhoto(args.positionals[0])
            if let shareArgument = args.value("share") {
                let share = try library.resolveShare(shareArgument)
                guard p.zone == share.id else { throw PhotosError.noInput("photo \(p.uniqueName) is not in share \(share.id)") }
            }
            if ctx.json { ctx.printJSON(p.json); return .ok }
            let lines: [(String, String)] = [
                ("uniqueName", p.uniqueName), ("displayName", p.displayName), ("format", p.format),
                ("size", "\(p.byteSize) bytes (\(formatBytes(Int64(p.byteSize))))"),
                ("dimensions", "\(p.width)×\(p.height) pixels, upright (EXIF Orientation \(p.orientation.rawValue))"),
                ("captured", p.captureDate.map { "\($0) (\(p.captureSource ?? "exif"))" } ?? "-"), ("imported", p.importedAt), ("sha256", p.sha256),
                ("original", "\(Library.externalDataName)/\(p.fileReference)"),
                ("thumbnail", "\(p.thumbnailWidth)×\(p.thumbnailHeight) pixels"),
                ("tags", p.tags.isEmpty ? "-" : p.tags.joined(separator: ", ")),
                ("rating", p.rating.map { "\($0) (ratings: \(p.ratings.map(String.init).joined(separator: ", ")))" } ?? "-"),
                ("zone", "\(p.zone) (\(p.scope))"),
            ]
            for (key, value) in lines { ctx.print((key + ":").padding(toLength: 13, withPad: " ", startingAt: 0) + escapingControlCharacters(value)) }
            return .ok
        })
}

/// `photos thumbnail PHOTO -o FILE`.
enum ThumbnailCommand {
    static let spec = CommandSpec(
        path: ["thumbnail"],
        abstract: "Write a photo's thumbnail JPEG to a file (or - for stdout).",
        arguments: [ArgumentSpec("photo", help: "A uniqueName, or an unambiguous prefix of at least 4 characters.")],
        options: [OptionSpec(["--output", "-o"], value: "FILE", help: "Where to write the JPEG; - writes to stdout.")],
        positionals: (1, 1),
        run: { args, ctx in
            guard let output = args.value("output") else { throw PhotosError.usage("missing --output FILE") }
            let library = try ctx.openLibraryForReading()
            let photo = try library.resolvePhoto(args.positionals[0])
            let data = try library.thumbnailData(of: photo)
            if output == "-" { ctx.writeStdout(data); return .ok }
            try writeFileAtomically(data, to: output)
            if !ctx.quiet && !ctx.json { ctx.note("wrote \(photo.thumbnailWidth)×\(photo.thumbnailHeight) thumbnail to \(output)") }
            if ctx.json { ctx.printJSON(.object([("path", .string(output)), ("width", .int(photo.thumbnailWidth)), ("height", .int(photo.thumbnailHeight)), ("bytes", .int(data.count))])) }
            return .ok
        })

    /// Writes `bytes` to a temporary file beside `path`, then renames it into place.
    /// - Throws: `PhotosError` 73 when the file cannot be created, 74 on a write error.
    static func writeFileAtomically(_ bytes: [UInt8], to path: String) throws {
        try bytes.withUnsafeBytes { try AtomicFile.write($0, to: path) }
    }
}

/// `photos delete PHOTO...`.
enum DeleteCommand {
    static let spec = CommandSpec(
        path: ["delete"],
        abstract: "Delete photos with their data, thumbnails and ratings.",
        discussion: "Tags stay (their links are removed). An original is removed from the library once no photo references it. Every photo is resolved first: if one is unknown or ambiguous, nothing is deleted.",
        arguments: [ArgumentSpec("photo", help: "uniqueNames or unambiguous prefixes of at least 4 characters.", variadic: true)],
        positionals: (1, nil),
        run: { args, ctx in
            let library = try ctx.openLibrary()
            let photos = try args.positionals.map(library.resolvePhoto)
            let deleted = try library.deletePhotos(photos, author: ctx.historyAuthor)
            if ctx.json { ctx.printJSON(.object([("deleted", .int(deleted.count)), ("uniqueNames", .array(deleted.map(JSONValue.string)))])) }
            else if !ctx.quiet { ctx.print("Deleted \(deleted.count) photo\(deleted.count == 1 ? "" : "s")") }
            return .ok
        })
}

/// `photos verify`'s report: one line per problem (with `--repair --dry-run`, each followed by
/// the repair it would make) and a summary, or one JSON object (with `"interrupted":true` and
/// the `"error"` when an error stopped the repair part-way).
func printVerifyReport(_ report: VerifyReport, ctx: CommandContext, interruptedBy error: PhotosError? = nil) {
    if ctx.json {
        var json = report.json
        if let error, case .object(var pairs) = json {
            pairs += [("interrupted", .bool(true)), ("error", .string(error.message))]
            json = .object(pairs)
        }
        ctx.printJSON(json)
        return
    }
    for problem in report.problems {
        ctx.print(escapingControlCharacters("\(problem.repaired ? "repaired" : "problem"): \(problem.kind): \(problem.detail)"))
        if report.dryRun, let repair = problem.repair {
            ctx.print(escapingControlCharacters("  would repair: \(repair)"))
        }
    }
    if !ctx.quiet || !report.isClean {
        let remaining = report.problems.filter { !$0.repaired }.count
        let repaired = report.problems.count - remaining
        var line = "Checked \(report.photos) photos, \(report.thumbnails) thumbnails and \(report.files) files: \(remaining) problem\(remaining == 1 ? "" : "s")\(repaired > 0 ? ", \(repaired) repaired" : "")"
        if report.dryRun { line += "; --repair would make \(report.repairs.count) change\(report.repairs.count == 1 ? "" : "s") (dry run: nothing changed)" }
        if error != nil { line += " (interrupted)" }
        ctx.print(line)
    }
}

/// `photos verify [--repair [--dry-run]] [--quick]`.
enum VerifyCommand {
    static let spec = CommandSpec(
        path: ["verify"],
        abstract: "Check the library's invariants; --repair fixes what can be fixed.",
        discussion: """
        Checks that every original exists with its recorded size and SHA-256, that no file in
        the external data folder lacks a row (an orphan, e.g. after a crash), that SQLite's
        integrity_check and foreign_key_check are clean, that no tag link crosses zones, and
        that every thumbnail is a sound JPEG of its recorded size (also with --quick). Each
        problem names the photo's uniqueName and file name. --repair removes orphan files,
        regenerates damaged or missing thumbnails from their originals and deletes photos whose
        original is gone (re-importing the intact file restores it instead); an original that
        cannot be checked (permission, I/O error) is unreadable-file, which --repair leaves alone.
        --repair --dry-run lists those repairs ("would repair: ...") and changes nothing (the
        repairs run and are rolled back). History author verify (unless --author).
        Exit status 0 when clean, 1 when problems remain.
        """,
        options: [
            OptionSpec(["--repair"], help: "Remove orphan files, regenerate damaged thumbnails, delete photos whose original is gone."),
            OptionSpec(["--dry-run"], help: "With --repair: list what it would change; change nothing."),
            OptionSpec(["--quick"], help: "Check sizes only, not SHA-256 hashes."),
        ],
        run: { args, ctx in
            let repair = args.flag("repair")
            let dryRun = args.flag("dry-run")
            if dryRun && !repair { throw PhotosError.usage("--dry-run goes with --repair (verify alone never changes anything)") }
            // verify alone only reads (a read-only library can be verified); --repair writes;
            // --repair --dry-run runs the repairs on a library in dry-run mode (rolled back).
            let library = dryRun ? try ctx.openLibrary(dryRun: true) : try ctx.openLibraryForReading(!repair)
            let report: VerifyReport
            do {
                report = try library.verify(quick: args.flag("quick"), repair: repair, dryRun: dryRun, author: ctx.historyAuthor)
            } catch let interrupted as Interrupted<VerifyReport> {
                let error = CLIError(interrupted.error, libraryPath: ctx.libraryPath).photosError
                printVerifyReport(interrupted.report, ctx: ctx, interruptedBy: error)
                throw PhotosError(error.status, error.message
                    + "; the repairs listed as repaired were made: run 'photos verify --repair' again to finish")
            }
            printVerifyReport(report, ctx: ctx)
            return report.isClean ? .ok : .partial
        })
}
