/// Metadata embedded in an image file that `photos import` keeps besides the pixels: the EXIF
/// fields, the XMP packet and the IPTC-IIM keywords (issue 9 item 5: read as digiKam,
/// PhotoPrism and osxphotos do).
public struct EmbeddedMetadata: Sendable, Equatable {
    /// EXIF (JPEG APP1 "Exif", PNG eXIf).
    public var exif = ExifMetadata()
    /// The XMP packet bytes (JPEG APP1 "http://ns.adobe.com/xap/1.0/\0", PNG iTXt
    /// "XML:com.adobe.xmp"), at most `maxXMPBytes`; nil when absent or larger.
    public var xmp: [UInt8]?
    /// IPTC-IIM Keywords (record 2, dataset 25) from the JPEG APP13 Photoshop resource 0x0404,
    /// in order, as text (UTF-8 when declared by 1:90 or valid, else ISO 8859-1).
    public var iptcKeywords: [String] = []
    /// IPTC-IIM Object Name (2:05) and Caption-Abstract (2:120) from the same resource, decoded
    /// as the keywords are, the first of each; nil when absent (issue 26 item 6).
    public var iptcObjectName: String?
    public var iptcCaption: String?

    /// The largest embedded XMP packet kept, in bytes (4 MiB; a JPEG APP1 packet is at most
    /// 65,502 bytes, XMP Specification Part 3 §1.1.3).
    public static let maxXMPBytes = 4 << 20

    /// The most bytes of Photoshop image resources (JPEG APP13, where IPTC-IIM lives) read:
    /// 1 MiB, sixteen full segments; the IPTC resource comes first in the files of every
    /// writer seen (Photoshop, exiftool, digiKam).
    public static let maxPhotoshopBytes = 1 << 20

    public init() {}

    /// Reads the metadata of a whole TIFF file: IFD0 and its Exif IFD (tag 34665) through
    /// `ExifReader`, which takes the file itself as the TIFF block EXIF is (CIPA DC-008 §4.5.2);
    /// the XMP packet libtiff read from tag 700 (at most `maxXMPBytes`).
    /// - Parameters:
    ///   - tiff: the file's bytes.
    ///   - xmp: tag 700's bytes, when present.
    public static func read(tiff: UnsafeRawBufferPointer, xmp: [UInt8]?) -> EmbeddedMetadata {
        var result = EmbeddedMetadata()
        result.exif = ExifReader.parse(tiff)
        if let xmp, xmp.count <= maxXMPBytes { result.xmp = xmp }
        return result
    }

    /// Reads the metadata of a whole JPEG file, in one walk of its marker segments.
    /// - Parameter jpeg: the file's bytes.
    public static func read(jpeg: UnsafeRawBufferPointer) -> EmbeddedMetadata {
        var result = EmbeddedMetadata()
        let found = ExifReader.segments(inJPEG: jpeg)
        if let exif = found.exif { result.exif = ExifReader.parse(UnsafeRawBufferPointer(rebasing: jpeg[exif])) }
        if let xmp = found.xmp { result.xmp = Array(jpeg[xmp]) }
        if !found.photoshop.isEmpty {
            // The resources continue across APP13 segments; at most `maxPhotoshopBytes` of them
            // are joined (a 20 MB file of APP13 segments cost its size twice over, and more
            // while the array grew).
            var resources: [UInt8] = []
            for range in found.photoshop {
                let room = maxPhotoshopBytes - resources.count
                if room <= 0 { break }
                resources.append(contentsOf: jpeg[range.lowerBound..<min(range.upperBound, range.lowerBound + room)])
            }
            let iptc = IPTCReader.fields(inPhotoshopResources: resources)
            (result.iptcKeywords, result.iptcObjectName, result.iptcCaption) = (
                iptc.keywords, iptc.objectName, iptc.caption
            )
        }
        return result
    }

    /// Reads the XMP packet of a whole PNG file: the first iTXt (or, from older writers, tEXt)
    /// chunk with keyword `XML:com.adobe.xmp` (XMP Specification Part 3 §1.1.5; PNG 1.2
    /// §4.2.3.3 iTXt), walking
    /// the chunks by their declared lengths, each checked against the bytes present (the walk
    /// stops at the first chunk that does not fit, or at IEND). A compressed iTXt (flag 1) is
    /// not read: the XMP specification asks for uncompressed packets. The EXIF of a PNG comes
    /// from libpng (eXIf) and is passed in.
    /// - Parameters:
    ///   - png: the file's bytes.
    ///   - exif: the parsed eXIf chunk, if any.
    public static func read(png: UnsafeRawBufferPointer, exif: ExifMetadata) -> EmbeddedMetadata {
        var result = EmbeddedMetadata()
        result.exif = exif
        let n = png.count
        guard n >= 8, png[0] == 0x89, png[1] == 0x50, png[2] == 0x4E, png[3] == 0x47 else { return result }
        var pos = 8
        let keyword = Array("XML:com.adobe.xmp".utf8)
        while pos + 12 <= n {
            let length = Int(png[pos]) << 24 | Int(png[pos + 1]) << 16 | Int(png[pos + 2]) << 8 | Int(png[pos + 3])
            // PNG 1.2 §3.2: a length is at most 2^31-1; it must fit in what is left (data + CRC).
            guard length <= 0x7FFF_FFFF, length <= n - pos - 12 else { break }
            let type = (png[pos + 4], png[pos + 5], png[pos + 6], png[pos + 7])
            let data = (pos + 8)..<(pos + 8 + length)
            if type == (0x49, 0x45, 0x4E, 0x44) { break } // IEND
            if type == (0x69, 0x54, 0x58, 0x74), length > keyword.count + 1, // iTXt
                (0..<keyword.count).allSatisfy({ png[data.lowerBound + $0] == keyword[$0] }),
                png[data.lowerBound + keyword.count] == 0
            {
                var p = data.lowerBound + keyword.count + 1
                guard p + 2 <= data.upperBound else { break }
                let compressed = png[p] != 0
                p += 2
                // Language tag and translated keyword, each NUL-terminated.
                for _ in 0..<2 {
                    while p < data.upperBound && png[p] != 0 { p += 1 }
                    p += 1
                }
                if !compressed, p <= data.upperBound, data.upperBound - p <= maxXMPBytes {
                    result.xmp = Array(png[p..<data.upperBound])
                }
                break
            }
            // Older writers (ImageMagick, exiftool on request) put the packet in a tEXt chunk of
            // the same keyword: keyword, NUL, the text.
            if type == (0x74, 0x45, 0x58, 0x74), length > keyword.count + 1, // tEXt
                (0..<keyword.count).allSatisfy({ png[data.lowerBound + $0] == keyword[$0] }),
                png[data.lowerBound + keyword.count] == 0, length - keyword.count - 1 <= maxXMPBytes
            {
                result.xmp = Array(png[(data.lowerBound + keyword.count + 1)..<data.upperBound])
                break
            }
            pos += 12 + length
        }
        return result
    }
}

extension EmbeddedMetadata {
    /// Metadata of a HEIF/AVIF file, from the Exif item's TIFF block and the XMP item libheif
    /// hands out (ISO/IEC 23008-12 Annex A); an XMP packet over `maxXMPBytes` is dropped.
    public static func read(heifExif exif: [UInt8]?, xmp: [UInt8]?) -> EmbeddedMetadata {
        var result = EmbeddedMetadata()
        if let exif { result.exif = ExifReader.parse(exif) }
        if let xmp, xmp.count <= maxXMPBytes { result.xmp = xmp }
        return result
    }

    /// Reads the EXIF and XMP chunks of a whole WebP file (WebP container specification:
    /// `RIFF` size `WEBP`, then chunks of FourCC, 32-bit little-endian size, payload padded to
    /// an even length; `EXIF` holds a TIFF block — a leading "Exif\0\0", which some writers add,
    /// is skipped — and `XMP ` the packet). Every size is checked against the bytes present; the
    /// walk stops at the first chunk that does not fit.
    /// - Parameter webp: the file's bytes.
    public static func read(webp: UnsafeRawBufferPointer) -> EmbeddedMetadata {
        var result = EmbeddedMetadata()
        let n = webp.count
        var pos = 12
        var sawExif = false
        while pos + 8 <= n {
            let fourCC = String(decoding: webp[pos..<(pos + 4)], as: UTF8.self)
            let size =
                Int(webp[pos + 4]) | Int(webp[pos + 5]) << 8 | Int(webp[pos + 6]) << 16 | Int(webp[pos + 7]) << 24
            guard size <= n - pos - 8 else { break }
            let data = (pos + 8)..<(pos + 8 + size)
            if fourCC == "EXIF", !sawExif {
                sawExif = true
                var start = data.lowerBound
                if size >= 6, Array(webp[start..<(start + 6)]) == [0x45, 0x78, 0x69, 0x66, 0, 0] { start += 6 }
                result.exif = ExifReader.parse(UnsafeRawBufferPointer(rebasing: webp[start..<data.upperBound]))
            } else if fourCC == "XMP ", result.xmp == nil, size <= maxXMPBytes {
                result.xmp = Array(webp[data])
            }
            pos = data.upperBound + (size & 1)
        }
        return result
    }
}

/// Reads IPTC-IIM keywords out of Photoshop image resources (IPTC-IIM 4.2 §1.5: tag 0x1C,
/// record, dataset, length; Photoshop File Formats: resource blocks "8BIM", id 0x0404 = IPTC).
/// Every length is checked against the bytes present.
public enum IPTCReader {
    /// The most keywords read (1000, as `XMPSidecar.maxKeywords`): a 20 MB file of APP13
    /// segments holds 2.6 million 3-byte keywords, which took 200 MB and 11 s to read.
    public static let maxKeywords = 1000

    /// The Keywords (2:25) in the IPTC-IIM resource of `resources`, in order, empty ones
    /// dropped; at most `maxKeywords`.
    public static func keywords(inPhotoshopResources resources: [UInt8]) -> [String] {
        fields(inPhotoshopResources: resources).keywords
    }

    /// The Keywords (as `keywords`), and the first Object Name (2:05) and Caption-Abstract
    /// (2:120), in the IPTC-IIM resources of `resources`.
    public static func fields(inPhotoshopResources resources: [UInt8]) -> (
        keywords: [String], objectName: String?, caption: String?
    ) {
        var keywords: [String] = []
        var objectName: String?, caption: String?
        let b = resources
        var p = 0
        while p + 12 <= b.count, keywords.count < maxKeywords {
            guard b[p] == 0x38, b[p + 1] == 0x42, b[p + 2] == 0x49, b[p + 3] == 0x4D else { break } // "8BIM"
            let id = Int(b[p + 4]) << 8 | Int(b[p + 5])
            // Pascal name, padded so that length byte + name is even.
            let nameLength = Int(b[p + 6])
            var q = p + 6 + 1 + nameLength
            if (1 + nameLength) % 2 == 1 { q += 1 }
            guard q + 4 <= b.count else { break }
            let size = Int(b[q]) << 24 | Int(b[q + 1]) << 16 | Int(b[q + 2]) << 8 | Int(b[q + 3])
            q += 4
            guard size >= 0, size <= b.count - q else { break }
            if id == 0x0404 {
                let iim = iimFields(b[q..<(q + size)], limit: maxKeywords - keywords.count)
                keywords += iim.keywords
                objectName = objectName ?? iim.objectName
                caption = caption ?? iim.caption
            }
            p = q + size + (size % 2)
        }
        return (keywords, objectName, caption)
    }

    /// The 2:25 datasets of an IPTC-IIM stream, at most `limit`.
    static func iimKeywords(_ iim: ArraySlice<UInt8>, limit: Int = maxKeywords) -> [String] {
        iimFields(iim, limit: limit).keywords
    }

    /// The 2:25 datasets of an IPTC-IIM stream (at most `limit`), and its first 2:05 and 2:120.
    static func iimFields(_ iim: ArraySlice<UInt8>, limit: Int = maxKeywords) -> (
        keywords: [String], objectName: String?, caption: String?
    ) {
        var result: [String] = []
        var objectName: String?, caption: String?
        var utf8Declared = false
        var p = iim.startIndex
        let end = iim.endIndex
        while p + 5 <= end, iim[p] == 0x1C, result.count < limit {
            let record = iim[p + 1], dataset = iim[p + 2]
            var length = Int(iim[p + 3]) << 8 | Int(iim[p + 4])
            p += 5
            if length & 0x8000 != 0 {
                // Extended dataset: the low 15 bits count the length bytes that follow (§1.5.2).
                let count = length & 0x7FFF
                guard count <= 4, p + count <= end else { break }
                length = 0
                for i in 0..<count { length = length << 8 | Int(iim[p + i]) }
                p += count
            }
            guard length <= end - p else { break }
            let value = iim[p..<(p + length)]
            if record == 1 && dataset == 90 {
                utf8Declared = value.elementsEqual([0x1B, 0x25, 0x47]) // ESC % G
            } else if record == 2 && dataset == 25 {
                let text = decode(value, utf8: utf8Declared)
                let trimmed = String(
                    text.drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " || $0 == "\0" }).reversed())
                if !trimmed.isEmpty { result.append(trimmed) }
            } else if record == 2 && dataset == 5 && objectName == nil {
                objectName = decode(value, utf8: utf8Declared)
            } else if record == 2 && dataset == 120 && caption == nil {
                caption = decode(value, utf8: utf8Declared)
            }
            p += length
        }
        return (result, objectName, caption)
    }

    static func decode(_ bytes: ArraySlice<UInt8>, utf8: Bool) -> String {
        if let text = String(validating: bytes, as: UTF8.self) { return text }
        if utf8 { return String(decoding: bytes, as: UTF8.self) }
        // ISO 8859-1: each byte is the code point of the same value.
        return String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
    }
}
