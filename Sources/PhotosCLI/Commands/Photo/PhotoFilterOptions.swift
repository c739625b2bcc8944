import Foundation
import PhotosCore

/// The options `list` and `export` select photos with.
struct PhotoFilterOptions: ParsableOptions {
    var tags: [String] = []
    var since: CaptureBound?
    var until: CaptureBound?
    var zone: String?
    var share: String?
    var minRating: Int?

    static let options: [Option<PhotoFilterOptions>] = [
        .values(\.tags, "--tag", value: "NAME", help: "Only photos with this tag (all given tags must match)."),
        .value(\.since, "--since", value: "DATE", help: "Only photos captured (or, without a capture date, imported) at or after DATE (YYYY-MM-DD or ISO 8601), compared with each photo's own local time; a DATE with Z or an offset is an instant.",
               parser: .captureBound(example: "2024-05-01", endOfDay: false)),
        .value(\.until, "--until", value: "DATE", help: "Only photos captured (or imported) before DATE; a day-only DATE includes that day.",
               parser: .captureBound(example: "2024-05-31", endOfDay: true)),
        .value(\.zone, "--zone", value: "ID", help: "Only photos in this record zone."),
        .value(\.share, "--share", value: "ID", help: "Only photos in this share (an id or an unambiguous prefix of at least 4 characters)."),
        .value(\.minRating, "--min-rating", value: "N", help: "Only photos whose rating (the mean, rounded half up) is at least N, 1-5; unrated photos are left out.",
               parser: .int(in: RatingValue.range)),
    ]

    func validate() throws {
        if zone != nil && share != nil { throw UsageError("give --zone or --share, not both") }
    }

    /// The filter for Core.
    var filter: PhotoFilter {
        var filter = PhotoFilter()
        filter.tags = tags
        filter.since = since
        filter.until = until
        filter.zone = zone
        filter.share = share
        filter.minRating = minRating
        return filter
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
