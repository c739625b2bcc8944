import Foundation
import XCTest

/// Writes HEIF files of a test's making (ISO/IEC 14496-12 §4.2 boxes, §8.11 meta; ISO/IEC
/// 23008-12 §6.5.3 ispe, §6.6.2.3 grid) around coded data taken from real files, and reads
/// those pieces out of a real file: for the structure attacks of issue 31 B14/B15.
public enum HEIFBuilder {
    /// `v` as 2 bytes, big-endian.
    public static func u16(_ v: Int) -> [UInt8] { [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
    /// `v` as 4 bytes, big-endian.
    public static func u32(_ v: Int) -> [UInt8] {
        [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
    }
    /// A box of `type` (4 ASCII characters) around `body`, with a 32-bit size.
    public static func box(_ type: String, _ body: [UInt8]) -> [UInt8] { u32(body.count + 8) + Array(type.utf8) + body }
    /// A FullBox: version, 24-bit flags, then `body`.
    public static func fullBox(_ type: String, version: UInt8 = 0, flags: Int = 0, _ body: [UInt8]) -> [UInt8] {
        box(type, [version, UInt8(flags >> 16 & 0xFF), UInt8(flags >> 8 & 0xFF), UInt8(flags & 0xFF)] + body)
    }
    /// The ImageSpatialExtentsProperty of `width` × `height` pixels.
    public static func ispe(_ width: Int, _ height: Int) -> [UInt8] { fullBox("ispe", u32(width) + u32(height)) }
    /// An ImageGrid payload (§6.6.2.3.2), 16-bit output fields unless a size needs 32.
    public static func grid(rows: Int, columns: Int, width: Int, height: Int) -> [UInt8] {
        let large = width > 0xFFFF || height > 0xFFFF
        return [0, large ? 1 : 0, UInt8(rows - 1), UInt8(columns - 1)]
            + (large ? u32(width) + u32(height) : u16(width) + u16(height))
    }

    /// One item: its id, type (hvc1, av01, grid, iden ...), data (in mdat) and property boxes.
    public struct Item {
        public var id: Int
        public var type: String
        public var data: [UInt8]
        /// Whole property boxes (ispe, hvcC, av1C ...), associated in this order.
        public var properties: [[UInt8]]
        public init(id: Int, type: String, data: [UInt8], properties: [[UInt8]]) {
            self.id = id
            self.type = type
            self.data = data
            self.properties = properties
        }
    }

    /// A HEIF file: ftyp, meta (hdlr pict, pitm, iinf of infe v2, iloc v0 with one extent per
    /// item into mdat, iref v0, iprp), mdat. `extentLength` overrides an item's iloc length.
    public static func build(
        brand: String, primary: Int, items: [Item], references: [(String, Int, [Int])],
        extentLength: [Int: Int] = [:]
    ) -> [UInt8] {
        let ftyp = box("ftyp", Array(brand.utf8) + u32(0) + Array("mif1".utf8) + Array(brand.utf8) + Array("miaf".utf8))
        func meta(mdatPayload: Int) -> [UInt8] {
            let hdlr = fullBox("hdlr", u32(0) + Array("pict".utf8) + u32(0) + u32(0) + u32(0) + [0])
            let pitm = fullBox("pitm", u16(primary))
            var infes: [UInt8] = []
            for item in items {
                infes += fullBox("infe", version: 2, u16(item.id) + u16(0) + Array(item.type.utf8) + [0])
            }
            let iinf = fullBox("iinf", u16(items.count) + infes)
            var iloc: [UInt8] = [0x44, 0x00] + u16(items.count)
            var offset = mdatPayload
            for item in items {
                iloc += u16(item.id) + u16(0) + u16(1) + u32(offset) + u32(extentLength[item.id] ?? item.data.count)
                offset += item.data.count
            }
            var irefBody: [UInt8] = []
            for (type, from, to) in references {
                irefBody += box(type, u16(from) + u16(to.count) + to.flatMap { u16($0) })
            }
            var ipco: [UInt8] = []
            var ipma: [UInt8] = u32(items.count)
            var index = 0
            for item in items {
                ipma += u16(item.id) + [UInt8(item.properties.count)]
                for property in item.properties {
                    ipco += property
                    index += 1
                    ipma.append(UInt8(index))
                }
            }
            let iprp = box("iprp", box("ipco", ipco) + fullBox("ipma", ipma))
            let iref = references.isEmpty ? [] : fullBox("iref", irefBody)
            return fullBox("meta", hdlr + pitm + iinf + fullBox("iloc", iloc) + iref + iprp)
        }
        let size = meta(mdatPayload: 0).count
        let data = items.flatMap { $0.data }
        return ftyp + meta(mdatPayload: ftyp.count + size + 8) + box("mdat", data)
    }

    /// The first box `type` anywhere in `bytes` (searched by its four characters), whole.
    public static func firstBox(_ type: String, in bytes: [UInt8]) throws -> [UInt8] {
        let range = try XCTUnwrap(bytes.firstRange(of: Array(type.utf8)), "no \(type)")
        let start = range.lowerBound - 4
        let length = bytes[start..<range.lowerBound].reduce(0) { $0 << 8 | Int($1) }
        return Array(bytes[start..<(start + length)])
    }

    /// A one-image file's coded data: the payload of its mdat (libheif writes only the image's).
    public static func codedData(_ bytes: [UInt8]) throws -> [UInt8] {
        Array(try firstBox("mdat", in: bytes).dropFirst(8))
    }
}
