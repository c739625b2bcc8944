import Foundation
import PhotosPostgreSQL
import PhotosTestSupport
import XCTest

/// A `catalog move` target whose schema already holds a table of a catalog table's name with
/// other columns (another program's `photo`) cannot take the catalog: refused with 73 and one
/// line naming the table — not exit 70 with the whole migration script — and the
/// library stays on its catalog, unchanged.
final class CatalogMoveIntoForeignTablesTests: BinaryTestCase {
    override var label: String { "photos-move-foreign" }

    private var drops: [@Sendable () -> Void] = []

    override func tearDown() {
        for drop in drops { drop() }
        drops = []
        super.tearDown()
    }

    func testATargetWithAForeignTableOfACatalogNameIsRefusedWith73() throws {
        let made = try TestDatabase.makeSchema()
        drops.append(made.drop)
        try PostgresDatabase(made.connectionString).execute(
            "CREATE TABLE photo (x INTEGER); INSERT INTO photo VALUES (7)")
        let lib = dir + "/lib"
        XCTAssertEqual(try run(["--library", lib, "import", "-q", samplesDir]).status, 0)
        let before = try run(["--library", lib, "list", "--json"])
        let recorded = try? String(contentsOfFile: lib + "/catalog.postgresql", encoding: .utf8)
        let r = try run(["--library", lib, "catalog", "move", "--to", made.connectionString])
        // Also from a PostgreSQL library (the suite's PostgreSQL run): its catalog is another
        // schema, so the foreign table is met and named.
        XCTAssertEqual(r.status, 73, r.stderr)
        // Refused before any migration runs (CatalogPlaceWithOtherProgramsTablesTests): the
        // schema holds no catalog, so its `photo` is another program's table.
        XCTAssertTrue(r.stderr.contains("holds table photo of another program"), r.stderr)
        XCTAssertFalse(r.stderr.contains("CREATE TABLE"), r.stderr)
        XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)
        XCTAssertEqual(try? String(contentsOfFile: lib + "/catalog.postgresql", encoding: .utf8), recorded)
        XCTAssertEqual(try run(["--library", lib, "list", "--json"]).stdout, before.stdout)
        XCTAssertEqual(try PostgresDatabase(made.connectionString).scalarInt("SELECT x FROM photo"), 7)
    }
}
