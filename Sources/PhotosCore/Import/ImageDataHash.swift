import Foundation
import PhotosFiles
import PhotosImaging

/// The hash of an image file's image data alone, without its metadata (issue 31 item 5): a
/// file whose XMP, EXIF or IPTC another tool rewrote (digiKam's or Lightroom's "write metadata
/// to file", `exiftool -XMP-dc:Subject=…`) has new bytes, a new SHA-256, and the same image-data
/// hash, so import recognises it as the photo it was.
///
/// What is hashed, as byte ranges of the file in file order:
/// - JPEG: every marker segment except APP0–APP15 and COM (so DQT, DHT, SOFn, DRI, SOS…), the
///   entropy-coded data after each SOS, EOI and any bytes after it (a trailer such as a
///   motion photo's video is part of the file's content, and metadata writers keep it).
/// - PNG: the type and data of IHDR, PLTE and tRNS, the data of every IDAT (so a tool that
///   splits IDAT differently does not change it), and any bytes after IEND; not ancillary
///   chunks (tEXt, iTXt, eXIf…).
/// - WebP: the chunks VP8, VP8L, ALPH, ANIM and ANMF (header and data); not VP8X (whose flags
///   say whether EXIF/XMP are present), EXIF, XMP or ICCP.
/// - HEIF/AVIF: the `ftyp` box, and the item data (`iloc` extents, in the file or in `idat`) of
///   the primary item (`pitm`) and of the items it derives from (`iref` type `dimg`, the tiles of a grid, at
///   most 4 levels and 4096 items); not the Exif or XMP items.
/// Work and memory are bounded by the file: at most the file's size is hashed (overlapping
/// extents that add up to more give no hash), no range is trusted beyond the bytes given.
public enum ImageDataHash {
    /// The SHA-256 (64 lowercase hex digits) of the image data of `bytes`, a file of format
    /// `format`; nil when the file's structure cannot be followed (the file then has no
    /// image-data hash and is never taken for another photo).
    public static func sha256(of bytes: UnsafeRawBufferPointer, format: ImageFormat) -> String? {
        guard let ranges = ranges(of: bytes, format: format), !ranges.isEmpty,
            let hasher = try? SHA256Hasher()
        else { return nil }
        for r in ranges { hasher.update(UnsafeRawBufferPointer(rebasing: bytes[r])) }
        return hasher.finalizeHex()
    }

    /// The ranges `sha256(of:format:)` hashes; nil when the structure cannot be followed.
    static func ranges(of bytes: UnsafeRawBufferPointer, format: ImageFormat) -> [Range<Int>]? {
        let ranges: [Range<Int>]?
        switch format {
        case .jpeg: ranges = jpeg(bytes)
        case .png: ranges = png(bytes)
        case .webp: ranges = webp(bytes)
        case .heif, .avif: ranges = heif(bytes)
        // No image-data hash yet for these formats (issue 24): identity by the whole file.
        case .raw, .tiff, .gif, .jxl, .video: ranges = nil
        }
        guard let ranges else { return nil }
        var total = 0
        for r in ranges {
            guard r.lowerBound >= 0, r.upperBound <= bytes.count else { return nil }
            total += r.count
            if total > bytes.count { return nil }
        }
        return ranges
    }

    private static func u16be(_ b: UnsafeRawBufferPointer, _ i: Int) -> Int { Int(b[i]) << 8 | Int(b[i + 1]) }
    private static func u32be(_ b: UnsafeRawBufferPointer, _ i: Int) -> Int {
        Int(b[i]) << 24 | Int(b[i + 1]) << 16 | Int(b[i + 2]) << 8 | Int(b[i + 3])
    }
    private static func u32le(_ b: UnsafeRawBufferPointer, _ i: Int) -> Int {
        Int(b[i]) | Int(b[i + 1]) << 8 | Int(b[i + 2]) << 16 | Int(b[i + 3]) << 24
    }

    static func jpeg(_ b: UnsafeRawBufferPointer) -> [Range<Int>]? {
        let n = b.count
        guard n >= 4, b[0] == 0xFF, b[1] == 0xD8 else { return nil }
        var ranges: [Range<Int>] = []
        var sawScan = false
        var i = 2
        while i + 1 < n {
            guard b[i] == 0xFF else { return nil }
            let m = b[i + 1]
            if m == 0xFF { i += 1; continue } // fill byte
            if m == 0xD9 {
                // EOI, and what follows it (a trailer: a motion photo's video, a maker's data;
                // tools that rewrite the metadata keep it).
                ranges.append(i..<n)
                return sawScan ? ranges : nil
            }
            if m == 0xD8 || m == 0x01 || (0xD0...0xD7).contains(m) { i += 2; continue } // no length
            guard i + 4 <= n else { return nil }
            let length = u16be(b, i + 2)
            guard length >= 2, i + 2 + length <= n else { return nil }
            let end = i + 2 + length
            if !((0xE0...0xEF).contains(m) || m == 0xFE) { ranges.append(i..<end) }
            i = end
            guard m == 0xDA else { continue }
            sawScan = true
            // Entropy-coded data: up to the next marker that is not a stuffed 0xFF00 or RSTn.
            guard let base = b.baseAddress else { return nil }
            var j = i
            while j < n {
                guard let hit = memchr(base + j, 0xFF, n - j) else { j = n; break }
                let k = base.distance(to: UnsafeRawPointer(hit))
                if k + 1 >= n { j = n; break }
                let next = b[k + 1]
                if next == 0x00 || (0xD0...0xD7).contains(next) || next == 0xFF {
                    j = k + 1
                    continue
                }
                j = k
                break
            }
            if j > i { ranges.append(i..<j) }
            i = j
        }
        // No EOI (a truncated file): what was found.
        return sawScan ? ranges : nil
    }

    static func png(_ b: UnsafeRawBufferPointer) -> [Range<Int>]? {
        let n = b.count
        guard n >= 8 else { return nil }
        var ranges: [Range<Int>] = []
        var i = 8
        var sawData = false
        while i + 12 <= n {
            let length = u32be(b, i)
            guard length <= n - i - 12 else { return nil }
            let type = (b[i + 4], b[i + 5], b[i + 6], b[i + 7])
            let dataStart = i + 8, dataEnd = i + 8 + length
            switch type {
            case (0x49, 0x48, 0x44, 0x52), (0x50, 0x4C, 0x54, 0x45), (0x74, 0x52, 0x4E, 0x53): // IHDR PLTE tRNS
                ranges.append(i + 4..<dataEnd)
            case (0x49, 0x44, 0x41, 0x54): // IDAT
                ranges.append(dataStart..<dataEnd)
                sawData = true
            case (0x49, 0x45, 0x4E, 0x44): // IEND, and what follows it
                if dataEnd + 4 < n { ranges.append(dataEnd + 4..<n) }
                return sawData ? ranges : nil
            default: break
            }
            i = dataEnd + 4
        }
        return sawData ? ranges : nil
    }

    static func webp(_ b: UnsafeRawBufferPointer) -> [Range<Int>]? {
        let n = b.count
        guard n >= 20 else { return nil }
        var ranges: [Range<Int>] = []
        var i = 12
        while i + 8 <= n {
            let size = u32le(b, i + 4)
            guard size <= n - i - 8 else { return nil }
            let fourCC = (b[i], b[i + 1], b[i + 2], b[i + 3])
            let end = i + 8 + size
            switch fourCC {
            case (0x56, 0x50, 0x38, 0x20), (0x56, 0x50, 0x38, 0x4C), (0x41, 0x4C, 0x50, 0x48), // VP8 VP8L ALPH
                (0x41, 0x4E, 0x49, 0x4D), (0x41, 0x4E, 0x4D, 0x46): // ANIM ANMF
                ranges.append(i..<end)
            default: break
            }
            i = end + (size & 1)
        }
        return ranges.isEmpty ? nil : ranges
    }

    /// One ISO BMFF box: its type, where its payload starts and where it ends.
    private struct Box {
        var type: (UInt8, UInt8, UInt8, UInt8)
        var start: Int
        var payload: Int
        var end: Int
        func isType(_ s: StaticString) -> Bool {
            let p = s.utf8Start
            return type == (p[0], p[1], p[2], p[3])
        }
    }

    /// The boxes of `b[range]`; nil when one does not fit.
    private static func boxes(_ b: UnsafeRawBufferPointer, _ range: Range<Int>) -> [Box]? {
        var result: [Box] = []
        var i = range.lowerBound
        while i + 8 <= range.upperBound {
            var size = u32be(b, i)
            var header = 8
            if size == 1 {
                guard i + 16 <= range.upperBound else { return nil }
                let high = u32be(b, i + 8), low = u32be(b, i + 12)
                guard high == 0 else { return nil }
                size = low
                header = 16
            } else if size == 0 {
                size = range.upperBound - i
            }
            guard size >= header, size <= range.upperBound - i else { return nil }
            result.append(
                Box(type: (b[i + 4], b[i + 5], b[i + 6], b[i + 7]), start: i, payload: i + header, end: i + size))
            i += size
            if result.count > 10_000 { return nil }
        }
        return result
    }

    static func heif(_ b: UnsafeRawBufferPointer) -> [Range<Int>]? {
        guard let top = boxes(b, 0..<b.count), let meta = top.first(where: { $0.isType("meta") }),
            meta.payload + 4 <= meta.end, let children = boxes(b, meta.payload + 4..<meta.end)
        else { return nil }
        // A reader of big-endian fields within one box, refusing to pass its end.
        struct Reader {
            let b: UnsafeRawBufferPointer
            var i: Int
            let end: Int
            mutating func read(_ size: Int) -> Int? {
                guard size >= 0, size <= 8, i + size <= end else { return nil }
                var v = 0
                for k in 0..<size {
                    guard v >> 55 == 0 else { return nil }
                    v = v << 8 | Int(b[i + k])
                }
                i += size
                return v
            }
        }
        guard let pitm = children.first(where: { $0.isType("pitm") }),
            let iloc = children.first(where: { $0.isType("iloc") })
        else { return nil }
        var r = Reader(b: b, i: pitm.payload, end: pitm.end)
        guard let pitmVersion = r.read(1), r.read(3) != nil,
            let primary = r.read(pitmVersion == 0 ? 2 : 4)
        else { return nil }
        let idat = children.first(where: { $0.isType("idat") })

        // iloc: item id → extents (absolute ranges of b).
        var locations: [Int: [Range<Int>]] = [:]
        r = Reader(b: b, i: iloc.payload, end: iloc.end)
        guard let version = r.read(1), version <= 2, r.read(3) != nil, let sizes1 = r.read(1),
            let sizes2 = r.read(1)
        else { return nil }
        let offsetSize = sizes1 >> 4, lengthSize = sizes1 & 15, baseOffsetSize = sizes2 >> 4
        let indexSize = version >= 1 ? sizes2 & 15 : 0
        guard let itemCount = r.read(version < 2 ? 2 : 4) else { return nil }
        for _ in 0..<itemCount {
            guard let id = r.read(version < 2 ? 2 : 4) else { return nil }
            var method = 0
            if version >= 1 {
                guard let m = r.read(2) else { return nil }
                method = m & 15
            }
            guard r.read(2) != nil, let baseOffset = r.read(baseOffsetSize), let extentCount = r.read(2) else {
                return nil
            }
            var extents: [Range<Int>] = []
            for _ in 0..<extentCount {
                if indexSize > 0 { guard r.read(indexSize) != nil else { return nil } }
                guard let offset = r.read(offsetSize), let length = r.read(lengthSize) else { return nil }
                let origin: Int
                let limit: Int
                switch method {
                case 0: (origin, limit) = (0, b.count)
                case 1:
                    guard let idat else { return nil }
                    (origin, limit) = (idat.payload, idat.end)
                default: return nil
                }
                guard baseOffset <= limit - origin, offset <= limit - origin - baseOffset else { return nil }
                let start = origin + baseOffset + offset
                guard length <= limit - start else { return nil }
                extents.append(start..<(length == 0 ? limit : start + length))
            }
            locations[id] = extents
        }

        // iref `dimg`: item id → the items it derives from.
        var derived: [Int: [Int]] = [:]
        if let iref = children.first(where: { $0.isType("iref") }) {
            r = Reader(b: b, i: iref.payload, end: iref.end)
            guard let irefVersion = r.read(1), r.read(3) != nil, let refs = boxes(b, r.i..<iref.end) else {
                return nil
            }
            let idSize = irefVersion == 0 ? 2 : 4
            for ref in refs where ref.isType("dimg") {
                var rr = Reader(b: b, i: ref.payload, end: ref.end)
                guard let from = rr.read(idSize), let count = rr.read(2) else { return nil }
                for _ in 0..<count {
                    guard let to = rr.read(idSize) else { return nil }
                    derived[from, default: []].append(to)
                }
            }
        }

        // The file type (ftyp: its brands say what the file is; metadata writers keep it).
        var ranges: [Range<Int>] = top.first(where: { $0.isType("ftyp") }).map { [$0.start..<$0.end] } ?? []
        let fileType = ranges.count
        var visited = Set<Int>()
        var level = [primary]
        for _ in 0..<5 {
            var next: [Int] = []
            for id in level where visited.insert(id).inserted {
                guard visited.count <= 4096, let extents = locations[id] else { return nil }
                ranges += extents
                next += derived[id] ?? []
            }
            level = next
            if level.isEmpty { break }
        }
        return ranges.count > fileType ? ranges : nil
    }
}
