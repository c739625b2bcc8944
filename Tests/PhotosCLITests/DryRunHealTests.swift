import Foundation
import XCTest
import PhotosTestSupport
import PhotosCore
import PhotosSQLite

/// Issue 9 items 1 and 8 together: the healing that import, merge and `verify --repair` do runs
/// in the library's dry-run mode under `--dry-run` — the real code, rolled back, no file
/// written or removed — and reports what the real run then does. Compared by the full database
/// dump and file tree of `DryRunTests` (rows, schema, paths, sizes, SHA-256, mtimes).
final class DryRunHealTests: BinaryTestCase, DryRunChecking {
    override var label: String { "photos-dryrun-heal" }

    var lib: String { dir + "/lib" }

    /// Runs `args` with `--json`, asserting `status` and that nothing under `roots` changed.
    func dryRun(
        _ args: [String], roots: [String], status: Int32 = 0, file: StaticString = #filePath, line: UInt = #line
    ) throws -> [String: Any] {
        let before = try snapshot(roots)
        let result = try run(args + ["--json"])
        XCTAssertEqual(result.status, status, result.stdout + result.stderr, file: file, line: line)
        let after = try snapshot(roots)
        XCTAssertEqual(before.count, after.count, "\(args)", file: file, line: line)
        for (b, a) in zip(before, after) where b != a {
            XCTFail("\(args) changed \(b.prefix(300)) into \(a.prefix(300))", file: file, line: line)
            break
        }
        return try lastJSONObject(result.stdout)
    }

    func db(_ root: String) throws -> TestCatalog { try TestCatalog(root: root) }

    func originalPath(_ root: String, _ displayName: String) throws -> String {
        root + "/ExternalData/"
            + (try XCTUnwrap(
                try db(root).scalarString(
                    "SELECT d.file_ref FROM photo_data d JOIN photo p ON p.id = d.photo_id WHERE p.display_name = ?",
                    [displayName])))
    }

    func details(_ report: [String: Any]) -> [[String: Any]] { report["details"] as? [[String: Any]] ?? [] }

    /// A library with every kind of repair to make: a missing original (its photo has tags and
    /// a rating), a damaged thumbnail, a missing thumbnail, an orphan and a leftover temporary
    /// file. The dry run lists five repairs, leaves everything as it was (mtimes included), and
    /// the real run then makes exactly those five.
    func testVerifyRepairDryRunRunsTheRepairsRolledBackAndTheRealRunMakesTheSame() throws {
        XCTAssertEqual(try run(["--library", lib, "import", "-q", samplesDir]).status, 0)
        let ladybird = try originalPath(lib, "ladybird.jpg")
        XCTAssertEqual(unlink(ladybird), 0)
        var photosBefore = 0
        do { // (closed before the snapshots: an open connection keeps -wal/-shm that readers touch)
            let db = try db(lib)
            try db.run(
                "UPDATE thumbnail SET data = ? WHERE photo_id = (SELECT id FROM photo WHERE display_name = 'storm.jpg')",
                [[UInt8]([0xDE, 0xAD, 0xBE, 0xEF])])
            try db.run("DELETE FROM thumbnail WHERE photo_id = (SELECT id FROM photo WHERE display_name = 'path.jpg')")
            photosBefore = try db.scalarInt("SELECT count(*) FROM photo") ?? 0
        }
        try FileManager.default.createDirectory(atPath: lib + "/ExternalData/ab", withIntermediateDirectories: true)
        XCTAssertTrue(
            FileManager.default.createFile(
                atPath: lib + "/ExternalData/ab/ab" + String(repeating: "1", count: 62), contents: Data([1, 2, 3])))
        XCTAssertTrue(FileManager.default.createFile(atPath: lib + "/ExternalData/ab/.tmp-left", contents: Data([9])))

        let dry = try dryRun(["--library", lib, "verify", "--repair", "--dry-run"], roots: [lib], status: 1)
        XCTAssertEqual(dry["dryRun"] as? Bool, true)
        XCTAssertEqual(dry["repaired"] as? Int, 0, "a dry run repairs nothing")
        let planned = Set(details(dry).compactMap { $0["repair"] as? String })
        XCTAssertEqual(planned.count, 5, "\(planned)")
        // No detail carries a note: every planned repair ran (and was rolled back) without a hitch.
        XCTAssertFalse(
            details(dry).contains { ($0["detail"] as? String ?? "").contains("left in place") }, "\(details(dry))")

        let real = try run(["--library", lib, "verify", "--repair", "--json"])
        XCTAssertEqual(real.status, 0, real.stdout + real.stderr)
        let report = try lastJSONObject(real.stdout)
        XCTAssertEqual(report["dryRun"] as? Bool, false)
        XCTAssertEqual(
            Set(details(report).filter { $0["repaired"] as? Bool == true }.compactMap { $0["repair"] as? String }),
            planned)
        XCTAssertEqual(try db(lib).scalarInt("SELECT count(*) FROM photo"), photosBefore - 1)
        XCTAssertFalse(FileManager.default.fileExists(atPath: lib + "/ExternalData/ab/.tmp-left"))
        XCTAssertEqual(try run(["--library", lib, "verify"]).status, 0)
    }

    /// The dry run runs the real repair code rather than only listing a plan: with an import
    /// holding the import lock, the orphan removal would leave the file in place, and the dry
    /// run says so (the plan alone could not know).
    func testVerifyRepairDryRunSaysWhatTheRealRepairWouldLeaveUndone() throws {
        XCTAssertEqual(try run(["--library", lib, "import", "-q", samplesDir + "/storm.jpg"]).status, 0)
        try FileManager.default.createDirectory(atPath: lib + "/ExternalData/ab", withIntermediateDirectories: true)
        let orphan = "ab/ab" + String(repeating: "2", count: 62)
        XCTAssertTrue(FileManager.default.createFile(atPath: lib + "/ExternalData/" + orphan, contents: Data([1])))
        let fd = open(lib + "/" + Library.importLockName, O_RDWR | O_CLOEXEC)
        XCTAssertGreaterThanOrEqual(fd, 0)
        defer { close(fd) }
        XCTAssertEqual(flock(fd, LOCK_SH), 0, "the test stands for a running import")
        let before = try snapshot([lib])
        let text = try run(["--library", lib, "verify", "--repair", "--dry-run"])
        XCTAssertEqual(text.status, 1, text.stderr)
        XCTAssertEqual(try snapshot([lib]), before)
        XCTAssertTrue(
            text.stdout.contains(
                "problem: orphan-file: ExternalData/\(orphan) is not referenced by any photo (left in place: an import is running"
            ), text.stdout)
        XCTAssertTrue(text.stdout.contains("  would repair: remove ExternalData/\(orphan)"), text.stdout)
        XCTAssertTrue(text.stdout.contains("--repair would make 1 change (dry run: nothing changed)"), text.stdout)
        // Once the import is done, the dry run has no note and the repair removes it.
        flock(fd, LOCK_UN)
        let dry = try dryRun(["--library", lib, "verify", "--repair", "--dry-run"], roots: [lib], status: 1)
        XCTAssertEqual(
            details(dry).map { $0["detail"] as? String }, ["ExternalData/\(orphan) is not referenced by any photo"])
        XCTAssertEqual(try run(["--library", lib, "verify", "--repair", "-q"]).status, 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: lib + "/ExternalData/" + orphan))
    }

    /// A dry-run merge that would heal originals (one missing, one truncated) copies nothing:
    /// both libraries stay byte for byte as they were, and the report is the real merge's.
    func testMergeDryRunRestoresNoOriginalAndReportsWhatTheMergeRestores() throws {
        let peer = dir + "/peer"
        XCTAssertEqual(try run(["--library", lib, "import", "-q", samplesDir]).status, 0)
        XCTAssertEqual(
            try run([
                "--library", peer, "import", "-q", samplesDir + "/storm.jpg", samplesDir + "/path.jpg",
                samplesDir + "/kite.png"
            ]).status, 0)
        let storm = try originalPath(lib, "storm.jpg"), path = try originalPath(lib, "path.jpg")
        let intactPath = try Data(contentsOf: URL(fileURLWithPath: samplesDir + "/path.jpg"))
        XCTAssertEqual(unlink(storm), 0)
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: intactPath.prefix(100)))

        let dry = try dryRun(["--library", lib, "merge", "--from", peer, "--dry-run"], roots: [lib, peer])
        XCTAssertEqual(dry["dryRun"] as? Bool, true)
        XCTAssertEqual(dry["originalsRestored"] as? Int, 2)
        XCTAssertEqual(dry["filesCopied"] as? Int, 2)
        XCTAssertFalse(FileManager.default.fileExists(atPath: storm), "a dry run restores nothing")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)).count, 100)

        let real = try run(["--library", lib, "merge", "--from", peer, "--json"])
        XCTAssertEqual(real.status, 0, real.stderr)
        XCTAssertEqual(comparable(dry), comparable(try lastJSONObject(real.stdout)))
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), intactPath)
        XCTAssertTrue(FileManager.default.fileExists(atPath: storm))
        XCTAssertEqual(try run(["--library", lib, "verify"]).status, 0)
    }

    /// A dry-run import of the intact file of a photo whose original is gone restores nothing
    /// (the full tree, mtimes included, stays) and reports the restoration the import makes.
    func testImportDryRunRestoresNoOriginalAndReportsTheRestoration() throws {
        XCTAssertEqual(
            try run(["--library", lib, "import", "-q", samplesDir + "/storm.jpg", samplesDir + "/path.jpg"]).status, 0)
        let storm = try originalPath(lib, "storm.jpg")
        XCTAssertEqual(unlink(storm), 0)
        let input = dir + "/in"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: samplesDir + "/storm.jpg", toPath: input + "/storm.jpg")
        try FileManager.default.copyItem(atPath: samplesDir + "/ladybird.jpg", toPath: input + "/ladybird.jpg")

        let dry = try dryRun(["--library", lib, "import", "--dry-run", input], roots: [lib, input])
        XCTAssertEqual(dry["restored"] as? Int, 1)
        XCTAssertEqual(dry["imported"] as? Int, 1)
        XCTAssertFalse(FileManager.default.fileExists(atPath: storm))

        let real = try run(["--library", lib, "import", input, "--json"])
        XCTAssertEqual(real.status, 0, real.stderr)
        XCTAssertEqual(comparable(dry), comparable(try lastJSONObject(real.stdout)))
        XCTAssertTrue(FileManager.default.fileExists(atPath: storm))
        XCTAssertEqual(try run(["--library", lib, "verify"]).status, 0)
    }
}
