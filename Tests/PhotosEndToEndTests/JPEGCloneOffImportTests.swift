import Foundation
import PhotosTestSupport
import XCTest

/// Issue 30 item 6: `PHOTOS_JPEG_CLONE=off` turns our own JPEG decoders and thumbnail encoder off in
/// the `photos` process (libjpeg does all the work): `--version` says so, and importing Samples/ (and
/// damaged copies) gives the same photos, sizes, thumbnail sizes and failures as with them on.
final class JPEGCloneOffImportTests: BinaryTestCase {
    /// Imports `input` into a new library with `PHOTOS_JPEG_CLONE` set to `clone` (nil: unset).
    private func importRows(_ input: String, library: String, clone: String?) throws -> (
        status: Int32, rows: [[String?]], stderr: String
    ) {
        var environment = ProcessInfo.processInfo.environment
        environment["PHOTOS_JPEG_CLONE"] = clone
        let result = try runProcess(
            try binary(), ["--library", library, "import", "-q", input], environment: environment)
        let rows = try TestCatalog(root: library).rows(
            """
            SELECT p.display_name, p.width, p.height, p.orientation, t.width, t.height
            FROM photo p JOIN thumbnail t ON t.photo_id = p.id ORDER BY p.display_name
            """)
        return (result.status, rows, result.stderr)
    }

    func testCloneOffImportsWithLibjpegAndTheSameResults() throws {
        var environment = ProcessInfo.processInfo.environment
        environment["PHOTOS_JPEG_CLONE"] = "off"
        let version = try runProcess(try binary(), ["--version"], environment: environment)
        XCTAssertEqual(version.status, 0)
        XCTAssertTrue(version.stdout.hasSuffix("JPEG decoders: off (PHOTOS_JPEG_CLONE=off)\n"), version.stdout)

        let input = dir + "/in"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        var jpegs = 0
        for name in try FileManager.default.contentsOfDirectory(atPath: samplesDir) where name.hasSuffix(".jpg") {
            let bytes = try XCTUnwrap(FileManager.default.contents(atPath: samplesDir + "/" + name))
            try bytes.write(to: URL(fileURLWithPath: input + "/" + name))
            try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: input + "/cut-" + name))
            jpegs += 1
        }
        XCTAssertGreaterThanOrEqual(jpegs, 5)
        let on = try importRows(input, library: dir + "/on", clone: nil)
        let off = try importRows(input, library: dir + "/off", clone: "off")
        XCTAssertEqual(on.status, 1, "the cut copies fail: \(on.stderr)")
        XCTAssertEqual(off.status, on.status, off.stderr)
        XCTAssertEqual(on.rows.count, jpegs, "the whole samples imported: \(on.rows)")
        XCTAssertEqual(off.rows, on.rows)
        let failures = { (text: String) in text.split(separator: "\n").filter { $0.contains("error:") }.sorted() }
        XCTAssertEqual(failures(off.stderr), failures(on.stderr))
        XCTAssertEqual(failures(on.stderr).count, jpegs, on.stderr)
    }
}
