import Foundation
import PhotosTestSupport
import XCTest

/// Issue 31 item 19: faults in the middle of a command leave no damage. A backup that fills
/// DEST leaves the previous backup whole (originals first, catalog last); a `sync --apply` that
/// fills the disk while copying originals leaves none of them behind; a `catalog move` that
/// fills the disk leaves no `photos.sqlite`, `-wal` or `-shm`. The full disk is a small tmpfs
/// (skipped with a message where it cannot be mounted).
final class FaultsMidCommandTests: BinaryTestCase {
    override var label: String { "photos-faults" }

    private func photoCount(_ library: String) throws -> Int {
        let listed = try run(["--library", library, "--json", "list"])
        XCTAssertEqual(listed.status, 0, listed.stderr)
        return listed.stdout.split(separator: "\n").count
    }

    /// Every file under `root`, hidden ones too (temporary files start with a dot).
    private func allFiles(_ root: String) -> [String] { filesUnder(root, hidden: true) }

    func testABackupThatFillsDestLeavesThePreviousBackupWhole() throws {
        try TestDatabase.requireSQLite(
            because:
                "photos backup and restore copy SQLite catalogs (a PostgreSQL catalog is pg_dump's: exit 69, PostgresLibraryCLITests)"
        )
        let disk = dir + "/disk"
        try mountSmallFileSystem(at: disk, size: "1m")
        let lib = dir + "/lib", backup = disk + "/backup"
        let small = dir + "/small", large = dir + "/large"
        try FileManager.default.createDirectory(atPath: small, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: large, withIntermediateDirectories: true)
        for name in ["storm.jpg", "ladybird.jpg"] {
            try FileManager.default.copyItem(atPath: samplesDir + "/" + name, toPath: small + "/" + name)
        }
        for name in ["kite.png", "path.jpg"] {
            try FileManager.default.copyItem(atPath: samplesDir + "/" + name, toPath: large + "/" + name)
        }
        XCTAssertEqual(try run(["--library", lib, "import", small, "-q"]).status, 0)
        let first = try run(["--library", lib, "backup", backup, "--originals"])
        XCTAssertEqual(first.status, 0, first.stderr)
        let before = allFiles(backup + "/ExternalData")
        XCTAssertEqual(before.count, 2)
        let catalogBefore = FileManager.default.contents(atPath: backup + "/photos.sqlite")

        // 1.3 MB more originals do not fit in 1 MB.
        XCTAssertEqual(try run(["--library", lib, "import", large, "-q"]).status, 0)
        let full = try run(["--library", lib, "backup", backup, "--originals"])
        XCTAssertEqual(full.status, 74, full.stderr)
        XCTAssertTrue(full.stderr.contains("No space left on device"), full.stderr)
        // The previous backup, as it was: its catalog, its two originals, nothing else.
        XCTAssertEqual(FileManager.default.contents(atPath: backup + "/photos.sqlite"), catalogBefore)
        XCTAssertEqual(allFiles(backup + "/ExternalData"), before)
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: backup).filter { $0.contains("staging") }, [])
        XCTAssertEqual(try photoCount(backup), 2)
        let verify = try run(["--library", backup, "verify"])
        XCTAssertEqual(verify.status, 0, verify.stdout + verify.stderr)
        XCTAssertEqual(try run(["--library", lib, "verify"]).status, 0)
    }

    func testAnApplyThatFillsTheDiskLeavesNoCopiedOriginalBehind() throws {
        let disk = dir + "/disk"
        try mountSmallFileSystem(at: disk, size: "1m")
        let source = dir + "/source", target = disk + "/target"
        XCTAssertEqual(try run(["--library", source, "import", samplesDir, "-q"]).status, 0)
        let changeset = dir + "/all.changeset"
        XCTAssertEqual(try run(["--library", source, "sync", "--export", changeset]).status, 0)
        XCTAssertEqual(try run(["--library", target, "init", "-q"]).status, 0)

        // 2.2 MB of originals into what is left of 1 MB.
        let apply = try run(["--library", target, "sync", "--apply", changeset])
        XCTAssertEqual(apply.status, 74, apply.stderr)
        XCTAssertEqual(allFiles(target + "/ExternalData"), [], "every copied original is removed again")
        XCTAssertEqual(try photoCount(target), 0)
        let verify = try run(["--library", target, "verify"])
        XCTAssertEqual(verify.status, 0, verify.stdout + verify.stderr)
    }

    /// The same kind for the other commands that copy originals before they commit: an
    /// import keeps what committed and leaves no orphan; a merge (one transaction) leaves none
    /// of its copies.
    func testAnImportAndAMergeThatFillTheDiskLeaveNoOrphan() throws {
        let disk = dir + "/disk"
        try mountSmallFileSystem(at: disk, size: "1m")
        let imported = disk + "/imported"
        let result = try run(["--library", imported, "import", samplesDir, "--batch-size", "1", "-j", "1"])
        XCTAssertEqual(result.status, 74, result.stderr)
        let committed = try photoCount(imported)
        XCTAssertEqual(allFiles(imported + "/ExternalData").count, committed, "only the committed photos' originals")
        let verify = try run(["--library", imported, "verify"])
        XCTAssertEqual(verify.status, 0, verify.stdout + verify.stderr)
        try FileManager.default.removeItem(atPath: imported)

        let source = dir + "/source", merged = disk + "/merged"
        XCTAssertEqual(try run(["--library", source, "import", samplesDir, "-q"]).status, 0)
        XCTAssertEqual(try run(["--library", merged, "init", "-q"]).status, 0)
        let merge = try run(["--library", merged, "merge", "--from", source])
        XCTAssertEqual(merge.status, 74, merge.stderr)
        XCTAssertEqual(try photoCount(merged), 0)
        XCTAssertEqual(allFiles(merged + "/ExternalData"), [])
        XCTAssertEqual(try run(["--library", merged, "verify"]).status, 0)
    }

    func testACatalogMoveThatFillsTheDiskLeavesNoSQLiteFiles() throws {
        guard TestDatabase.isPostgreSQL else {
            throw XCTSkip("catalog move --to sqlite needs a PostgreSQL library (PHOTOS_TEST_DATABASE_URL)")
        }
        let disk = dir + "/disk"
        try mountSmallFileSystem(at: disk, size: "1m")
        let lib = disk + "/lib"
        XCTAssertEqual(try run(["--library", lib, "import", samplesDir + "/storm.jpg", "-q"]).status, 0)
        // Fill the disk but for a few KB: the new photos.sqlite cannot be made whole.
        let filler = disk + "/filler"
        XCTAssertTrue(FileManager.default.createFile(atPath: filler, contents: nil))
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: filler))
        let block = Data(repeating: 0, count: 4096)
        var fs = statvfs()
        while statvfs(disk, &fs) == 0, Int(fs.f_bavail) * Int(fs.f_frsize) > 8192 {
            handle.write(block)
        }
        handle.closeFile()
        let move = try run(["--library", lib, "catalog", "move", "--to", "sqlite"])
        XCTAssertEqual(move.status, 74, move.stderr)
        XCTAssertTrue(move.stderr.contains(lib + "/photos.sqlite"), move.stderr)
        for suffix in ["", "-wal", "-shm", "-journal"] {
            XCTAssertFalse(
                FileManager.default.fileExists(atPath: lib + "/photos.sqlite" + suffix),
                "photos.sqlite\(suffix) left behind: \(move.stderr)")
        }
        try FileManager.default.removeItem(atPath: filler)
        XCTAssertEqual(try photoCount(lib), 1, "the library stays on its PostgreSQL catalog")
        XCTAssertEqual(try run(["--library", lib, "verify"]).status, 0)
    }
}
