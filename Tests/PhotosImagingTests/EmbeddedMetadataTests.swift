import XCTest
@testable import PhotosImaging

/// Issue 9 item 5: the XMP packet, the IPTC keywords and the EXIF dates are found in one walk,
/// and no declared length is trusted beyond the bytes present.
final class EmbeddedMetadataTests: XCTestCase {
    func segment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] {
        [0xFF, marker, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload
    }

    func jpeg(_ segments: [[UInt8]]) -> [UInt8] {
        [0xFF, 0xD8] + segments.flatMap { $0 } + [0xFF, 0xDA, 0, 2, 0xFF, 0xD9]
    }

    func iim(_ datasets: [(UInt8, UInt8, [UInt8])]) -> [UInt8] {
        datasets.flatMap { [0x1C, $0.0, $0.1, UInt8($0.2.count >> 8), UInt8($0.2.count & 0xFF)] + $0.2 }
    }

    func resource(id: UInt16, name: [UInt8] = [], _ data: [UInt8]) -> [UInt8] {
        var r: [UInt8] = Array("8BIM".utf8) + [UInt8(id >> 8), UInt8(id & 0xFF), UInt8(name.count)] + name
        if (1 + name.count) % 2 == 1 { r.append(0) }
        r +=
            [
                UInt8(data.count >> 24), UInt8((data.count >> 16) & 0xFF), UInt8((data.count >> 8) & 0xFF),
                UInt8(data.count & 0xFF)
            ] + data
        if data.count % 2 == 1 { r.append(0) }
        return r
    }

    func read(_ bytes: [UInt8]) -> EmbeddedMetadata { bytes.withUnsafeBytes { EmbeddedMetadata.read(jpeg: $0) } }

    func testJPEGSegmentsInAnyOrder() {
        let xmp = Array("<x:xmpmeta/>".utf8)
        let ps =
            Array("Photoshop 3.0\0".utf8) + resource(id: 0x03ED, [1, 2, 3])
            + resource(
                id: 0x0404, name: Array("ab".utf8),
                iim([(2, 25, Array("One".utf8)), (2, 120, Array("caption".utf8)), (2, 25, Array("Two".utf8))]))
        let file = jpeg([
            segment(0xE1, Array("http://ns.adobe.com/xap/1.0/\0".utf8) + xmp),
            segment(0xE1, Array("http://ns.adobe.com/xmp/extension/\0".utf8) + [1, 2, 3]),
            segment(0xED, ps)
        ])
        let m = read(file)
        XCTAssertEqual(m.xmp, xmp)
        XCTAssertEqual(m.iptcKeywords, ["One", "Two"])
    }

    func testIPTCContinuedOverTwoAPP13AndExtendedLengths() {
        let data = iim([(2, 25, Array("A".utf8))]) + [0x1C, 2, 25, 0x80, 0x02, 0x00, 0x03] + Array("Big".utf8)
        let whole = Array("Photoshop 3.0\0".utf8) + resource(id: 0x0404, data)
        let cut = Array("Photoshop 3.0\0".utf8).count + 10
        let first = Array(whole[..<cut]), second = Array("Photoshop 3.0\0".utf8) + Array(whole[cut...])
        XCTAssertEqual(read(jpeg([segment(0xED, first), segment(0xED, second)])).iptcKeywords, ["A", "Big"])
    }

    func testLyingLengthsAreNotTrusted() {
        // 8BIM size past the end.
        var r = resource(id: 0x0404, iim([(2, 25, Array("X".utf8))]))
        r[8] = 0x7F
        XCTAssertEqual(read(jpeg([segment(0xED, Array("Photoshop 3.0\0".utf8) + r)])).iptcKeywords, [])
        // IIM dataset length past the end; an extended length of 5+ bytes.
        XCTAssertEqual(IPTCReader.iimKeywords(ArraySlice([0x1C, 2, 25, 0x7F, 0xFF] + Array("short".utf8))), [])
        XCTAssertEqual(IPTCReader.iimKeywords(ArraySlice([0x1C, 2, 25, 0x80, 0x05, 0, 0, 0, 0, 1, 0x41])), [])
        // An APP1 XMP whose segment length runs past the file: the walk stops, nothing is read.
        var file = jpeg([segment(0xE1, Array("http://ns.adobe.com/xap/1.0/\0".utf8) + Array("<x/>".utf8))])
        file[4] = 0xFF
        XCTAssertNil(read(file).xmp)
    }

    func png(_ chunks: [(String, [UInt8])]) -> [UInt8] {
        var out: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        for (type, data) in chunks {
            out += [
                UInt8(data.count >> 24), UInt8((data.count >> 16) & 0xFF), UInt8((data.count >> 8) & 0xFF),
                UInt8(data.count & 0xFF)
            ]
            out += Array(type.utf8) + data + [0, 0, 0, 0] // CRCs are not read here
        }
        return out
    }

    func testPNGChunkWalk() {
        let key = Array("XML:com.adobe.xmp".utf8) + [0]
        func xmp(_ b: [UInt8]) -> [UInt8]? {
            b.withUnsafeBytes { EmbeddedMetadata.read(png: $0, exif: ExifMetadata()).xmp }
        }
        XCTAssertEqual(
            xmp(
                png([
                    ("IHDR", [UInt8](repeating: 0, count: 13)), ("iTXt", key + [0, 0] + Array("en\0Titel\0<p/>".utf8)),
                    ("IEND", [])
                ])), Array("<p/>".utf8))
        XCTAssertNil(xmp(png([("iTXt", key + [1, 0, 0, 0] + [0x78, 0x9C])])), "compressed iTXt is not read")
        XCTAssertNil(
            xmp(png([("iTXt", Array("Comment".utf8) + [0, 0, 0, 0, 0] + Array("<p/>".utf8))])), "another keyword")
        XCTAssertNil(xmp(png([("IEND", []), ("iTXt", key + [0, 0, 0, 0] + Array("<p/>".utf8))])), "nothing after IEND")
        // A chunk length of 2^31-1 in a 60-byte file: the walk stops.
        var lying = png([("tEXt", Array("a\0b".utf8)), ("iTXt", key + [0, 0, 0, 0] + Array("<p/>".utf8))])
        lying[8] = 0x7F; lying[9] = 0xFF; lying[10] = 0xFF; lying[11] = 0xFF
        XCTAssertNil(xmp(lying))
        // Truncated inside the iTXt: its length no longer fits.
        let whole = png([("iTXt", key + [0, 0, 0, 0] + Array("<p/>".utf8))])
        XCTAssertNil(xmp(Array(whole.dropLast(6))))
        XCTAssertNil(xmp(Array(whole.prefix(7))))
    }

    func testEXIFDateTags() {
        var t = TIFFBuilder(little: false)
        // IFD0: DateTime (0x0132), Exif IFD pointer; then the Exif IFD.
        let ifd0Size = 2 + 2 * 12 + 4
        let exifIFD = 8 + ifd0Size
        let exifSize = 2 + 6 * 12 + 4
        var data = exifIFD + exifSize
        var values: [UInt8] = []
        func text(_ s: String) -> (UInt32, UInt32) {
            let b = Array(s.utf8) + [0]
            defer { values += b; data += b.count }
            return (UInt32(b.count), UInt32(data))
        }
        let dateTime = text("2019:07:08 09:10:11")
        t.appendIFD([(0x0132, 2, dateTime.0, dateTime.1), (0x8769, 4, 1, UInt32(exifIFD))])
        let digitized = text("2020:01:02 03:04:05")
        let offsets = text("+01:00"), offsetsO = text("-05:00"), offsetsD = text("+05:45")
        t.appendIFD([
            (0x9004, 2, digitized.0, digitized.1), (0x9010, 2, offsets.0, offsets.1),
            (0x9011, 2, offsetsO.0, offsetsO.1),
            (0x9012, 2, offsetsD.0, offsetsD.1), (0x9290, 2, 3, UInt32(0x3132_0000)),
            (0x9292, 2, 4, UInt32(0x2061_0000))
        ])
        t.bytes += values
        let m = ExifReader.parse(t.bytes)
        XCTAssertEqual(m.dateTime, "2019:07:08 09:10:11")
        XCTAssertEqual(m.dateTimeDigitized, "2020:01:02 03:04:05")
        XCTAssertEqual([m.offsetTime, m.offsetTimeOriginal, m.offsetTimeDigitized], ["+01:00", "-05:00", "+05:45"])
        XCTAssertEqual(m.subSecTime, "12")
        XCTAssertNil(m.subSecTimeDigitized, "' a' is not digits")
        XCTAssertNil(m.dateTimeOriginal)
    }
}
