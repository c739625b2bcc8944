import Foundation
import PhotosPostgreSQL
import PhotosTestSupport
import XCTest

/// `catalog move` on a library folder this user may not write (a PostgreSQL library on a
/// read-only share): refused with 77 before the copy, so that the target stays empty and a
/// second try, once the folder is writable, goes through.
final class CatalogMoveFromAReadOnlyFolderTests: BinaryTestCase {
    override var label: String { "photos-move-readonly" }

    private var drops: [@Sendable () -> Void] = []

    override func tearDown() {
        chmod(dir + "/lib", 0o755)
        for drop in drops { drop() }
        drops = []
        super.tearDown()
    }

    func testAFolderThatCannotBeSwitchedIsRefusedBeforeTheCopy() throws {
        guard geteuid() != 0 else { throw XCTSkip("root writes into a read-only folder") }
        let source = try TestDatabase.makeSchema()
        drops.append(source.drop)
        let base = try TestDatabase.requirePostgres()
        let name = "photos_ro_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try PostgresDatabase(base).execute("CREATE DATABASE \(name)")
        drops.append { try? PostgresDatabase(base).execute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)") }
        let target = try ConnectionInfo(base).setting("dbname", to: name).connectionString
        let lib = dir + "/lib"
        XCTAssertEqual(try run(["init", "-q", "--database", source.connectionString, lib]).status, 0)
        XCTAssertEqual(try run(["--library", lib, "import", "-q", samplesDir]).status, 0)
        XCTAssertEqual(chmod(lib, 0o555), 0)
        let r = try run(["--library", lib, "catalog", "move", "--to", target])
        XCTAssertEqual(r.status, 77, r.stderr)
        XCTAssertTrue(r.stderr.contains("is not writable"), r.stderr)
        XCTAssertEqual(
            try PostgresDatabase(target).scalarInt("SELECT count(*) FROM pg_tables WHERE tablename = 'photo'"), 0)
        XCTAssertEqual(chmod(lib, 0o755), 0)
        let again = try run(["--library", lib, "catalog", "move", "-q", "--to", target])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual(try PostgresDatabase(target).scalarInt("SELECT count(*) FROM photo"), 6)
    }
}
