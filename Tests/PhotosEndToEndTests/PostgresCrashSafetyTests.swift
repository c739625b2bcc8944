import Foundation
import PhotosPostgreSQL
import PhotosTestSupport
import XCTest

/// kill -9 of an importer and of a purge on a PostgreSQL library (issue 12): the server rolls
/// the dead session's transaction back, the catalog is consistent, `verify --repair` removes
/// only orphan files, and running the command again completes it.
final class PostgresCrashSafetyTests: BinaryTestCase {
    override var label: String { "photos-pg-crash" }

    func testKillDashNineOfAnImportAndAPurgeThenVerifyAndRerunComplete() throws {
        let made = try TestDatabase.makeSchema()
        defer { made.drop() }
        let (input, files) = try makeInput(copies: 6)
        let lib = dir + "/lib"
        XCTAssertEqual(try run(["init", "-q", "--database", made.connectionString, lib]).status, 0)
        for delay in [0.1, 0.5, 1.2] {
            try killDashNine(
                ["--library", lib, "import", "--quiet", "--jobs", "2", "--batch-size", "3", input], after: delay)
            let verify = try run(["--library", lib, "verify", "--quick", "--json"])
            let report = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(verify.stdout.utf8)) as? [String: Any])
            let kinds = Set(((report["details"] as? [[String: Any]]) ?? []).compactMap { $0["kind"] as? String })
            XCTAssertTrue(
                kinds.isSubset(of: ["orphan-file", "temporary-file"]), "after kill at \(delay) s: \(verify.stdout)")
            XCTAssertEqual(try run(["--library", lib, "verify", "--repair", "--quick"]).status, 0)
            XCTAssertEqual(try run(["--library", lib, "verify"]).status, 0)
        }
        let rerun = try run(["--library", lib, "import", "--jobs", "2", input])
        XCTAssertEqual(rerun.status, 0, rerun.stderr)
        let db = try PostgresDatabase(made.connectionString)
        XCTAssertEqual(try db.photoCount(), files, "every file present")
        XCTAssertEqual(try db.scalarInt("SELECT count(DISTINCT sha256) FROM photo_data"), files, "exactly once")

        // A share of every photo, purged and killed at once, then purged again.
        let names = try db.statement("SELECT unique_name FROM photo ORDER BY id").map { $0.string(0) }
        let created = try run(["--library", lib, "share", "create", "--title", "All"] + names)
        XCTAssertEqual(created.status, 0, created.stderr)
        let share = try XCTUnwrap(try db.scalarString("SELECT id FROM share"))
        try killDashNine(["--library", lib, "purge", "--share", share], after: 0.05)
        let count = try XCTUnwrap(try db.scalarInt("SELECT count(*) FROM photo"))
        XCTAssertTrue(count == 0 || count == files, "a purge commits whole or not at all: \(count) photos")
        XCTAssertEqual(try run(["--library", lib, "verify", "--repair", "--quick"]).status, 0)
        if count == files { XCTAssertEqual(try run(["--library", lib, "purge", "--share", share]).status, 0) }
        XCTAssertEqual(try db.photoCount(), 0)
        let verify = try run(["--library", lib, "verify"])
        XCTAssertEqual(verify.status, 0, verify.stdout)
    }
}
