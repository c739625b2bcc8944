import Foundation

/// The time of a sync stamp: ISO 8601 UTC with milliseconds, `YYYY-MM-DDTHH:MM:SS.fffZ`
/// (24 characters), so that stamps order as strings. History records milliseconds in the same
/// form (`ISODate.millisecondString`; libraries of before issue 31 whole seconds, migrated to
/// `.000Z`); a local change is stamped with its transaction's time, but never earlier than 1 ms after the stamp it
/// replaces (a Lamport-style bump): an edit made after this library saw another library's value
/// wins over it even within the same second, whatever the library ids.
enum SyncClock {
    /// `YYYY-MM-DDTHH:MM:SSZ` or `….fffZ` as `….fffZ`; nil for another form.
    static func normalize(_ time: String) -> String? {
        let u = Array(time.utf8)
        if u.count == 20, u[19] == UInt8(ascii: "Z") { return String(time.dropLast()) + ".000Z" }
        if u.count == 24, u[19] == UInt8(ascii: "."), u[23] == UInt8(ascii: "Z"),
            u[20...22].allSatisfy({ (48...57).contains($0) })
        {
            return time
        }
        return nil
    }

    /// True for the stamp form `YYYY-MM-DDTHH:MM:SS.fffZ` with a valid date and time.
    static func isStamp(_ time: String) -> Bool {
        time.utf8.count == 24 && normalize(time).map { $0.utf8.elementsEqual(time.utf8) } == true
            && milliseconds(time) != nil
    }

    /// Milliseconds since 1970 of a stamp time.
    static func milliseconds(_ time: String) -> Int64? {
        guard let t = normalize(time), let (date, _) = ISODate.parse(t), let ms = Int64(t.dropFirst(20).prefix(3))
        else {
            return nil
        }
        return Int64(date.timeIntervalSince1970.rounded(.down)) * 1000 + ms
    }

    /// The stamp time of `ms` milliseconds since 1970.
    static func string(milliseconds ms: Int64) -> String {
        ISODate.millisecondString(milliseconds: ms)
    }

    /// The change token after `previous`: the larger of `previous + 1` and the current time in
    /// milliseconds since 1970. Tokens only grow, and a library restored from an older backup
    /// hands out tokens above those it handed out before the restore (while clocks go forward),
    /// so its peers, which applied those, do not take its new changes for old ones.
    /// The largest change token a changeset may carry: now in milliseconds plus 366 days (a
    /// sender's clock may be ahead of this one, not by more). A larger `toToken`, recorded as
    /// applied, would make every later changeset of that sender look applied before and hide
    /// every gap.
    static func latestPlausibleToken(now: Date = Date()) -> Int64 {
        Int64((now.timeIntervalSince1970 * 1000).rounded(.down)) + 366 * 24 * 3600 * 1000
    }

    static func nextToken(after previous: Int64, now: Date = Date()) -> Int64 {
        max(previous + 1, Int64((now.timeIntervalSince1970 * 1000).rounded(.down)))
    }

    /// The later of `time` and 1 ms after `previous` (when given).
    static func stamp(_ time: String, after previous: String?) -> String {
        let now = normalize(time) ?? time
        guard let previous, let p = milliseconds(previous), now <= previous else { return now }
        return string(milliseconds: p + 1)
    }
}
