import Foundation
import XCTest
import PhotosTestSupport

/// Runs the built `photos` binary as a separate process (kill -9 needs a real process).
final class CrashSafetyTests: BinaryTestCase {
    override var label: String { "photos-crash" }

    func testKillDashNineAtSeveralPointsThenVerifyAndRerunCompletes() throws {
        let (input, files) = try makeInput(copies: 6)
        let lib = dir + "/lib"
        _ = try binary()
        for delay in [0.05, 0.3, 0.8, 1.5] {
            try killDashNine(
                ["--library", lib, "import", "--quiet", "--jobs", "2", "--batch-size", "3", input], after: delay)
            guard TestDatabase.backend(ofLibraryAt: lib) != nil else { continue }
            // After a crash only orphan files may need repair; everything else is clean.
            let verify = try run(["--library", lib, "verify", "--quick", "--json"])
            let report = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(verify.stdout.utf8)) as? [String: Any])
            let kinds = Set(((report["details"] as? [[String: Any]]) ?? []).compactMap { $0["kind"] as? String })
            XCTAssertTrue(
                kinds.isSubset(of: ["orphan-file", "temporary-file"]), "after kill at \(delay) s: \(verify.stdout)")
            XCTAssertEqual(try run(["--library", lib, "verify", "--repair", "--quick"]).status, 0)
            XCTAssertEqual(try run(["--library", lib, "verify"]).status, 0)
        }
        let rerun = try run(["--library", lib, "import", "--json", "--jobs", "2", input])
        XCTAssertEqual(rerun.status, 0, rerun.stderr)
        let db = try TestCatalog(root: lib)
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM photo"), files, "every file present")
        XCTAssertEqual(try db.scalarInt("SELECT count(DISTINCT sha256) FROM photo_data"), files, "exactly once")
        XCTAssertEqual(try run(["--library", lib, "verify"]).status, 0)
        let again = try run(["--library", lib, "import", "--json", input])
        XCTAssertTrue(again.stdout.hasPrefix("{\"imported\":0,\"duplicates\":\(files),"), again.stdout)
    }

    func testTwoImportsAtOnceSerializeAndImportEachFileOnce() throws {
        let (input, files) = try makeInput(copies: 3)
        let lib = dir + "/lib"
        XCTAssertEqual(try run(["--library", lib, "init", "-q"]).status, 0)
        var processes: [Process] = []
        for _ in 0..<2 {
            processes.append(
                try launch(["--library", lib, "import", "--quiet", "--jobs", "1", "--batch-size", "2", input]))
        }
        for p in processes { p.waitUntilExit(); XCTAssertEqual(p.terminationStatus, 0) }
        let db = try TestCatalog(root: lib)
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM photo"), files)
        XCTAssertEqual(try run(["--library", lib, "verify"]).status, 0)
    }

    /// Purge and compaction killed at several moments leave a consistent library, and the same
    /// command then completes.
    func testKillDashNineDuringPurgeAndCompaction() throws {
        let (input, files) = try makeInput(copies: 8)
        let lib = dir + "/lib"
        XCTAssertEqual(try run(["--library", lib, "import", "-q", "--jobs", "2", input]).status, 0)
        let db = try TestCatalog(root: lib)
        try db.execute(
            """
            INSERT INTO zone (id, name, scope) VALUES ('share-kill', 'share-kill', 'private');
            INSERT INTO share (id, title, created) VALUES ('share-kill', 'k', '2026-01-01T00:00:00Z');
            UPDATE photo SET zone_id = 'share-kill' WHERE id % 2 = 0;
            """)
        let inShare = try db.scalarInt("SELECT count(*) FROM photo WHERE zone_id = 'share-kill'") ?? 0
        for delay in [0.0, 0.02, 0.05] {
            try killDashNine(["--library", lib, "purge", "--share", "share-kill", "-q"], after: delay)
            let remaining = try db.scalarInt("SELECT count(*) FROM photo WHERE zone_id = 'share-kill'") ?? -1
            XCTAssertTrue(remaining == 0 || remaining == inShare, "all or nothing, got \(remaining)")
            let verify = try run(["--library", lib, "verify", "--quick", "--json"])
            XCTAssertFalse(verify.stdout.contains("missing-file"), verify.stdout)
            if remaining == 0 { break }
        }
        if try db.scalarInt("SELECT count(*) FROM share") == 1 {
            XCTAssertEqual(try run(["--library", lib, "purge", "--share", "share-kill", "-q"]).status, 0)
        }
        XCTAssertEqual(try run(["--library", lib, "verify", "--repair", "-q"]).status, 0)
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM photo"), files - inShare)

        let before = try db.scalarInt("SELECT count(*) FROM history_transaction") ?? 0
        for delay in [0.0, 0.01] {
            try killDashNine(
                ["--library", lib, "history", "compact", "--before-token", "1000", "--force", "-q"], after: delay)
            let left = try db.scalarInt("SELECT count(*) FROM history_transaction") ?? -1
            XCTAssertTrue(left == 0 || left == before, "all or nothing, got \(left)")
            XCTAssertEqual(
                try db.scalarInt(
                    "SELECT count(*) FROM history_change WHERE token NOT IN (SELECT token FROM history_transaction)"), 0
            )
        }
        XCTAssertEqual(
            try run(["--library", lib, "history", "compact", "--before-token", "1000", "--force", "-q"]).status, 0)
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM history_transaction"), 0)
        XCTAssertEqual(try run(["--library", lib, "verify"]).status, 0)
    }

    /// An import, a purge and dedupe-tags in a loop, at once: each ends 0 (or 75), nothing lost.
    func testImportPurgeAndDedupeAtOnce() throws {
        let (input, files) = try makeInput(copies: 4)
        let lib = dir + "/lib"
        XCTAssertEqual(try run(["--library", lib, "import", "-q", samplesDir + "/kite.png"]).status, 0)
        let db = try TestCatalog(root: lib)
        try db.execute(
            """
            INSERT INTO zone (id, name, scope) VALUES ('share-x', 'share-x', 'private');
            INSERT INTO share (id, title, created) VALUES ('share-x', 'x', '2026-01-01T00:00:00Z');
            UPDATE photo SET zone_id = 'share-x';
            """)
        func start(_ args: [String]) throws -> Process { try launch(["--library", lib, "--wait", "60"] + args) }
        let importer = try start(["import", "-q", "--jobs", "1", "--batch-size", "2", "--tag", "Beach", input])
        let purger = try start(["purge", "--share", "share-x", "-q"])
        var dedupes: [Process] = []
        for _ in 0..<4 { dedupes.append(try start(["dedupe-tags", "-q"])) }
        for p in [importer, purger] + dedupes {
            p.waitUntilExit()
            XCTAssertTrue([0, 75].contains(p.terminationStatus), "\(p.arguments ?? []) exited \(p.terminationStatus)")
        }
        XCTAssertEqual(importer.terminationStatus, 0)
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM photo WHERE zone_id = 'default'"), files)
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM tag WHERE name = 'Beach'"), 1)
        XCTAssertEqual(try run(["--library", lib, "verify"]).status, 0)
    }
}
