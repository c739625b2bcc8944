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

    /// Metadata of a file without EXIF.
    public init() {}
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
        var exifIFD: Int?
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
            case 0x8769:
                if count == 1, let value = reader.integer(type: type, at: valueOffset) { exifIFD = value }
            default:
                dateTag(tag, type, count, valueOffset)
            }
        }
        if let exifIFD {
            reader.forEachEntry(ifd: exifIFD, visited: &visited) { tag, type, count, valueOffset in
                dateTag(tag, type, count, valueOffset)
            }
        }
        return result
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
