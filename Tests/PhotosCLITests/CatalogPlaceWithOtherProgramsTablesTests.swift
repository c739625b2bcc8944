import Foundation
import PhotosPostgreSQL
import PhotosSQLite
import PhotosTestSupport
import XCTest

/// A catalog's place that holds tables of another program — a PostgreSQL schema with a table
/// whose name is not one of the catalog's, a `photos.sqlite` that is another program's
/// database — is not empty: `photos init --database` and `photos catalog move --to` both
/// refuse it the same way (73, one line naming the database and schema and the first such
/// table), create none of the catalog's tables beside it, and leave the other program's
/// rows and the library as they were. An existing photos catalog alone is still what init
/// joins (a second machine) and what an empty move target may be.
final class CatalogPlaceWithOtherProgramsTablesTests: BinaryTestCase {
    override var label: String { "photos-place-foreign" }

    private var drops: [@Sendable () -> Void] = []

    override func tearDown() {
        for drop in drops { drop() }
        drops = []
        super.tearDown()
    }

    /// A fresh schema holding another program's `users` table with one row.
    private func schemaWithUsers() throws -> (connectionString: String, schema: String) {
        let made = try TestDatabase.makeSchema()
        drops.append(made.drop)
        try PostgresDatabase(made.connectionString).execute(
            "CREATE TABLE users (name TEXT); INSERT INTO users VALUES ('ada'); CREATE TABLE zz_audit (x INTEGER)")
        return (made.connectionString, made.schema)
    }

    /// The tables of `schema`, by name.
    private func tables(_ connectionString: String) throws -> [String] {
        let db = try PostgresDatabase(connectionString)
        return try db.statement(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY 1"
        ).map { $0.string(0) }
    }

    private func assertRefusal(
        _ r: (status: Int32, stdout: String, stderr: String), schema: String, file: StaticString = #filePath,
        line: UInt = #line
    ) {
        XCTAssertEqual(r.status, 73, r.stderr, file: file, line: line)
        XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr, file: file, line: line)
        XCTAssertTrue(r.stderr.contains("schema \(schema)"), r.stderr, file: file, line: line)
        XCTAssertTrue(r.stderr.contains(" of database "), r.stderr, file: file, line: line)
        XCTAssertTrue(r.stderr.contains("table users"), r.stderr, file: file, line: line)
        XCTAssertFalse(r.stderr.contains("CREATE TABLE"), r.stderr, file: file, line: line)
    }

    func testInitDatabaseRefusesASchemaWithAnotherProgramsTables() throws {
        let (conninfo, schema) = try schemaWithUsers()
        let lib = dir + "/lib"
        let r = try runAsGiven(["init", "--database", conninfo, lib])
        assertRefusal(r, schema: schema)
        XCTAssertFalse(FileManager.default.fileExists(atPath: lib + "/catalog.postgresql"))
        XCTAssertEqual(try tables(conninfo), ["users", "zz_audit"])
        XCTAssertEqual(try PostgresDatabase(conninfo).scalarString("SELECT name FROM users"), "ada")
    }

    func testCatalogMoveRefusesASchemaWithAnotherProgramsTablesTheSameWay() throws {
        let (conninfo, schema) = try schemaWithUsers()
        let lib = dir + "/lib"
        XCTAssertEqual(try run(["--library", lib, "import", "-q", samplesDir]).status, 0)
        let before = try run(["--library", lib, "list", "--json"])
        let recorded = try? String(contentsOfFile: lib + "/catalog.postgresql", encoding: .utf8)
        let r = try run(["--library", lib, "catalog", "move", "--to", conninfo])
        assertRefusal(r, schema: schema)
        let initRefusal = try runAsGiven(["init", "--database", conninfo, dir + "/other"])
        // The same words after each command's own prefix.
        let cut = { (s: String) in s.range(of: "schema ").map { String(s[$0.lowerBound...]) } ?? s }
        XCTAssertEqual(cut(r.stderr), cut(initRefusal.stderr))
        XCTAssertEqual(try tables(conninfo), ["users", "zz_audit"])
        XCTAssertEqual(try? String(contentsOfFile: lib + "/catalog.postgresql", encoding: .utf8), recorded)
        XCTAssertEqual(try run(["--library", lib, "list", "--json"]).stdout, before.stdout)
    }

    func testACatalogWithAnotherProgramsTableBesideItIsRefusedByBoth() throws {
        let made = try TestDatabase.makeSchema()
        drops.append(made.drop)
        let first = dir + "/first"
        XCTAssertEqual(try runAsGiven(["init", "--database", made.connectionString, first]).status, 0)
        // A second machine joins the catalog: accepted while it holds only the catalog's tables.
        let second = dir + "/second"
        let joined = try runAsGiven(["init", "--database", made.connectionString, second])
        XCTAssertEqual(joined.status, 0, joined.stderr)
        try PostgresDatabase(made.connectionString).execute("CREATE TABLE users (name TEXT)")
        let third = try runAsGiven(["init", "--database", made.connectionString, dir + "/third"])
        assertRefusal(third, schema: made.schema)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/third/catalog.postgresql"))
        // The empty catalog is no move target either while another program's table is there.
        let lib = dir + "/lib"
        XCTAssertEqual(try run(["--library", lib, "import", "-q", samplesDir]).status, 0)
        let moved = try run(["--library", lib, "catalog", "move", "--to", made.connectionString])
        assertRefusal(moved, schema: made.schema)
        XCTAssertEqual(try PostgresDatabase(made.connectionString).scalarInt("SELECT count(*) FROM photo"), 0)
    }

    func testAPhotosSQLiteOfAnotherProgramIsNotMadeACatalog() throws {
        let lib = dir + "/lib"
        try FileManager.default.createDirectory(atPath: lib, withIntermediateDirectories: true)
        let db = lib + "/photos.sqlite"
        try Database(path: db).execute("CREATE TABLE users (name TEXT); INSERT INTO users VALUES ('ada')")
        // init names the other program's table as import does (73), not only "not a library".
        let initialized = try runAsGiven(["init", lib])
        XCTAssertEqual(initialized.status, 73, initialized.stderr)
        XCTAssertTrue(initialized.stderr.contains(db + " holds table users of another program"), initialized.stderr)
        // A writing open would have made the catalog beside the other program's table.
        let imported = try runAsGiven(["--library", lib, "import", "-q", samplesDir])
        XCTAssertEqual(imported.status, 73, imported.stderr)
        XCTAssertEqual(imported.stderr.split(separator: "\n").count, 1, imported.stderr)
        XCTAssertTrue(imported.stderr.contains(db + " holds table users of another program"), imported.stderr)
        XCTAssertEqual((try? FileManager.default.contentsOfDirectory(atPath: lib + "/ExternalData")) ?? [], [])
        let left = try Database(path: db, readOnly: true)
        XCTAssertEqual(
            try left.scalarString("SELECT group_concat(name) FROM sqlite_master WHERE type = 'table'"), "users")
        XCTAssertEqual(try left.scalarString("SELECT name FROM users"), "ada")
        XCTAssertEqual(try left.userVersion, 0)
    }
}
