import Foundation
import PhotosCore
import PhotosImaging

/// `photos thumbnails --rebuild [PHOTO...] [--jobs N] [--thumbnail-quality Q] [--dry-run]`.
enum ThumbnailsCommand: Command {
    static let configuration = CommandConfiguration(
        path: ["thumbnails"],
        abstract: "Make thumbnails again from the originals (--rebuild).",
        discussion: """
            Regenerates the thumbnails of the photos given, or of every photo, from their originals
            with the import's thumbnailer: after a change of --thumbnail-quality, or to repair them.
            Worker threads decode side by side; the thumbnails are stored in transactions of 64,
            recorded in history as updates of each Thumbnail (author thumbnails, unless --author).
            A photo whose original is missing, damaged or does not decode is named on stderr and
            keeps its thumbnail (exit 1). Each photo's image-data hash is recorded too (photos imported
            before it was: so that import recognises a file of theirs whose metadata another tool
            rewrote). --dry-run makes them all and stores none.
            """)

    struct Options: ParsableOptions {
        var rebuild = false
        var photos: [String] = []
        var jobs: Int?
        var quality: Int?
        var dryRun = false

        static var options: [Option<Options>] {
            [
                .flag(\.rebuild, "--rebuild", help: "Make the thumbnails again from the originals (required)."),
                .value(
                    \.jobs, "--jobs", "-j", value: "N", help: "Worker threads.", default: "number of cores",
                    parser: .int(in: 1...256)),
                .value(
                    \.quality, "--thumbnail-quality", value: "Q", help: "JPEG quality of thumbnails, 1-100.",
                    default: "85", parser: .int(in: 1...100)),
                .flag(\.dryRun, "--dry-run", help: "Make the thumbnails, store none.")
            ]
        }
        static var arguments: [Argument<Options>] {
            [
                Argument(
                    spec: ArgumentSpec(
                        "photo", help: PhotoArguments.many + " (default: every photo)", variadic: true, optional: true)
                ) { options, words in options.photos = words }
            ]
        }

        func validate() throws {
            guard rebuild else { throw UsageError("thumbnails needs --rebuild") }
        }
    }

    static func run(_ options: Options, _ ctx: CommandContext) throws {
        let library = try ctx.openLibrary(dryRun: options.dryRun)
        let photos = options.photos.isEmpty ? nil : try options.photos.map(library.resolvePhoto)
        var thumbnail = ThumbnailOptions()
        if let quality = options.quality { thumbnail.quality = quality }
        let report = try ctx.console.withProgress("rebuilding") { bar in
            try library.rebuildThumbnails(
                photos, options: thumbnail, jobs: options.jobs ?? ProcessInfo.processInfo.activeProcessorCount,
                dryRun: options.dryRun, author: ctx.historyAuthor, keepFailures: ctx.global.json,
                progress: { done, total, bytes in bar.update(done: done, total: total, bytes: bytes) },
                onFailure: {
                    ctx.console.itemError("\($0.uniqueName) (\(TerminalText.printable($0.displayName)))", $0.reason)
                })
        }
        if ctx.global.json {
            ctx.console.printJSON(report.json)
        } else if !ctx.global.quiet || report.failed > 0 {
            ctx.console.print(
                "\(report.dryRun ? "Would rebuild" : "Rebuilt") \(TerminalText.plural(report.rebuilt, "thumbnail"))"
                    + ", \(report.failed) failed")
        }
    }
}
