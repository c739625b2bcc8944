import CXML2
import Foundation
import PhotosFiles
import PhotosImaging
import PhotosModel

/// One timestamped fix of a GPX track (GPX 1.1 `wptType` of a `trkpt`).
public struct TrackPoint: Equatable, Sendable {
    /// Seconds since 1970 (UTC: GPX 1.1 `<time>` is xsd:dateTime in UTC; an offset given is
    /// honoured, none is UTC).
    public var time: Double
    /// WGS 84 degrees (GPX `lat`, `lon` attributes) and metres (`<ele>`, nil when absent).
    public var latitude: Double
    public var longitude: Double
    public var elevation: Double?
}

/// A bad GPX file: `path` and why (`photos geotag` exits 65, 66 for a file that cannot be
/// opened, 74 for a read error).
public struct GPXError: Error, Equatable, CustomStringConvertible {
    public enum Kind: Equatable, Sendable { case data, noInput, io }
    public var kind: Kind
    public var path: String
    public var reason: String
    public var description: String { "\(path): \(reason); nothing was changed" }
}

/// GPX tracks (GPX 1.1, also 1.0: elements are read by local name), parsed with libxml2's
/// streaming reader. The file is untrusted: memory is its bytes plus the points it holds
/// (bounded by its bytes); a DOCTYPE is refused (GPX has none, and no entity is ever
/// expanded); no network access (`XML_PARSE_NONET`).
public enum GPXTrack {
    /// The segments (`trkseg`) of the files, each sorted by time; points without a time or with a
    /// latitude/longitude out of range are skipped.
    /// - Throws: `GPXError`: not XML (libxml2's message and line), no timestamped point.
    public static func read(paths: [String]) throws -> [[TrackPoint]] {
        var segments: [[TrackPoint]] = []
        for path in paths {
            let file: ImageFile
            do {
                file = try ImageFile.read(path: path, maxBytes: Int.max / 2)
            } catch let e as FileError {
                throw GPXError(kind: e.kind == .io ? .io : .noInput, path: path, reason: e.reason)
            }
            let found = try parse(file.bytes, path: path)
            guard found.contains(where: { !$0.isEmpty }) else {
                throw GPXError(kind: .data, path: path, reason: "no track point with a time (<trkpt> with <time>)")
            }
            segments += found.filter { !$0.isEmpty }.map { $0.sorted { $0.time < $1.time } }
        }
        return segments
    }

    /// The segments of one GPX document.
    static func parse(_ bytes: [UInt8], path: String) throws -> [[TrackPoint]] {
        guard !bytes.isEmpty else { throw GPXError(kind: .data, path: path, reason: "empty file, not GPX") }
        guard bytes.count < Int(Int32.max) else { throw GPXError(kind: .data, path: path, reason: "too large") }
        return try bytes.withUnsafeBufferPointer { buffer -> [[TrackPoint]] in
            let options = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue)
            let raw = UnsafeRawPointer(buffer.baseAddress!).assumingMemoryBound(to: CChar.self)
            guard let reader = xmlReaderForMemory(raw, Int32(buffer.count), nil, nil, options) else {
                throw GPXError(kind: .data, path: path, reason: "not XML")
            }
            defer { xmlFreeTextReader(reader) }
            var segments: [[TrackPoint]] = [[]]
            var point: (lat: Double, lon: Double)?
            var time: Double?
            var elevation: Double?
            var field: String?
            var text = ""
            var sawGPX = false
            func name() -> String {
                xmlTextReaderConstLocalName(reader).map { String(cString: $0) } ?? ""
            }
            func attribute(_ a: String) -> Double? {
                guard xmlTextReaderMoveToAttribute(reader, a) == 1 else { return nil }
                defer { xmlTextReaderMoveToElement(reader) }
                return xmlTextReaderConstValue(reader).flatMap {
                    Double(String(cString: $0).trimmingCharacters(in: .whitespaces))
                }
            }
            func endPoint() {
                if let p = point, let t = time, p.lat.isFinite, p.lon.isFinite, abs(p.lat) <= 90, abs(p.lon) <= 180 {
                    segments[segments.count - 1].append(
                        TrackPoint(time: t, latitude: p.lat, longitude: p.lon, elevation: elevation))
                }
                point = nil
                time = nil
                elevation = nil
            }
            while true {
                let r = xmlTextReaderRead(reader)
                if r == 0 { break }
                if r < 0 {
                    let error = xmlGetLastError()
                    let message =
                        error.flatMap { $0.pointee.message.map { String(cString: $0) } }?
                        .trimmingCharacters(in: .whitespacesAndNewlines) ?? "malformed"
                    let line = error.map { Int($0.pointee.line) } ?? 0
                    throw GPXError(kind: .data, path: path, reason: "not well-formed XML (line \(line): \(message))")
                }
                switch xmlTextReaderNodeType(reader) {
                case 10:
                    throw GPXError(kind: .data, path: path, reason: "a DOCTYPE, which GPX has none of")
                case 1:
                    let n = name()
                    let empty = xmlTextReaderIsEmptyElement(reader) == 1
                    if !sawGPX {
                        guard n == "gpx" else {
                            throw GPXError(kind: .data, path: path, reason: "the root element is <\(n)>, not <gpx>")
                        }
                        sawGPX = true
                    }
                    switch n {
                    case "trkseg", "trk":
                        if !segments[segments.count - 1].isEmpty { segments.append([]) }
                    case "trkpt":
                        if let lat = attribute("lat"), let lon = attribute("lon") { point = (lat, lon) }
                        if empty { endPoint() }
                    case "time", "ele":
                        if point != nil && !empty {
                            field = n
                            text = ""
                        }
                    default: break
                    }
                case 3, 4:
                    if field != nil, text.utf8.count < 256 {
                        text += xmlTextReaderConstValue(reader).map { String(cString: $0) } ?? ""
                    }
                case 15:
                    let n = name()
                    if n == "trkpt" {
                        endPoint()
                    } else if n == field {
                        let value = text.trimmingCharacters(in: .whitespacesAndNewlines)
                        if n == "time" {
                            time = CaptureTime.fromISO(value, source: "gps").flatMap {
                                CaptureTime.instant(local: $0.local, offsetMinutes: $0.offsetMinutes ?? 0)
                            }
                        } else {
                            elevation = Double(value).flatMap { $0.isFinite ? $0 : nil }
                        }
                        field = nil
                    }
                default: break
                }
            }
            guard sawGPX else { throw GPXError(kind: .data, path: path, reason: "no <gpx> element") }
            return segments
        }
    }

    /// The position at `instant` (seconds since 1970) by exiftool's `-geotag` rule: linear
    /// interpolation between the two fixes of one segment around it, when they are at most
    /// `maxGap` seconds apart (a fix at the very instant is taken as it is); nil outside every
    /// segment or in a gap. Longitudes interpolate the short way across the antimeridian;
    /// the elevation only when both fixes have one.
    /// - Returns: the position, or why there is none (`.outside`, `.gap`).
    public static func position(at instant: Double, in segments: [[TrackPoint]], maxGap: Double) -> Interpolation {
        var inGap = false
        for points in segments {
            guard let first = points.first, let last = points.last, first.time <= instant, instant <= last.time
            else { continue }
            // The first point at or after the instant.
            var low = 0, high = points.count - 1
            while low < high {
                let mid = (low + high) / 2
                if points[mid].time < instant { low = mid + 1 } else { high = mid }
            }
            let b = points[low]
            if b.time == instant {
                return .found(GeoPosition(latitude: b.latitude, longitude: b.longitude, altitude: b.elevation))
            }
            let a = points[low - 1]
            guard b.time - a.time <= maxGap else {
                inGap = true
                continue
            }
            let f = (instant - a.time) / (b.time - a.time)
            var dLon = b.longitude - a.longitude
            if dLon > 180 { dLon -= 360 } else if dLon < -180 { dLon += 360 }
            var lon = a.longitude + f * dLon
            if lon > 180 { lon -= 360 } else if lon < -180 { lon += 360 }
            let ele = a.elevation.flatMap { ea in b.elevation.map { ea + f * ($0 - ea) } }
            return .found(
                GeoPosition(latitude: a.latitude + f * (b.latitude - a.latitude), longitude: lon, altitude: ele))
        }
        return inGap ? .gap : .outside
    }

    public enum Interpolation: Equatable {
        case found(GeoPosition?)
        case outside
        case gap
    }
}

/// What `Library.geotag` did (or, in a dry run, would do).
public struct GeotagReport: Equatable, Sendable {
    /// The photos given a position, with it.
    public var tagged: [(uniqueName: String, position: GeoPosition)] = []
    /// Photos skipped: with a position already (no `overwrite`), without a capture time, with an
    /// unknown offset (no `--offset`), outside every track, in a gap wider than the maximum.
    public var hadPosition = 0
    public var withoutTime = 0
    public var unknownOffset = 0
    public var outsideTrack = 0
    public var inGap = 0

    public static func == (a: GeotagReport, b: GeotagReport) -> Bool {
        a.tagged.map(\.uniqueName) == b.tagged.map(\.uniqueName) && a.tagged.map(\.position) == b.tagged.map(\.position)
            && (a.hadPosition, a.withoutTime, a.unknownOffset, a.outsideTrack, a.inGap)
                == (b.hadPosition, b.withoutTime, b.unknownOffset, b.outsideTrack, b.inGap)
    }
}

extension Library {
    /// Sets the positions of `photos` (uniqueNames) from GPX `segments` (`GPXTrack.position` at
    /// each capture instant: the local time less its offset, or less `assumedOffset` when the
    /// offset is unknown), in one write transaction with one history transaction (context
    /// `geotag`, a Photo update of `latitudeE7`, `longitudeE7`, `altitudeMM`). Photos with a
    /// position are left unless `overwrite`.
    /// - Throws: `LibraryError` (busy, a zone this library may only read), the store's error.
    public func geotag(
        _ photos: [String], segments: [[TrackPoint]], maxGap: Double, assumedOffset: Int?, overwrite: Bool,
        author: HistoryAuthor
    ) throws -> GeotagReport {
        try write {
            var history = HistoryWriter(self, author: author, context: .geotag)
            var report = GeotagReport()
            for name in photos {
                guard let photo = try catalogStore.photo(uniqueName: name) else { continue }
                if photo.latitudeE7 != nil && !overwrite {
                    report.hadPosition += 1
                    continue
                }
                guard let local = photo.captureDate else {
                    report.withoutTime += 1
                    continue
                }
                guard let offset = photo.captureOffset ?? assumedOffset else {
                    report.unknownOffset += 1
                    continue
                }
                guard let instant = CaptureTime.instant(local: local, offsetMinutes: offset) else {
                    report.withoutTime += 1
                    continue
                }
                switch GPXTrack.position(at: instant, in: segments, maxGap: maxGap) {
                case .outside: report.outsideTrack += 1
                case .gap: report.inGap += 1
                case .found(let found):
                    guard let p = found else {
                        report.outsideTrack += 1
                        continue
                    }
                    try metadataStore.setPosition(
                        ofPhoto: photo.rowID, latitudeE7: p.latitudeE7, longitudeE7: p.longitudeE7,
                        altitudeMM: p.altitudeMM)
                    history.update(
                        .photo(uniqueName: photo.uniqueName), ["latitudeE7", "longitudeE7", "altitudeMM"],
                        zone: photo.zone.rawValue)
                    report.tagged.append((photo.uniqueName, p))
                }
            }
            try history.commit()
            return report
        }
    }
}
