import Foundation
import XCTest
import PhotosTestSupport
import PhotosCore

/// Where export's modification times (issue 9 item 6: each original and sidecar gets the
/// photo's capture time, utimensat(2)) meet the dry run (item 1): `export --dry-run` into a
/// folder whose files a real run would rewrite and re-time changes no byte and no mtime; the
/// real run then sets exactly those files' times.
final class ExportTimesDryRunTests: BinaryTestCase {
    override var label: String { "photos-export-times" }

    func mtime(_ path: String) -> Int {
        var st = stat()
        return lstat(path, &st) == 0 ? Int(st.st_mtim.tv_sec) : -1
    }

    func testExportDryRunSetsNoModificationTimeTheRealRunSets() throws {
        let lib = dir + "/lib", dest = dir + "/dest"
        XCTAssertEqual(try run(["--library", lib, "import", "-q", samplesDir]).status, 0)
        let line = try XCTUnwrap(
            try run(["--library", lib, "list", "--json"]).stdout.split(separator: "\n")
                .first { $0.contains("\"displayName\":\"storm.jpg\"") })
        let storm = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let unique = try XCTUnwrap(storm["uniqueName"] as? String)
        let captured = try XCTUnwrap(storm["captureDate"] as? String)
        let instant = try XCTUnwrap(CaptureTime.fromISO(captured, source: "")?.instant)
        XCTAssertEqual(try run(["--library", lib, "export", dest]).status, 0)
        XCTAssertEqual(mtime(dest + "/storm.jpg"), Int(instant.rounded(.down)), "the real export sets the capture time")

        // Every exported file gets an old time; then the original is lost and the rating changes,
        // so a run rewrites storm.jpg and its sidecar.
        let old = Date(timeIntervalSince1970: 1_000_000_000)
        let files = try FileManager.default.subpathsOfDirectory(atPath: dest).filter { !$0.hasPrefix(".") }
        for file in files {
            try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: dest + "/" + file)
        }
        XCTAssertEqual(unlink(dest + "/storm.jpg"), 0)
        XCTAssertEqual(try run(["--library", lib, "rate", unique, "5"]).status, 0)

        let before = LibrarySnapshot.fileTree(dest)
        let dry = try run(["--library", lib, "export", dest, "--dry-run", "--json"])
        XCTAssertEqual(dry.status, 0, dry.stderr)
        XCTAssertTrue(dry.stdout.contains("\"written\":1"), dry.stdout)
        XCTAssertEqual(LibrarySnapshot.fileTree(dest), before, "a dry run changed a file or a modification time")
        XCTAssertEqual(mtime(dest + "/storm.jpg.xmp"), 1_000_000_000)

        XCTAssertEqual(try run(["--library", lib, "export", dest]).status, 0)
        XCTAssertEqual(mtime(dest + "/storm.jpg"), Int(instant.rounded(.down)))
        XCTAssertEqual(mtime(dest + "/storm.jpg.xmp"), Int(instant.rounded(.down)))
        XCTAssertEqual(mtime(dest + "/ladybird.jpg"), 1_000_000_000, "an unchanged file keeps its time")
    }
}
