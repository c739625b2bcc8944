import XCTest

@testable import PhotosImaging

/// A small JPEG (a thumbnail, up to 240 × 240 pixels) codes its chroma with the luma's optimized
/// Huffman tables: one DC and one AC table in its DHT segments, every component of its scan
/// naming table 0 (T.81 B.2.3, B.2.4.2). Larger images keep a chroma pair of their own. The
/// pixels are the same either way (Huffman coding is lossless): the decode matches the source.
final class SmallJPEGsShareHuffmanTablesTests: XCTestCase {
    /// The Huffman tables a JPEG defines, as (class, id) (class 0 DC, 1 AC), and the table
    /// selectors of its first scan's components ((DC id << 4) | AC id).
    static func huffmanLayout(_ jpeg: [UInt8]) -> (tables: [[Int]], selectors: [Int]) {
        var tables: [[Int]] = []
        var i = 2
        while i + 4 <= jpeg.count, jpeg[i] == 0xFF {
            let marker = jpeg[i + 1]
            let length = Int(jpeg[i + 2]) << 8 | Int(jpeg[i + 3])
            if marker == 0xC4 {
                var j = i + 4
                while j < i + 2 + length {
                    tables.append([Int(jpeg[j] >> 4), Int(jpeg[j] & 0x0F)])
                    j += 17 + jpeg[(j + 1)...(j + 16)].reduce(0) { $0 + Int($1) }
                }
            } else if marker == 0xDA {
                let n = Int(jpeg[i + 4])
                return (tables, (0..<n).map { Int(jpeg[i + 6 + 2 * $0]) })
            }
            i += 2 + length
        }
        return (tables, [])
    }

    /// A smooth colour image with an edge (so chroma and luma both carry AC coefficients).
    static func image(width: Int, height: Int) throws -> PixelBuffer {
        var rgb = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let i = (y * width + x) * 3
                rgb[i] = UInt8(x * 255 / max(1, width - 1))
                rgb[i + 1] = UInt8(y * 255 / max(1, height - 1))
                rgb[i + 2] = x < width / 2 ? 40 : 200
            }
        }
        return try PixelBuffer(width: width, height: height, rgb: rgb)
    }

    func testAThumbnailHasOneDCAndOneACTableForAllThreeComponents() throws {
        for (w, h) in [(120, 90), (90, 120), (240, 240), (17, 5)] {
            let source = try Self.image(width: w, height: h)
            let jpeg = try ImageDecoder.encodeJPEG(source, quality: 85)
            let layout = Self.huffmanLayout(jpeg)
            XCTAssertEqual(layout.tables.sorted { $0.lexicographicallyPrecedes($1) }, [[0, 0], [1, 0]], "\(w)×\(h)")
            XCTAssertEqual(layout.selectors, [0x00, 0x00, 0x00], "\(w)×\(h)")
            let decoded = try jpeg.withUnsafeBytes {
                try ImageDecoder.decode($0, format: .jpeg, targetEdge: 0, maxPixels: 1 << 20)
            }.pixels
            XCTAssertEqual([decoded.width, decoded.height], [w, h])
            // Lossy, but close: the mean absolute difference of the samples is small.
            var difference = 0
            for i in 0..<(w * h * 3) { difference += abs(Int(decoded.pixels[i]) - Int(source.pixels[i])) }
            XCTAssertLessThan(Double(difference) / Double(w * h * 3), 12, "\(w)×\(h)")
        }
    }

    func testALargerImageKeepsChromaTablesOfItsOwn() throws {
        for (w, h) in [(241, 240), (480, 360)] {
            let jpeg = try ImageDecoder.encodeJPEG(try Self.image(width: w, height: h), quality: 85)
            let layout = Self.huffmanLayout(jpeg)
            XCTAssertEqual(
                layout.tables.sorted { $0.lexicographicallyPrecedes($1) }, [[0, 0], [0, 1], [1, 0], [1, 1]], "\(w)×\(h)"
            )
            XCTAssertEqual(layout.selectors, [0x00, 0x11, 0x11], "\(w)×\(h)")
        }
    }
}
