import XCTest
import PhotosTestSupport
@testable import PhotosImaging

/// `ThumbnailCheck.structure`, the check of `verify --quick`: a whole JPEG of its recorded size
/// from its marker segments alone, from the thumbnail's head, length and last two bytes.
final class ThumbnailStructureTests: XCTestCase {
    func jpeg(_ width: Int, _ height: Int) throws -> [UInt8] {
        var rgb = [UInt8](repeating: 0, count: width * height * 3)
        for i in rgb.indices { rgb[i] = UInt8(truncatingIfNeeded: i * 7 &+ i / 3) }
        return try ImageDecoder.encodeJPEG(try PixelBuffer(width: width, height: height, rgb: rgb), quality: 85)
    }

    /// The structure of `bytes` as verify --quick sees it: its first `head` bytes.
    func structure(_ bytes: [UInt8], head: Int = ThumbnailCheck.structureHeadBytes, width: Int = 120, height: Int = 80)
        -> ThumbnailStructure
    {
        ThumbnailCheck.structure(
            head: bytes.prefix(head), byteCount: bytes.count, last: bytes.suffix(2), width: width, height: height)
    }

    func testSoundThumbnailsAreSoundFromTheirHead() throws {
        let good = try jpeg(120, 80)
        XCTAssertEqual(structure(good), .sound)
        XCTAssertEqual(structure(good, head: good.count), .sound)
        XCTAssertEqual(structure(try jpeg(80, 120), width: 80, height: 120), .sound)
        XCTAssertEqual(structure(try jpeg(1, 1), width: 1, height: 1), .sound)
        // Fill bytes before a marker (ITU-T T.81 §B.1.1.2) are allowed.
        let filled = [0xFF, 0xD8, 0xFF, 0xFF] + good.dropFirst(3)
        XCTAssertEqual(structure(Array(filled)), .sound)
    }

    func testAHeadEndingBeforeTheFrameHeaderAsksForMore() throws {
        let good = try jpeg(120, 80)
        XCTAssertEqual(structure(good, head: 100), .needsMoreBytes)
        // A 1,000-byte comment before the frame header: beyond the usual head, sound when whole.
        let comment = [0xFF, 0xFE, 0x03, 0xEA] + [UInt8](repeating: 0x41, count: 1_000)
        let commented = Array(good.prefix(2)) + comment + good.dropFirst(2)
        XCTAssertEqual(structure(commented), .needsMoreBytes)
        XCTAssertEqual(structure(commented, head: commented.count), .sound)
    }

    func testEachStructuralDamageIsNamedAsTheFullCheckNamesIt() throws {
        let good = try jpeg(120, 80)
        let sof = try XCTUnwrap(JPEGSegments.offset(of: 0xC0, in: good))
        var resized = good
        resized[sof + 5] = 0
        resized[sof + 6] = 100 // height 100
        var lossless = good
        lossless[sof + 1] = 0xC3
        var longSegment = good
        longSegment[4] = 0x7F // APP0's length: 0x7f10, past the end
        var sixteenBit = good
        sixteenBit[sof + 4] = 16
        var badFactors = good
        badFactors[sof + 11] = 0x51
        let sos = try XCTUnwrap(JPEGSegments.offset(of: 0xDA, in: good))
        let scanFirst = Array(good.prefix(sof)) + good[sos...]
        let cases: [(String, [UInt8], String)] = [
            ("empty", [], "is empty (0 bytes)"),
            ("PNG", [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A], "is not a JPEG (6 bytes starting with 0x89 0x50 0x4e 0x47)"),
            (
                "truncated", Array(good.prefix(200)),
                "is truncated or has trailing bytes (200 bytes, no JPEG end-of-image marker at the end)"
            ),
            ("height in the frame header", resized, "is 120×100 pixels, recorded 120×80"),
            (
                "lossless frame header", lossless,
                "has the frame header 0xffc3 (not baseline, extended or progressive Huffman)"
            ),
            ("segment length", longSegment, "has a segment 0xffe0 at byte 2 of 32528 bytes, past its end"),
            ("16-bit samples", sixteenBit, "has 16-bit samples, not 8-bit"),
            ("sampling factors", badFactors, "has a frame header with component 1 out of range"),
            ("scan before frame header", scanFirst, "has a scan (SOS) at byte \(sof) before its frame header"),
            ("SOI and EOI only", [0xFF, 0xD8, 0xFF, 0xD9], "ends at byte 2 before its frame header (SOF)")
        ]
        for (label, bytes, reason) in cases {
            let whole = ThumbnailCheck.structure(
                head: bytes[...], byteCount: bytes.count, last: bytes.suffix(2), width: 120, height: 80)
            XCTAssertEqual(whole, .damaged(reason), label)
            // The full check names it the same way, before any decode.
            XCTAssertEqual(ThumbnailCheck.problem(bytes, width: 120, height: 80), reason, label)
        }
        XCTAssertEqual(
            structure(try jpeg(160, 120), width: 160, height: 120),
            .damaged("declares 160×120 pixels, more than a 120-pixel thumbnail has (recorded 160×120)"))
        XCTAssertEqual(
            structure(try jpeg(121, 100), width: 121, height: 100),
            .damaged("is 121×100 pixels, larger than the 120-pixel thumbnail size"))
    }

    /// Scan data cut short (EOI appended): the structure is whole, so only the decode of the
    /// full check finds it.
    func testDamagedScanDataIsForTheFullCheckOnly() throws {
        let good = try jpeg(120, 80)
        let cut = Array(good.prefix(good.count * 2 / 3)) + [0xFF, 0xD9]
        XCTAssertEqual(structure(cut), .sound)
        let problem = try XCTUnwrap(ThumbnailCheck.problem(cut, width: 120, height: 80))
        XCTAssertTrue(problem.hasPrefix("is corrupt: ") || problem.hasPrefix("does not decode: "), problem)
    }
}
