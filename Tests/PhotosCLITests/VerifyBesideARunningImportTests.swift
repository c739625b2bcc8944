import Foundation
import PhotosCore
import PhotosFiles
import PhotosTestSupport
import XCTest

/// `photos verify` (without `--repair`) run while an import or merge holds `import.lock` shared
/// does not judge files no row references — they may be the import's written but uncommitted
/// originals — and does not count them: one line says how many were not checked, `--json` has
/// `notChecked`, the exit status is 0. Once no one holds the lock, the same files are orphans
/// again (exit 1). On both backends (`PHOTOS_TEST_DATABASE_URL`).
final class VerifyBesideARunningImportTests: BinaryTestCase {
    override var label: String { "photos-verify-beside-import" }

    var lib: String { dir + "/lib" }
    let orphan = "ab/ab" + String(repeating: "3", count: 62)
    let temporary = "cd/" + ExternalDataStore.temporaryPrefix + "import-1"

    override func setUpWithError() throws {
        try super.setUpWithError()
        XCTAssertEqual(try run(["--library", lib, "import", "-q", samplesDir + "/storm.jpg"]).status, 0)
        for ref in [orphan, temporary] {
            let folder = lib + "/ExternalData/" + (ref as NSString).deletingLastPathComponent
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            XCTAssertTrue(FileManager.default.createFile(atPath: lib + "/ExternalData/" + ref, contents: Data([1, 2])))
        }
    }

    /// Holds the import lock shared, as an import or merge does for its whole run, during `body`.
    func whileAnImportRuns<T>(_ body: () throws -> T) throws -> T {
        let fd = open(lib + "/" + Library.importLockName, O_RDWR | O_CREAT | O_CLOEXEC, 0o666)
        XCTAssertGreaterThanOrEqual(fd, 0)
        defer { close(fd) }
        XCTAssertEqual(flock(fd, LOCK_SH), 0, "the test stands for a running import")
        return try body()
    }

    func testUnreferencedFilesAreNotProblemsWhileAnImportRuns() throws {
        let during = try whileAnImportRuns { try run(["--library", lib, "verify"]) }
        XCTAssertEqual(during.status, 0, during.stdout + during.stderr)
        XCTAssertFalse(during.stdout.contains("problem:"), during.stdout)
        XCTAssertTrue(
            during.stdout.contains("2 unreferenced files not checked: an import or merge is running\n"), during.stdout)
        XCTAssertTrue(during.stdout.contains(": 0 problems"), during.stdout)
        // Nothing removed, and the lock is free again afterwards: an import can start.
        for ref in [orphan, temporary] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: lib + "/ExternalData/" + ref), ref)
        }
        let fd = open(lib + "/" + Library.importLockName, O_RDWR | O_CLOEXEC)
        defer { close(fd) }
        XCTAssertEqual(flock(fd, LOCK_EX | LOCK_NB), 0, "verify released the import lock")
        flock(fd, LOCK_UN)

        // Released: the same files are an orphan and a leftover temporary file again.
        let after = try run(["--library", lib, "verify"])
        XCTAssertEqual(after.status, 1, after.stdout + after.stderr)
        XCTAssertTrue(
            after.stdout.contains("problem: orphan-file: ExternalData/\(orphan) is not referenced by any photo"),
            after.stdout)
        XCTAssertTrue(after.stdout.contains("problem: temporary-file: ExternalData/\(temporary)"), after.stdout)
        XCTAssertFalse(after.stdout.contains("not checked"), after.stdout)
    }

    /// `--quiet` keeps a clean verify silent, but not about a check it left undone.
    func testQuietStillSaysWhatWasNotChecked() throws {
        let during = try whileAnImportRuns { try run(["--library", lib, "-q", "verify"]) }
        XCTAssertEqual(during.status, 0, during.stdout + during.stderr)
        XCTAssertEqual(during.stdout, "2 unreferenced files not checked: an import or merge is running\n")
        XCTAssertEqual(during.stderr, "")
        // With nothing left unchecked and nothing wrong, -q prints nothing.
        for ref in [orphan, temporary] { XCTAssertEqual(unlink(lib + "/ExternalData/" + ref), 0) }
        let quiet = try run(["--library", lib, "-q", "verify"])
        XCTAssertEqual(quiet.status, 0, quiet.stdout + quiet.stderr)
        XCTAssertEqual(quiet.stdout, "")
    }

    func testJSONCountsThemAsNotChecked() throws {
        let during = try whileAnImportRuns { try run(["--library", lib, "verify", "--quick", "--json"]) }
        XCTAssertEqual(during.status, 0, during.stdout + during.stderr)
        let object = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(during.stdout.utf8)) as? [String: Any], during.stdout)
        XCTAssertEqual(object["notChecked"] as? Int, 2)
        XCTAssertEqual(object["problems"] as? Int, 0)
        XCTAssertEqual(object["clean"] as? Bool, true)
        XCTAssertEqual((object["details"] as? [Any])?.count, 0)

        let after = try run(["--library", lib, "verify", "--quick", "--json"])
        XCTAssertEqual(after.status, 1, after.stdout + after.stderr)
        let released = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(after.stdout.utf8)) as? [String: Any], after.stdout)
        XCTAssertEqual(released["notChecked"] as? Int, 0)
        XCTAssertEqual(
            (released["details"] as? [[String: Any]])?.compactMap { $0["kind"] as? String },
            ["orphan-file", "temporary-file"])
    }

    /// Only unreferenced files go unjudged: a recorded original that is missing is still a
    /// problem during an import (exit 1).
    func testOtherProblemsStillCountWhileAnImportRuns() throws {
        let originals = try FileManager.default.subpathsOfDirectory(atPath: lib + "/ExternalData")
            .filter { $0.count == 67 && !$0.hasPrefix(orphan) }
        XCTAssertEqual(originals.count, 1, "\(originals)")
        XCTAssertEqual(unlink(lib + "/ExternalData/" + originals[0]), 0)
        let during = try whileAnImportRuns { try run(["--library", lib, "verify", "--quick"]) }
        XCTAssertEqual(during.status, 1, during.stdout + during.stderr)
        XCTAssertTrue(during.stdout.contains("problem: missing-file: "), during.stdout)
        XCTAssertFalse(during.stdout.contains("orphan-file"), during.stdout)
        XCTAssertTrue(during.stdout.contains("2 unreferenced files not checked"), during.stdout)
    }
}
