import Foundation
import XCTest
import PhotosTestSupport

/// `photos backup DEST` replaces the catalog in DEST and, with `--originals`, removes the
/// originals there that the copy does not reference: so it only does that to a folder an
/// earlier `photos backup` wrote (its `.photos-backup` marker). A DEST that is another library,
/// or holds a catalog or `ExternalData` it did not write, is refused with 73 before anything
/// is written, and that library is left byte for byte as it was.
final class BackupIntoAnotherLibraryTests: BinaryTestCase {
    override var label: String { "photos-backup-into-library" }
    var lib: String { dir + "/lib" }
    var other: String { dir + "/other" }

    override func setUpWithError() throws {
        try super.setUpWithError()
        let mine = try run(["--library", lib, "import", "-q", samplesDir + "/storm.jpg"])
        XCTAssertEqual(mine.status, 0, mine.stderr)
        let theirs = try run(["--library", other, "import", "-q", samplesDir + "/path.jpg"])
        XCTAssertEqual(theirs.status, 0, theirs.stderr)
    }

    private func assertRefused(_ dest: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let before = try LibrarySnapshot.dumpDatabase(dest + "/photos.sqlite")
        let tree = LibrarySnapshot.fileTree(dest)
        for originals in [true, false] {
            for json in [true, false] {
                let args =
                    ["--library", lib] + (json ? ["--json"] : []) + ["backup", dest]
                    + (originals ? ["--originals"] : [])
                let result = try run(args)
                XCTAssertEqual(result.status, 73, "\(args): \(result.stderr)", file: file, line: line)
                XCTAssertEqual(result.stdout, "", file: file, line: line)
                XCTAssertTrue(result.stderr.contains(dest), result.stderr, file: file, line: line)
                if json {
                    let object = try JSONSerialization.jsonObject(with: Data(result.stderr.utf8)) as? [String: Any]
                    XCTAssertNotNil(object?["error"], result.stderr, file: file, line: line)
                }
            }
        }
        XCTAssertEqual(try LibrarySnapshot.dumpDatabase(dest + "/photos.sqlite"), before, file: file, line: line)
        XCTAssertEqual(LibrarySnapshot.fileTree(dest), tree, file: file, line: line)
    }

    func testABackupIntoAnotherLibraryIsRefusedAndThatLibraryKeepsItsPhotosAndOriginals() throws {
        try TestDatabase.requireSQLite(
            because:
                "photos backup and restore copy SQLite catalogs (a PostgreSQL catalog is pg_dump's: exit 69, PostgresLibraryCLITests)"
        )
        try assertRefused(other)
        let listed = try run(["--library", other, "--json", "list"])
        XCTAssertEqual(listed.stdout.split(separator: "\n").count, 1)
        XCTAssertTrue(listed.stdout.contains("path.jpg"), listed.stdout)
        XCTAssertEqual(try run(["--library", other, "verify", "-q"]).status, 0)
    }

    func testAFolderWithOnlyOriginalsBackupDidNotWriteIsRefused() throws {
        try TestDatabase.requireSQLite(
            because:
                "photos backup and restore copy SQLite catalogs (a PostgreSQL catalog is pg_dump's: exit 69, PostgresLibraryCLITests)"
        )
        let dest = dir + "/data-only"
        try FileManager.default.createDirectory(atPath: dest + "/ExternalData/ab", withIntermediateDirectories: true)
        let reference = "ab/" + String(repeating: "a", count: 64)
        XCTAssertTrue(FileManager.default.createFile(atPath: dest + "/ExternalData/" + reference, contents: Data([1])))
        try assertRefused(dest)
        XCTAssertTrue(FileManager.default.fileExists(atPath: dest + "/ExternalData/" + reference))
    }

    func testARestoredLibraryIsNotABackupFolder() throws {
        try TestDatabase.requireSQLite(
            because:
                "photos backup and restore copy SQLite catalogs (a PostgreSQL catalog is pg_dump's: exit 69, PostgresLibraryCLITests)"
        )
        let backup = dir + "/backup", restored = dir + "/restored"
        XCTAssertEqual(try run(["--library", lib, "backup", backup, "--originals"]).status, 0)
        let restore = try run(["--library", restored, "restore", backup])
        XCTAssertEqual(restore.status, 0, restore.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: restored + "/.photos-backup"))
        try assertRefused(restored)
    }

    func testABackupFolderIsReplacedNightlyAndAnEmptyOrNewFolderTakesOne() throws {
        try TestDatabase.requireSQLite(
            because:
                "photos backup and restore copy SQLite catalogs (a PostgreSQL catalog is pg_dump's: exit 69, PostgresLibraryCLITests)"
        )
        let empty = dir + "/empty", unrelated = dir + "/unrelated"
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: unrelated, withIntermediateDirectories: true)
        XCTAssertTrue(FileManager.default.createFile(atPath: unrelated + "/notes.txt", contents: Data("hi".utf8)))
        for dest in [empty, unrelated, dir + "/new/nested"] {
            for run in 0..<2 {
                let result = try self.run(["--library", lib, "--json", "backup", dest, "--originals"])
                XCTAssertEqual(result.status, 0, "\(dest) run \(run): \(result.stderr)")
            }
            let marker = try String(contentsOfFile: dest + "/.photos-backup", encoding: .utf8)
            XCTAssertEqual(marker, lib + "\n")
            let listed = try self.run(["--library", dest, "--json", "list"])
            XCTAssertTrue(listed.stdout.contains("storm.jpg"), listed.stdout)
            XCTAssertEqual(try self.run(["--library", dest, "verify", "-q"]).status, 0)
        }
        XCTAssertEqual(try String(contentsOfFile: unrelated + "/notes.txt", encoding: .utf8), "hi")
    }
}
