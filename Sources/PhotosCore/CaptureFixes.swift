import Foundation
import PhotosModel

/// A signed duration a capture time is moved by (`photos date shift --by`, issue 26 item 5):
/// `±[Dd][HH:MM[:SS]]` — a sign, then days (`2d`), a time of hours and minutes with optional
/// seconds (`1:00`, `0:00:30`), or both (`1d2:30`, `1d 2:30`), as exiftool's
/// `-AllDates+=` shift (`Y:M:D H:M:S`, here without years and months, whose length varies) and
/// osxphotos `timewarp --time-delta` take it. Pure wall-clock arithmetic: no time zone, no DST.
public struct CaptureShift: Equatable, Sendable {
    /// The shift in seconds (negative: earlier).
    public var seconds: Int

    public init(seconds: Int) { self.seconds = seconds }

    /// The most days a shift may have (about 10,000 years: every capture time fits, no overflow).
    public static let maxDays = 3_660_000

    /// Parses `±[Dd][HH:MM[:SS]]` (the sign is required: `+1:00`, `-2d`, `+1d 0:30`; hours up to
    /// 999, minutes and seconds below 60).
    /// - Returns: nil for anything else, or for a shift of no part at all.
    public static func parse(_ text: String) -> CaptureShift? {
        var s = Substring(text.trimmingCharacters(in: .whitespaces))
        guard let sign = s.first, sign == "+" || sign == "-" else { return nil }
        s = s.dropFirst()
        var total = 0
        var parts = 0
        if let d = s.firstIndex(where: { $0 == "d" || $0 == "D" }) {
            let digits = s[..<d]
            guard !digits.isEmpty, digits.count <= 7, digits.allSatisfy(\.isASCIIDigit), let days = Int(digits),
                days <= maxDays
            else { return nil }
            total += days * 86_400
            parts += 1
            s = s[s.index(after: d)...].drop(while: { $0 == " " })
        }
        if !s.isEmpty {
            let fields = s.split(separator: ":", omittingEmptySubsequences: false)
            guard fields.count == 2 || fields.count == 3,
                fields.allSatisfy({ !$0.isEmpty && $0.count <= 3 && $0.allSatisfy(\.isASCIIDigit) }),
                let h = Int(fields[0]), let m = Int(fields[1]), fields[1].count == 2, m < 60
            else { return nil }
            var sec = 0
            if fields.count == 3 {
                guard fields[2].count == 2, let v = Int(fields[2]), v < 60 else { return nil }
                sec = v
            }
            total += h * 3600 + m * 60 + sec
            parts += 1
        }
        guard parts > 0 else { return nil }
        return CaptureShift(seconds: sign == "-" ? -total : total)
    }

    /// `+1d 02:30:00`, `-01:00:00`: the shift as the `--by` form.
    public var text: String {
        let a = abs(seconds)
        let days = a / 86_400, rest = a % 86_400
        let time = String(format: "%02d:%02d:%02d", rest / 3600, rest % 3600 / 60, rest % 60)
        return (seconds < 0 ? "-" : "+") + (days > 0 ? "\(days)d " : "") + time
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}

extension CaptureTime {
    /// The capture source of a time a user set or shifted by hand (`photos date set`,
    /// `photos date shift`, issue 26 item 5): `manual`. A later `import --refresh-metadata`
    /// leaves it alone while the file's own time is unchanged.
    public static let manualSource = "manual"

    /// The UTC offsets of the time zones in use, in minutes: −12:00…+14:00 (IANA tz database:
    /// Etc/GMT+12 to Pacific/Kiritimati). `date set`/`date shift`/`geotag --offset` take no other.
    public static let zoneOffsetRange = -12 * 60...14 * 60

    /// A `±HH:MM` offset of a time zone in use (`zoneOffsetRange`).
    /// - Returns: minutes east, or nil when malformed or outside −12:00…+14:00.
    public static func parseZoneOffset(_ text: String) -> Int? {
        guard let minutes = parseOffset(text), zoneOffsetRange.contains(minutes) else { return nil }
        return minutes
    }

    /// `local` (`YYYY-MM-DDTHH:MM:SS[.fff]`) moved by `seconds` on the wall clock: calendar
    /// arithmetic (timegm(3)/gmtime_r(3) on the fields read as UTC), so that no daylight saving
    /// rule of any zone applies; the sub-seconds are kept.
    /// - Returns: nil when `local` is not a wall-clock time or the result falls outside the
    ///   years 1…9999.
    public static func shifted(_ local: String, by seconds: Int) -> String? {
        guard let f = WallClock.parse(local) else { return nil }
        var t = time_t(f.secondsAsUTC + seconds)
        var tm = tm()
        guard gmtime_r(&t, &tm) != nil else { return nil }
        let year = Int(tm.tm_year) + 1900
        guard (1...9999).contains(year) else { return nil }
        let moved = WallClock(
            year: year, month: Int(tm.tm_mon) + 1, day: Int(tm.tm_mday), hour: Int(tm.tm_hour),
            minute: Int(tm.tm_min), second: Int(tm.tm_sec), fraction: f.fraction)
        return moved.localText
    }

    /// The instant of `local` at `offsetMinutes` east, in seconds since 1970 (no machine time
    /// zone involved); nil when `local` is not a wall-clock time.
    public static func instant(local: String, offsetMinutes: Int) -> Double? {
        guard let f = WallClock.parse(local) else { return nil }
        return Double(f.secondsAsUTC - offsetMinutes * 60) + f.fraction
    }
}

/// What `photos date set` or `photos date shift` does to each selected photo's capture time.
public enum CaptureFix: Equatable, Sendable {
    /// Sets the wall-clock time `local` (`YYYY-MM-DDTHH:MM:SS[.fff]`); the offset becomes
    /// `offsetMinutes` when given, else the photo's stays.
    case set(local: String, offsetMinutes: Int?)
    /// Moves the wall-clock time by `seconds`; the offset becomes `offsetMinutes` when given,
    /// else the photo's stays (a shift never converts between zones).
    case shift(seconds: Int, offsetMinutes: Int?)

    /// The new capture time of a photo whose time is `local` at `offset` (nil: none, unknown).
    /// - Returns: the new local time and offset; nil when a shift meets a photo without a time.
    /// - Throws: `CaptureFixError.outOfRange` when the result falls outside the years 1…9999.
    func apply(to local: String?, offset: Int?, photo: String) throws -> (local: String, offset: Int?)? {
        switch self {
        case let .set(newLocal, newOffset):
            return (newLocal, newOffset ?? offset)
        case let .shift(seconds, newOffset):
            guard let local else { return nil }
            guard let moved = CaptureTime.shifted(local, by: seconds) else {
                throw CaptureFixError.outOfRange(photo: photo, local: local, seconds: seconds)
            }
            return (moved, newOffset ?? offset)
        }
    }
}

/// A `date shift` that cannot be made (nothing is changed).
public enum CaptureFixError: Error, Equatable, CustomStringConvertible {
    /// Moving `photo`'s capture time `local` by `seconds` leaves the years 1…9999.
    case outOfRange(photo: String, local: String, seconds: Int)

    public var description: String {
        switch self {
        case let .outOfRange(photo, local, seconds):
            return
                "--by \(CaptureShift(seconds: seconds).text) moves \(photo)'s capture time \(local) outside the years 1-9999; nothing was changed"
        }
    }
}

/// One photo's capture time before and after a `date set`/`date shift` (or, in a dry run,
/// what it would be).
public struct CaptureFixChange: Equatable, Sendable {
    public var uniqueName: String
    /// ISO 8601 as shown (`CaptureTime.iso`): nil when the photo had no capture time.
    public var before: String?
    public var after: String
    /// The capture source before (`exif`, `file-mtime`, …; nil without a time).
    public var sourceBefore: String?

    /// `{"uniqueName","before","after","sourceBefore"}`.
    public var json: JSONValue {
        .object([
            ("uniqueName", .string(uniqueName)), ("before", .optional(before)), ("after", .string(after)),
            ("sourceBefore", .optional(sourceBefore))
        ])
    }
}

/// What `Library.fixCaptureTimes` did.
public struct CaptureFixReport: Equatable, Sendable {
    /// The photos whose time changed, in the order given.
    public var changed: [CaptureFixChange] = []
    /// Photos whose time already was the result (nothing written for them).
    public var unchanged: [String] = []
    /// Photos without a capture time, which a shift cannot move.
    public var withoutTime: [String] = []
    /// Photos deleted since they were selected.
    public var gone: [String] = []
}

extension Library {
    /// Sets or shifts the capture times of `photos` (uniqueNames) by `fix`, in one write
    /// transaction with one history transaction (context `date set`/`date shift`; a Photo
    /// update of `captureDate`, `captureOffset` and `captureSource` per photo, the attributes
    /// sync carries), the capture source becoming `CaptureTime.manualSource`. Each photo is read
    /// again inside the transaction. A photo whose time already is the result is left as it is
    /// (its source too). In a dry run (`dryRun`) the same work is rolled back.
    /// - Returns: the report, photos in the order of `photos`.
    /// - Throws: `CaptureFixError.outOfRange` (nothing changed), `LibraryError` (busy, a shared
    ///   zone this library may only read), the store's error.
    public func fixCaptureTimes(_ photos: [String], _ fix: CaptureFix, author: HistoryAuthor) throws
        -> CaptureFixReport
    {
        try write {
            let context: HistoryContext
            if case .set = fix { context = .dateSet } else { context = .dateShift }
            var history = HistoryWriter(self, author: author, context: context)
            var report = CaptureFixReport()
            for name in photos {
                guard let photo = try catalogStore.photo(uniqueName: name) else {
                    report.gone.append(name)
                    continue
                }
                guard
                    let (local, offset) = try fix.apply(
                        to: photo.captureDate, offset: photo.captureOffset, photo: photo.uniqueName)
                else {
                    report.withoutTime.append(name)
                    continue
                }
                if local == photo.captureDate && offset == photo.captureOffset {
                    report.unchanged.append(name)
                    continue
                }
                try metadataStore.setCaptureTime(
                    ofPhoto: photo.rowID, local: local, offsetMinutes: offset, source: CaptureTime.manualSource)
                history.update(
                    .photo(uniqueName: photo.uniqueName), ["captureDate", "captureOffset", "captureSource"],
                    zone: photo.zone.rawValue)
                report.changed.append(
                    CaptureFixChange(
                        uniqueName: photo.uniqueName,
                        before: photo.captureDate.map {
                            CaptureTime.iso(local: $0, offsetMinutes: photo.captureOffset, source: photo.captureSource)
                        },
                        after: CaptureTime.iso(local: local, offsetMinutes: offset), sourceBefore: photo.captureSource))
            }
            try history.commit()
            return report
        }
    }
}
