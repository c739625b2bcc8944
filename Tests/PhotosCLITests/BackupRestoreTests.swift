import Foundation
import XCTest
import PhotosTestSupport

/// `photos backup DEST [--originals]`, `photos restore BACKUP` and `photos init --from-backup`:
/// a backup taken while an import runs restores to a library that verify passes; originals are
/// hard-linked on the same file system and copied elsewhere; a nightly backup stays a mirror.
final class BackupRestoreTests: BinaryTestCase {
    override var label: String { "photos-backup" }
    var lib: String { dir + "/lib" }

    private func photoCount(_ library: String) throws -> Int {
        let listed = try run(["--library", library, "--json", "list"])
        XCTAssertEqual(listed.status, 0, listed.stderr)
        return listed.stdout.split(separator: "\n").count
    }

    func testABackupTakenWhileAnImportRunsRestoresToALibraryThatVerifyPasses() throws {
        try TestDatabase.requireSQLite(
            because:
                "photos backup and restore copy SQLite catalogs (a PostgreSQL catalog is pg_dump's: exit 69, PostgresLibraryCLITests)"
        )
        let (input, count) = try makeInput(copies: 20)
        XCTAssertEqual(try run(["--library", lib, "init", "-q"]).status, 0)
        let importing = try launch(["--library", lib, "import", input, "--batch-size", "4", "-j", "1"])
        // Backups until the import has finished; the first ones run while it writes.
        var backups = 0
        repeat {
            let backup = try run(["--library", lib, "backup", dir + "/backup-\(backups)", "--originals"])
            XCTAssertEqual(backup.status, 0, backup.stderr)
            backups += 1
        } while importing.isRunning && backups < 50
        importing.waitUntilExit()
        XCTAssertEqual(importing.terminationStatus, 0)
        XCTAssertEqual(try photoCount(lib), count)
        XCTAssertEqual(try run(["--library", lib, "backup", dir + "/backup-\(backups)", "--originals"]).status, 0)
        backups += 1

        for i in [0, backups - 1] {
            let restored = dir + "/restored-\(i)"
            let restore = try run(["--library", restored, "restore", dir + "/backup-\(i)"])
            XCTAssertEqual(restore.status, 0, restore.stderr)
            let verify = try run(["--library", restored, "verify"])
            XCTAssertEqual(verify.status, 0, "backup \(i): \(verify.stdout)\(verify.stderr)")
            XCTAssertLessThanOrEqual(try photoCount(restored), count)
        }
        XCTAssertEqual(
            try photoCount(dir + "/restored-\(backups - 1)"), count, "the backup after the import has every photo")
    }

    func testOriginalsAreHardLinkedOnTheSameFileSystemAndCopiedElsewhere() throws {
        try TestDatabase.requireSQLite(
            because:
                "photos backup and restore copy SQLite catalogs (a PostgreSQL catalog is pg_dump's: exit 69, PostgresLibraryCLITests)"
        )
        XCTAssertEqual(try run(["--library", lib, "import", samplesDir, "-q"]).status, 0)
        let backup = dir + "/backup"
        let result = try run(["--library", lib, "--json", "backup", backup, "--originals"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let report = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(report["linked"] as? Int, 6)
        XCTAssertEqual(report["copied"] as? Int, 0)
        let references = try FileManager.default.subpathsOfDirectory(atPath: lib + "/ExternalData").filter {
            $0.count == 67
        }
        XCTAssertEqual(references.count, 6)
        for reference in references {
            var original = stat(), copy = stat()
            XCTAssertEqual(stat(lib + "/ExternalData/" + reference, &original), 0)
            XCTAssertEqual(stat(backup + "/ExternalData/" + reference, &copy), 0)
            XCTAssertEqual(copy.st_ino, original.st_ino, "a hard link: \(reference)")
            XCTAssertGreaterThanOrEqual(original.st_nlink, 2)
        }

        // Another file system: /dev/shm is a tmpfs on Linux.
        var here = stat(), shm = stat()
        guard stat(dir, &here) == 0, stat("/dev/shm", &shm) == 0, here.st_dev != shm.st_dev,
            access("/dev/shm", W_OK) == 0
        else { throw XCTSkip("no second file system (/dev/shm) to back up to") }
        let elsewhere = "/dev/shm/photos-backup-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: elsewhere) }
        let copied = try run(["--library", lib, "--json", "backup", elsewhere, "--originals"])
        let copiedReport = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(copied.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(copiedReport["copied"] as? Int, 6)
        for reference in references {
            var original = stat(), copy = stat()
            XCTAssertEqual(stat(lib + "/ExternalData/" + reference, &original), 0)
            XCTAssertEqual(stat(elsewhere + "/ExternalData/" + reference, &copy), 0)
            XCTAssertEqual(copy.st_nlink, 1, "a copy")
            XCTAssertEqual(
                FileManager.default.contents(atPath: elsewhere + "/ExternalData/" + reference),
                FileManager.default.contents(atPath: lib + "/ExternalData/" + reference))
        }
        XCTAssertEqual(try run(["--library", elsewhere, "verify"]).status, 0)
    }

    func testANightlyBackupIntoTheSameFolderStaysAMirror() throws {
        try TestDatabase.requireSQLite(
            because:
                "photos backup and restore copy SQLite catalogs (a PostgreSQL catalog is pg_dump's: exit 69, PostgresLibraryCLITests)"
        )
        XCTAssertEqual(try run(["--library", lib, "import", samplesDir, "-q"]).status, 0)
        let backup = dir + "/backup"
        XCTAssertEqual(try run(["--library", lib, "backup", backup, "--originals", "-q"]).status, 0)
        let listed = try run(["--library", lib, "--json", "list"]).stdout.split(separator: "\n")
        let object = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(try XCTUnwrap(listed.first).utf8)) as? [String: Any])
        XCTAssertEqual(try run(["--library", lib, "delete", try XCTUnwrap(object["uniqueName"] as? String)]).status, 0)
        let again = try run(["--library", lib, "backup", backup, "--originals"])
        XCTAssertTrue(again.stdout.hasSuffix("0 linked, 0 copied, 5 already there, 1 removed\n"), again.stdout)
        XCTAssertEqual(try run(["--library", backup, "verify"]).status, 0)
        XCTAssertEqual(try photoCount(backup), 5)
    }

    func testRestoreMakesANewLibraryAndNeverOverwritesOne() throws {
        try TestDatabase.requireSQLite(
            because:
                "photos backup and restore copy SQLite catalogs (a PostgreSQL catalog is pg_dump's: exit 69, PostgresLibraryCLITests)"
        )
        XCTAssertEqual(try run(["--library", lib, "import", samplesDir, "-q"]).status, 0)
        let backup = dir + "/backup"
        XCTAssertEqual(try run(["--library", lib, "backup", backup, "--originals", "-q"]).status, 0)
        let viaInit = try run(["--library", dir + "/new", "init", "--from-backup", backup])
        XCTAssertEqual(viaInit.status, 0, viaInit.stderr)
        XCTAssertEqual(try photoCount(dir + "/new"), 6)
        XCTAssertEqual(try run(["--library", dir + "/new", "verify"]).status, 0)

        let existing = try run(["--library", lib, "restore", backup])
        XCTAssertEqual(existing.status, 73, existing.stderr)
        XCTAssertTrue(existing.stderr.contains("a library already exists at \(lib)"), existing.stderr)
        XCTAssertEqual(try photoCount(lib), 6)

        let none = try run(["--library", dir + "/other", "restore", dir + "/no-backup"])
        XCTAssertEqual(none.status, 66, none.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/other"), "nothing created")

        let inside = try run(["--library", lib, "backup", lib + "/backup"])
        XCTAssertEqual(inside.status, 73, "a backup inside the library is refused")
    }
}
