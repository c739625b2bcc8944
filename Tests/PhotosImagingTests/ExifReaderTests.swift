import XCTest
@testable import PhotosImaging

/// Hand-built TIFF blocks (TIFF 6.0 §2; EXIF 2.32 §4.6).
struct TIFFBuilder {
    var little: Bool
    var bytes: [UInt8] = []

    init(little: Bool, ifd0Offset: UInt32 = 8) {
        self.little = little
        bytes = little ? [0x49, 0x49] : [0x4D, 0x4D]
        append16(42)
        append32(ifd0Offset)
    }

    mutating func append16(_ v: Int) {
        let b = [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)]
        bytes += little ? b : b.reversed()
    }

    mutating func append32(_ v: UInt32) {
        let b = (0..<4).map { UInt8(v >> (8 * UInt32($0)) & 0xFF) }
        bytes += little ? b : b.reversed()
    }

    /// Appends an IFD: entries of (tag, type, count, 4-byte value field as a UInt32 or SHORT).
    mutating func appendIFD(_ entries: [(tag: Int, type: Int, count: UInt32, value: UInt32)], next: UInt32 = 0) {
        append16(entries.count)
        for e in entries {
            append16(e.tag)
            append16(e.type)
            append32(e.count)
            if e.type == 3 && e.count == 1 {
                append16(Int(e.value)) // SHORT sits in the first two bytes of the value field
                append16(0)
            } else {
                append32(e.value)
            }
        }
        append32(next)
    }
}

final class ExifReaderTests: XCTestCase {
    func testOrientationInBothByteOrders() {
        for little in [true, false] {
            for orientation in 1...8 {
                var t = TIFFBuilder(little: little)
                t.appendIFD([(0x010F, 2, 4, 0x0041_4243), (0x0112, 3, 1, UInt32(orientation))])
                XCTAssertEqual(
                    ExifReader.parse(t.bytes).orientation.rawValue, orientation,
                    "little=\(little) orientation \(orientation)")
            }
        }
    }

    func testOutOfRangeOrientationIsOne() {
        for value: UInt32 in [0, 9, 0xFFFF] {
            var t = TIFFBuilder(little: true)
            t.appendIFD([(0x0112, 3, 1, value)])
            XCTAssertEqual(ExifReader.parse(t.bytes).orientation.rawValue, 1)
        }
    }

    func dateBlock(little: Bool) -> [UInt8] {
        // IFD0 at 8 with one entry (18 bytes) → Exif IFD at 26 with two entries (30 bytes) → data at 56.
        var t = TIFFBuilder(little: little)
        t.appendIFD([(0x8769, 4, 1, 26)])
        let date = Array("2021:07:04 18:30:05".utf8) + [0]
        let offset = Array("+02:00".utf8) + [0]
        t.appendIFD([(0x9003, 2, UInt32(date.count), 56), (0x9011, 2, UInt32(offset.count), UInt32(56 + date.count))])
        XCTAssertEqual(t.bytes.count, 56)
        t.bytes += date + offset
        return t.bytes
    }

    func testDateTimeOriginalAndOffset() {
        for little in [true, false] {
            let meta = ExifReader.parse(dateBlock(little: little))
            XCTAssertEqual(meta.dateTimeOriginal, "2021:07:04 18:30:05")
            XCTAssertEqual(meta.offsetTimeOriginal, "+02:00")
            XCTAssertEqual(meta.orientation.rawValue, 1)
        }
    }

    func testMalformedDateIsIgnored() {
        var t = TIFFBuilder(little: true)
        t.appendIFD([(0x8769, 4, 1, 26)])
        let date = Array("2021-07-04 18:30:05".utf8) + [0]
        t.appendIFD([(0x9003, 2, UInt32(date.count), 44)])
        t.bytes += date
        XCTAssertNil(ExifReader.parse(t.bytes).dateTimeOriginal)
    }

    func testIFDOffsetOutsideBlock() {
        var t = TIFFBuilder(little: true, ifd0Offset: 0xFFFF_FFF0)
        t.appendIFD([(0x0112, 3, 1, 6)])
        XCTAssertEqual(ExifReader.parse(t.bytes), ExifMetadata())
    }

    func testExifIFDPointingToItselfOrToIFD0() {
        for target: UInt32 in [8, 38] {
            var t = TIFFBuilder(little: false)
            t.appendIFD([(0x0112, 3, 1, 3), (0x8769, 4, 1, 8 + 2 + 24 + 4)])
            t.appendIFD([(0x8769, 4, 1, target)], next: target)
            XCTAssertEqual(ExifReader.parse(t.bytes).orientation.rawValue, 3)
        }
    }

    func testAbsurdCounts() {
        // IFD entry count 0xFFFF with one real entry; a date whose count would overflow the block.
        var t = TIFFBuilder(little: true)
        t.append16(0xFFFF)
        t.append16(0x0112); t.append16(3); t.append32(1); t.append16(8); t.append16(0)
        XCTAssertEqual(ExifReader.parse(t.bytes).orientation.rawValue, 8)

        var u = TIFFBuilder(little: true)
        u.appendIFD([(0x8769, 4, 1, 26)])
        u.appendIFD([(0x9003, 2, 0xFFFF_FFFF, 44), (0x9011, 2, 7, 0xFFFF_FFF0)])
        u.bytes += Array("2021:07:04 18:30:05".utf8)
        let meta = ExifReader.parse(u.bytes)
        XCTAssertNil(meta.dateTimeOriginal)
        XCTAssertNil(meta.offsetTimeOriginal)
    }

    func testTruncatedAndForeignBlocks() {
        let full = dateBlock(little: true)
        for length in 0..<full.count {
            _ = ExifReader.parse(Array(full.prefix(length))) // must not trap
        }
        XCTAssertEqual(ExifReader.parse(Array("XX*\0\0\0\0\u{8}".utf8)), ExifMetadata())
        XCTAssertEqual(ExifReader.parse([UInt8]()), ExifMetadata())
    }

    func testFindsAPP1InJPEG() {
        var t = TIFFBuilder(little: true)
        t.appendIFD([(0x0112, 3, 1, 6)])
        let app1Payload = Array("Exif".utf8) + [0, 0] + t.bytes
        let app0: [UInt8] = [0xFF, 0xE0, 0x00, 0x04, 0x01, 0x02]
        let length = app1Payload.count + 2
        let jpeg: [UInt8] =
            [0xFF, 0xD8] + app0 + [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + app1Payload + [0xFF, 0xD9]
        jpeg.withUnsafeBytes { bytes in
            guard let range = ExifReader.exifRange(inJPEG: bytes) else { return XCTFail("no APP1 found") }
            XCTAssertEqual(ExifReader.parse(UnsafeRawBufferPointer(rebasing: bytes[range])).orientation.rawValue, 6)
        }
        // A segment length running past the end is not followed.
        let cut = Array(jpeg.prefix(20))
        cut.withUnsafeBytes { XCTAssertNil(ExifReader.exifRange(inJPEG: $0)) }
    }

    func testSniffer() {
        func detect(_ b: [UInt8]) -> ImageFormat? { b.withUnsafeBytes { ImageFormatSniffer.detect($0) } }
        XCTAssertEqual(detect([0xFF, 0xD8, 0xFF, 0xE0]), .jpeg)
        XCTAssertEqual(detect([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]), .png)
        XCTAssertNil(detect([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x20]))
        XCTAssertNil(detect([0xFF, 0xD8]))
        XCTAssertNil(detect(Array("GIF89a".utf8)))
    }
}
