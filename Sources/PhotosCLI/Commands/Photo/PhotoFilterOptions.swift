import Foundation
import PhotosCore

/// The options `list` and `export` select photos with, decoded straight into Core's filter.
struct PhotoFilterOptions: ParsableOptions {
    var filter = PhotoFilter()

    static var options: [Option<PhotoFilterOptions>] {
        [
            .values(
                \.filter.tags, "--tag", value: "NAME", help: "Only photos with this tag (all given tags must match).",
                parser: .tagName),
            .value(
                \.filter.since, "--since", value: "DATE",
                help:
                    "Only photos captured (or, without a capture date, imported) at or after DATE (YYYY-MM-DD or ISO 8601), compared with each photo's own local time; a DATE with Z or an offset is an instant.",
                parser: .captureBound(example: "2024-05-01", endOfDay: false)),
            .value(
                \.filter.until, "--until", value: "DATE",
                help: "Only photos captured (or imported) before DATE; a day-only DATE includes that day.",
                parser: .captureBound(example: "2024-05-31", endOfDay: true)),
            .value(\.filter.zone, "--zone", value: "ID", help: "Only photos in this record zone.", parser: .zoneID),
            .value(
                \.filter.share, "--share", value: "ID",
                help: "Only photos in this share (an id or an unambiguous prefix of at least 4 characters)."),
            .value(
                \.filter.minRating, "--min-rating", value: "N",
                help:
                    "Only photos whose rating (the mean, rounded half up) is at least N, 1-5; unrated photos are left out.",
                parser: .int(in: RatingValue.range))
        ]
    }

    func validate() throws {
        if filter.zone != nil && filter.share != nil { throw UsageError("give --zone or --share, not both") }
    }
}

extension ValueParser where Value == CaptureBound {
    /// A date or instant (`CaptureBound.parse`); `example` is the day the message shows.
    static func captureBound(example: String, endOfDay: Bool) -> ValueParser {
        ValueParser { text, name in
            guard let bound = CaptureBound.parse(text, endOfDay: endOfDay) else {
                throw UsageError("\(name) takes a date like \(example) or \(example)T12:00:00Z, not '\(text)'")
            }
            return bound
        }
    }
}

extension ValueParser where Value == TagName {
    /// A tag name as typed, trimmed and NFC-normalized (`TagName(parsing:)`).
    /// - Throws: `ValueError.tagNameEmpty` or `.tagNameControlCharacters` (65), as every
    ///   command that takes a tag name.
    static var tagName: ValueParser { ValueParser { text, _ in try TagName(parsing: text) } }
}

extension ValueParser where Value == ZoneID {
    /// A record zone id, kept as typed (`ZoneID(parsing:)`).
    static var zoneID: ValueParser { ValueParser { text, _ in ZoneID(parsing: text) } }
}
