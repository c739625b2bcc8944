import Foundation
import PhotosTestSupport
import XCTest

/// Two PostgreSQL libraries whose catalogs are schemas of one database (`options=-csearch_path=…`
/// in the connection string) have writer locks of their own: a writer of one does not make the
/// other busy. Advisory locks belong to the database, so one key for every catalog made
/// `photos --wait 0` on library B exit 75 while library A was being written.
final class CatalogsInOneDatabaseLockApartCLITests: BinaryTestCase {
    override var label: String { "photos-locks-apart" }

    func testAWriterOfOneCatalogDoesNotMakeAnotherSchemasCatalogBusy() throws {
        let a = dir + "/a", b = dir + "/b"
        for library in [a, b] {
            let made = try TestDatabase.makeSchema(forLibraryAt: library)
            let created = try run(["init", "-q", "--database", made, library])
            XCTAssertEqual(created.status, 0, created.stderr)
        }
        let holder = try TestCatalog(root: a)
        try holder.beginWriteTransaction()
        // B's writers go ahead while A's writer lock is held.
        let intoB = try run(["--library", b, "--wait", "0", "import", "-q", samplesDir + "/storm.jpg"])
        XCTAssertEqual(intoB.status, 0, intoB.stderr)
        let again = try run(["--library", b, "--wait", "0", "import", "-q", samplesDir + "/path.jpg"])
        XCTAssertEqual(again.status, 0, again.stderr)
        // A's wait, and give up with 75 (EX_TEMPFAIL) as on SQLite.
        let intoA = try run(["--library", a, "--wait", "0", "import", "-q", samplesDir + "/storm.jpg"])
        XCTAssertEqual(intoA.status, 75, intoA.stderr)
        XCTAssertTrue(intoA.stderr.contains("library \(a) is busy"), intoA.stderr)
        try holder.rollback()
        XCTAssertEqual(try run(["--library", a, "--wait", "0", "import", "-q", samplesDir + "/storm.jpg"]).status, 0)
        XCTAssertEqual(try TestCatalog(root: a).scalarInt("SELECT count(*) FROM photo"), 1)
        XCTAssertEqual(try TestCatalog(root: b).scalarInt("SELECT count(*) FROM photo"), 2)
    }
}
