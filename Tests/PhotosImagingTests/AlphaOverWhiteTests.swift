import CImageCodec
import XCTest

/// PNG alpha flattened onto white while box-reducing rows (Sources/CImageCodec/reduce.c): every
/// pair of 8-bit value and alpha gives round((value × alpha + 255 × (255 − alpha)) / 255), the
/// same whether four pixels at a time (the SSE2 path) or one (the rest of a row).
final class AlphaOverWhiteTests: XCTestCase {
    func testEveryValueAndAlphaFlattenExactly() {
        // Column x holds value x & 255 (red), 255 − that (green), that ^ 0x5A (blue); row y alpha y.
        // 259 columns: 64 groups of four and three pixels after them.
        let width = 259
        var pixels: [UInt8] = []
        for a in 0..<256 {
            for x in 0..<width {
                let v = x & 255
                pixels += [UInt8(v), UInt8(255 - v), UInt8(v ^ 0x5A), UInt8(a)]
            }
        }
        let png = TinyPNG.make(width: width, height: 256, channels: 4, pixels: pixels)
        var options = pc_decode_options()
        options.target_edge = 0 // box factor 1: each output pixel is one flattened input pixel
        options.max_pixels = 1_000_000
        var decoded = pc_decoded()
        var messages = pc_messages()
        let status = png.withUnsafeBufferPointer {
            pc_png_decode($0.baseAddress, $0.count, &options, &decoded, &messages)
        }
        XCTAssertEqual(status, PC_OK)
        guard let out = decoded.pixels else { return XCTFail("no pixels") }
        defer { pc_free(out) }
        XCTAssertEqual(decoded.width, Int32(width))
        XCTAssertEqual(decoded.height, 256)
        var wrong = 0
        for a in 0..<256 {
            for x in 0..<width {
                for c in 0..<3 {
                    let v = Int(pixels[(a * width + x) * 4 + c])
                    let expected = (v * a + 255 * (255 - a) + 127) / 255
                    if Int(out[(a * width + x) * 3 + c]) != expected { wrong += 1 }
                }
            }
        }
        XCTAssertEqual(wrong, 0, "flattened values differ from round((v·a + 255·(255 − a)) / 255)")
    }
}
