import Foundation
import PhotosCore
import PhotosImaging

/// `photos geotag --gpx FILE... [PHOTO...|filters]` (issue 26 item 7).
enum GeotagCommand: Command {
    static let configuration = CommandConfiguration(
        path: ["geotag"],
        abstract: "Set photos' positions from GPX tracks, by their capture times.",
        discussion: """
            As exiftool -geotag: each photo's capture instant (its local time less its UTC
            offset) is looked up in the tracks' timestamped points (<trkpt> with <time>), and
            the position is interpolated linearly between the two points around it, when they
            are at most --max-gap apart and in one segment; outside every track, or in a wider
            gap, the photo gets no position. A photo whose offset is unknown needs --offset, else
            it is skipped and counted. Photos with a position are left unless --overwrite.
            Photos are named and/or selected by the filters of list; none: every photo. One
            transaction, one history transaction (context 'geotag'). A file that is not GPX
            exits 65 naming it; nothing is changed.
            """,
        examples: [
            "photos geotag --gpx walk.gpx --tag trip", "photos geotag --gpx a.gpx --gpx b.gpx --offset +02:00 --dry-run"
        ])

    struct Options: ParsableOptions {
        var photos: [String] = []
        var selection = PhotoFilterOptions()
        var gpx: [String] = []
        var maxGap: Int?
        var offset: Int?
        var overwrite = false
        var dryRun = false

        static var options: [Option<Options>] {
            PhotoFilterOptions.options.map { $0.lifted(\.selection) } + [
                .values(\.gpx, "--gpx", value: "FILE", help: "A GPX track (repeatable; at least one)."),
                .value(
                    \.maxGap, "--max-gap", value: "DURATION",
                    help: "The widest gap between two track points to interpolate across: 30s, 5m, 1h.",
                    default: "5m",
                    parser: ValueParser { text, name in
                        let units: [Character: Int] = ["s": 1, "m": 60, "h": 3600]
                        guard let unit = text.last.flatMap({ units[$0] }), let n = Int(text.dropLast()), n > 0,
                            n <= 1_000_000
                        else { throw UsageError("\(name) takes a duration like 30s, 5m or 1h, not '\(text)'") }
                        return n * unit
                    }),
                .value(
                    \.offset, "--offset", value: "OFFSET",
                    help: "The UTC offset ±HH:MM (-12:00…+14:00) of photos whose offset is unknown.",
                    parser: DateCommands.offsetParser),
                .flag(\.overwrite, "--overwrite", help: "Also replace positions photos already have."),
                .flag(\.dryRun, "--dry-run", help: "Print the positions it would set; change nothing.")
            ]
        }
        static var arguments: [Argument<Options>] {
            [
                .optionalMany(
                    \.photos, "photo", help: "Only these photos (and those of the filters): " + PhotoArguments.many)
            ]
        }

        func validate() throws {
            try selection.validate()
            if gpx.isEmpty { throw UsageError("missing option --gpx <file>") }
        }
    }

    static func run(_ options: Options, _ ctx: CommandContext) throws {
        let segments: [[TrackPoint]]
        do {
            segments = try GPXTrack.read(paths: options.gpx)
        } catch let e as GPXError {
            let status: ExitStatus = e.kind == .data ? .dataError : e.kind == .noInput ? .noInput : .ioError
            throw CommandFailure(status, e.description)
        }
        let library = try ctx.openLibrary(dryRun: options.dryRun)
        var filter = options.selection.filter
        if !options.photos.isEmpty {
            filter.uniqueNames = Set(try ctx.resolvePhotos(options.photos, in: library).map(\.uniqueName))
        }
        var names: [String] = []
        try library.forEachPhoto(matching: filter) { names.append($0.uniqueName) }
        guard !names.isEmpty else {
            throw CommandFailure.dataError("no photo matches the photos and filters given; nothing was changed")
        }
        let report = try library.geotag(
            names, segments: segments, maxGap: Double(options.maxGap ?? 300), assumedOffset: options.offset,
            overwrite: options.overwrite, author: ctx.historyAuthor)
        if report.unknownOffset > 0 {
            ctx.console.note(
                "\(TerminalText.plural(report.unknownOffset, "photo")) with an unknown UTC offset skipped: give --offset ±HH:MM"
            )
        }
        func coordinates(_ p: GeoPosition) -> String {
            String(format: "%.7f, %.7f", p.latitude, p.longitude)
                + (p.altitude.map { String(format: ", %.1f m", $0) } ?? "")
        }
        if ctx.global.json {
            ctx.console.printJSON(
                .object([
                    ("geotagged", .int(report.tagged.count)), ("hadPosition", .int(report.hadPosition)),
                    ("withoutCaptureTime", .int(report.withoutTime)), ("unknownOffset", .int(report.unknownOffset)),
                    ("outsideTrack", .int(report.outsideTrack)), ("beyondMaxGap", .int(report.inGap)),
                    ("trackPoints", .int(segments.reduce(0) { $0 + $1.count })), ("dryRun", .bool(options.dryRun)),
                    (
                        "photos",
                        .array(
                            report.tagged.map {
                                .object([
                                    ("uniqueName", .string($0.uniqueName)),
                                    ("latitude", .decimal($0.position.latitude, decimals: 7)),
                                    ("longitude", .decimal($0.position.longitude, decimals: 7)),
                                    ("altitude", $0.position.altitude.map { .decimal($0, decimals: 3) } ?? .null)
                                ])
                            })
                    )
                ]))
            return
        }
        guard !ctx.global.quiet else { return }
        for (name, position) in report.tagged { ctx.console.print("\(name)  \(coordinates(position))") }
        ctx.console.print(
            "\(options.dryRun ? "Would geotag" : "Geotagged") \(TerminalText.plural(report.tagged.count, "photo")) (\(report.hadPosition) with a position, \(report.outsideTrack) outside the tracks, \(report.inGap) beyond --max-gap, \(report.unknownOffset) with an unknown offset, \(report.withoutTime) without a capture time)"
        )
    }
}
