import Foundation
import XCTest
import PhotosTestSupport
import PhotosCore
import PhotosSQLite

/// Issue 9 items 9 and 10 (variants) for export's state database `DEST/.photos-export.sqlite`:
/// - held by another process, the export waited 5 s whatever `--wait` said, then failed photos
///   one by one with "The operation could not be completed. (PhotosStorage.SQLiteError error
///   1.)" and exit 1; now 75 at once (`--wait 0`), naming the state;
/// - a state this user may not write was taken for damaged: moved aside to `.damaged` and
///   rebuilt; now 77 naming it, and it stays where it was.
final class ExportStateBusyAndUnwritableTests: BinaryTestCase {
    override var label: String { "photos-i9-export-state" }
    var lib: String { dir + "/lib" }
    var dest: String { dir + "/out" }

    override func setUpWithError() throws {
        try super.setUpWithError()
        XCTAssertEqual(
            try run(["--library", lib, "import", "-q", samplesDir + "/storm.jpg", samplesDir + "/path.jpg"]).status, 0)
        XCTAssertEqual(try run(["--library", lib, "export", "-q", dest]).status, 0)
    }

    func testBusyStateExits75AtOnce() throws {
        let holder = try Database(path: dest + "/" + ExportState.fileName, busyTimeout: 0)
        try holder.execute("BEGIN IMMEDIATE")
        let start = Date()
        let r = try run(["--library", lib, "--wait", "0", "export", dest, "--update", "--thumbnails"])
        XCTAssertLessThan(Date().timeIntervalSince(start), 3, "--wait 0 was not honoured")
        XCTAssertEqual(r.status, 75, r.stderr)
        XCTAssertTrue(r.stderr.contains("export state \(dest)/.photos-export.sqlite is busy"), r.stderr)
        XCTAssertFalse(r.stderr.contains("SQLiteError error"), r.stderr)
        try holder.execute("ROLLBACK")
        let again = try run(["--library", lib, "export", dest, "--update", "--thumbnails"])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: dest + "/storm.thumb.jpg"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: dest + "/.photos-export.sqlite.damaged"))
    }

    func testReadOnlyStateIsNotSetAside() throws {
        guard geteuid() == 0 else { throw XCTSkip("needs root to hand DEST to nobody") }
        chmod(dir, 0o755)
        chmod(lib, 0o755)
        chown(dest, 65534, 65534)
        for name in try FileManager.default.contentsOfDirectory(atPath: dest)
        where !name.hasPrefix(".photos-export.sqlite") {
            chown(dest + "/" + name, 65534, 65534)
        }
        let state = dest + "/" + ExportState.fileName
        let before = FileManager.default.contents(atPath: state)
        let r = try asReader(["--library", lib, "export", dest, "--update", "--thumbnails"])
        XCTAssertEqual(r.status, 77, r.stderr)
        XCTAssertTrue(r.stderr.contains(state), r.stderr)
        XCTAssertFalse(
            FileManager.default.fileExists(atPath: state + ".damaged"), "a good state was set aside as damaged")
        XCTAssertEqual(FileManager.default.contents(atPath: state), before)
    }
}
