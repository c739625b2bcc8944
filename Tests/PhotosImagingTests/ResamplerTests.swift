import XCTest
@testable import PhotosImaging

final class ResamplerTests: XCTestCase {
    func testCheckerboardAveragesToMidGray() throws {
        var rgb: [UInt8] = []
        for y in 0..<4 { for x in 0..<4 { let v: UInt8 = (x + y) % 2 == 0 ? 0 : 255; rgb += [v, v, v] } }
        let out = try Resampler.areaAverage(try PixelBuffer(width: 4, height: 4, rgb: rgb), width: 2, height: 2)
        XCTAssertEqual(out.width, 2)
        XCTAssertEqual(out.height, 2)
        // Each 2×2 block holds two 0s and two 255s: 127.5, rounded half up.
        XCTAssertEqual(out.bytes, [UInt8](repeating: 128, count: 12))
    }

    func testThreeToTwoWeightsTheSharedPixelByHalf() throws {
        // Output 0 covers source [0, 1.5): (0·1 + 90·0.5) / 1.5 = 30; output 1 covers [1.5, 3): (90·0.5 + 180) / 1.5 = 150.
        let rgb: [UInt8] = [0, 0, 0, 90, 30, 60, 180, 60, 120]
        let out = try Resampler.areaAverage(try PixelBuffer(width: 3, height: 1, rgb: rgb), width: 2, height: 1)
        XCTAssertEqual(out.bytes, [30, 10, 20, 150, 50, 100])
    }

    func testNonIntegerRatioOnBothAxes() throws {
        // 3×3 → 2×2, value = 9·column: each output mixes columns with weights (1, .5) and (.5, 1).
        var rgb: [UInt8] = []
        for _ in 0..<3 { for x in 0..<3 { let v = UInt8(90 * x); rgb += [v, v, v] } }
        let out = try Resampler.areaAverage(try PixelBuffer(width: 3, height: 3, rgb: rgb), width: 2, height: 2)
        XCTAssertEqual(out.pixel(x: 0, y: 0).0, 30)
        XCTAssertEqual(out.pixel(x: 1, y: 0).0, 150)
        XCTAssertEqual(out.pixel(x: 0, y: 1).0, 30)
        XCTAssertEqual(out.pixel(x: 1, y: 1).0, 150)
    }

    func testSpansCoverEachSourcePixelOnce() {
        for (source, target) in [(7, 3), (640, 120), (121, 120), (5, 5)] {
            var coverage = [Float](repeating: 0, count: source)
            for span in Resampler.spans(source: source, target: target) {
                XCTAssertEqual(span.weights.reduce(0, +), 1, accuracy: 1e-5)
                for (k, w) in span.weights.enumerated() {
                    coverage[span.first + k] += w * Float(source) / Float(target)
                }
            }
            for c in coverage { XCTAssertEqual(c, 1, accuracy: 1e-4, "\(source)→\(target)") }
        }
    }

    func testThumbnailSizeRule() {
        XCTAssertTrue(Thumbnailer.thumbnailSize(width: 5640, height: 3172, maxEdge: 120) == (120, 67))
        XCTAssertTrue(Thumbnailer.thumbnailSize(width: 1200, height: 1800, maxEdge: 120) == (80, 120))
        XCTAssertTrue(Thumbnailer.thumbnailSize(width: 100, height: 50, maxEdge: 120) == (100, 50))
        XCTAssertTrue(Thumbnailer.thumbnailSize(width: 1, height: 1000, maxEdge: 120) == (1, 120))
        XCTAssertTrue(Thumbnailer.thumbnailSize(width: 240, height: 1, maxEdge: 120) == (120, 1))
        // 250×3 → 1.44 rounds to 1; 250×5 → 2.4 rounds to 2; 240×5 → 2.5 rounds half up to 3.
        XCTAssertTrue(Thumbnailer.thumbnailSize(width: 250, height: 3, maxEdge: 120) == (120, 1))
        XCTAssertTrue(Thumbnailer.thumbnailSize(width: 250, height: 5, maxEdge: 120) == (120, 2))
        XCTAssertTrue(Thumbnailer.thumbnailSize(width: 240, height: 5, maxEdge: 120) == (120, 3))
    }
}
