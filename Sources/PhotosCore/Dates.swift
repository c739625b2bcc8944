import Foundation

/// ISO 8601 dates in UTC, the one format of every date `photos` stores and prints (SPEC §5a).
public enum ISODate {
    /// `date` as `YYYY-MM-DDTHH:MM:SSZ` (UTC, whole seconds). Thread-safe (uses `gmtime_r`).
    public static func string(from date: Date) -> String {
        var t = time_t(date.timeIntervalSince1970.rounded(.down))
        var tm = tm()
        gmtime_r(&t, &tm)
        return String(
            format: "%04d-%02d-%02dT%02d:%02d:%02dZ", Int(tm.tm_year) + 1900, Int(tm.tm_mon) + 1,
            Int(tm.tm_mday), Int(tm.tm_hour), Int(tm.tm_min), Int(tm.tm_sec))
    }

    /// `date` as `YYYY-MM-DDTHH:MM:SS.fffZ` (UTC, milliseconds rounded down; 24 characters): the
    /// form of every stamp that orders changes (history transaction timestamps, sync stamps),
    /// so that two changes in one second keep their order and stamps order as strings.
    /// Thread-safe (uses `gmtime_r`).
    public static func millisecondString(from date: Date) -> String {
        millisecondString(milliseconds: Int64((date.timeIntervalSince1970 * 1000).rounded(.down)))
    }

    /// `ms` milliseconds since 1970 as `YYYY-MM-DDTHH:MM:SS.fffZ` (exact: integer arithmetic).
    public static func millisecondString(milliseconds ms: Int64) -> String {
        let seconds = ms >= 0 ? ms / 1000 : (ms - 999) / 1000
        let whole = string(from: Date(timeIntervalSince1970: Double(seconds)))
        return String(whole.dropLast()) + String(format: ".%03dZ", Int(ms - seconds * 1000))
    }

    /// Parses a date given on the command line, with the one parser of every date option
    /// (`CaptureBound.parse`, issue 31 item 21: `history --since 2024-12-31Z` was refused where
    /// `list --since` took it): `YYYY-MM-DD`, `YYYY-MM-DDTHH:MM[:SS[.f…]]` (`T` or a space),
    /// each optionally with `Z` or `±HH:MM`; a time without a zone is UTC, a day alone is its
    /// midnight (in its zone when it has one).
    /// - Returns: the instant, and whether only a day was given (so `--until` can include it).
    public static func parse(_ text: String) -> (date: Date, dayOnly: Bool)? {
        guard let bound = CaptureBound.parse(text), let f = WallClock.parse(bound.local) else { return nil }
        let seconds = f.secondsAsUTC - (bound.offsetMinutes ?? 0) * 60
        return (Date(timeIntervalSince1970: Double(seconds) + f.fraction), CaptureBound.isDayOnly(text))
    }
}

/// When a photo was taken: the wall-clock time where it was taken, as the camera (or the tool
/// that wrote the date) recorded it, with its UTC offset when that is known, and where the value
/// came from (SPEC §3 Photo; issue 9 item 6). Never converted to UTC: a photo taken
/// 2024-12-31 23:30 at −05:00 stays on 31 December.
public struct CaptureTime: Equatable, Sendable {
    /// `YYYY-MM-DDTHH:MM:SS`, or `YYYY-MM-DDTHH:MM:SS.fff` when there are non-zero sub-seconds
    /// (milliseconds, three digits): the local wall-clock time, no zone.
    public var local: String
    /// Minutes east of UTC (−05:00 is −300), −1080…1080; nil when unknown.
    public var offsetMinutes: Int?
    /// Where the time came from: `exif` (DateTimeOriginal 0x9003), `exif-digitized`
    /// (DateTimeDigitized 0x9004), `exif-datetime` (DateTime 0x0132), `xmp`
    /// (`photoshop:DateCreated`, else `exif:DateTimeOriginal`, sidecar before embedded), `json`
    /// (the `captureDate` of a JSON sidecar `photos export --sidecar json` wrote) or
    /// `file-mtime` (the file's modification time in the importing machine's time zone), `gps`
    /// (EXIF GPSDateStamp + GPSTimeStamp: a UTC instant, offset 0, shown with `Z`), or one of
    /// the others followed by `+gps-offset` (its offset derived from the GPS time,
    /// `offsetFromGPS`; issue 26 item 4).
    public var source: String

    /// The largest offset accepted, in minutes (ISO 8601 allows ±18:00).
    public static let maxOffsetMinutes = 18 * 60

    public init(local: String, offsetMinutes: Int?, source: String) {
        self.local = local
        self.offsetMinutes = offsetMinutes
        self.source = source
    }

    /// ISO 8601 as shown and exported: `2024-12-31T23:30:00-05:00` with a known offset
    /// (`+00:00` for a known zero offset), `2024-12-31T23:30:00` without one.
    public var iso: String { CaptureTime.iso(local: local, offsetMinutes: offsetMinutes, source: source) }

    /// `iso(local:offsetMinutes:)`, but `Z` instead of `+00:00` for a time of source `gps`: a
    /// UTC instant, not a local time whose zone happens to be UTC.
    public static func iso(local: String, offsetMinutes: Int?, source: String?) -> String {
        if source == "gps", offsetMinutes == 0 { return local + "Z" }
        return iso(local: local, offsetMinutes: offsetMinutes)
    }

    /// The GPS time of EXIF GPSDateStamp (0x001D) + GPSTimeStamp (0x0007), UTC by definition
    /// (EXIF 2.32 §4.6.6), as `ExifMetadata.gpsDateTime` gives it (`YYYY:MM:DD HH:MM:SS`): a
    /// capture time of offset 0, source `gps`. Nil when malformed.
    public static func fromGPS(_ dateTime: String) -> CaptureTime? {
        guard var t = fromEXIF(dateTime, offset: nil, source: "gps") else { return nil }
        t.offsetMinutes = 0
        return t
    }

    /// The UTC offset of a local wall-clock time taken at the GPS instant `gps` (a `fromGPS`
    /// time): local − UTC, rounded to the nearest 15 minutes (every zone in use is a multiple
    /// of 15 minutes; a camera clock a few minutes off still names its zone), kept only within
    /// −12:00…+14:00 (the zones in use, IANA tz database), else nil: a clock that far from the
    /// GPS time is wrong, and no offset is made up.
    public static func offsetFromGPS(local: String, gps: CaptureTime) -> Int? {
        guard let here = WallClock.parse(local), let utc = WallClock.parse(gps.local) else { return nil }
        let seconds = Double(here.secondsAsUTC - utc.secondsAsUTC) + here.fraction - utc.fraction
        let offset = Int((seconds / 900).rounded()) * 15
        return (-12 * 60...14 * 60).contains(offset) ? offset : nil
    }

    /// `local` followed by `±HH:MM` when `offsetMinutes` is known.
    public static func iso(local: String, offsetMinutes: Int?) -> String {
        guard let offset = offsetMinutes else { return local }
        return local + offsetText(offset)
    }

    /// `±HH:MM` for an offset in minutes.
    public static func offsetText(_ minutes: Int) -> String {
        let a = abs(minutes)
        return String(format: "%@%02d:%02d", minutes < 0 ? "-" : "+", a / 60, a % 60)
    }

    /// The instant, in seconds since 1970: the wall-clock time less its offset; with an unknown
    /// offset the wall-clock time is read in the machine's local time zone (mktime(3)), the
    /// rule `photos export` uses to set file times.
    /// - Returns: nil when `local` is not a valid wall-clock time.
    public var instant: Double? {
        guard let f = WallClock.parse(local) else { return nil }
        if let offset = offsetMinutes {
            return Double(f.secondsAsUTC - offset * 60) + f.fraction
        }
        var t = f.tm
        t.tm_isdst = -1
        return Double(mktime(&t)) + f.fraction
    }

    /// From EXIF text fields (EXIF 2.32 §4.6.5): a date-time `YYYY:MM:DD HH:MM:SS` (tags
    /// 0x9003/0x9004/0x0132), its sub-seconds (digits, tags 0x9291/0x9292/0x9290: the decimal
    /// fraction's digits; the first three are kept) and its offset `±HH:MM` (tags
    /// 0x9011/0x9012/0x9010, EXIF 2.31).
    /// - Returns: nil for a malformed, all-blank or impossible date (all zeros, 30 February).
    public static func fromEXIF(_ dateTime: String, subSeconds: String? = nil, offset: String?, source: String)
        -> CaptureTime?
    {
        let b = Array(dateTime.utf8)
        guard b.count >= 19, b[4] == 58, b[7] == 58, b[10] == 32, b[13] == 58, b[16] == 58 else { return nil }
        var text = Array(b[0..<19])
        text[4] = 45; text[7] = 45; text[10] = 84
        guard var f = WallClock.parse(String(decoding: text, as: UTF8.self)), f.fraction == 0 else { return nil }
        if let subSeconds {
            let digits = subSeconds.trimmingCharacters(in: CharacterSet(charactersIn: " \0"))
            if !digits.isEmpty, digits.utf8.allSatisfy({ (48...57).contains($0) }) {
                let three = String((digits + "00").prefix(3))
                f.fraction = Double(Int(three) ?? 0) / 1000
            }
        }
        return CaptureTime(local: f.localText, offsetMinutes: offset.flatMap(parseOffset), source: source)
    }

    /// From an XMP date (Adobe XMP Specification Part 1 §8.2.1.1 Date, a profile of ISO 8601):
    /// `YYYY-MM-DD`, `YYYY-MM-DDThh:mm`, `…:ss`, `…:ss.s…`, each optionally followed by `Z` or
    /// `±hh:mm`. A year or year-month alone is too vague to be a capture time.
    /// - Returns: nil for anything else.
    public static func fromISO(_ text: String, source: String) -> CaptureTime? {
        var s = text.trimmingCharacters(in: .whitespaces)
        var offset: Int?
        if s.hasSuffix("Z") {
            offset = 0
            s.removeLast()
        } else if s.count > 10, let sign = s.lastIndex(where: { $0 == "+" || $0 == "-" }),
            s.distance(from: s.startIndex, to: sign) > 10
        {
            guard let o = parseOffset(String(s[sign...])) else { return nil }
            offset = o
            s = String(s[..<sign])
        }
        if s.count == 10 { s += "T00:00:00" } else if s.count == 16 { s += ":00" }
        guard let f = WallClock.parse(s) else { return nil }
        return CaptureTime(local: f.localText, offsetMinutes: offset, source: source)
    }

    /// The modification time of a file as a capture time: the importing machine's local
    /// wall-clock time (localtime_r(3)) with that zone's offset at that instant; whole seconds.
    /// Nil when that time is outside the years 1…9999 a capture time has (`WallClock`): a file
    /// system with 64-bit times (Btrfs, XFS) stores any.
    public static func fromFileTime(_ seconds: Int) -> CaptureTime? {
        var t = time_t(seconds)
        var tm = tm()
        guard localtime_r(&t, &tm) != nil, (1...9999).contains(Int(tm.tm_year) + 1900) else { return nil }
        let local = String(
            format: "%04d-%02d-%02dT%02d:%02d:%02d", Int(tm.tm_year) + 1900, Int(tm.tm_mon) + 1,
            Int(tm.tm_mday), Int(tm.tm_hour), Int(tm.tm_min), Int(tm.tm_sec))
        return CaptureTime(local: local, offsetMinutes: Int(tm.tm_gmtoff) / 60, source: "file-mtime")
    }

    /// `±HH:MM` (or `±HHMM`) to minutes; nil unless well-formed and within ±18:00.
    public static func parseOffset(_ text: String) -> Int? {
        let b = Array(text.trimmingCharacters(in: CharacterSet(charactersIn: " \0")).utf8)
        guard b.count == 6 || b.count == 5, b[0] == 43 || b[0] == 45 else { return nil }
        let digits = b.count == 6 ? [b[1], b[2], b[4], b[5]] : [b[1], b[2], b[3], b[4]]
        guard b.count == 5 || b[3] == 58, digits.allSatisfy({ (48...57).contains($0) }) else { return nil }
        let h = Int(digits[0] - 48) * 10 + Int(digits[1] - 48), m = Int(digits[2] - 48) * 10 + Int(digits[3] - 48)
        let minutes = h * 60 + m
        guard m < 60, minutes <= maxOffsetMinutes else { return nil }
        return b[0] == 45 ? -minutes : minutes
    }
}

/// The fields of a wall-clock time `YYYY-MM-DDTHH:MM:SS[.f…]`, validated (Gregorian calendar,
/// years 1…9999, no leap second); no time zone.
struct WallClock: Equatable {
    var year, month, day, hour, minute, second: Int
    /// Seconds' fraction, 0 ≤ fraction < 1 (kept to milliseconds).
    var fraction: Double

    static func parse(_ text: String) -> WallClock? {
        let b = Array(text.utf8)
        guard b.count >= 19 else { return nil }
        func num(_ from: Int, _ len: Int) -> Int? {
            var v = 0
            for c in b[from..<(from + len)] {
                guard (48...57).contains(c) else { return nil }
                v = v * 10 + Int(c - 48)
            }
            return v
        }
        guard b[4] == 45, b[7] == 45, b[10] == 84 || b[10] == 32, b[13] == 58, b[16] == 58,
            let y = num(0, 4), let mo = num(5, 2), let d = num(8, 2), let h = num(11, 2), let mi = num(14, 2),
            let s = num(17, 2), y >= 1, (1...12).contains(mo), d >= 1, d <= daysIn(month: mo, year: y),
            h < 24, mi < 60, s < 60
        else { return nil }
        var fraction = 0.0
        if b.count > 19 {
            guard b[19] == 46, b.count > 20, b[20...].allSatisfy({ (48...57).contains($0) }) else { return nil }
            let three = String(decoding: b[20...].prefix(3), as: UTF8.self).padding(
                toLength: 3, withPad: "0", startingAt: 0)
            fraction = Double(Int(three) ?? 0) / 1000
        }
        return WallClock(year: y, month: mo, day: d, hour: h, minute: mi, second: s, fraction: fraction)
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// `YYYY-MM-DDTHH:MM:SS`, with `.fff` when the fraction is not zero.
    var localText: String {
        var s = String(format: "%04d-%02d-%02dT%02d:%02d:%02d", year, month, day, hour, minute, second)
        let ms = Int((fraction * 1000).rounded())
        if ms > 0 { s += String(format: ".%03d", min(ms, 999)) }
        return s
    }

    /// The fields as a `struct tm` (wday and yday filled in by timegm(3)), for strftime(3).
    var tm: tm {
        var t = Glibc.tm()
        t.tm_year = Int32(year - 1900); t.tm_mon = Int32(month - 1); t.tm_mday = Int32(day)
        t.tm_hour = Int32(hour); t.tm_min = Int32(minute); t.tm_sec = Int32(second)
        var copy = t
        _ = timegm(&copy)
        t.tm_wday = copy.tm_wday
        t.tm_yday = copy.tm_yday
        return t
    }

    /// Seconds since 1970 of these fields read as UTC.
    var secondsAsUTC: Int {
        var t = tm
        return Int(timegm(&t))
    }
}

/// A `--since`/`--until` bound (SPEC §5): a wall-clock time compared with each photo's own
/// local capture time, or, when the argument names a zone (`Z`, `±HH:MM`), an instant compared
/// with each photo's instant (a photo whose offset is unknown is read in the argument's zone).
public struct CaptureBound: Equatable, Sendable {
    /// `YYYY-MM-DDTHH:MM:SS` (`.fff` when given).
    public var local: String
    /// The argument's offset in minutes, nil for a plain wall-clock time.
    public var offsetMinutes: Int?

    public init(local: String, offsetMinutes: Int?) {
        self.local = local
        self.offsetMinutes = offsetMinutes
    }

    /// Parses a `--since`/`--until` argument: `YYYY-MM-DD`, `YYYY-MM-DDTHH:MM[:SS[.f…]]`, each
    /// optionally with `Z` or `±HH:MM`. A day alone (with or without a zone) is that day's
    /// midnight, or with `endOfDay` the next day's midnight (so that `--until 2024-12-31` and
    /// `--until 2024-12-31Z` include the 31st).
    /// - Returns: nil for anything else.
    public static func parse(_ text: String, endOfDay: Bool = false) -> CaptureBound? {
        var s = resolvingRelative(text) ?? text.trimmingCharacters(in: .whitespaces)
        // A day alone, also with a zone (`2024-12-31Z`, `2024-12-31+05:00`): that day's midnight
        // in the zone, and with `endOfDay` the whole day included, as for a plain day.
        let rest = String(s.dropFirst(10))
        let dayOnly = isDayOnly(s)
        if dayOnly, !rest.isEmpty { s = String(s.prefix(10)) + "T00:00:00" + rest }
        guard let t = CaptureTime.fromISO(s, source: "argument") else { return nil }
        var local = t.local
        if endOfDay, dayOnly, let f = WallClock.parse(local) {
            var tm = f.tm
            tm.tm_mday += 1
            let next = timegm(&tm)
            var t2 = time_t(next)
            var out = Glibc.tm()
            gmtime_r(&t2, &out)
            local = String(
                format: "%04d-%02d-%02dT00:00:00", Int(out.tm_year) + 1900, Int(out.tm_mon) + 1, Int(out.tm_mday))
        }
        return CaptureBound(local: local, offsetMinutes: t.offsetMinutes)
    }

    /// A relative date as the absolute text `parse` reads (issue 32 item 7: `--since -7d`,
    /// `yesterday`, `today` wherever a date is taken): `today`, `yesterday` and `-N` followed by
    /// `d` (days) or `w` (weeks) are days (`YYYY-MM-DD`, the day in `timeZone`, so that
    /// `--until today` includes today, as a typed day does); `-N` followed by `h` (hours) or `m`
    /// (minutes) is the instant that long before `now` (`YYYY-MM-DDTHH:MM:SSZ`). Case is ignored;
    /// N is 0…100000 (about 270 years).
    /// - Returns: nil when `text` is not a relative date (it is then read as a date).
    public static func resolvingRelative(_ text: String, now: Date = Date(), timeZone: TimeZone = .current) -> String? {
        let s = text.trimmingCharacters(in: .whitespaces).lowercased()
        var days: Int
        switch s {
        case "today": days = 0
        case "yesterday": days = 1
        default:
            guard s.hasPrefix("-"), s.count >= 3, s.count <= 8, let unit = s.last,
                let n = Int(s.dropFirst().dropLast()), n >= 0, n <= 100_000, s.dropFirst().first?.isNumber == true
            else { return nil }
            switch unit {
            case "d": days = n
            case "w": days = n * 7
            case "h": return ISODate.string(from: now.addingTimeInterval(-Double(n) * 3600))
            case "m": return ISODate.string(from: now.addingTimeInterval(-Double(n) * 60))
            default: return nil
            }
        }
        // The local day of `now`, then `days` days before it (calendar days: a day of a DST change
        // is still one day).
        var t = time_t(now.timeIntervalSince1970.rounded(.down)) + time_t(timeZone.secondsFromGMT(for: now))
        var tm = Glibc.tm()
        gmtime_r(&t, &tm)
        tm.tm_mday -= Int32(days)
        tm.tm_hour = 12
        var day = timegm(&tm)
        var out = Glibc.tm()
        gmtime_r(&day, &out)
        return String(
            format: "%04d-%02d-%02d", Int(out.tm_year) + 1900, Int(out.tm_mon) + 1, Int(out.tm_mday))
    }

    /// True when `text` (trimmed) is a day alone, with or without a zone: `YYYY-MM-DD`,
    /// `YYYY-MM-DDZ`, `YYYY-MM-DD±HH:MM`.
    public static func isDayOnly(_ text: String) -> Bool {
        let s = resolvingRelative(text) ?? text.trimmingCharacters(in: .whitespaces)
        let rest = String(s.dropFirst(10))
        return s.count >= 10
            && (rest.isEmpty || rest == "Z" || (rest.count >= 5 && CaptureTime.parseOffset(rest) != nil))
    }

    /// The bound as a UTC instant `YYYY-MM-DDTHH:MM:SS.fff` (SQLite's `%f` form), for a
    /// bound with an offset.
    var utcText: String? {
        guard let offset = offsetMinutes, let f = WallClock.parse(local) else { return nil }
        var t = time_t(f.secondsAsUTC - offset * 60)
        var tm = Glibc.tm()
        gmtime_r(&t, &tm)
        return String(
            format: "%04d-%02d-%02dT%02d:%02d:%02d.%03d", Int(tm.tm_year) + 1900, Int(tm.tm_mon) + 1,
            Int(tm.tm_mday), Int(tm.tm_hour), Int(tm.tm_min), Int(tm.tm_sec), Int((f.fraction * 1000).rounded()))
    }
}
