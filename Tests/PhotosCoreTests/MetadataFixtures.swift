import Foundation
import PhotosImaging
import PhotosTestSupport
import XCTest
@testable import PhotosCore

/// Small image files with chosen metadata, built in the test (issue 9 items 5 and 6).
enum MetadataFixture {
    /// An 8×8 baseline JPEG of one grey level (`seed` varies the bytes), with `segments`
    /// (whole marker segments) inserted right after SOI.
    static func jpeg(seed: Int = 0, segments: [[UInt8]] = []) throws -> [UInt8] {
        let pixels = try PixelBuffer(width: 8, height: 8)
        let level = UInt8(truncatingIfNeeded: 40 + seed * 7)
        for i in 0..<(8 * 8 * 3) { pixels.pixels[i] = level }
        let base = try ImageDecoder.encodeJPEG(pixels, quality: 90)
        return [0xFF, 0xD8] + segments.flatMap { $0 } + Array(base.dropFirst(2))
    }

    /// A marker segment: FF, marker, big-endian length (payload + 2), payload.
    static func segment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] {
        let length = payload.count + 2
        return [0xFF, marker, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
    }

    /// APP1 holding an XMP packet (XMP Specification Part 3 §1.1.3).
    static func xmpSegment(_ packet: String) -> [UInt8] {
        segment(0xE1, Array("http://ns.adobe.com/xap/1.0/\0".utf8) + Array(packet.utf8))
    }

    /// APP13 Photoshop 3.0 with one 8BIM 0x0404 resource holding IPTC-IIM keywords (2:25),
    /// preceded by 1:90 = ESC % G (UTF-8) when `utf8`; `raw` keywords are given as bytes.
    static func iptcSegment(_ keywords: [String], utf8: Bool = true, raw: [[UInt8]] = []) -> [UInt8] {
        var iim: [UInt8] = []
        if utf8 { iim += [0x1C, 1, 90, 0, 3, 0x1B, 0x25, 0x47] }
        for k in keywords.map({ Array($0.utf8) }) + raw {
            iim += [0x1C, 2, 25, UInt8(k.count >> 8), UInt8(k.count & 0xFF)] + k
        }
        var resource: [UInt8] = Array("8BIM".utf8) + [0x04, 0x04, 0, 0] // id 0x0404, empty Pascal name (padded)
        resource +=
            [
                UInt8(iim.count >> 24), UInt8((iim.count >> 16) & 0xFF), UInt8((iim.count >> 8) & 0xFF),
                UInt8(iim.count & 0xFF)
            ] + iim
        if iim.count % 2 == 1 { resource.append(0) }
        return segment(0xED, Array("Photoshop 3.0\0".utf8) + resource)
    }

    /// APP1 "Exif" with a little-endian TIFF block: IFD0 (DateTime when given, Exif IFD
    /// pointer) and an Exif IFD with the given ASCII tags (tag → text).
    static func exifSegment(ifd0: [Int: String] = [:], exif: [Int: String]) -> [UInt8] {
        var block: [UInt8] = [0x49, 0x49, 42, 0, 8, 0, 0, 0]
        func u16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
        func u32(_ v: Int) -> [UInt8] {
            [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF), UInt8((v >> 16) & 0xFF), UInt8(v >> 24)]
        }
        let ifd0Entries = ifd0.sorted { $0.key < $1.key } + [(key: 0x8769, value: "")]
        let exifEntries = exif.sorted { $0.key < $1.key }
        let ifd0Size = 2 + 12 * ifd0Entries.count + 4
        let exifOffset = 8 + ifd0Size
        let exifSize = 2 + 12 * exifEntries.count + 4
        var dataOffset = exifOffset + exifSize
        var data: [UInt8] = []
        func entries(_ list: [(key: Int, value: String)]) -> [UInt8] {
            var out = u16(list.count)
            for (tag, text) in list {
                if tag == 0x8769 { out += u16(tag) + u16(4) + u32(1) + u32(exifOffset); continue }
                let bytes = Array(text.utf8) + [0]
                out += u16(tag) + u16(2) + u32(bytes.count)
                if bytes.count <= 4 {
                    out += bytes + [UInt8](repeating: 0, count: 4 - bytes.count)
                } else {
                    out += u32(dataOffset)
                    data += bytes
                    dataOffset += bytes.count
                }
            }
            return out + u32(0)
        }
        block += entries(ifd0Entries.map { ($0.key, $0.value) })
        block += entries(exifEntries.map { ($0.key, $0.value) })
        block += data
        return segment(0xE1, Array("Exif\0\0".utf8) + block)
    }

    /// A 4×4 grey PNG (stored deflate block) with an iTXt `XML:com.adobe.xmp` chunk holding
    /// `packet` after IHDR, every CRC right.
    static func png(xmp packet: String?, seed: Int = 0, chunkType: String = "iTXt", afterIDAT: Bool = false) -> [UInt8]
    {
        func u32(_ v: Int) -> [UInt8] {
            [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)]
        }
        func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
            let body = Array(type.utf8) + data
            return u32(data.count) + body + u32(Int(crc32(body)))
        }
        let ihdr = u32(4) + u32(4) + [8, 0, 0, 0, 0] // 4×4, 8-bit grey
        var raw: [UInt8] = []
        for _ in 0..<4 { raw += [0] + [UInt8](repeating: UInt8(truncatingIfNeeded: 90 + seed), count: 4) }
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in raw { a = (a + UInt32(byte)) % 65521; b = (b + a) % 65521 }
        let adler = (b << 16) | a
        let zlib: [UInt8] =
            [
                0x78, 0x01, 0x01, UInt8(raw.count & 0xFF), UInt8(raw.count >> 8),
                UInt8(~raw.count & 0xFF), UInt8((~raw.count >> 8) & 0xFF)
            ] + raw
            + [UInt8(adler >> 24), UInt8((adler >> 16) & 0xFF), UInt8((adler >> 8) & 0xFF), UInt8(adler & 0xFF)]
        let out: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", ihdr)
        var xmp: [UInt8] = []
        if let packet {
            let header: [UInt8] = chunkType == "iTXt" ? [0, 0, 0, 0, 0] : [0]
            xmp = chunk(chunkType, Array("XML:com.adobe.xmp".utf8) + header + Array(packet.utf8))
        }
        return afterIDAT
            ? out + chunk("IDAT", zlib) + xmp + chunk("IEND", []) : out + xmp + chunk("IDAT", zlib) + chunk("IEND", [])
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            c ^= UInt32(byte)
            for _ in 0..<8 { c = (c & 1) != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        }
        return ~c
    }

    /// An XMP packet with the given subjects (Bag), rating attribute (prefix `xap`), and extra
    /// attributes.
    static func packet(subjects: [String] = [], rating: String? = nil, extra: String = "") -> String {
        let bag =
            subjects.isEmpty
            ? ""
            : "<dc:subject><rdf:Bag>" + subjects.map { "<rdf:li>\($0)</rdf:li>" }.joined() + "</rdf:Bag></dc:subject>"
        return """
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\
            <rdf:Description rdf:about="" xmlns:xap="http://ns.adobe.com/xap/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/" \
            xmlns:photoshop="http://ns.adobe.com/photoshop/1.0/" \(rating.map { "xap:Rating=\"\($0)\"" } ?? "") \(extra)>\(bag)</rdf:Description>\
            </rdf:RDF></x:xmpmeta>
            """
    }
}

extension ImportTestCase {
    /// A library at `tmp/lib` holding `count` distinct JPEGs (`MetadataFixture.jpeg` of seeds
    /// `seed`, `seed + 1`, …, written to `tmp/in`), imported with `runImport`; asserts that all
    /// `count` were imported.
    /// - Throws: what `makeLibrary` and `runImport` throw.
    func importedLibrary(photos count: Int, seed: Int) throws -> Library {
        for i in 0..<count {
            _ = try tmp.write("in/\(i).jpg", try MetadataFixture.jpeg(seed: seed + i))
        }
        let library = try makeLibrary()
        XCTAssertEqual(try runImport(library, [tmp.file("in")]).imported, count)
        return library
    }
}
