import Foundation
import PhotosCore

/// What `date set` and `date shift` share: the selection (photos and/or `list`'s filters), the
/// `--offset` parser, the run and the report.
enum DateCommands {
    /// `±HH:MM` within −12:00…+14:00 (`CaptureTime.parseZoneOffset`).
    static var offsetParser: ValueParser<Int> {
        ValueParser { text, name in
            guard let minutes = CaptureTime.parseZoneOffset(text) else {
                throw UsageError(
                    "\(name) takes a UTC offset ±HH:MM within -12:00…+14:00 like +02:00 or -05:00, not '\(text)'")
            }
            return minutes
        }
    }

    /// The photos named (every one resolved first) and matching the filters: the names given
    /// that the filters keep, or with no name every photo the filters select.
    /// - Throws: `UsageError` (64) when neither a photo nor a filter is given;
    ///   `CommandFailure` 65 when nothing matches; the errors of resolving a photo or filter.
    static func select(_ words: [String], _ selection: PhotoFilterOptions, _ library: Library, _ ctx: CommandContext)
        throws -> [String]
    {
        var filter = selection.filter
        if words.isEmpty && selection.selectsAll {
            throw UsageError("give the photos (uniqueNames, - for stdin) or filters such as --tag; nothing was changed")
        }
        if !words.isEmpty { filter.uniqueNames = Set(try ctx.resolvePhotos(words, in: library).map(\.uniqueName)) }
        var names: [String] = []
        try library.forEachPhoto(matching: filter) { names.append($0.uniqueName) }
        guard !names.isEmpty else {
            throw CommandFailure.dataError("no photo matches the photos and filters given; nothing was changed")
        }
        return names
    }

    static func run(
        _ words: [String], _ selection: PhotoFilterOptions, _ fix: CaptureFix, dryRun: Bool, _ ctx: CommandContext
    ) throws {
        let library = try ctx.openLibrary(dryRun: dryRun)
        let names = try select(words, selection, library, ctx)
        let report = try library.fixCaptureTimes(names, fix, author: ctx.historyAuthor)
        for name in report.withoutTime {
            ctx.console.itemError(name, "has no capture time to shift (use 'photos date set'); left unchanged")
        }
        if ctx.global.json {
            ctx.console.printJSON(
                .object([
                    ("changed", .int(report.changed.count)), ("unchanged", .int(report.unchanged.count)),
                    ("withoutCaptureTime", .int(report.withoutTime.count)), ("dryRun", .bool(dryRun)),
                    ("photos", .array(report.changed.map(\.json)))
                ]))
            return
        }
        guard !ctx.global.quiet else { return }
        for change in report.changed {
            ctx.console.print("\(change.uniqueName)  \(change.before ?? "-") \u{2192} \(change.after)")
        }
        let verb = dryRun ? "Would change" : "Changed"
        ctx.console.print(
            "\(verb) the capture time of \(TerminalText.plural(report.changed.count, "photo")) (\(report.unchanged.count) already so\(report.withoutTime.isEmpty ? "" : ", \(report.withoutTime.count) without a capture time"))"
        )
    }
}

extension PhotoFilterOptions {
    /// True when no filter was given: the filter selects every photo.
    var selectsAll: Bool {
        let f = filter
        return f.tags.isEmpty && f.since == nil && f.until == nil && f.zone == nil && f.share == nil
            && f.minRating == nil && f.ratedBy == nil && f.unratedBy == nil && f.name == nil && f.search == nil
            && f.formats.isEmpty && f.kinds.isEmpty && f.camera == nil && !f.untagged && f.hasPosition == nil
            && f.box == nil
            && f.near == nil && !f.unrated
    }
}

/// `photos date set PHOTO... DATE` (issue 26 item 5).
enum DateSetCommand: Command {
    static let configuration = CommandConfiguration(
        path: ["date", "set"],
        abstract: "Set the capture time of photos.",
        discussion: """
            DATE is the local wall-clock time where the photo was taken: YYYY-MM-DD, YYYY-MM-DDTHH:MM
            or YYYY-MM-DDTHH:MM:SS[.fff] (T or a space), optionally with its UTC offset (Z, ±HH:MM,
            within -12:00…+14:00). Without an offset the photo's own offset stays (unknown stays
            unknown). The capture source becomes 'manual'. Photos are named (- reads them from
            stdin) and/or selected by the filters of list; every photo is resolved first. One
            transaction, one history transaction (context 'date set'); synced and written to
            export's XMP sidecars. Like tag add and rate, no confirmation is asked: --dry-run
            prints before → after and changes nothing. A DATE that is not a date exits 64;
            nothing matched exits 65.
            """,
        examples: [
            "photos date set 3f2a 2024-05-01T14:30:00+02:00", "photos date set --tag scans 1987-07-14",
            "photos date set 3f2a 9b1c '2024-05-01 09:00' --dry-run"
        ])

    struct Options: ParsableOptions {
        var words: [String] = []
        var selection = PhotoFilterOptions()
        var dryRun = false
        var date = CaptureTime(local: "", offsetMinutes: nil, source: CaptureTime.manualSource)

        static var options: [Option<Options>] {
            PhotoFilterOptions.options.map { $0.lifted(\.selection) } + [
                .flag(\.dryRun, "--dry-run", help: "Print each photo's capture time before → after; change nothing.")
            ]
        }
        static var arguments: [Argument<Options>] {
            [
                .many(
                    \.words, "photo-and-date",
                    help:
                        "The photos (uniqueNames or prefixes; - reads them from stdin; none: those of the filters), then DATE."
                )
            ]
        }

        mutating func validate() throws {
            try selection.validate()
            guard let last = words.last else { throw UsageError("missing <date>") }
            guard let parsed = CaptureTime.fromISO(last, source: CaptureTime.manualSource),
                !last.hasPrefix("-"), !last.hasPrefix("+")
            else {
                throw UsageError(
                    "DATE takes a local time like 2024-05-01T14:30:00, optionally with an offset (+02:00, Z), not '\(last)'"
                )
            }
            if let offset = parsed.offsetMinutes, !CaptureTime.zoneOffsetRange.contains(offset) {
                throw UsageError("DATE '\(last)': the UTC offset must be within -12:00…+14:00")
            }
            date = parsed
        }
    }

    static func run(_ options: Options, _ ctx: CommandContext) throws {
        try DateCommands.run(
            Array(options.words.dropLast()), options.selection,
            .set(local: options.date.local, offsetMinutes: options.date.offsetMinutes), dryRun: options.dryRun, ctx)
    }
}

/// `photos date shift PHOTO... --by ±[Dd][HH:MM[:SS]] [--offset ±HH:MM]` (issue 26 item 5).
enum DateShiftCommand: Command {
    static let configuration = CommandConfiguration(
        path: ["date", "shift"],
        abstract: "Move the capture time of photos by a duration (a camera clock that was off).",
        discussion: """
            --by moves each photo's local wall-clock time: a sign, then days (2d), hours and minutes
            with optional seconds (1:00, 0:00:30), or both (1d2:30). The arithmetic is on the wall
            clock alone: no daylight saving rule is applied, and the offset stays as it is unless
            --offset sets a new one (±HH:MM within -12:00…+14:00; the wall-clock time then moves
            only by --by, so a camera left on home time abroad is fixed with both, e.g. --by +8:00
            --offset +09:00). At least one of --by and --offset is needed. The capture source
            becomes 'manual'. A photo without a capture time is named on stderr and left as it is
            (exit 1). Photos are named and/or selected by the filters of list; one transaction,
            one history transaction (context 'date shift'), synced, written to export's XMP
            sidecars. No confirmation is asked; --dry-run prints before → after.
            """,
        examples: [
            "photos date shift --tag trip --by +1:00", "photos date shift 3f2a 9b1c --by -0:02:30",
            "photos date shift --since 2024-08-01 --by +8:00 --offset +09:00 --dry-run"
        ])

    struct Options: ParsableOptions {
        var photos: [String] = []
        var selection = PhotoFilterOptions()
        var dryRun = false
        var by: CaptureShift?
        var offset: Int?

        static var options: [Option<Options>] {
            PhotoFilterOptions.options.map { $0.lifted(\.selection) } + [
                .value(
                    \.by, "--by", value: "DELTA",
                    help: "Move the wall-clock time by ±[Dd][HH:MM[:SS]] (+1:00, -2d, +1d2:30).",
                    parser: ValueParser { text, name in
                        guard let shift = CaptureShift.parse(text) else {
                            throw UsageError(
                                "\(name) takes a signed duration ±[Dd][HH:MM[:SS]] like +1:00, -0:00:30 or +2d, not '\(text)'"
                            )
                        }
                        return shift
                    }),
                .value(
                    \.offset, "--offset", value: "OFFSET",
                    help: "Set the UTC offset ±HH:MM (-12:00…+14:00) instead of keeping each photo's.",
                    parser: DateCommands.offsetParser),
                .flag(\.dryRun, "--dry-run", help: "Print each photo's capture time before → after; change nothing.")
            ]
        }
        static var arguments: [Argument<Options>] {
            [
                .optionalMany(
                    \.photos, "photo",
                    help: "Only these photos (and those of the filters): " + PhotoArguments.many)
            ]
        }

        func validate() throws {
            try selection.validate()
            if by == nil && offset == nil { throw UsageError("give --by DELTA, --offset ±HH:MM or both") }
        }
    }

    static func run(_ options: Options, _ ctx: CommandContext) throws {
        try DateCommands.run(
            options.photos, options.selection,
            .shift(seconds: options.by?.seconds ?? 0, offsetMinutes: options.offset), dryRun: options.dryRun, ctx)
    }
}
