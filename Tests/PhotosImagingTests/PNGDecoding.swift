import CImageCodec
import XCTest

/// One `pc_png_decode` of a PNG as the PNG decoder tests compare it (Sources/CImageCodec/png.c):
/// the values a caller sees, and which path png.c took (not compared).
struct PNGDecoding {
    /// How the image data is inflated: by libpng alone, fed to libpng as rows by png.c (whole
    /// by libdeflate where it fits, else streamed), or fed and never inflated whole.
    enum Path { case libpngAlone, fed, fedStreaming }

    var status: UInt32
    var error: String
    var warnings: String
    /// Pixels.
    var width: Int32
    var height: Int32
    /// RGB, 3 bytes a pixel.
    var pixels: [UInt8]
    var exif: [UInt8]
    /// Whether png.c fed libpng the rows (`png_fed_rows`).
    var fed: Bool
    /// Whether the image data was inflated as one buffer (`png_whole_inflate`).
    var whole: Bool

    /// Decodes `bytes` along `path`, to `targetEdge` pixels (0: full size), with or without the
    /// embedded ICC profile applied.
    init(_ bytes: [UInt8], _ path: Path, targetEdge: Int32, ignoreICC: Bool = false) {
        var options = pc_decode_options()
        options.target_edge = targetEdge
        options.max_pixels = 100_000_000
        options.ignore_icc = ignoreICC ? 1 : 0
        options.png_streaming_inflate = path == .libpngAlone ? 1 : 0
        options.png_never_whole = path == .fedStreaming ? 1 : 0
        var decoded = pc_decoded()
        var messages = pc_messages()
        let status = bytes.withUnsafeBufferPointer {
            pc_png_decode($0.baseAddress, $0.count, &options, &decoded, &messages)
        }
        self.status = status.rawValue
        error = withUnsafeBytes(of: &messages.error) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
        warnings = withUnsafeBytes(of: &messages.warnings) {
            String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
        (width, height) = (decoded.width, decoded.height)
        pixels = []
        if let p = decoded.pixels {
            pixels = Array(UnsafeBufferPointer(start: p, count: Int(decoded.width) * Int(decoded.height) * 3))
            pc_free(p)
        }
        exif = []
        if let e = decoded.exif {
            exif = Array(UnsafeBufferPointer(start: e, count: decoded.exif_size))
            pc_free(e)
        }
        if let x = decoded.xmp { pc_free(x) }
        fed = decoded.png_fed_rows != 0
        whole = decoded.png_whole_inflate != 0
    }

    /// Asserts that this decoding gave what `reference` gave: status, error message, warnings,
    /// size, pixels and EXIF (not the path taken).
    func assertSame(as reference: PNGDecoding, _ label: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(status, reference.status, "\(label): status", file: file, line: line)
        XCTAssertEqual(error, reference.error, "\(label): error", file: file, line: line)
        XCTAssertEqual(warnings, reference.warnings, "\(label): warnings", file: file, line: line)
        XCTAssertEqual(width, reference.width, "\(label): width", file: file, line: line)
        XCTAssertEqual(height, reference.height, "\(label): height", file: file, line: line)
        XCTAssertTrue(pixels == reference.pixels, "\(label): pixels differ", file: file, line: line)
        XCTAssertEqual(exif, reference.exif, "\(label): EXIF", file: file, line: line)
    }
}
