import XCTest

@testable import PhotosImaging

/// The integer box reduction a PNG is read through (CImageCodec reduce.c: column sums per band,
/// then f columns at a time) gives exactly each output pixel's rounded mean of its f × f source
/// block (fewer at the right and bottom edges), alpha flattened onto white per source pixel
/// first: the same bytes as the per-output-pixel runs it replaced.
final class PNGBoxReductionTests: XCTestCase {
    /// The reference: mean of the block, rounded half up, in integers; RGBA over white as
    /// reduce.c's pc_over_white does it ((v·a + 255·(255 − a) + 127) / 255).
    static func reference(_ pixels: [UInt8], width: Int, height: Int, channels: Int, factor f: Int) -> [UInt8] {
        let ow = (width + f - 1) / f
        let oh = (height + f - 1) / f
        var out: [UInt8] = []
        for oy in 0..<oh {
            for ox in 0..<ow {
                var sums = [0, 0, 0]
                var n = 0
                for y in (oy * f)..<min(height, oy * f + f) {
                    for x in (ox * f)..<min(width, ox * f + f) {
                        let p = (y * width + x) * channels
                        for c in 0..<3 {
                            let v = Int(pixels[p + c])
                            if channels == 4 {
                                let a = Int(pixels[p + 3])
                                sums[c] += (v * a + 255 * (255 - a) + 127) / 255
                            } else {
                                sums[c] += v
                            }
                        }
                        n += 1
                    }
                }
                for c in 0..<3 { out.append(UInt8((sums[c] + n / 2) / n)) }
            }
        }
        return out
    }

    static func noise(count: Int, seed: UInt64) -> [UInt8] {
        var state = seed | 1
        return (0..<count).map { i in
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            // Some runs of opaque and of fully transparent alpha among the noise.
            return i % 11 == 3 ? 255 : i % 13 == 5 ? 0 : UInt8(truncatingIfNeeded: state)
        }
    }

    func testRGBAndRGBAReduceToTheExactBlockMeans() throws {
        // (width, height, channels, target edge): factors 2 to 9, edges that are and are not
        // multiples of the factor, a single row, a single column.
        let cases: [(Int, Int, Int, Int)] = [
            (241, 130, 3, 120), (241, 130, 4, 120), (500, 333, 3, 60), (500, 333, 4, 60),
            (97, 1, 3, 12), (1, 97, 4, 12), (365, 200, 3, 40), (64, 64, 4, 8)
        ]
        for (n, (w, h, channels, edge)) in cases.enumerated() {
            let pixels = Self.noise(count: w * h * channels, seed: UInt64(n + 1) &* 0x9E37_79B9_7F4A_7C15)
            let png = TinyPNG.make(width: w, height: h, channels: channels, pixels: pixels)
            let decoded = try png.withUnsafeBytes {
                try ImageDecoder.decode($0, format: .png, targetEdge: edge, maxPixels: 100_000_000)
            }
            let factor = max(w, h) / edge
            XCTAssertEqual(decoded.scale, factor, "\(w)×\(h)")
            XCTAssertEqual(decoded.pixels.width, (w + factor - 1) / factor)
            XCTAssertEqual(decoded.pixels.height, (h + factor - 1) / factor)
            XCTAssertEqual(
                decoded.pixels.bytes, Self.reference(pixels, width: w, height: h, channels: channels, factor: factor),
                "\(w)×\(h)×\(channels) → factor \(factor)")
        }
    }
}
