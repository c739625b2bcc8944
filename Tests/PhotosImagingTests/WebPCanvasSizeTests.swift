import Foundation
import XCTest
@testable import PhotosImaging

/// Issue 31 B15, the same kind in WebP: the size that bounds memory must be the one the decoder
/// produces. A VP8X canvas (WebP container specification, "Extended File Format") declaring
/// another size than the VP8/VP8L frame inside it is refused before decoding (libwebp's
/// WebPGetFeatures compares the two), never decoded by one size after a budget of the other.
final class WebPCanvasSizeTests: XCTestCase {
    static func le32(_ v: Int) -> [UInt8] {
        [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24 & 0xFF)]
    }

    /// A simple WebP (its one 'VP8 ' or 'VP8L' chunk) rewrapped as VP8X with a canvas of
    /// `width` × `height`.
    static func withCanvas(_ simple: [UInt8], _ width: Int, _ height: Int) -> [UInt8] {
        let w = width - 1, h = height - 1
        let vp8x =
            Array("VP8X".utf8) + le32(10) + [
                0, 0, 0, 0, UInt8(w & 0xFF), UInt8(w >> 8 & 0xFF), UInt8(w >> 16), UInt8(h & 0xFF),
                UInt8(h >> 8 & 0xFF), UInt8(h >> 16)
            ]
        let body = Array("WEBP".utf8) + vp8x + Array(simple[12...])
        return Array("RIFF".utf8) + le32(body.count) + body
    }

    func testACanvasOfAnotherSizeThanTheFrameIsRefused() throws {
        for lossless in [false, true] {
            let simple = try HEIFWebPTests.webp(lossless: lossless)
            let same = Self.withCanvas(simple, HEIFWebPTests.width, HEIFWebPTests.height)
            let (result, _) = try HEIFWebPTests.thumbnail(same)
            XCTAssertEqual([result.width, result.height], [HEIFWebPTests.width, HEIFWebPTests.height])
            for (width, height) in [(64, 64), (10_000, 8_000)] {
                XCTAssertThrowsError(try HEIFWebPTests.thumbnail(Self.withCanvas(simple, width, height))) { error in
                    guard case .corrupt? = error as? ImageError else {
                        return XCTFail("lossless \(lossless), canvas \(width)x\(height): \(error)")
                    }
                }
            }
        }
    }
}
