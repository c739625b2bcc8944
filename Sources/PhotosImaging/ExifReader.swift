import PhotosModel

/// What `photos` keeps from an EXIF block.
public struct ExifMetadata: Sendable, Equatable {
    /// Orientation (tag 0x0112), 1...8; 1 when absent or out of range
    /// (EXIF 2.32 §4.6.4 Table 4: 0 and 9+ are reserved).
    public var orientation: Orientation = .up
    /// True when the block has a valid Orientation tag (a RAW's preview JPEG without one is
    /// turned by the RAW's own orientation instead).
    public var hasOrientation = false
    /// DateTimeOriginal (tag 0x9003) exactly as stored, "YYYY:MM:DD HH:MM:SS"; nil unless well-formed.
    public var dateTimeOriginal: String?
    /// OffsetTimeOriginal (tag 0x9011) as stored, "+HH:MM" or "-HH:MM"; nil unless well-formed.
    public var offsetTimeOriginal: String?
    /// SubSecTimeOriginal (tag 0x9291): the digits of the seconds' fraction; nil unless digits.
    public var subSecTimeOriginal: String?
    /// DateTimeDigitized (tag 0x9004), OffsetTimeDigitized (0x9012), SubSecTimeDigitized (0x9292).
    public var dateTimeDigitized: String?
    public var offsetTimeDigitized: String?
    public var subSecTimeDigitized: String?
    /// DateTime (IFD0 tag 0x0132, the file's change date), OffsetTime (0x9010), SubSecTime (0x9290).
    public var dateTime: String?
    public var offsetTime: String?
    public var subSecTime: String?

    /// The position of the GPS IFD (tag 0x8825; EXIF 2.32 §4.6.6): nil when absent, malformed
    /// (a zero denominator, a latitude beyond 90° or longitude beyond 180°, a Ref that is not
    /// N/S or E/W) or exactly 0,0 with no altitude.
    public var position: GeoPosition?
    /// Why a GPS IFD that has a latitude or longitude gave no position, one line; nil otherwise.
    public var positionProblem: String?
    /// GPSDateStamp (0x001D) and GPSTimeStamp (0x0007) as one UTC time,
    /// "YYYY:MM:DD HH:MM:SS" (whole seconds); nil unless both are present and well-formed.
    public var gpsDateTime: String?
    /// Make (IFD0 tag 0x010F), Model (IFD0 0x0110) and LensModel (Exif IFD 0xA434; CIPA
    /// DC-008-2019 §4.6.5 G), cleaned (`CameraIdentity.clean`); nil when none is present.
    public var camera: CameraIdentity?
    /// ImageDescription (IFD0 tag 0x010E, EXIF 2.32 §4.6.5 D) as written, NUL padding and all;
    /// nil when absent (`PhotoText.exifDescription` drops cameras' boilerplate).
    public var imageDescription: String?
    /// Apple's content identifier (issue 25 item 2): tag 0x0011 of the Apple MakerNote (Exif IFD
    /// tag 0x927C starting "Apple iOS\0"; exiftool's `Apple:ContentIdentifier`), the UUID an
    /// iPhone writes into both halves of a Live Photo (the MOV carries it as QuickTime
    /// `com.apple.quicktime.content.identifier`). Kept only when it is 1–64 characters of
    /// letters, digits and '-' (`ExifReader.isContentIdentifier`); nil otherwise.
    public var contentIdentifier: String?

    /// Metadata of a file without EXIF.
    public init() {}
}

/// A position on the WGS 84 ellipsoid, as GPS receivers give it (EXIF 2.32 §4.6.6 GPS
/// Attribute Information; XMP `exif:GPSLatitude`).
public struct GeoPosition: Sendable, Equatable {
    /// Degrees north of the equator, −90…90 (south negative).
    public var latitude: Double
    /// Degrees east of Greenwich, −180…180 (west negative).
    public var longitude: Double
    /// Metres above sea level (below is negative); nil when unknown.
    public var altitude: Double?

    /// - Returns: nil when out of range (|latitude| > 90, |longitude| > 180, not finite), or
    ///   when exactly 0,0 without an altitude (the "null island" of a receiver without a fix).
    public init?(latitude: Double, longitude: Double, altitude: Double?) {
        guard latitude.isFinite, longitude.isFinite, abs(latitude) <= 90, abs(longitude) <= 180 else { return nil }
        if latitude == 0 && longitude == 0 && altitude == nil { return nil }
        if let altitude, !altitude.isFinite || abs(altitude) > 100_000_000 { return nil }
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
    }

    /// Latitude in 1e-7 degrees, rounded (the catalog's `latitude_e7`).
    public var latitudeE7: Int { Int((latitude * 1e7).rounded()) }
    /// Longitude in 1e-7 degrees, rounded (the catalog's `longitude_e7`).
    public var longitudeE7: Int { Int((longitude * 1e7).rounded()) }
    /// Altitude in millimetres, rounded (the catalog's `altitude_mm`).
    public var altitudeMM: Int? { altitude.map { Int(($0 * 1000).rounded()) } }

    /// The position the catalog's integer columns hold.
    public init?(latitudeE7: Int?, longitudeE7: Int?, altitudeMM: Int?) {
        guard let latitudeE7, let longitudeE7 else { return nil }
        self.init(
            latitude: Double(latitudeE7) / 1e7, longitude: Double(longitudeE7) / 1e7,
            altitude: altitudeMM.map { Double($0) / 1000 })
    }
}

/// Reads the few EXIF fields `photos` needs from a TIFF-structured EXIF block
/// (EXIF 2.32 §4.5: TIFF header, IFD0, Exif IFD via tag 0x8769).
///
/// Every offset and count is checked against the block: entries that point
/// outside it, IFDs that point back at themselves, and absurd counts are
/// ignored, never trusted.
public enum ExifReader {
    /// Parses a TIFF/EXIF block (JPEG APP1 after "Exif\0\0", or a PNG eXIf chunk).
    /// - Parameter block: bytes starting with "II*\0" or "MM\0*".
    /// - Returns: the fields found; defaults when the block is malformed.
    public static func parse(_ block: UnsafeRawBufferPointer) -> ExifMetadata {
        parse(block, rawMagic: false)
    }

    /// Parses a TIFF/EXIF block, or with `rawMagic` also a camera RAW file laid out as TIFF under
    /// another magic number: Panasonic RW2 (0x0055) and Olympus ORF ("RO"/"RS", LibRaw's
    /// identify reads them so too).
    /// - Parameters:
    ///   - block: bytes starting with "II" or "MM" and the magic number.
    ///   - rawMagic: accept the RW2 and ORF magic numbers besides 42.
    /// - Returns: the fields found; defaults when the block is malformed.
    public static func parse(_ block: UnsafeRawBufferPointer, rawMagic: Bool) -> ExifMetadata {
        var result = ExifMetadata()
        guard block.count >= 8 else { return result }
        let little: Bool
        switch (block[0], block[1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: return result
        }
        let reader = TIFFReader(bytes: block, little: little)
        let magic = reader.u16(2)
        guard magic == 42 || (rawMagic && (magic == 0x55 || magic == 0x4F52 || magic == 0x5352)),
            let ifd0 = reader.u32(4)
        else { return result }
        var visited: Set<Int> = []
        var make: String?, model: String?, lens: String?
        var exifIFD: Int?
        var gpsIFD: Int?
        // The date tags belong in the Exif IFD (EXIF 2.32 §4.6.5); some writers put them in
        // IFD0, where they are taken too. The Exif IFD, read second, wins.
        func dateTag(_ tag: Int, _ type: Int, _ count: Int, _ valueOffset: Int) {
            switch tag {
            case 0x0132, 0x9003, 0x9004:
                guard let text = reader.ascii(type: type, count: count, valueOffset: valueOffset), isDateTime(text)
                else { return }
                if tag == 0x0132 {
                    result.dateTime = text
                } else if tag == 0x9003 {
                    result.dateTimeOriginal = text
                } else {
                    result.dateTimeDigitized = text
                }
            case 0x9010, 0x9011, 0x9012:
                guard let text = reader.ascii(type: type, count: count, valueOffset: valueOffset), isOffset(text) else {
                    return
                }
                if tag == 0x9010 {
                    result.offsetTime = text
                } else if tag == 0x9011 {
                    result.offsetTimeOriginal = text
                } else {
                    result.offsetTimeDigitized = text
                }
            case 0x9290, 0x9291, 0x9292:
                guard let raw = reader.ascii(type: type, count: count, valueOffset: valueOffset) else { return }
                let text = String(raw.filter { $0 != " " })
                guard !text.isEmpty, text.utf8.allSatisfy({ (48...57).contains($0) }) else { return }
                if tag == 0x9290 {
                    result.subSecTime = text
                } else if tag == 0x9291 {
                    result.subSecTimeOriginal = text
                } else {
                    result.subSecTimeDigitized = text
                }
            default:
                return
            }
        }
        reader.forEachEntry(ifd: Int(ifd0), visited: &visited) { tag, type, count, valueOffset in
            switch tag {
            case 0x0112:
                if count >= 1, let value = reader.integer(type: type, at: valueOffset),
                    let orientation = Orientation(rawValue: value)
                {
                    result.orientation = orientation
                    result.hasOrientation = true
                }
            case 0x010F: make = reader.text(type: type, count: count, valueOffset: valueOffset)
            case 0x010E: result.imageDescription = reader.text(type: type, count: count, valueOffset: valueOffset)
            case 0x0110: model = reader.text(type: type, count: count, valueOffset: valueOffset)
            case 0x8769:
                if count == 1, let value = reader.integer(type: type, at: valueOffset) { exifIFD = value }
            case 0x8825:
                if count == 1, let value = reader.integer(type: type, at: valueOffset) { gpsIFD = value }
            default:
                dateTag(tag, type, count, valueOffset)
            }
        }
        if let exifIFD {
            reader.forEachEntry(ifd: exifIFD, visited: &visited) { tag, type, count, valueOffset in
                if tag == 0xA434 {
                    lens = reader.text(type: type, count: count, valueOffset: valueOffset)
                } else if tag == 0x927C {
                    result.contentIdentifier = appleContentIdentifier(
                        reader, type: type, count: count, valueOffset: valueOffset)
                } else {
                    dateTag(tag, type, count, valueOffset)
                }
            }
        }
        result.camera = CameraIdentity(make: make, model: model, lens: lens)
        if let gpsIFD { readGPS(reader, ifd: gpsIFD, visited: &visited, into: &result) }
        return result
    }

    /// The bytes of IFD0's XMP packet (tag 700, XMLPacket: BYTE or UNDEFINED; Adobe XMP
    /// Specification Part 3 §1.1.4, where a DNG keeps its XMP) of a TIFF-structured file, at most
    /// `maxBytes`; nil when there is none, or it lies outside the file or is larger.
    public static func xmpPacket(inTIFF block: UnsafeRawBufferPointer, maxBytes: Int) -> Range<Int>? {
        guard block.count >= 8 else { return nil }
        let little: Bool
        switch (block[0], block[1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: return nil
        }
        let reader = TIFFReader(bytes: block, little: little)
        guard reader.u16(2) == 42, let ifd0 = reader.u32(4) else { return nil }
        var visited: Set<Int> = []
        var found: Range<Int>?
        reader.forEachEntry(ifd: Int(ifd0), visited: &visited) { tag, type, count, valueOffset in
            guard tag == 700, type == 1 || type == 7, count > 4, count <= maxBytes,
                let offset = reader.u32(valueOffset), Int(offset) <= block.count - count
            else { return }
            found = Int(offset)..<(Int(offset) + count)
        }
        return found
    }

    /// The JPEG a FUJIFILM RAF file embeds, which holds the camera's EXIF (the RAF header: the
    /// magic "FUJIFILMCCD-RAW ", then at byte 84 the JPEG's offset and at 88 its length, both
    /// big-endian 32-bit — the layout dcraw's `parse_fuji` and exiftool's FujiFilm RAF module
    /// read); nil when the header or the range does not fit the file.
    public static func rafEmbeddedJPEG(_ file: UnsafeRawBufferPointer) -> Range<Int>? {
        guard file.count >= 92, Array(file[0..<15]) == Array("FUJIFILMCCD-RAW".utf8) else { return nil }
        let reader = TIFFReader(bytes: file, little: false)
        guard let offset = reader.u32(84), let length = reader.u32(88), length >= 4, offset >= 92,
            Int(offset) <= file.count - Int(length), file[Int(offset)] == 0xFF, file[Int(offset) + 1] == 0xD8
        else { return nil }
        return Int(offset)..<(Int(offset) + Int(length))
    }

    /// Reads the GPS IFD (EXIF 2.32 §4.6.6 Table 15): GPSLatitudeRef/GPSLatitude (0x0001/0x0002),
    /// GPSLongitudeRef/GPSLongitude (0x0003/0x0004), GPSAltitudeRef/GPSAltitude (0x0005/0x0006:
    /// Ref 1 is below sea level), GPSTimeStamp (0x0007) and GPSDateStamp (0x001D).
    static func readGPS(_ reader: TIFFReader, ifd: Int, visited: inout Set<Int>, into result: inout ExifMetadata) {
        var latRef: String?, lonRef: String?, altRef: Int?
        var lat: [Double]?, lon: [Double]?, alt: [Double]?, time: [Double]?
        var date: String?
        var sawLatitude = false
        reader.forEachEntry(ifd: ifd, visited: &visited) { tag, type, count, valueOffset in
            switch tag {
            case 0x0001: latRef = reader.ascii(type: type, count: count, valueOffset: valueOffset)
            case 0x0003: lonRef = reader.ascii(type: type, count: count, valueOffset: valueOffset)
            case 0x0002:
                sawLatitude = true
                lat = reader.rationals(type: type, count: count, valueOffset: valueOffset)
            case 0x0004:
                sawLatitude = true
                lon = reader.rationals(type: type, count: count, valueOffset: valueOffset)
            case 0x0005:
                if type == 1 || type == 7, count >= 1, valueOffset < reader.bytes.count {
                    altRef = Int(reader.bytes[valueOffset])
                }
            case 0x0006: alt = reader.rationals(type: type, count: count, valueOffset: valueOffset)
            case 0x0007: time = reader.rationals(type: type, count: count, valueOffset: valueOffset)
            case 0x001D: date = reader.ascii(type: type, count: count, valueOffset: valueOffset)
            default: return
            }
        }
        if let date, let time, time.count == 3, date.utf8.count == 10 {
            let h: Double = time[0], m: Double = time[1], sec: Double = time[2].rounded(.down)
            let valid: Bool = h >= 0 && h < 24 && m >= 0 && m < 60 && sec >= 0 && sec < 61
            if valid, h == h.rounded(), m == m.rounded() {
                func two(_ v: Double) -> String {
                    let i = Int(v)
                    return i < 10 ? "0\(i)" : "\(i)"
                }
                let text: String = date + " " + two(h) + ":" + two(m) + ":" + two(min(sec, 59))
                if isDateTime(text) { result.gpsDateTime = text }
            }
        }
        guard sawLatitude else { return }
        func degrees(_ parts: [Double]?) -> Double? {
            guard let parts, (1...3).contains(parts.count) else { return nil }
            guard parts.allSatisfy({ $0.isFinite && $0 >= 0 }) else { return nil }
            // Degrees, minutes and seconds as exiftool adds them (some writers put decimal
            // degrees or decimal minutes, the rest zero).
            let minutes = parts.count > 1 ? parts[1] : 0, seconds = parts.count > 2 ? parts[2] : 0
            return parts[0] + minutes / 60 + seconds / 3600
        }
        guard let latitude = degrees(lat), let longitude = degrees(lon) else {
            result.positionProblem =
                "its GPS latitude or longitude is not three valid rationals (a zero denominator?); no position read"
            return
        }
        let north: Bool, east: Bool
        switch (latRef?.uppercased(), lonRef?.uppercased()) {
        case let (la?, lo?) where (la == "N" || la == "S") && (lo == "E" || lo == "W"):
            north = la == "N"
            east = lo == "E"
        default:
            result.positionProblem = "its GPS latitude or longitude Ref is not N/S or E/W; no position read"
            return
        }
        var altitude: Double?
        if let alt, alt.count == 1, alt[0].isFinite {
            altitude = altRef == 1 ? -alt[0] : alt[0]
        }
        guard
            let position = GeoPosition(
                latitude: north ? latitude : -latitude, longitude: east ? longitude : -longitude, altitude: altitude)
        else {
            if latitude > 90 || longitude > 180 {
                result.positionProblem = "its GPS position \(latitude),\(longitude) is out of range; no position read"
            }
            return
        }
        result.position = position
    }

    /// The most bytes of a MakerNote `appleContentIdentifier` reads: Apple's notes are a few
    /// KiB; a longer one is read as its first 64 KiB (offsets beyond them are not followed).
    static let maxMakerNoteBytes = 65536

    /// The content identifier of an Apple MakerNote (Exif tag 0x927C, UNDEFINED): the bytes
    /// "Apple iOS\0", a 2-byte version, the byte order "MM" or "II", then at offset 14 a
    /// TIFF-style IFD whose value offsets count from the note's first byte (exiftool's
    /// Apple.pm: `Start => $valuePtr + 14, Base => $start - 14`); tag 0x0011 (ASCII) is the
    /// content identifier. Every offset is checked against the note, capped at
    /// `maxMakerNoteBytes`; nil for a note of another maker, a malformed one, or a value that is
    /// no identifier (`isContentIdentifier`).
    static func appleContentIdentifier(_ reader: TIFFReader, type: Int, count: Int, valueOffset: Int) -> String? {
        guard type == 7 || type == 1, count > 14, let offset = reader.u32(valueOffset) else { return nil }
        let start = Int(offset)
        let bytes = reader.bytes
        guard start >= 0, start < bytes.count else { return nil }
        let end = min(bytes.count, start + min(count, maxMakerNoteBytes))
        guard end - start > 14 else { return nil }
        let note = UnsafeRawBufferPointer(rebasing: bytes[start..<end])
        let header: [UInt8] = Array("Apple iOS".utf8) + [0]
        guard note.prefix(header.count).elementsEqual(header) else { return nil }
        let little: Bool
        switch (note[12], note[13]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: return nil
        }
        let apple = TIFFReader(bytes: note, little: little)
        var visited: Set<Int> = []
        var found: String?
        apple.forEachEntry(ifd: 14, visited: &visited) { tag, type, count, valueOffset in
            guard tag == 0x0011, found == nil,
                let text = apple.ascii(type: type, count: count, valueOffset: valueOffset)
            else { return }
            if isContentIdentifier(text) { found = text }
        }
        return found
    }

    /// True for a content identifier as `photos` keeps one (an Apple Live Photo's, from a
    /// MakerNote or a MOV): 1–64 ASCII letters, digits and '-' (Apple writes an upper-case UUID,
    /// 36 characters).
    public static func isContentIdentifier(_ text: String) -> Bool {
        (1...64).contains(text.utf8.count)
            && text.utf8.allSatisfy {
                (48...57).contains($0) || (65...90).contains($0) || (97...122).contains($0) || $0 == 45
            }
    }

    /// Parses a TIFF/EXIF block held in an array.
    /// - Parameter block: bytes starting with the TIFF header.
    /// - Returns: the fields found; defaults when malformed.
    public static func parse(_ block: [UInt8]) -> ExifMetadata {
        block.withUnsafeBytes { parse($0) }
    }

    /// Finds the EXIF block of a JPEG: the first APP1 segment starting "Exif\0\0"
    /// (EXIF 2.32 §4.7.2), walking marker segments by their lengths up to SOS.
    /// - Parameter jpeg: a whole JPEG file.
    /// - Returns: the range of the TIFF block (after "Exif\0\0") inside `jpeg`, or nil.
    public static func exifRange(inJPEG jpeg: UnsafeRawBufferPointer) -> Range<Int>? {
        segments(inJPEG: jpeg).exif
    }

    /// The metadata segments of a JPEG, found in one walk of the marker segments up to SOS
    /// (T.81 §B.1.1.4; every declared length is checked against the bytes present, and the
    /// walk stops at the first that does not fit):
    /// - `exif`: the TIFF block of the first APP1 "Exif\0\0" (EXIF 2.32 §4.7.2);
    /// - `xmp`: the packet of the first APP1 "http://ns.adobe.com/xap/1.0/\0" (XMP
    ///   Specification Part 3 §1.1.3; ExtendedXMP, "http://ns.adobe.com/xmp/extension/", is
    ///   not read);
    /// - `photoshop`: the payloads of APP13 "Photoshop 3.0\0" segments, in order (Photoshop
    ///   File Formats Specification, Image Resource Blocks; continued across segments).
    public static func segments(inJPEG jpeg: UnsafeRawBufferPointer) -> (
        exif: Range<Int>?, xmp: Range<Int>?, photoshop: [Range<Int>]
    ) {
        var result: (exif: Range<Int>?, xmp: Range<Int>?, photoshop: [Range<Int>]) = (nil, nil, [])
        let n = jpeg.count
        guard n >= 4, jpeg[0] == 0xFF, jpeg[1] == 0xD8 else { return result }
        func has(_ id: [UInt8], at start: Int, end: Int) -> Bool {
            start + id.count <= end && (0..<id.count).allSatisfy { jpeg[start + $0] == id[$0] }
        }
        var pos = 2
        while pos + 4 <= n {
            // Junk between segments happens in the wild (libjpeg warns and goes on); resync on the next FF.
            guard jpeg[pos] == 0xFF else { pos += 1; continue }
            var p = pos + 1
            while p < n && jpeg[p] == 0xFF { p += 1 }
            guard p < n else { return result }
            let marker = jpeg[p]
            p += 1
            if marker == 0xDA || marker == 0xD9 { return result }
            if marker == 0x00 || marker == 0x01 || (0xD0...0xD8).contains(marker) { pos = p; continue }
            guard p + 2 <= n else { return result }
            let length = Int(jpeg[p]) << 8 | Int(jpeg[p + 1])
            guard length >= 2, p + length <= n else { return result }
            let end = p + length
            if marker == 0xE1 {
                if result.exif == nil, length >= 8 + 8, has(exifID, at: p + 2, end: end) {
                    result.exif = (p + 8)..<end
                } else if result.xmp == nil, has(xmpID, at: p + 2, end: end) {
                    result.xmp = (p + 2 + xmpID.count)..<end
                }
            } else if marker == 0xED, has(photoshopID, at: p + 2, end: end) {
                result.photoshop.append((p + 2 + photoshopID.count)..<end)
            }
            pos = end
        }
        return result
    }

    static let exifID: [UInt8] = Array("Exif\0\0".utf8)
    static let xmpID: [UInt8] = Array("http://ns.adobe.com/xap/1.0/\0".utf8)
    static let photoshopID: [UInt8] = Array("Photoshop 3.0\0".utf8)

    static func isDateTime(_ s: String) -> Bool {
        let b = Array(s.utf8)
        guard b.count == 19 else { return false }
        for (i, c) in b.enumerated() {
            switch i {
            case 4, 7, 13, 16: if c != UInt8(ascii: ":") { return false }
            case 10: if c != UInt8(ascii: " ") { return false }
            default: if !(48...57).contains(c) { return false }
            }
        }
        return true
    }

    static func isOffset(_ s: String) -> Bool {
        let b = Array(s.utf8)
        guard b.count == 6, b[0] == UInt8(ascii: "+") || b[0] == UInt8(ascii: "-"), b[3] == UInt8(ascii: ":") else {
            return false
        }
        return [1, 2, 4, 5].allSatisfy { (48...57).contains(b[$0]) }
    }
}

/// Bounds-checked TIFF field access; every read returns nil outside the block.
struct TIFFReader {
    let bytes: UnsafeRawBufferPointer
    let little: Bool

    func u16(_ offset: Int) -> Int? {
        guard offset >= 0, offset <= bytes.count - 2 else { return nil }
        let a = Int(bytes[offset]), b = Int(bytes[offset + 1])
        return little ? a | b << 8 : a << 8 | b
    }

    func u32(_ offset: Int) -> UInt32? {
        guard offset >= 0, offset <= bytes.count - 4 else { return nil }
        var v: UInt32 = 0
        for i in 0..<4 {
            let byte = UInt32(bytes[offset + (little ? 3 - i : i)])
            v = v << 8 | byte
        }
        return v
    }

    /// SHORT (3) or LONG (4) / IFD (13) value stored in the entry's value field.
    func integer(type: Int, at valueOffset: Int) -> Int? {
        switch type {
        case 3: return u16(valueOffset)
        case 4, 13: return u32(valueOffset).map { Int($0) }
        default: return nil
        }
    }

    /// A text value — ASCII (type 2), UNDEFINED (7) or EXIF 3.0's UTF-8 (129) — up to its first
    /// NUL, of at most 1024 bytes (the longest a camera name needs, with room: `CameraIdentity`
    /// keeps 128); inline when count <= 4; bytes that are not UTF-8 become U+FFFD.
    func text(type: Int, count: Int, valueOffset: Int) -> String? {
        guard type == 2 || type == 7 || type == 129, count >= 1, count <= 1024 else { return nil }
        let start: Int
        if count <= 4 {
            start = valueOffset
        } else {
            guard let offset = u32(valueOffset) else { return nil }
            start = Int(offset)
        }
        guard start >= 0, start <= bytes.count - count else { return nil }
        let slice = UnsafeRawBufferPointer(rebasing: bytes[start..<(start + count)])
        return String(decoding: slice.prefix { $0 != 0 }, as: UTF8.self)
    }

    /// ASCII (type 2) value without its NUL terminator; inline when count <= 4.
    func ascii(type: Int, count: Int, valueOffset: Int) -> String? {
        guard type == 2, count >= 1, count <= 64 else { return nil }
        let start: Int
        if count <= 4 {
            start = valueOffset
        } else {
            guard let offset = u32(valueOffset) else { return nil }
            start = Int(offset)
        }
        guard start >= 0, start <= bytes.count - count else { return nil }
        var chars: [UInt8] = []
        for i in 0..<count {
            let c = bytes[start + i]
            if c == 0 { break }
            chars.append(c)
        }
        return String(decoding: chars, as: UTF8.self)
    }

    /// RATIONAL (5) or SRATIONAL (10) values, at most 8 (the GPS tags hold 1 or 3); nil when
    /// outside the block or a denominator is zero (EXIF 2.32 §4.6.2 defines no such value).
    func rationals(type: Int, count: Int, valueOffset: Int) -> [Double]? {
        guard type == 5 || type == 10, (1...8).contains(count), let offset = u32(valueOffset) else { return nil }
        let start = Int(offset)
        guard start >= 0, start <= bytes.count - count * 8 else { return nil }
        var values: [Double] = []
        for i in 0..<count {
            guard let n = u32(start + i * 8), let d = u32(start + i * 8 + 4), d != 0 else { return nil }
            if type == 10 {
                values.append(Double(Int32(bitPattern: n)) / Double(Int32(bitPattern: d)))
            } else {
                values.append(Double(n) / Double(d))
            }
        }
        return values
    }

    /// Calls `body(tag, type, count, valueFieldOffset)` for each entry of the IFD at
    /// `ifd` that lies inside the block; an IFD already visited is skipped.
    func forEachEntry(ifd: Int, visited: inout Set<Int>, _ body: (Int, Int, Int, Int) -> Void) {
        guard ifd >= 8, !visited.contains(ifd), let declared = u16(ifd) else { return }
        visited.insert(ifd)
        // Only the entries that fit in the block are read, whatever the count says.
        let fitting = (bytes.count - ifd - 2) / 12
        let count = min(declared, max(0, fitting))
        for i in 0..<count {
            let entry = ifd + 2 + i * 12
            guard let tag = u16(entry), let type = u16(entry + 2), let n = u32(entry + 4) else { return }
            body(tag, type, Int(n), entry + 8)
        }
    }
}
