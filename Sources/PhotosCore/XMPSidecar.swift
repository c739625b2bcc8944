import CExempi
import CExempiShim
import Foundation
import PhotosFiles
import PhotosImaging

/// What `photos` reads from XMP — a sidecar, or a packet embedded in a JPEG (APP1) or PNG
/// (iTXt): the keywords of `dc:subject` and the hierarchical ones of `lr:hierarchicalSubject`,
/// `digiKam:TagsList` and their kin as `A/B/C` (`XMPSidecar+Identity.swift`), `xmp:Rating`, the
/// capture date (`photoshop:DateCreated`, else `exif:DateTimeOriginal`) and `photos:uniqueName`.
///
/// Properties are found by namespace URI, never by prefix (Adobe XMP Specification Part 1 §7.2:
/// a prefix is only a local name for its namespace), through Exempi (Debian `libexempi-dev`,
/// Adobe's XMP Toolkit): any prefix bound to `http://ns.adobe.com/xap/1.0/` (`xmp:`, the
/// older `xap:`, anything) counts and a prefix `xmp` bound to another namespace does not;
/// attribute and element forms, `rdf:Bag`/`rdf:Seq`/`rdf:Alt`, character references, CDATA
/// and several `rdf:Description` blocks all read the same (Part 1 §7.5–§7.9).
public struct XMPSidecar: Equatable, Sendable {
    /// `dc:subject` items (Part 1 §8.4), in document order, trimmed, empty ones dropped.
    public var subjects: [String] = []
    /// `xmp:Rating` (Part 1 §8.5) when it is 1…5 after rounding half up. 0 means unrated and
    /// −1 rejected: neither is imported as a rating.
    public var rating: Int?
    /// True when the packet has an `xmp:Rating` at all (any value, 0 and −1 included): a
    /// sidecar that says so overrides the rating embedded in the image.
    public var hasRating = false
    /// `photoshop:DateCreated`, else `exif:DateTimeOriginal`, as a capture time (source `xmp`).
    public var captureTime: CaptureTime?
    /// `photos:uniqueName` (`XMPWriter.photosNamespace`) when it is a UUID: the photo this
    /// sidecar was exported from (`XMPSidecar+Identity.swift`).
    public var uniqueName: String?
    /// True when the packet lists keywords at all (`dc:subject`, `lr:hierarchicalSubject` or
    /// `digiKam:TagsList`): `import --refresh-metadata` replaces the photo's tags only then.
    public var hasKeywords = false
    /// `exif:GPSLatitude`/`exif:GPSLongitude` (XMP Specification Part 2 §3.2.4.4: `DD,MM.mmk`
    /// or `DD,MM,SSk`, k one of N/S/E/W) with `exif:GPSAltitude` (a rational, metres) and
    /// `exif:GPSAltitudeRef` (1: below sea level); nil when absent, malformed or out of range.
    public var position: GeoPosition?
    /// `tiff:Make`, `tiff:Model` (XMP Specification Part 2 §3.2.2, the TIFF namespace) and
    /// `exifEX:LensModel` (CIPA DC-010-2017, the namespace `http://cipa.jp/exif/1.0/`), else
    /// `aux:Lens` (Adobe's `http://ns.adobe.com/exif/1.0/aux/`, what Lightroom and darktable
    /// write), each cleaned by `CameraIdentity.clean`; nil when the packet names none.
    public var camera: CameraIdentity?
    /// `dc:title` and `dc:description` (Part 1 §8.4, Lang Alt: the `x-default` item first, else
    /// the first; a simple value as some writers give it), or a JSON sidecar's `title` and
    /// `description`, cleaned by `PhotoText` (issue 26 item 6); nil when none.
    public var title: String?
    public var description: String?

    /// - Parameters: as the properties; `hasRating` defaults to `rating != nil` and
    ///   `hasKeywords` to `!subjects.isEmpty`.
    public init(
        subjects: [String] = [], rating: Int? = nil, hasRating: Bool? = nil, captureTime: CaptureTime? = nil,
        uniqueName: String? = nil, hasKeywords: Bool? = nil
    ) {
        self.subjects = subjects
        self.rating = rating
        self.hasRating = hasRating ?? (rating != nil)
        self.captureTime = captureTime
        self.uniqueName = uniqueName
        self.hasKeywords = hasKeywords ?? !subjects.isEmpty
    }

    /// The most keywords taken from one file's metadata (sidecar, embedded XMP and IPTC
    /// together), in document order; the rest are not read. A 4 MiB sidecar can list ~175,000
    /// keywords: each becomes a tag, a link and two history changes, and such an import peaked
    /// at 205 MB and took 10 s (with a list scan per keyword, minutes). Real photos carry
    /// dozens.
    public static let maxKeywords = 1000

    /// The most elements and attributes (start tags and `=` of attributes, counted before
    /// parsing) of a packet read, and the most values of a JSON sidecar: 20,000. The XMP Toolkit's trees cost about 700 bytes per node,
    /// so a 4 MiB sidecar of 175,000 one-word keywords took 120 MB per worker (263 MB peak with
    /// two), and it finds sibling properties by a linear search, so 49,000 attributes on one
    /// rdf:Description took 8.6 s. 20,000 nodes take about 14 MB and 1.5 s at worst. Real
    /// sidecars (darktable's with its whole edit history included) have a few thousand.
    public static let maxNodes = 20_000

    /// The largest sidecar (XMP or JSON) or embedded packet read, in bytes: 4 MiB. Real
    /// sidecars are a few KB (a JPEG APP1 packet is at most 64 KB); a larger file is refused
    /// before it is read, so memory stays bounded whatever is on disk.
    public static let maxBytes = 4 << 20

    static let dcNS = "http://purl.org/dc/elements/1.1/"
    static let xmpNS = "http://ns.adobe.com/xap/1.0/"
    static let photoshopNS = "http://ns.adobe.com/photoshop/1.0/"
    static let exifNS = "http://ns.adobe.com/exif/1.0/"
    static let tiffNS = "http://ns.adobe.com/tiff/1.0/"
    static let exifEXNS = "http://cipa.jp/exif/1.0/"
    static let auxNS = "http://ns.adobe.com/exif/1.0/aux/"

    /// The sidecar paths tried for an image, in order: `IMG.jpg.xmp`, `IMG.xmp` (and the
    /// upper-case `.XMP` forms).
    public static func candidatePaths(for imagePath: String) -> [String] {
        let stem = PathName.deletingPathExtension(imagePath)
        return [imagePath + ".xmp", imagePath + ".XMP", stem + ".xmp", stem + ".XMP"]
    }

    /// Reads the first sidecar that exists for `imagePath`: an XMP one (`candidatePaths`), else
    /// the JSON one `photos export --sidecar json` writes (`IMG.jpg.json`, the SPEC §5a photo
    /// object, read by `parseJSON`).
    /// - Returns: nil when there is none.
    /// - Throws: `SidecarError` naming the sidecar when it is not well-formed XML (or JSON),
    ///   is larger than `maxBytes` or cannot be read (`.readFailed`).
    public static func load(for imagePath: String) throws -> XMPSidecar? {
        for candidate in candidatePaths(for: imagePath) where candidate != imagePath {
            guard let data = try readBounded(candidate) else { continue }
            return try parse(data, path: candidate)
        }
        let json = imagePath + ".json"
        if let data = try readBounded(json) {
            return try parseJSON(data, path: json)
        }
        return nil
    }

    /// The bytes of the regular file at `path`, or nil when there is none; never more than
    /// `maxBytes` (the size is checked with fstat(2) before reading, and the read stops there).
    /// - Throws: `SidecarError.fileTooLarge` when the file is larger than `maxBytes`,
    ///   `.readFailed` on a read error.
    static func readBounded(_ path: String) throws -> Data? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { return nil }
        guard Int(st.st_size) <= maxBytes else {
            throw SidecarError.fileTooLarge(path: path, bytes: Int(st.st_size), maximum: maxBytes)
        }
        var bytes = [UInt8](repeating: 0, count: Int(st.st_size))
        var count = 0
        while count < bytes.count {
            let n = bytes.withUnsafeMutableBytes { raw -> Int in
                guard let base = raw.baseAddress else { return 0 }
                return Foundation.read(fd, base + count, raw.count - count)
            }
            if n < 0 {
                if errno == EINTR { continue }
                throw SidecarError.readFailed(path: path, errno: errno)
            }
            if n == 0 { break }
            count += n
        }
        return Data(bytes[0..<count])
    }

    /// True when `path` is a sidecar rather than a file to import: an `.xmp` file, or a `.json`
    /// file beside the image it describes (`IMG.jpg.json` next to `IMG.jpg`).
    public static func isSidecar(_ path: String) -> Bool {
        let ext = PathName.pathExtension(path).lowercased()
        if ext == "xmp" { return true }
        guard ext == "json" else { return false }
        var st = stat()
        return stat(PathName.deletingPathExtension(path), &st) == 0 && (st.st_mode & S_IFMT) == S_IFREG
    }

    /// Reads a JSON sidecar: the SPEC §5a photo object's `tags` (strings) become subjects, its
    /// `rating` (1…5; the displayed, rounded rating) the rating, its `captureDate` the
    /// capture time (source `json`), its `latitude`/`longitude`/`altitude` the position, and its
    /// `uniqueName`, when a UUID, the uniqueName. Other keys are ignored, so
    /// a JSON file of another shape (e.g. another tool's) gives an empty sidecar.
    /// - Throws: `SidecarError.notAJSONObject` naming `path` when the text is not a JSON object,
    ///   `.tooManyJSONValues` when it has more than `maxNodes` values.
    public static func parseJSON(_ data: Data, path: String) throws -> XMPSidecar {
        // Foundation's JSON tree costs ~60 bytes per value: a 4 MiB sidecar of two million
        // `0,` values took 70 MB per worker (166 MB peak with two). Values are counted first.
        // RFC 8259 §8.1: JSON text is UTF-8; anything else is refused before a decoder sees it.
        guard XMPToolkit.isValidUTF8([UInt8](data)) else { throw SidecarError.notAJSONObject(path: path) }
        let values = jsonValueEstimate(data)
        guard values <= maxNodes else {
            throw SidecarError.tooManyJSONValues(path: path, values: values, maximum: maxNodes)
        }
        let object: JSONSidecarObject
        do {
            object = try JSONDecoder().decode(JSONSidecarObject.self, from: data)
        } catch {
            throw SidecarError.notAJSONObject(path: path)
        }
        var result = XMPSidecar()
        result.subjects = Array(
            object.tags.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }.prefix(
                maxKeywords))
        // A `rating` key at all (null included: `photos export` writes null for a photo without
        // ratings) states the rating, like an xmp:Rating of 0, and wins over the embedded one.
        result.hasRating = object.hasRatingKey
        if let rating = object.rating, rating.isFinite, abs(rating) < 1e6, (1...5).contains(Int(rating.rounded())) {
            result.rating = Int(rating.rounded())
        }
        result.captureTime = object.captureDate.flatMap { CaptureTime.fromISO($0, source: "json") }
        result.hasKeywords = object.hasTags
        result.uniqueName = object.uniqueName.flatMap(XMPSidecar.validUniqueName)
        (result.title, result.description) = (PhotoText.title(object.title), PhotoText.description(object.description))
        // The position `photos export --sidecar json` wrote (issue 26 item 1); out of range, or
        // half of one, is none (`GeoPosition`).
        if let latitude = object.latitude, let longitude = object.longitude {
            result.position = GeoPosition(latitude: latitude, longitude: longitude, altitude: object.altitude)
        }
        return result
    }

    /// Parses an XMP packet (a sidecar file, or the packet embedded in an image) with the XMP
    /// Toolkit.
    /// - Parameters:
    ///   - data: the packet bytes (UTF-8/16/32 XML, with or without the `<?xpacket?>` wrapper);
    ///     at most `maxBytes`.
    ///   - path: named in the error.
    /// - Throws: `SidecarError` naming `path`: `.malformedPacket` when the XML or RDF is
    ///   malformed or truncated (with the toolkit's error code, from `xmp_get_error`),
    ///   `.packetTooLarge` when the packet is larger than `maxBytes`, `.tooManyXMPNodes` over
    ///   `maxNodes`; `.toolkitUnavailable`/`.toolkitAllocationFailed` when exempi fails.
    public static func parse(_ data: Data, path: String) throws -> XMPSidecar {
        guard data.count <= maxBytes else {
            throw SidecarError.packetTooLarge(path: path, bytes: data.count, maximum: maxBytes)
        }
        if let offset = XMPToolkit.invalidUTF8Offset(data) {
            throw SidecarError.notUTF8(path: path, offset: offset)
        }
        let nodes = XMPToolkit.nodeEstimate(data)
        guard nodes <= maxNodes else {
            throw SidecarError.tooManyXMPNodes(path: path, nodes: nodes, maximum: maxNodes)
        }
        guard XMPToolkit.ready else {
            throw SidecarError.toolkitUnavailable(code: XMPToolkit.initError)
        }
        // One packet tree alive at a time in the process: the toolkit's trees cost up to ~30
        // times the packet's bytes (a 4 MiB sidecar of 175,000 keywords: ~110 MB), so two
        // workers parsing such sidecars at once peaked at 263 MB. The toolkit serializes its
        // calls on its own global lock anyway, so this costs no parallelism.
        XMPToolkit.treeLock.lock()
        defer {
            // glibc keeps freed memory in each thread's arena: give a large tree's pages back
            // before the other worker parses (malloc_trim(3) trims every arena).
            if data.count > XMPToolkit.trimAfterBytes { photos_release_free_memory() }
            XMPToolkit.treeLock.unlock()
        }
        // One XmpPtr per call, freed here: nothing is shared between the importing threads.
        guard var xmp = xmp_new_empty() else {
            throw SidecarError.toolkitAllocationFailed(path: path)
        }
        defer { xmp_free(xmp) }
        let bytes = XMPToolkit.wrappedInXmpmeta(XMPToolkit.decimalCharacterReferences(data))
        func parse(_ bytes: [UInt8]) -> Bool {
            bytes.withUnsafeBytes { raw in
                guard let base = raw.baseAddress, raw.count > 0 else { return false }
                return xmp_parse(xmp, base.assumingMemoryBound(to: CChar.self), raw.count)
            }
        }
        var parsed = parse(bytes)
        var code = parsed || data.isEmpty ? 0 : xmp_get_error()
        if !parsed, code == -203, let deduplicated = XMPToolkit.repairedRDF(bytes) {
            // Well-formed, but a property given twice (Capture One writes such packets) or
            // rdf:Description blocks about different resources: the toolkit refuses the whole
            // packet; read it again with the first of each property and one rdf:about.
            xmp_free(xmp)
            guard let again = xmp_new_empty() else {
                throw SidecarError.toolkitAllocationFailed(path: path)
            }
            xmp = again
            parsed = parse(deduplicated)
            code = parsed ? 0 : xmp_get_error()
        }
        guard parsed else {
            throw SidecarError.malformedPacket(path: path, toolkitCode: code)
        }
        var result = XMPSidecar()
        (result.subjects, result.hasKeywords) = XMPSidecar.keywords(xmp, limit: maxKeywords)
        result.uniqueName = XMPSidecar.readUniqueName(xmp)
        if let text = XMPToolkit.property(xmp, xmpNS, "Rating") {
            result.hasRating = true
            // (A value far out of range, `1e300` or 30 digits, is no rating: converting it to
            // Int would trap.)
            if let value = XMPToolkit.real(text), abs(value) < 1e6 {
                let rounded = Int((value + 0.5).rounded(.down))
                if (1...5).contains(rounded) { result.rating = rounded }
            }
        }
        result.title = PhotoText.title(XMPToolkit.localizedText(xmp, dcNS, "title"))
        result.description = PhotoText.description(XMPToolkit.localizedText(xmp, dcNS, "description"))
        result.captureTime = captureTime(
            dateCreated: XMPToolkit.property(xmp, photoshopNS, "DateCreated"),
            dateTimeOriginal: XMPToolkit.property(xmp, exifNS, "DateTimeOriginal"))
        result.position = position(
            latitude: XMPToolkit.property(xmp, exifNS, "GPSLatitude"),
            longitude: XMPToolkit.property(xmp, exifNS, "GPSLongitude"),
            altitude: XMPToolkit.property(xmp, exifNS, "GPSAltitude"),
            altitudeRef: XMPToolkit.property(xmp, exifNS, "GPSAltitudeRef"))
        result.camera = CameraIdentity(
            make: XMPToolkit.property(xmp, tiffNS, "Make"), model: XMPToolkit.property(xmp, tiffNS, "Model"),
            lens: CameraIdentity.clean(XMPToolkit.property(xmp, exifEXNS, "LensModel"))
                ?? XMPToolkit.property(xmp, auxNS, "Lens"))
        return result
    }

    /// A position from the texts of `exif:GPSLatitude`, `exif:GPSLongitude`,
    /// `exif:GPSAltitude` and `exif:GPSAltitudeRef` (XMP Specification Part 2 §3.2.4.4 GPSCoordinate:
    /// `DD,MM,SSk` or `DD,MM.mmk`, k the direction; a plain signed decimal is read too);
    /// nil unless both coordinates read and are in range (`GeoPosition`).
    static func position(latitude: String?, longitude: String?, altitude: String?, altitudeRef: String?)
        -> GeoPosition?
    {
        func coordinate(_ text: String?, positive: Character, negative: Character) -> Double? {
            guard var text = text?.trimmingCharacters(in: .whitespaces), !text.isEmpty, text.count <= 64 else {
                return nil
            }
            var sign = 1.0
            if let last = text.last?.uppercased().first, last == positive || last == negative {
                sign = last == negative ? -1 : 1
                text.removeLast()
                let parts = text.split(separator: ",", omittingEmptySubsequences: false)
                guard (1...3).contains(parts.count) else { return nil }
                var value = 0.0
                for (i, part) in parts.enumerated() {
                    guard let v = Double(part.trimmingCharacters(in: .whitespaces)), v.isFinite, v >= 0 else {
                        return nil
                    }
                    value += v / [1.0, 60, 3600][i]
                }
                return sign * value
            }
            guard let v = Double(text), v.isFinite else { return nil }
            return v
        }
        guard let lat = coordinate(latitude, positive: "N", negative: "S"),
            let lon = coordinate(longitude, positive: "E", negative: "W")
        else { return nil }
        var alt: Double?
        if let altitude {
            let parts = altitude.trimmingCharacters(in: .whitespaces).split(separator: "/")
            if parts.count == 2, let n = Double(parts[0]), let d = Double(parts[1]), d != 0 {
                alt = n / d
            } else if parts.count == 1, let v = Double(parts[0]) {
                alt = v
            }
            if altitudeRef?.trimmingCharacters(in: .whitespaces) == "1", let a = alt { alt = -a }
        }
        return GeoPosition(latitude: lat, longitude: lon, altitude: alt)
    }

    /// The capture time of a packet from its `photoshop:DateCreated` and
    /// `exif:DateTimeOriginal` texts (ISO 8601 as XMP Part 1 §8.2.1.2 asks, or the EXIF form
    /// some writers copy over): `photoshop:DateCreated`, unless `exif:DateTimeOriginal` is the
    /// same moment said more precisely — a time of day on the same date where DateCreated has
    /// the date only (IPTC IIM 2:55 Date Created has no time, and Photoshop and Lightroom copy
    /// it so), or the same wall-clock time with an offset where DateCreated has none (MWG
    /// Guidelines 2.0 §5.4: the two carry one value, so the more precise form is the value).
    /// Either alone, when the other is absent or not a date; nil when neither is one.
    static func captureTime(dateCreated: String?, dateTimeOriginal: String?) -> CaptureTime? {
        func read(_ text: String?) -> CaptureTime? {
            guard let text else { return nil }
            return CaptureTime.fromISO(text, source: "xmp") ?? CaptureTime.fromEXIF(text, offset: nil, source: "xmp")
        }
        guard let created = read(dateCreated) else { return read(dateTimeOriginal) }
        guard let original = read(dateTimeOriginal) else { return created }
        let dateOnly = (dateCreated ?? "").trimmingCharacters(in: .whitespaces).utf8.count == 10
        if dateOnly, original.local.prefix(10) == created.local.prefix(10) { return original }
        if created.local == original.local, created.offsetMinutes == nil, original.offsetMinutes != nil {
            return original
        }
        return created
    }

    /// Sidecar and embedded metadata together (issue 9 item 5): keywords are unioned (the
    /// sidecar's first, then the embedded XMP's, then IPTC's, each once); the sidecar's
    /// `xmp:Rating`, when it has one (0 or −1 included), wins over the embedded one; the
    /// sidecar's date wins over the embedded one. A sidecar `photos export` wrote (it has a
    /// `photos:uniqueName`) and that lists keywords states the photo's whole tag list: its
    /// keywords are taken alone, so a keyword removed in the library but still embedded in the
    /// original does not come back.
    public static func merged(sidecar: XMPSidecar?, embedded: XMPSidecar?, iptcKeywords: [String]) -> XMPSidecar? {
        guard sidecar != nil || embedded != nil || !iptcKeywords.isEmpty else { return nil }
        if let sidecar, sidecar.uniqueName != nil, sidecar.hasKeywords {
            var result = sidecar
            if !result.hasRating, let embedded, embedded.hasRating {
                (result.rating, result.hasRating) = (embedded.rating, true)
            }
            if result.captureTime == nil { result.captureTime = embedded?.captureTime }
            if result.position == nil { result.position = embedded?.position }
            result.camera = CameraIdentity.merged(result.camera, embedded?.camera)
            if result.title == nil { result.title = embedded?.title }
            if result.description == nil { result.description = embedded?.description }
            return result
        }
        var result = sidecar ?? XMPSidecar()
        // A Set, not `subjects.contains`: packets of up to 4 MiB hold ~180,000 keywords.
        var seen = Set(result.subjects)
        for subject in embedded?.subjects ?? []
        where result.subjects.count < maxKeywords && !subject.isEmpty && seen.insert(subject).inserted {
            result.subjects.append(subject)
        }
        // IPTC Keywords are flat: digiKam writes there the last level of each hierarchical tag
        // (`Rome` beside `TagsList=Places/Italy/Rome`), Lightroom every level. A keyword that is
        // a level of a hierarchical keyword read from XMP is that projection, not a tag of its
        // own (issue 32 item 1), as `dc:subject`'s levels are (`XMPSidecar+Identity.swift`).
        var levels = Set<String>()
        for subject in result.subjects where subject.contains("/") {
            levels.formUnion(XMPSidecar.levels(subject, separator: "/"))
        }
        for subject in iptcKeywords.map({ $0.trimmingCharacters(in: .whitespacesAndNewlines) })
        where result.subjects.count < maxKeywords && !subject.isEmpty && !levels.contains(subject)
            && seen.insert(subject).inserted
        {
            result.subjects.append(subject)
        }
        if !result.hasRating, let embedded, embedded.hasRating {
            result.rating = embedded.rating
            result.hasRating = true
        }
        if result.captureTime == nil { result.captureTime = embedded?.captureTime }
        if result.position == nil { result.position = embedded?.position }
        result.camera = CameraIdentity.merged(result.camera, embedded?.camera)
        // The sidecar's title and description, else the embedded XMP's (issue 26 item 6).
        if result.title == nil { result.title = embedded?.title }
        if result.description == nil { result.description = embedded?.description }
        if result.uniqueName == nil { result.uniqueName = embedded?.uniqueName }
        result.hasKeywords = result.hasKeywords || embedded?.hasKeywords == true || !iptcKeywords.isEmpty
        return result
    }

    /// An upper estimate of the values in a JSON text: each `,`, `[` and `{` outside strings,
    /// plus one.
    static func jsonValueEstimate(_ data: Data) -> Int {
        var count = 1
        var inString = false, escaped = false
        for c in data {
            if inString {
                if escaped {
                    escaped = false
                } else if c == 0x5C {
                    escaped = true
                } else if c == 0x22 {
                    inString = false
                }
            } else if c == 0x22 {
                inString = true
            } else if c == 0x2C || c == 0x5B || c == 0x7B {
                count += 1
            }
        }
        return count
    }

    /// The keys of a JSON sidecar that matter; a key of another type is ignored, not an error.
    private struct JSONSidecarObject: Decodable {
        var tags: [String] = []
        var rating: Double?
        var captureDate: String?
        var uniqueName: String?
        /// `latitude`, `longitude` (degrees) and `altitude` (metres) as `list --json` writes them.
        var latitude: Double?
        var longitude: Double?
        var altitude: Double?
        /// `title` and `description` as `list --json` writes them (issue 26 item 6).
        var title: String?
        var description: String?
        /// True when the object has a `tags` array (an empty one included).
        var hasTags = false
        /// True when the object has a `rating` that is a number or null (another type is ignored).
        var hasRatingKey = false
        enum CodingKeys: String, CodingKey {
            case tags, rating, captureDate, uniqueName, latitude, longitude, altitude, title, description
        }
        init(from decoder: Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            let list = (try? container.decodeIfPresent([String].self, forKey: .tags)) ?? nil
            tags = list ?? []
            hasTags = list != nil
            rating = (try? container.decodeIfPresent(Double.self, forKey: .rating)) ?? nil
            hasRatingKey =
                rating != nil || (container.contains(.rating) && (try? container.decodeNil(forKey: .rating)) == true)
            captureDate = (try? container.decodeIfPresent(String.self, forKey: .captureDate)) ?? nil
            uniqueName = (try? container.decodeIfPresent(String.self, forKey: .uniqueName)) ?? nil
            latitude = (try? container.decodeIfPresent(Double.self, forKey: .latitude)) ?? nil
            longitude = (try? container.decodeIfPresent(Double.self, forKey: .longitude)) ?? nil
            altitude = (try? container.decodeIfPresent(Double.self, forKey: .altitude)) ?? nil
            title = (try? container.decodeIfPresent(String.self, forKey: .title)) ?? nil
            description = (try? container.decodeIfPresent(String.self, forKey: .description)) ?? nil
        }
    }
}

/// The process-wide Exempi state. `xmp_init` runs once (Swift initializes a static `let`
/// exactly once, thread-safely, as exempi requires: "call xmp_init() once before any other
/// call"); after it, the XMP Toolkit serializes its own calls on a global lock, each `XmpPtr`
/// is used by one thread only, and `xmp_get_error` is per thread (thread-local in exempi 2.6).
enum XMPToolkit {
    /// Held while a packet is parsed and read (`XMPSidecar.parse`): one packet tree at a time.
    static let treeLock = NSLock()
    /// Packets larger than this (256 KiB) have their tree's memory returned to the system.
    static let trimAfterBytes = 256 << 10
    static let ready: Bool = {
        // exempi writes each error's message to std::cerr as well; photos reports its own.
        photos_silence_cxx_cerr()
        return xmp_init()
    }()
    static var initError: Int32 { ready ? 0 : xmp_get_error() }

    /// The offset of the first byte of `data` that starts no well-formed UTF-8 sequence (RFC
    /// 3629 §4: no overlong forms, no surrogates, nothing above U+10FFFF), nil when all of it
    /// is UTF-8 — or when the packet is UTF-16 or UTF-32 (a byte-order mark, or a NUL among
    /// its first four bytes: XML in those encodings starts with `<` and NULs), which the
    /// toolkit reads as such.
    static func invalidUTF8Offset(_ data: Data) -> Int? {
        let b = [UInt8](data)
        if b.starts(with: [0xFE, 0xFF]) || b.starts(with: [0xFF, 0xFE]) || b.prefix(4).contains(0) { return nil }
        var i = 0
        while i < b.count {
            let c = b[i]
            if c < 0x80 {
                i += 1
                continue
            }
            let length: Int
            var low: UInt8 = 0x80, high: UInt8 = 0xBF
            switch c {
            case 0xC2...0xDF: length = 2
            case 0xE0: (length, low) = (3, 0xA0)
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: (length, high) = (3, 0x9F)
            case 0xF0: (length, low) = (4, 0x90)
            case 0xF1...0xF3: length = 4
            case 0xF4: (length, high) = (4, 0x8F)
            default: return i
            }
            guard i + length <= b.count, (low...high).contains(b[i + 1]) else { return i }
            for k in 2..<max(2, length) where !(0x80...0xBF).contains(b[i + k]) { return i }
            i += length
        }
        return nil
    }

    /// A Lang Alt property's text (Part 1 §8.2.2.4): the `x-default` item, else the first item
    /// (the toolkit's `GetLocalizedText` rule), else a simple value; nil when absent or when the
    /// item's text is its own language tag.
    static func localizedText(_ xmp: XmpPtr, _ ns: String, _ name: String) -> String? {
        guard let value = xmp_string_new(), let lang = xmp_string_new() else { return nil }
        defer {
            xmp_string_free(value)
            xmp_string_free(lang)
        }
        var options: UInt32 = 0
        if xmp_get_localized_text(xmp, ns, name, "", "x-default", lang, value, &options) {
            // An item whose text is its language tag (`<rdf:li xml:lang="x-default">x-default`,
            // what the corpus's Olympus E-M1 files hold) says nothing.
            let text = xmp_string_cstr(value).map { String(cString: $0) }
            return text == xmp_string_cstr(lang).map { String(cString: $0) } ? nil : text
        }
        return items(xmp, ns, name, limit: 1).first
    }

    /// A simple property's value, by namespace URI and local name; nil when absent or not simple.
    static func property(_ xmp: XmpPtr, _ ns: String, _ name: String) -> String? {
        guard let s = xmp_string_new() else { return nil }
        defer { xmp_string_free(s) }
        var options: UInt32 = 0
        guard xmp_get_property(xmp, ns, name, s, &options), options & 0x0000_0F00 == 0 else { return nil }
        return xmp_string_cstr(s).map { String(cString: $0) }
    }

    /// The items of an array property (Bag, Seq or Alt: Part 1 §8.2.2), or its value when the
    /// writer used a simple value instead; struct items are skipped; at most `limit` items.
    static func items(_ xmp: XmpPtr, _ ns: String, _ name: String, limit: Int = Int.max) -> [String] {
        guard let s = xmp_string_new() else { return [] }
        defer { xmp_string_free(s) }
        var options: UInt32 = 0
        guard xmp_get_property(xmp, ns, name, s, &options) else { return [] }
        // XMP_PROP_VALUE_IS_ARRAY 0x200 (xmpconsts.h); XMP_PROP_VALUE_IS_STRUCT 0x100.
        guard options & 0x200 != 0 else {
            return options & 0x100 == 0 ? [xmp_string_cstr(s).map { String(cString: $0) } ?? ""] : []
        }
        var result: [String] = []
        var index: Int32 = 1
        while result.count < limit, xmp_get_array_item(xmp, ns, name, index, s, &options) {
            if options & 0x300 == 0, let c = xmp_string_cstr(s) { result.append(String(cString: c)) }
            index += 1
        }
        return result
    }

    /// The packet with each hexadecimal character reference of U+0020 or above (`&#xE9;`)
    /// rewritten as its decimal form (`&#233;`), outside CDATA sections and comments.
    ///
    /// Why: the XMP Toolkit in exempi 2.6 reads every two-digit hexadecimal reference as an
    /// escaped ASCII control and replaces it with a space (`Caf&#xE9;` reads `Caf `), while
    /// decimal and longer hexadecimal references are right. XML 1.0 §4.1 makes both forms
    /// the same character, so the rewrite changes no meaning. Only UTF-8 (or ASCII) packets
    /// are rewritten; a UTF-16/32 one (BOM or NUL bytes first) is passed as it is.
    static func decimalCharacterReferences(_ data: Data) -> [UInt8] {
        let b = [UInt8](data)
        if b.count >= 2, (b[0] == 0xFE && b[1] == 0xFF) || (b[0] == 0xFF && b[1] == 0xFE) || b[0] == 0 || b[1] == 0 {
            return b
        }
        var out: [UInt8] = []
        out.reserveCapacity(b.count)
        var i = 0
        func starts(_ s: String, at j: Int) -> Bool {
            let u = Array(s.utf8)
            return j + u.count <= b.count && b[j..<(j + u.count)].elementsEqual(u)
        }
        func copy(through end: String) {
            // Copies up to and including `end` (or the rest of the packet).
            let u = Array(end.utf8)
            while i < b.count {
                if starts(end, at: i) { out.append(contentsOf: u); i += u.count; return }
                out.append(b[i]); i += 1
            }
        }
        while i < b.count {
            if b[i] == 0x3C, starts("<![CDATA[", at: i) { copy(through: "]]>"); continue }
            if b[i] == 0x3C, starts("<!--", at: i) { copy(through: "-->"); continue }
            if b[i] == 0x26, i + 3 < b.count, b[i + 1] == 0x23, b[i + 2] == 0x78 {
                var j = i + 3
                var value: UInt32 = 0
                while j < b.count, j - i < 12, let d = hexValue(b[j]) { value = value &* 16 &+ UInt32(d); j += 1 }
                if j < b.count, b[j] == 0x3B, j > i + 3, value >= 0x20, value <= 0x10FFFF {
                    out.append(contentsOf: Array("&#\(value);".utf8))
                    i = j + 1
                    continue
                }
            }
            out.append(b[i]); i += 1
        }
        return out
    }

    /// A UTF-8 packet whose `rdf:RDF` is not inside an `x:xmpmeta` (or the older `x:xapmeta`)
    /// element, wrapped in one. The wrapper is optional (XMP Specification Part 1 §7.3.3), but
    /// the XMP Toolkit finds no properties without it.
    static func wrappedInXmpmeta(_ b: [UInt8]) -> [UInt8] {
        guard b.count >= 2, b[0] != 0, b[1] != 0, !(b[0] == 0xFE && b[1] == 0xFF), !(b[0] == 0xFF && b[1] == 0xFE)
        else { return b }
        func contains(_ s: String) -> Bool {
            let u = Array(s.utf8)
            guard b.count >= u.count else { return false }
            for i in 0...(b.count - u.count) where b[i] == u[0] && b[i..<(i + u.count)].elementsEqual(u) { return true }
            return false
        }
        // The wrapper element itself, `<x:xmpmeta` (any prefix, or none), not the word in a
        // comment or a value: comments are blanked out for this search.
        var plain = b
        var k = 0
        while k + 4 <= plain.count {
            if plain[k] == 0x3C, plain[k + 1] == 0x21, plain[k + 2] == 0x2D, plain[k + 3] == 0x2D {
                var e = k + 4
                while e + 3 <= plain.count, !(plain[e] == 0x2D && plain[e + 1] == 0x2D && plain[e + 2] == 0x3E) {
                    e += 1
                }
                let stop = min(plain.count, e + 3)
                for m in k..<stop { plain[m] = 0x20 }
                k = stop
            } else {
                k += 1
            }
        }
        func hasElement(_ name: String) -> Bool {
            let b = plain
            let u = Array(name.utf8)
            guard b.count > u.count + 1 else { return false }
            for i in 1...(b.count - u.count - 1) where b[i..<(i + u.count)].elementsEqual(u) {
                let after = b[i + u.count]
                guard after == 0x20 || after == 0x09 || after == 0x0A || after == 0x0D || after == 0x3E || after == 0x2F
                else { continue }
                var j = i - 1
                if b[j] == 0x3A { // a prefix: letters, digits, '-', '_', '.' back to '<'
                    j -= 1
                    while j > 0, b[j] != 0x3C, b[j] > 0x20, b[j] != 0x3E { j -= 1 }
                }
                if b[j] == 0x3C { return true }
            }
            return false
        }
        guard contains("RDF"), !hasElement("xmpmeta"), !hasElement("xapmeta") else { return b }
        // After the XML declaration (and a UTF-8 BOM), which must stay first (XML 1.0 §2.8).
        var start = b.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        if b[start...].starts(with: Array("<?xml".utf8)) {
            var i = start
            while i + 1 < b.count, !(b[i] == 0x3F && b[i + 1] == 0x3E) { i += 1 }
            start = min(b.count, i + 2)
        }
        return Array(b[..<start]) + Array("<x:xmpmeta xmlns:x=\"adobe:ns:meta/\">".utf8) + Array(b[start...])
            + Array("</x:xmpmeta>".utf8)
    }

    private static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case 48...57: return c - 48
        case 65...70: return c - 55
        case 97...102: return c - 87
        default: return nil
        }
    }

    /// An XMP Real (Part 1 §8.2.1.5: a decimal number, optionally signed, with an optional
    /// fractional part), surrounding white space allowed; nil for anything else — also for the
    /// forms Swift's `Double(_:)` would take besides (`0x4`, `4e0`, `inf`, `nan`).
    static func real(_ text: String) -> Double? {
        let t = Array(text.trimmingCharacters(in: .whitespacesAndNewlines).utf8)
        var i = 0
        if i < t.count, t[i] == UInt8(ascii: "+") || t[i] == UInt8(ascii: "-") { i += 1 }
        var digits = 0
        while i < t.count, (48...57).contains(t[i]) { i += 1; digits += 1 }
        if i < t.count, t[i] == UInt8(ascii: ".") {
            i += 1
            while i < t.count, (48...57).contains(t[i]) { i += 1; digits += 1 }
        }
        guard digits > 0, i == t.count else { return nil }
        return Double(String(decoding: t, as: UTF8.self))
    }

    /// An upper estimate of the nodes a packet makes: each `<` that does not open an end tag
    /// (`</`), and each attribute value (`="` or `='`). Byte-wise, so UTF-16/32 packets count
    /// each `<` (end tags too).
    static func nodeEstimate(_ data: Data) -> Int {
        var count = 0
        data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            let n = raw.count
            var i = 0
            while i < n {
                let c = raw[i]
                if c == 0x3C {
                    if i + 1 >= n || raw[i + 1] != 0x2F { count += 1 }
                } else if c == 0x3D, i + 1 < n, raw[i + 1] == 0x22 || raw[i + 1] == 0x27 {
                    count += 1
                }
                i += 1
            }
        }
        return count
    }

    /// `xmp_get_error` codes (exempi `xmperrors.h`) in words.
    static func describe(_ code: Int32) -> String {
        switch code {
        case 0: return "empty or not XML"
        case -201: return "malformed XML (XMP Toolkit error -201, XMPErr_BadXML)"
        case -202: return "malformed RDF (XMP Toolkit error -202, XMPErr_BadRDF)"
        case -203: return "not valid XMP (XMP Toolkit error -203, XMPErr_BadXMP)"
        case -205: return "bad Unicode (XMP Toolkit error -205, XMPErr_BadUnicode)"
        default: return "XMP Toolkit error \(code)"
        }
    }
}
