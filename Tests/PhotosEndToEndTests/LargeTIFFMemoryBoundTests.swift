import CImageCodec
import CImageCodecTesting
import Foundation
import PhotosTestSupport
import XCTest

/// Issue 24 item 3: a TIFF is decoded strip by strip into the box reducer, so a 20000 × 20000
/// scan (400 megapixels, 400 MB of 8-bit gray, 1.2 GB as RGB) imports within the per-worker
/// memory budget. The file is deflate-compressed (a few MB), written here with libtiff row by
/// row; the whole `photos import` runs as a child process whose peak RSS is measured.
final class LargeTIFFMemoryBoundTests: BinaryTestCase {
    override var label: String { "photos-large-tiff" }

    func testTwentyThousandSquareStripTIFFStaysUnderTheBudget() throws {
        let input = dir + "/scan.tif"
        XCTAssertEqual(pc_tiff_write_large_test(input, 20000, 20000, 64), PC_OK)
        let bytes = (try FileManager.default.attributesOfItem(atPath: input)[.size] as? Int) ?? 0
        XCTAssertLessThan(bytes, 40 << 20, "the compressed scan is small")
        let measured = try runMeasured([
            "--library", dir + "/lib", "import", "-q", "--max-pixels", "400000000", input
        ])
        XCTAssertEqual(measured.status, 0, measured.stderr)
        print("peak \(measured.maxRSSKB / 1024) MB for a \(bytes)-byte 20000x20000 TIFF")
        XCTAssertLessThan(measured.maxRSSKB, 150 * 1024, "strips, not the 400 MB image")
        let list = try run(["--library", dir + "/lib", "list", "--json"])
        XCTAssertTrue(list.stdout.contains("\"width\":20000,\"height\":20000"), list.stdout)
        XCTAssertTrue(list.stdout.contains("\"format\":\"tiff\""), list.stdout)
    }
}
