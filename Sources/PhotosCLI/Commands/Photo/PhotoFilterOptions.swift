import Foundation
import PhotosCore
import PhotosImaging
import PhotosModel

/// The options `list` and `export` select photos with, decoded straight into Core's filter.
struct PhotoFilterOptions: ParsableOptions {
    var filter = PhotoFilter()

    static var options: [Option<PhotoFilterOptions>] {
        [
            .values(
                \.filter.tags, "--tag", value: "NAME",
                help:
                    "Only photos with this tag or a tag beneath it (Places selects Places/France/Paris), ignoring case and diacritics; all given tags must match.",
                parser: .tagName),
            .flag(
                \.filter.tagExact, "--tag-exact",
                help: "--tag selects only tags of that very name, not the tags beneath them."),
            .value(
                \.filter.since, "--since", value: "DATE",
                help:
                    "Only photos captured (or, without a capture date, imported) at or after DATE (YYYY-MM-DD, ISO 8601, today, yesterday, -7d, -2w, -3h), compared with each photo's own local time; a DATE with Z or an offset is an instant.",
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
                    "Only photos whose rating (the mean of every author's, rounded half up; with --rated-by, that author's) is at least N, 1-5; unrated photos are left out.",
                parser: .int(in: RatingValue.range)),
            .value(
                \.filter.ratedBy, "--rated-by", value: "AUTHOR",
                help: "Only photos this author rated (the author of 'rate': --author, $PHOTOS_AUTHOR)."),
            .value(\.filter.unratedBy, "--unrated-by", value: "AUTHOR", help: "Only photos this author has not rated."),
            .value(
                \.filter.name, "--name", value: "GLOB",
                help:
                    "Only photos whose name matches GLOB (* ? [a-z]), ignoring case and diacritics; a reversed range ([c-a]) is an error."
            ),
            .value(
                \.filter.search, "--search", value: "TEXT",
                help:
                    "Only photos whose name, a tag, title, description or share title contains TEXT, ignoring case and diacritics."
            ),
            .values(
                \.filter.formats, "--format", value: "FORMAT",
                help:
                    "Only photos of this format: jpeg, png, heif, avif, webp, raw, tiff, gif, jxl or video (any of those given).",
                parser: .imageFormat),
            .values(
                \.filter.kinds, "--kind", value: "KIND",
                help: "Only photos of this kind: still, video, motion or live (any of those given).",
                parser: .photoKind),
            .value(
                \.filter.camera, "--camera", value: "TEXT",
                help: "Only photos whose camera make or model contains TEXT, ignoring the case of ASCII letters.",
                parser: .cameraText),
            .flag(\.filter.untagged, "--untagged", help: "Only photos without tags."),
            .flag(\.filter.unrated, "--unrated", help: "Only photos without ratings."),
            .flag(\.withLocation, "--with-location", help: "Only photos with a position (GPS latitude and longitude)."),
            .flag(\.withoutLocation, "--without-location", help: "Only photos without a position."),
            .value(
                \.filter.box, "--bbox", value: "S,W,N,E",
                help:
                    "Only photos inside this box of WGS 84 degrees (south, west, north, east; bounds included); W greater than E is a box across the antimeridian.",
                parser: .box),
            .value(
                \.filter.near, "--near", value: "LAT,LON[,KM]",
                help:
                    "Only photos within KM kilometres (default 1) of this point of WGS 84 degrees, by great-circle distance.",
                parser: .near)
        ]
    }

    /// Both `--with-location` and `--without-location` were given.
    private var bothLocations = false
    /// `--with-location`, kept in `filter.hasPosition`.
    var withLocation: Bool {
        get { filter.hasPosition == true }
        set {
            if newValue, filter.hasPosition == false { bothLocations = true }
            if newValue { filter.hasPosition = true }
        }
    }
    /// `--without-location`, kept in `filter.hasPosition`.
    var withoutLocation: Bool {
        get { filter.hasPosition == false }
        set {
            if newValue, filter.hasPosition == true { bothLocations = true }
            if newValue { filter.hasPosition = false }
        }
    }

    func validate() throws {
        if bothLocations { throw UsageError("give --with-location or --without-location, not both") }
        if filter.hasPosition == false && filter.box != nil {
            throw UsageError("give --bbox or --without-location, not both")
        }
        if filter.hasPosition == false && filter.near != nil {
            throw UsageError("give --near or --without-location, not both")
        }
        if filter.zone != nil && filter.share != nil { throw UsageError("give --zone or --share, not both") }
        if filter.untagged && !filter.tags.isEmpty { throw UsageError("give --tag or --untagged, not both") }
        if filter.tagExact && filter.tags.isEmpty { throw UsageError("--tag-exact needs --tag") }
        if filter.unrated && filter.minRating != nil { throw UsageError("give --min-rating or --unrated, not both") }
        if filter.unrated && filter.ratedBy != nil { throw UsageError("give --rated-by or --unrated, not both") }
        if let pattern = filter.name, let range = NameGlob(pattern).reversedRange {
            // POSIX.1-2017 XBD §9.3.5: a range whose end sorts before its start is undefined.
            throw UsageError("--name '\(pattern)': the range '\(range)' is reversed (its end sorts before its start)")
        }
    }
}

extension ValueParser where Value == (south: Double, west: Double, north: Double, east: Double) {
    /// `S,W,N,E` in decimal degrees: latitudes −90…90 with S ≤ N, longitudes −180…180 (W > E
    /// crosses the antimeridian).
    static var box: ValueParser {
        ValueParser { text, name in
            let parts = text.split(separator: ",", omittingEmptySubsequences: false).map {
                Double($0.trimmingCharacters(in: .whitespaces))
            }
            guard parts.count == 4, let s = parts[0], let w = parts[1], let n = parts[2], let e = parts[3],
                [s, w, n, e].allSatisfy(\.isFinite)
            else {
                throw UsageError("\(name) takes S,W,N,E in degrees like 43.5,1.3,43.7,1.6, not '\(text)'")
            }
            guard abs(s) <= 90, abs(n) <= 90, s <= n else {
                throw UsageError("\(name) '\(text)': latitudes must be within -90…90, south not above north")
            }
            guard abs(w) <= 180, abs(e) <= 180 else {
                throw UsageError("\(name) '\(text)': longitudes must be within -180…180")
            }
            return (s, w, n, e)
        }
    }
}

extension ValueParser where Value == GeoCircle {
    /// `LAT,LON[,KM]` in decimal degrees and kilometres: latitude −90…90, longitude −180…180,
    /// radius above 0 (default 1 km; issue 26 item 2).
    static var near: ValueParser {
        ValueParser { text, name in
            let parts = text.split(separator: ",", omittingEmptySubsequences: false).map {
                Double($0.trimmingCharacters(in: .whitespaces))
            }
            guard parts.count == 2 || parts.count == 3, let lat = parts[0], let lon = parts[1],
                lat.isFinite, lon.isFinite
            else {
                throw UsageError("\(name) takes LAT,LON[,KM] in degrees and kilometres like 43.6,1.44,5, not '\(text)'")
            }
            guard abs(lat) <= 90 else { throw UsageError("\(name) '\(text)': the latitude must be within -90…90") }
            guard abs(lon) <= 180 else { throw UsageError("\(name) '\(text)': the longitude must be within -180…180") }
            let radius = parts.count == 3 ? parts[2] : 1
            guard let radius, radius.isFinite, radius > 0 else {
                throw UsageError("\(name) '\(text)': the radius must be a number of kilometres above 0")
            }
            return GeoCircle(latitude: lat, longitude: lon, radiusKm: radius)
        }
    }
}

extension ValueParser where Value == ImageFormat {
    /// An image format by its name (`ImageFormat`'s raw values: `jpeg`, `png`, `heif`, `avif`,
    /// `webp`, `raw`, `tiff`, `gif`, `jxl`; also `jpg`, `heic` and `tif`), any case.
    static var imageFormat: ValueParser {
        ValueParser { text, name in
            let lower = text.lowercased()
            let aliases = ["jpg": ImageFormat.jpeg, "heic": .heif, "tif": .tiff]
            guard let format = ImageFormat(rawValue: lower) ?? aliases[lower] else {
                let all = ImageFormat.allCases.map(\.rawValue).joined(separator: ", ")
                throw UsageError("\(name) takes \(all), not '\(text)'")
            }
            return format
        }
    }
}

extension ValueParser where Value == CaptureBound {
    /// A date or instant (`CaptureBound.parse`); `example` is the day the message shows.
    static func captureBound(example: String, endOfDay: Bool) -> ValueParser {
        ValueParser { text, name in
            guard let bound = CaptureBound.parse(text, endOfDay: endOfDay) else {
                throw UsageError(
                    "\(name) takes a date like \(example), \(example)T12:00:00Z, today, yesterday or -7d, not '\(text)'"
                )
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

extension ValueParser where Value == String {
    /// `--camera`'s text (issue 24 item 7): not empty (it would select every photo with a
    /// camera, which `--camera` does not say) and at most `CameraIdentity.maxBytes` bytes, the
    /// longest make or model stored.
    static var cameraText: ValueParser {
        ValueParser { text, name in
            guard !text.isEmpty, text.utf8.count <= CameraIdentity.maxBytes else {
                throw UsageError("\(name) takes 1 to \(CameraIdentity.maxBytes) bytes of text, not '\(text)'")
            }
            return text
        }
    }

    /// A photo kind (issue 25 item 2): `still`, `video`, `motion` or `live`, any case.
    static var photoKind: ValueParser {
        ValueParser { text, name in
            let kinds = ["still", "video", "motion", "live"]
            guard kinds.contains(text.lowercased()) else {
                throw UsageError("\(name) takes \(kinds.joined(separator: ", ")), not '\(text)'")
            }
            return text.lowercased()
        }
    }
}
