import Foundation
import PhotosCore

/// `photos gallery DEST` (issue 28): a static HTML gallery of the photos the `list` filters
/// select, to open in any browser from disk or from a plain web server.
enum GalleryCommand: Command {
    static let configuration = CommandConfiguration(
        path: ["gallery"],
        abstract: "Write a static HTML gallery (pages, thumbnails, lightbox renditions) into a folder.",
        discussion: """
            DEST gets index.html and page-2.html ... (at most --per-page photos each, default 200,
            newest capture first, under headings of each photo's own local capture day, month or
            year), gallery.css and gallery.js, and per photo t/UNIQUENAME.jpg (its stored 120-px
            thumbnail, copied byte for byte), r/UNIQUENAME.jpg (the lightbox rendition: long edge
            --size pixels, default 2048, JPEG quality --quality, default 85, made by photos' own
            decoders with colour management and orientation as thumbnails, --jobs at a time) and
            o/UNIQUENAME.EXT (the original: --originals copy, link or none). Nothing is fetched
            from the network: the pages work opened as file:// and served by any web server.
            Names, tags and titles are escaped; file names come from uniqueNames only, and
            nothing is written outside DEST. A page whose bytes did not change is not rewritten;
            files of photos no longer selected (deleted, filtered out) are removed. What was
            written is kept in DEST/.photos-gallery.tsv; with --update a photo whose original and
            options are unchanged, and whose files are there, is not written again. --share ID
            makes the gallery of a share's photos. Exit status 1 when some photos failed (each
            named on stderr; they are left out of the pages), 73 when DEST cannot be created
            or is an existing folder of other files (no .photos-gallery.tsv): the gallery never
            writes over or removes files it did not write.
            """,
        examples: [
            "photos gallery ~/public_html/trip --tag trip --title 'Trip 2024' --update",
            "photos gallery /srv/www/family --share 4f2a --originals link",
            "photos gallery ~/g --size 0 --originals none --per-page 500",
            "cd ~/g && python3 -m http.server"
        ])

    struct Options: ParsableOptions {
        var destination = ""
        var selection = PhotoFilterOptions()
        var title: String?
        var group: GalleryGrouping?
        var perPage: Int?
        var size: Int?
        var quality: Int?
        var originals: GalleryOriginals?
        var update = false
        var dryRun = false
        var jobs: Int?

        static var options: [Option<Options>] {
            PhotoFilterOptions.options.map { $0.lifted(\.selection) } + [
                .value(\.title, "--title", value: "T", help: "The pages' title.", default: "Photos"),
                .value(
                    \.group, "--group", value: "BY", help: "Headings by capture day, month, year, or none.",
                    default: "day",
                    parser: ValueParser { text, name in
                        guard let group = GalleryGrouping(rawValue: text.lowercased()) else {
                            throw UsageError("\(name) takes day, month, year or none, not '\(text)'")
                        }
                        return group
                    }),
                .value(
                    \.perPage, "--per-page", value: "N", help: "Photos per page.", default: "200",
                    parser: .int(in: 1...100_000)),
                .value(
                    \.size, "--size", value: "PX",
                    help: "Long edge of the lightbox renditions in pixels; 0 makes none.", default: "2048",
                    parser: .int(in: 0...16_384)),
                .value(
                    \.quality, "--quality", value: "Q", help: "JPEG quality of the renditions, 1-100.", default: "85",
                    parser: .int(in: 1...100)),
                .value(
                    \.originals, "--originals", value: "HOW", help: "Originals in the gallery: copy, link or none.",
                    default: "copy",
                    parser: ValueParser { text, name in
                        guard let how = GalleryOriginals(rawValue: text.lowercased()) else {
                            throw UsageError("\(name) takes copy, link or none, not '\(text)'")
                        }
                        return how
                    }),
                .flag(
                    \.update, "--update",
                    help: "Write only photos that are new or changed since the last gallery into DEST."),
                .flag(\.dryRun, "--dry-run", help: "Report what would be written or removed; write nothing."),
                .value(
                    \.jobs, "--jobs", "-j", value: "N", help: "Worker threads making renditions and copying files.",
                    default: "number of cores", parser: .int(in: 1...256))
            ]
        }
        static var arguments: [Argument<Options>] {
            [.one(\.destination, "dest", help: "The gallery folder (created when absent).")]
        }

        func validate() throws { try selection.validate() }

        /// The gallery options for Core.
        var galleryOptions: GalleryOptions {
            var options = GalleryOptions(destination: destination)
            options.filter = selection.filter
            if let title { options.title = title }
            if let group { options.grouping = group }
            if let perPage { options.perPage = perPage }
            if let size { options.size = size }
            if let quality { options.quality = quality }
            if let originals { options.originals = originals }
            if let jobs { options.jobs = jobs }
            options.update = update
            options.dryRun = dryRun
            return options
        }
    }

    static func run(_ arguments: Options, _ ctx: CommandContext) throws {
        let options = arguments.galleryOptions
        let library = try ctx.openLibraryForReading(dryRun: options.dryRun)
        // An unknown or ambiguous share, tag or zone fails before DEST is created.
        if let share = options.filter.share { _ = try library.resolveShare(share) }
        var check = options.filter
        check.limit = 0
        try library.forEachPhoto(matching: check) { _ in }
        let gallery = Gallery(library: library, options: options)
        gallery.onFailure = { failure in
            ctx.console.itemError(
                "\(failure.uniqueName) (\(TerminalText.printable(failure.displayName)))", failure.reason)
        }
        if options.dryRun && !ctx.global.json && !ctx.global.quiet {
            gallery.onPlannedFile = { ctx.console.print("would write " + TerminalText.escaped($0)) }
        }
        let summary = try ctx.console.withProgress(options.dryRun ? "checking" : "writing gallery") { bar in
            if bar.enabled { gallery.onProgress = { done, total in bar.update(done: done, total: total) } }
            return try gallery.run()
        }
        if ctx.global.json {
            ctx.console.printJSON(summary.json(dryRun: options.dryRun))
        } else if !ctx.global.quiet || summary.failed > 0 {
            let verb = options.dryRun ? "Would write gallery" : "Gallery"
            ctx.console.print(
                "\(verb): \(TerminalText.plural(summary.photos, "photo")) on \(TerminalText.plural(summary.pages, "page")); \(summary.written) written, \(summary.skipped) skipped, \(summary.failed) failed, \(TerminalText.plural(summary.removed, "file")) removed, \(TerminalText.plural(summary.pagesWritten, "page file")) written; \(TerminalText.bytes(summary.bytes)) in \(TerminalText.seconds(summary.seconds)) s"
            )
        }
    }
}
