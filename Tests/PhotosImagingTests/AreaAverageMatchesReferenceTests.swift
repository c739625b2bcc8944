import XCTest

@testable import PhotosImaging

/// `Resampler.areaAverage` (CImageCodec's pc_area_average) gives the same bytes as the Swift
/// loops it replaced, kept here as the reference: same spans, float sums in the same order,
/// rounded half up. Thumbnails of every library imported before the change stay what a new
/// import makes.
final class AreaAverageMatchesReferenceTests: XCTestCase {
    /// The Swift implementation `Resampler.areaAverage` had before it moved to C.
    static func reference(_ source: PixelBuffer, width: Int, height: Int) -> [UInt8] {
        let columns = Resampler.spans(source: source.width, target: width)
        let rows = Resampler.spans(source: source.height, target: height)
        var horizontal = [Float](repeating: 0, count: source.height * width * 3)
        for y in 0..<source.height {
            for x in 0..<width {
                let span = columns[x]
                var r: Float = 0
                var g: Float = 0
                var b: Float = 0
                var p = (y * source.width + span.first) * 3
                for w in span.weights {
                    r += Float(source.pixels[p]) * w
                    g += Float(source.pixels[p + 1]) * w
                    b += Float(source.pixels[p + 2]) * w
                    p += 3
                }
                horizontal[(y * width + x) * 3] = r
                horizontal[(y * width + x) * 3 + 1] = g
                horizontal[(y * width + x) * 3 + 2] = b
            }
        }
        var out = [UInt8](repeating: 0, count: width * height * 3)
        var sums = [Float](repeating: 0, count: width * 3)
        for y in 0..<height {
            let span = rows[y]
            for i in 0..<(width * 3) { sums[i] = 0 }
            for (k, w) in span.weights.enumerated() {
                let base = (span.first + k) * width * 3
                for i in 0..<(width * 3) { sums[i] += horizontal[base + i] * w }
            }
            for i in 0..<(width * 3) { out[y * width * 3 + i] = UInt8(max(0, min(255, sums[i] + 0.5))) }
        }
        return out
    }

    /// Deterministic noise with smooth parts and hard edges (xorshift, fixed seed).
    static func image(width: Int, height: Int, seed: UInt64) throws -> PixelBuffer {
        var state = seed | 1
        var rgb = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                state ^= state << 13
                state ^= state >> 7
                state ^= state << 17
                let i = (y * width + x) * 3
                rgb[i] = UInt8(truncatingIfNeeded: state)
                rgb[i + 1] = UInt8((x * 255) / max(1, width - 1))
                rgb[i + 2] = (x / 3 + y / 5) % 2 == 0 ? 0 : 255
            }
        }
        return try PixelBuffer(width: width, height: height, rgb: rgb)
    }

    func testSameBytesAsTheSwiftLoopsForManySizes() throws {
        // DCT-scaled JPEG sizes to thumbnails (160×120 → 120×90, the small tree), odd ratios,
        // one axis unchanged, single rows and columns, and upscaling.
        let cases: [(Int, Int, Int, Int)] = [
            (160, 120, 120, 90), (80, 60, 80, 45), (705, 397, 120, 68), (121, 1, 120, 1), (1, 121, 1, 120),
            (3, 3, 2, 2), (7, 5, 3, 2), (333, 250, 120, 90), (250, 333, 90, 120), (640, 427, 120, 80),
            (2, 2, 5, 7), (120, 90, 120, 45), (97, 1000, 12, 120), (1000, 1, 1, 1)
        ]
        for (n, (sw, sh, w, h)) in cases.enumerated() {
            let source = try Self.image(width: sw, height: sh, seed: UInt64(n) &* 0x9E37_79B9_7F4A_7C15)
            let out = try Resampler.areaAverage(source, width: w, height: h)
            XCTAssertEqual(out.width, w)
            XCTAssertEqual(out.height, h)
            XCTAssertEqual(out.bytes, Self.reference(source, width: w, height: h), "\(sw)×\(sh) → \(w)×\(h)")
        }
    }

    func testSameBytesOnEveryTargetSizeOfOneImage() throws {
        let source = try Self.image(width: 37, height: 23, seed: 42)
        for w in 1...40 {
            for h in stride(from: 1, through: 25, by: 3) {
                let out = try Resampler.areaAverage(source, width: w, height: h)
                XCTAssertEqual(out.bytes, Self.reference(source, width: w, height: h), "37×23 → \(w)×\(h)")
            }
        }
    }
}
