import Foundation
import XCTest
import PhotosTestSupport

/// `photos backup DEST [--originals]`, `photos restore BACKUP` and `photos init --from-backup`:
/// a backup taken while an import runs restores to a library that verify passes; originals are
/// independent copies (never hard links), checked by size and SHA-256; a nightly backup stays a
/// mirror.
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

    /// The six originals of the library, as references (`ab/abcdef…`).
    private func references() throws -> [String] {
        try FileManager.default.subpathsOfDirectory(atPath: lib + "/ExternalData").filter { $0.count == 67 }.sorted()
    }

    /// Issue 31 item 2: a backup's originals are files of their own, on the same file system
    /// (where a hard link was made before) and elsewhere: another inode, link count 1, the
    /// same bytes; so are a restored library's.
    func testOriginalsAreIndependentCopiesOnTheSameFileSystemAndElsewhere() throws {
        try TestDatabase.requireSQLite(
            because:
                "photos backup and restore copy SQLite catalogs (a PostgreSQL catalog is pg_dump's: exit 69, PostgresLibraryCLITests)"
        )
        XCTAssertEqual(try run(["--library", lib, "import", samplesDir, "-q"]).status, 0)
        let backup = dir + "/backup"
        let result = try run(["--library", lib, "--json", "backup", backup, "--originals"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let report = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(report["copied"] as? Int, 6)
        XCTAssertEqual(report["replaced"] as? Int, 0)
        XCTAssertNil(report["linked"], "no hard links any more")
        let references = try references()
        XCTAssertEqual(references.count, 6)
        func assertIndependent(_ copyRoot: String, _ what: String) {
            for reference in references {
                var original = stat(), copy = stat()
                XCTAssertEqual(stat(lib + "/ExternalData/" + reference, &original), 0)
                XCTAssertEqual(stat(copyRoot + "/ExternalData/" + reference, &copy), 0)
                XCTAssertNotEqual(copy.st_ino, original.st_ino, "\(what): not a hard link: \(reference)")
                XCTAssertEqual(copy.st_nlink, 1, "\(what): \(reference)")
                XCTAssertEqual(original.st_nlink, 1, "the library's original: \(reference)")
                XCTAssertEqual(
                    FileManager.default.contents(atPath: copyRoot + "/ExternalData/" + reference),
                    FileManager.default.contents(atPath: lib + "/ExternalData/" + reference), what)
            }
        }
        assertIndependent(backup, "backup")
        let restored = dir + "/restored"
        XCTAssertEqual(try run(["--library", restored, "restore", backup]).status, 0)
        assertIndependent(restored, "restored library")
        for reference in references {
            var inBackup = stat()
            XCTAssertEqual(stat(backup + "/ExternalData/" + reference, &inBackup), 0)
            XCTAssertEqual(inBackup.st_nlink, 1, "restore links nothing: \(reference)")
        }
        XCTAssertEqual(try run(["--library", restored, "verify"]).status, 0)

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
        assertIndependent(elsewhere, "backup on another file system")
        XCTAssertEqual(try run(["--library", elsewhere, "verify"]).status, 0)
    }

    /// Issue 31 item 2: damage to an original in the library does not reach the backup; a
    /// backup while it is damaged keeps the good copy (and names the damaged original); a copy
    /// damaged in the backup is replaced by the next backup once the library's original is
    /// intact (healed by importing the file again).
    func testDamageInTheLibraryNeverReachesTheBackupAndADamagedCopyIsReplaced() throws {
        try TestDatabase.requireSQLite(
            because:
                "photos backup and restore copy SQLite catalogs (a PostgreSQL catalog is pg_dump's: exit 69, PostgresLibraryCLITests)"
        )
        XCTAssertEqual(try run(["--library", lib, "import", samplesDir, "-q"]).status, 0)
        let backup = dir + "/backup"
        XCTAssertEqual(try run(["--library", lib, "backup", backup, "--originals", "-q"]).status, 0)
        let reference = try XCTUnwrap(try references().first)
        let inLibrary = lib + "/ExternalData/" + reference, inBackup = backup + "/ExternalData/" + reference
        let good = try XCTUnwrap(FileManager.default.contents(atPath: inLibrary))

        // Damage in place (same size): the backup's copy is another file.
        func damage(_ path: String) throws {
            let handle = try XCTUnwrap(FileHandle(forWritingAtPath: path))
            handle.seek(toFileOffset: 1000)
            handle.write(Data(repeating: 0x5A, count: 64))
            handle.closeFile()
        }
        try damage(inLibrary)
        XCTAssertNotEqual(FileManager.default.contents(atPath: inLibrary), good)
        XCTAssertEqual(FileManager.default.contents(atPath: inBackup), good, "the backup is not damaged")

        // A backup now keeps the good copy (its size and SHA-256 are right).
        let whileDamaged = try run(["--library", lib, "--json", "backup", backup, "--originals"])
        XCTAssertEqual(whileDamaged.status, 0, whileDamaged.stderr)
        let report = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(whileDamaged.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(report["kept"] as? Int, 6)
        XCTAssertEqual(report["damaged"] as? [String], [])
        XCTAssertEqual(FileManager.default.contents(atPath: inBackup), good)
        XCTAssertEqual(try run(["--library", backup, "verify"]).status, 0)
        // A new backup does not copy the damaged original, and names it (exit 1).
        let fresh = dir + "/fresh"
        let intoFresh = try run(["--library", lib, "--json", "backup", fresh, "--originals"])
        XCTAssertEqual(intoFresh.status, 1, intoFresh.stderr)
        XCTAssertTrue(
            intoFresh.stderr.contains(reference + ": error: original damaged in the library"), intoFresh.stderr)
        let freshReport = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(intoFresh.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(freshReport["damaged"] as? [String], [reference])
        XCTAssertEqual(freshReport["copied"] as? Int, 5)
        XCTAssertFalse(FileManager.default.fileExists(atPath: fresh + "/ExternalData/" + reference))

        // Heal the library (import the file again), damage the backup's copy (as a hard link
        // of an earlier version shared the damage): the next backup replaces it.
        let healed = try run(["--library", lib, "import", samplesDir])
        XCTAssertEqual(healed.status, 0, healed.stderr)
        XCTAssertEqual(FileManager.default.contents(atPath: inLibrary), good, "healed by re-import")
        try damage(inBackup)
        XCTAssertNotEqual(try run(["--library", backup, "verify"]).status, 0, "the backup's copy is damaged")
        let after = try run(["--library", lib, "backup", backup, "--originals"])
        XCTAssertEqual(after.status, 0, after.stderr)
        XCTAssertTrue(after.stdout.hasSuffix("0 copied, 1 replaced, 5 already there, 0 removed\n"), after.stdout)
        XCTAssertEqual(FileManager.default.contents(atPath: inBackup), good)
        var st = stat()
        XCTAssertEqual(stat(inBackup, &st), 0)
        XCTAssertEqual(st.st_nlink, 1)
        XCTAssertEqual(try run(["--library", backup, "verify"]).status, 0)
    }

    /// A backup an earlier version made with hard links (the library's inodes) gets copies of
    /// its own at the next backup.
    func testHardLinksOfAnEarlierBackupAreReplacedByCopies() throws {
        try TestDatabase.requireSQLite(
            because:
                "photos backup and restore copy SQLite catalogs (a PostgreSQL catalog is pg_dump's: exit 69, PostgresLibraryCLITests)"
        )
        XCTAssertEqual(try run(["--library", lib, "import", samplesDir, "-q"]).status, 0)
        let backup = dir + "/backup"
        XCTAssertEqual(try run(["--library", lib, "backup", backup, "--originals", "-q"]).status, 0)
        let references = try references()
        // As the earlier version left them: two of them hard links of the library's originals.
        for reference in references.prefix(2) {
            XCTAssertEqual(unlink(backup + "/ExternalData/" + reference), 0)
            XCTAssertEqual(link(lib + "/ExternalData/" + reference, backup + "/ExternalData/" + reference), 0)
        }
        let again = try run(["--library", lib, "backup", backup, "--originals"])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertTrue(again.stdout.hasSuffix("0 copied, 2 replaced, 4 already there, 0 removed\n"), again.stdout)
        for reference in references {
            var original = stat(), copy = stat()
            XCTAssertEqual(stat(lib + "/ExternalData/" + reference, &original), 0)
            XCTAssertEqual(stat(backup + "/ExternalData/" + reference, &copy), 0)
            XCTAssertNotEqual(copy.st_ino, original.st_ino, reference)
            XCTAssertEqual([original.st_nlink, copy.st_nlink], [1, 1], reference)
        }
        XCTAssertEqual(try run(["--library", backup, "verify"]).status, 0)
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
        XCTAssertTrue(again.stdout.hasSuffix("0 copied, 0 replaced, 5 already there, 1 removed\n"), again.stdout)
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
