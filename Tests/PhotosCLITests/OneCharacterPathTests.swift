import Foundation
import PhotosTestSupport
import XCTest

/// Files and folders named by one character, relative to the current folder, are written where
/// they are named: `photos thumbnail --output a` died of SIGILL (NSString's
/// deletingLastPathComponent traps on "a" in swift-corelibs-foundation 6.3.1).
final class OneCharacterPathTests: BinaryTestCase {
    func testOneCharacterOutputsAreWritten() throws {
        let lib = dir + "/lib"
        XCTAssertEqual(try run(["--library", lib, "import", "-q", samplesDir + "/storm.jpg"]).status, 0)
        let listed = try run(["--library", lib, "list", "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [String: Any]
        let name = try XCTUnwrap(object?["uniqueName"] as? String, listed.stdout)

        let thumbnail = try run(["--library", lib, "thumbnail", name, "--output", "a"], in: dir)
        XCTAssertEqual(thumbnail.status, 0, thumbnail.stderr)
        let written = try XCTUnwrap(FileManager.default.contents(atPath: dir + "/a"))
        XCTAssertEqual(Array(written.prefix(2)), [0xFF, 0xD8])
        XCTAssertEqual(try run(["--library", lib, "thumbnail", name, "--output", dir + "/whole.jpg"]).status, 0)
        XCTAssertEqual(written, FileManager.default.contents(atPath: dir + "/whole.jpg"), "the same thumbnail")

        // A name with a trailing slash is a folder's: refused as a file that cannot be
        // created (73), not a crash, and nothing named "b" is left.
        let folderName = try run(["--library", lib, "thumbnail", name, "--output", "b/"], in: dir)
        XCTAssertEqual(folderName.status, 73, folderName.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/b"))

        let export = try run(["--library", lib, "export", "-q", "c"], in: dir)
        XCTAssertEqual(export.status, 0, export.stderr)
        let original = try XCTUnwrap(FileManager.default.contents(atPath: samplesDir + "/storm.jpg"))
        XCTAssertEqual(FileManager.default.contents(atPath: dir + "/c/storm.jpg"), original)

        // `photos backup` copies SQLite catalogs only (a PostgreSQL one is pg_dump's: 69).
        let backup = try run(["--library", lib, "backup", "-q", "d"], in: dir)
        XCTAssertEqual(backup.status, TestDatabase.isPostgreSQL ? 69 : 0, backup.stderr)
        var isFolder: ObjCBool = false
        let made = FileManager.default.fileExists(atPath: dir + "/d", isDirectory: &isFolder) && isFolder.boolValue
        XCTAssertEqual(made, !TestDatabase.isPostgreSQL)
    }
}
