import Foundation
import PhotosPostgreSQL
import PhotosTestSupport
import XCTest

/// A connection whose search path names no schema that exists (`options=-csearch_path=…` with
/// a typo, a schema dropped since) has no place for a catalog (PostgreSQL's
/// `current_schema()` is NULL, and CREATE TABLE fails with 3F000): `init --database` and
/// `catalog move --to` refuse it with 73 and one line naming the search path and the
/// database — not exit 70 with the failed statement — and leave no folder or file behind.
final class CatalogSchemaThatDoesNotExistTests: BinaryTestCase {
    override var label: String { "photos-no-schema" }

    private func missingSchemaConnection() throws -> String {
        let base = try TestDatabase.requirePostgres()
        return try ConnectionInfo(base).setting("options", to: "-csearch_path=photos_no_such_schema").connectionString
    }

    private func assertRefusal(_ r: (status: Int32, stdout: String, stderr: String), line: UInt = #line) {
        XCTAssertEqual(r.status, 73, r.stderr, line: line)
        XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr, line: line)
        XCTAssertTrue(r.stderr.contains("photos_no_such_schema"), r.stderr, line: line)
        XCTAssertTrue(r.stderr.contains("names no schema that exists"), r.stderr, line: line)
        XCTAssertFalse(r.stderr.contains("CREATE TABLE"), r.stderr, line: line)
    }

    func testInitDatabaseRefusesASearchPathWithoutASchema() throws {
        let conninfo = try missingSchemaConnection()
        let lib = dir + "/lib"
        assertRefusal(try runAsGiven(["init", "--database", conninfo, lib]))
        XCTAssertFalse(FileManager.default.fileExists(atPath: lib), "no folder made")
    }

    func testCatalogMoveRefusesASearchPathWithoutASchema() throws {
        let conninfo = try missingSchemaConnection()
        let lib = dir + "/lib"
        XCTAssertEqual(try run(["--library", lib, "import", "-q", samplesDir]).status, 0)
        let before = try run(["--library", lib, "list", "--json"])
        assertRefusal(try run(["--library", lib, "catalog", "move", "--to", conninfo]))
        XCTAssertEqual(try run(["--library", lib, "list", "--json"]).stdout, before.stdout)
    }
}
