import CImageCodec
import CImageCodecTesting
import Foundation
import PhotosTestSupport
import XCTest

/// Issue 24 items 3, 4 and 7 through the binary: TIFF and GIF files import with their size and
/// format, `list --format tiff|gif` finds them, and a damaged TIFF or GIF fails alone (one
/// line naming the file and the library that refused it, exit 1, everything else imported).
final class TIFFGIFImportTests: BinaryTestCase {
    override var label: String { "photos-tiffgif-import" }

    func makeTIFF(_ path: String, width: Int, height: Int, tile: Int32 = 0) {
        var options = pc_tiff_test_options()
        options.bits = 8
        options.photometric = 2
        options.tile = tile
        options.compression = 5
        let samples = [UInt8](repeating: 140, count: width * height * 3)
        let status = samples.withUnsafeBufferPointer {
            pc_tiff_write_test(path, $0.baseAddress, Int32(width), Int32(height), &options)
        }
        XCTAssertEqual(status, PC_OK)
    }

    func makeGIF(_ path: String, width: Int, height: Int) {
        let palette = [UInt8](repeating: 90, count: 768)
        let indices = [UInt8](repeating: 1, count: width * height)
        palette.withUnsafeBufferPointer { p in
            indices.withUnsafeBufferPointer { i in
                var frame = pc_gif_test_frame(
                    screen_width: Int32(width), screen_height: Int32(height), background: 0, left: 0, top: 0,
                    width: Int32(width), height: Int32(height), interlace: 1, transparent: -1,
                    palette: p.baseAddress, indices: i.baseAddress)
                XCTAssertEqual(pc_gif_write_test(path, &frame), PC_OK)
            }
        }
    }

    func testTIFFAndGIFImportAndDamagedOnesFailAlone() throws {
        let input = dir + "/in"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        makeTIFF(input + "/scan.tif", width: 640, height: 480)
        makeTIFF(input + "/tiled.tiff", width: 300, height: 500, tile: 64)
        makeGIF(input + "/anim.gif", width: 200, height: 100)
        // Damaged copies: a TIFF cut in its image data, a GIF cut in its first frame.
        makeTIFF(dir + "/whole.tif", width: 640, height: 480)
        let tiff = try Data(contentsOf: URL(fileURLWithPath: dir + "/whole.tif"))
        // libtiff writes the strips first and IFD0 last: half the file has no directory.
        try tiff.prefix(tiff.count / 2).write(to: URL(fileURLWithPath: input + "/cut.tif"))
        makeGIF(dir + "/whole.gif", width: 200, height: 100)
        let gif = try Data(contentsOf: URL(fileURLWithPath: dir + "/whole.gif"))
        try gif.prefix(gif.count / 2).write(to: URL(fileURLWithPath: input + "/cut.gif"))

        let lib = dir + "/lib"
        let result = try run(["--library", lib, "import", input])
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(result.stdout.hasPrefix("Imported 3 photos, 0 duplicates, 0 skipped, 2 failed"), result.stdout)
        let lines = result.stderr.split(separator: "\n").map(String.init)
        let tiffLine = lines.first { $0.hasPrefix(input + "/cut.tif: error: ") }
        XCTAssertTrue(tiffLine?.contains("libtiff") == true, result.stderr)
        let gifLine = lines.first { $0.hasPrefix(input + "/cut.gif: error: ") }
        XCTAssertTrue(gifLine?.contains("GIF file refused by giflib") == true, result.stderr)

        let tiffs = try run(["--library", lib, "list", "--format", "tiff", "--json"])
        XCTAssertEqual(tiffs.stdout.split(separator: "\n").count, 2, tiffs.stdout)
        XCTAssertTrue(tiffs.stdout.contains("\"width\":640,\"height\":480"), tiffs.stdout)
        XCTAssertTrue(tiffs.stdout.contains("\"width\":300,\"height\":500"), tiffs.stdout)
        let gifs = try run(["--library", lib, "list", "--format", "gif", "--json"])
        XCTAssertEqual(gifs.stdout.split(separator: "\n").count, 1, gifs.stdout)
        XCTAssertTrue(gifs.stdout.contains("\"width\":200,\"height\":100"), gifs.stdout)
        XCTAssertTrue(gifs.stdout.contains("\"format\":\"gif\""), gifs.stdout)
    }
}
