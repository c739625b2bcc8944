import Foundation
import PhotosImaging

/// A small DNG writer for tests (Adobe DNG Specification 1.6; TIFF 6.0 for the container):
/// little-endian TIFF, an uncompressed 16-bit RGGB Bayer (CFA) raw image, optionally a baseline
/// JPEG preview in IFD0 (NewSubfileType 1, Compression 7, YCbCr) with the raw image in a SubIFD,
/// as DNG converters lay them out. The camera is linear sRGB: ColorMatrix1 is the XYZ(D65) →
/// linear sRGB matrix (IEC 61966-2-1), CalibrationIlluminant1 D65, AsShotNeutral 1 1 1.
public enum DNGWriter {
    /// One IFD entry: tag, TIFF type (1 BYTE, 2 ASCII, 3 SHORT, 4 LONG, 5 RATIONAL, 10 SRATIONAL),
    /// count, and the value bytes (little-endian).
    struct Entry {
        var tag: Int, type: Int, count: Int, value: [UInt8]
    }

    static func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
    static func le32(_ v: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
    static func short(_ tag: Int, _ values: [Int]) -> Entry {
        Entry(tag: tag, type: 3, count: values.count, value: values.flatMap(le16))
    }
    static func long(_ tag: Int, _ values: [Int]) -> Entry {
        Entry(tag: tag, type: 4, count: values.count, value: values.flatMap(le32))
    }
    static func bytes(_ tag: Int, _ values: [UInt8]) -> Entry {
        Entry(tag: tag, type: 1, count: values.count, value: values)
    }
    static func ascii(_ tag: Int, _ text: String) -> Entry {
        let b = Array(text.utf8) + [0]
        return Entry(tag: tag, type: 2, count: b.count, value: b)
    }
    static func rationals(_ tag: Int, signed: Bool, _ values: [Double]) -> Entry {
        let b = values.flatMap { le32(Int(($0 * 10_000).rounded())) + le32(10_000) }
        return Entry(tag: tag, type: signed ? 10 : 5, count: values.count, value: b)
    }

    /// An IFD placed at `offset`: entries sorted, values over 4 bytes after it.
    static func ifd(_ entries: [Entry], at offset: Int) -> [UInt8] {
        let sorted = entries.sorted { $0.tag < $1.tag }
        var out = le16(sorted.count)
        var overflow: [UInt8] = []
        let overflowStart = offset + 2 + 12 * sorted.count + 4
        for e in sorted {
            out += le16(e.tag) + le16(e.type) + le32(e.count)
            if e.value.count <= 4 {
                out += e.value + [UInt8](repeating: 0, count: 4 - e.value.count)
            } else {
                out += le32(overflowStart + overflow.count)
                overflow += e.value
                if overflow.count % 2 == 1 { overflow.append(0) }
            }
        }
        return out + le32(0) + overflow
    }

    /// The linear-light 16-bit value of an sRGB-encoded 8-bit value (IEC 61966-2-1 §5.2).
    public static func linear(_ v: UInt8) -> Int {
        let c = Double(v) / 255
        let l = c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
        return Int((l * 65535).rounded())
    }

    /// A DNG whose raw image is `image` mosaicked 2×2 per pixel (R G / G B, each the pixel's linear
    /// value): the raw image is 2·width × 2·height, and a half-size develop gives `image` back.
    /// - Parameters:
    ///   - image: upright-or-stored RGB pixels (the DNG's stored orientation).
    ///   - orientation: the Orientation tag, 1...8.
    ///   - preview: a baseline JPEG preview for IFD0, or nil for a DNG with none.
    ///   - dateTime: the IFD0 DateTime tag (306, `YYYY:MM:DD HH:MM:SS`, TIFF 6.0), or nil for none.
    /// - Returns: the file's bytes.
    public static func make(
        image: PixelBuffer, orientation: Int = 1, preview: (jpeg: [UInt8], width: Int, height: Int)?,
        dateTime: String? = nil
    )
        -> [UInt8]
    {
        let width = image.width * 2, height = image.height * 2
        var raw = [UInt8](repeating: 0, count: width * height * 2)
        let px = image.bytes
        for y in 0..<image.height {
            for x in 0..<image.width {
                let i = (y * image.width + x) * 3
                let r = linear(px[i]), g = linear(px[i + 1]), b = linear(px[i + 2])
                for (dy, dx, v) in [(0, 0, r), (0, 1, g), (1, 0, g), (1, 1, b)] {
                    let at = ((2 * y + dy) * width + 2 * x + dx) * 2
                    raw[at] = UInt8(v & 0xFF)
                    raw[at + 1] = UInt8(v >> 8)
                }
            }
        }
        let xyzToSRGB: [Double] = [
            3.2404542, -1.5371385, -0.4985314, -0.9692660, 1.8760108, 0.0415560, 0.0556434, -0.2040259, 1.0572252
        ]
        let dngTags: [Entry] =
            [
                ascii(271, "photos"), ascii(272, "test DNG"), short(274, [orientation]),
                bytes(50706, [1, 6, 0, 0]), bytes(50707, [1, 1, 0, 0]), ascii(50708, "photos test DNG"),
                rationals(50721, signed: true, xyzToSRGB), rationals(50728, signed: false, [1, 1, 1]),
                short(50778, [21])
            ] + (dateTime.map { [ascii(306, $0)] } ?? [])
        func rawTags(offset: Int, subfile: Int) -> [Entry] {
            [
                long(254, [subfile]), long(256, [width]), long(257, [height]), short(258, [16]), short(259, [1]),
                short(262, [32803]), long(273, [offset]), short(277, [1]), long(278, [height]),
                long(279, [raw.count]), short(284, [1]), short(33421, [2, 2]), bytes(33422, [0, 1, 1, 2]),
                long(50717, [65535])
            ]
        }
        var out = [UInt8]("II".utf8) + le16(42)
        guard let preview else {
            let rawAt = 8
            let ifdAt = rawAt + raw.count
            out += le32(ifdAt) + raw
            out += ifd(rawTags(offset: rawAt, subfile: 0) + dngTags, at: ifdAt)
            return out
        }
        var jpeg = preview.jpeg
        if jpeg.count % 2 == 1 { jpeg.append(0) }
        let jpegAt = 8, rawAt = 8 + jpeg.count
        let ifd0At = rawAt + raw.count
        func ifd0(sub: Int) -> [UInt8] {
            ifd(
                [
                    long(254, [1]), long(256, [preview.width]), long(257, [preview.height]), short(258, [8, 8, 8]),
                    short(259, [7]), short(262, [6]), long(273, [jpegAt]), short(277, [3]),
                    long(278, [preview.height]), long(279, [preview.jpeg.count]), short(284, [1]), long(330, [sub])
                ] + dngTags, at: ifd0At)
        }
        let subAt = ifd0At + ifd0(sub: 0).count
        out += le32(ifd0At) + jpeg + raw + ifd0(sub: subAt)
        out += ifd(rawTags(offset: rawAt, subfile: 0), at: subAt)
        return out
    }
}
