import XCTest
@testable import PhotosImaging

/// Issue 9 item 11: what `ThumbnailCheck` says about each kind of damaged thumbnail.
final class ThumbnailCheckTests: XCTestCase {
    func jpeg(_ width: Int, _ height: Int) throws -> [UInt8] {
        var rgb = [UInt8](repeating: 0, count: width * height * 3)
        for i in rgb.indices { rgb[i] = UInt8(truncatingIfNeeded: i * 7 &+ i / 3) }
        return try ImageDecoder.encodeJPEG(try PixelBuffer(width: width, height: height, rgb: rgb), quality: 85)
    }

    func testSoundThumbnailsPass() throws {
        XCTAssertNil(ThumbnailCheck.problem(try jpeg(120, 80), width: 120, height: 80))
        XCTAssertNil(ThumbnailCheck.problem(try jpeg(90, 120), width: 90, height: 120))
        XCTAssertNil(ThumbnailCheck.problem(try jpeg(120, 120), width: 120, height: 120))
        XCTAssertNil(ThumbnailCheck.problem(try jpeg(1, 1), width: 1, height: 1), "a 1×1 original keeps its size")
    }

    func testEachDamageIsNamed() throws {
        let good = try jpeg(120, 80)
        XCTAssertEqual(ThumbnailCheck.problem([], width: 120, height: 80), "is empty (0 bytes)")
        XCTAssertEqual(
            ThumbnailCheck.problem([0xDE, 0xAD, 0xBE, 0xEF], width: 120, height: 80),
            "is not a JPEG (4 bytes starting with 0xde 0xad 0xbe 0xef)")
        XCTAssertEqual(
            ThumbnailCheck.problem([0xFF, 0xD8], width: 120, height: 80),
            "is not a JPEG (2 bytes starting with 0xff 0xd8)")
        XCTAssertEqual(
            ThumbnailCheck.problem(Array(good.dropLast(1)), width: 120, height: 80),
            "is truncated or has trailing bytes (\(good.count - 1) bytes, no JPEG end-of-image marker at the end)")
        XCTAssertEqual(ThumbnailCheck.problem(good, width: 120, height: 90), "is 120×80 pixels, recorded 120×90")
        XCTAssertEqual(
            ThumbnailCheck.problem(try jpeg(160, 120), width: 160, height: 120),
            "declares 160×120 pixels, more than a 120-pixel thumbnail has (recorded 160×120)",
            "over 120×120 pixels: refused before decoding")
        XCTAssertEqual(
            ThumbnailCheck.problem(try jpeg(121, 100), width: 121, height: 100),
            "is 121×100 pixels, larger than the 120-pixel thumbnail size")
        XCTAssertEqual(
            ThumbnailCheck.problem(try jpeg(4000, 3000), width: 120, height: 90),
            "declares 4000×3000 pixels, more than a 120-pixel thumbnail has (recorded 120×90)")
        // Header intact, scan data cut (EOI re-appended): libjpeg's own message.
        let cut = Array(good.prefix(good.count * 2 / 3)) + [0xFF, 0xD9]
        let problem = try XCTUnwrap(ThumbnailCheck.problem(cut, width: 120, height: 80))
        XCTAssertTrue(problem.hasPrefix("is corrupt: ") || problem.hasPrefix("does not decode: "), problem)
    }
}
