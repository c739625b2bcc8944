import Foundation
import XCTest
import PhotosTestSupport

/// Two 48 MP HEICs without thumbnails import with two workers, one large decode at a time
/// (heif.c's process-wide slot): the import's peak resident set stays that of one such decode
/// (measured ~320 MB) instead of two at once (~600 MB).
final class LargeHEIFDecodeMemoryTests: BinaryTestCase {
    override var label: String { "photos-large-heif" }

    func testLargeHEIFDecodesTakeTurns() throws {
        let input = dir + "/in"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        try encodeFlatHEIC(width: 8064, height: 6048, y: 81, cb: 90, cr: 240, noiseRows: 400, to: input + "/red.heic")
        try encodeFlatHEIC(width: 6048, height: 8064, y: 145, cb: 54, cr: 34, noiseRows: 400, to: input + "/green.heic")
        let measured = try runMeasured(["--library", dir + "/lib", "import", input, "--jobs", "2", "-q"])
        XCTAssertEqual(measured.status, 0, measured.stderr)
        XCTAssertLessThan(measured.maxRSSKB, 450 * 1024, "one 48 MP decode at a time")
        // The decodes run in child processes (issue 31 B14): their memory is counted (Pss).
        XCTAssertGreaterThan(measured.maxRSSKB, 250 * 1024, "a 48 MP decode was measured")
        print("peak \(measured.maxRSSKB / 1024) MB")
        let list = try run(["--library", dir + "/lib", "list", "--json"])
        XCTAssertEqual(list.stdout.split(separator: "\n").count, 2, list.stdout)
        XCTAssertTrue(list.stdout.contains("\"width\":8064,\"height\":6048"), list.stdout)
        XCTAssertTrue(list.stdout.contains("\"width\":6048,\"height\":8064"), list.stdout)
    }
}
