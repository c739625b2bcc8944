import Foundation

/// ISO 8601 dates in UTC, the one format of every date `photos` stores and prints (SPEC §5a).
public enum ISODate {
    /// `date` as `YYYY-MM-DDTHH:MM:SSZ` (UTC, whole seconds). Thread-safe (uses `gmtime_r`).
    public static func string(from date: Date) -> String {
        var t = time_t(date.timeIntervalSince1970.rounded(.down))
        var tm = tm()
        gmtime_r(&t, &tm)
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02dZ", Int(tm.tm_year) + 1900, Int(tm.tm_mon) + 1,
                      Int(tm.tm_mday), Int(tm.tm_hour), Int(tm.tm_min), Int(tm.tm_sec))
    }

    /// Parses a date given on the command line: `YYYY-MM-DD` (midnight UTC),
    /// `YYYY-MM-DDTHH:MM[:SS]` (UTC), or either with `Z` or a `±HH:MM` offset.
    /// - Returns: the instant, and whether only a day was given (so `--until` can include it).
    public static func parse(_ text: String) -> (date: Date, dayOnly: Bool)? {
        let s = text.trimmingCharacters(in: .whitespaces)
        let scalars = Array(s.utf8)
        func num(_ from: Int, _ len: Int) -> Int? {
            guard from + len <= scalars.count else { return nil }
            var v = 0
            for c in scalars[from..<(from + len)] {
                guard c >= 48 && c <= 57 else { return nil }
                v = v * 10 + Int(c - 48)
            }
            return v
        }
        guard scalars.count >= 10, let y = num(0, 4), scalars[4] == 45, let mo = num(5, 2), scalars[7] == 45,
              let d = num(8, 2), (1...12).contains(mo), (1...31).contains(d) else { return nil }
        var hour = 0, minute = 0, second = 0, offset = 0
        var i = 10
        let dayOnly = scalars.count == 10
        if !dayOnly {
            guard scalars[i] == 84 || scalars[i] == 32, let h = num(i + 1, 2), scalars.count > i + 3, scalars[i + 3] == 58,
                  let mi = num(i + 4, 2), h < 24, mi < 60 else { return nil }
            hour = h; minute = mi; i += 6
            if i < scalars.count, scalars[i] == 58 {
                guard let sec = num(i + 1, 2), sec < 61 else { return nil }
                second = sec; i += 3
                if i < scalars.count, scalars[i] == 46 { // fractional seconds, ignored
                    i += 1
                    while i < scalars.count, (48...57).contains(scalars[i]) { i += 1 }
                }
            }
            if i < scalars.count {
                if scalars[i] == 90 {
                    i += 1
                } else if scalars[i] == 43 || scalars[i] == 45 {
                    let sign = scalars[i] == 45 ? -1 : 1
                    guard let oh = num(i + 1, 2), scalars.count > i + 3 else { return nil }
                    let colon = scalars[i + 3] == 58
                    guard let om = num(i + (colon ? 4 : 3), 2), oh < 24, om < 60 else { return nil }
                    i += colon ? 6 : 5
                    offset = sign * (oh * 3600 + om * 60)
                } else {
                    return nil
                }
            }
            guard i == scalars.count else { return nil }
        }
        var comps = DateComponents()
        comps.year = y; comps.month = mo; comps.day = d; comps.hour = hour; comps.minute = minute; comps.second = second
        var cal = Calendar(identifier: .gregorian)
        cal.timeZone = TimeZone(identifier: "UTC") ?? TimeZone(secondsFromGMT: 0)!
        guard let date = cal.date(from: comps), cal.component(.day, from: date) == d else { return nil }
        return (date.addingTimeInterval(TimeInterval(-offset)), dayOnly)
    }

    /// Converts EXIF DateTimeOriginal (`YYYY:MM:DD HH:MM:SS`, EXIF 2.32 §4.6.5 tag 0x9003) with
    /// an optional OffsetTimeOriginal (`±HH:MM`, tag 0x9011) to ISO 8601 UTC. Without an offset
    /// the camera's wall-clock time is kept as if it were UTC, so it prints as the camera showed it.
    /// - Returns: nil for a malformed or all-zero date.
    public static func fromEXIF(_ dateTime: String, offset: String?) -> String? {
        let parts = dateTime.trimmingCharacters(in: CharacterSet(charactersIn: " \0")).split(separator: " ")
        guard parts.count == 2 else { return nil }
        let day = parts[0].replacingOccurrences(of: ":", with: "-")
        var text = "\(day)T\(parts[1])"
        if let offset, offset.count == 6, offset.first == "+" || offset.first == "-" { text += offset } else { text += "Z" }
        guard let (date, _) = parse(text) else { return nil }
        return string(from: date)
    }
}
