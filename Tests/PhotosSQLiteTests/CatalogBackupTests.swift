import XCTest
import PhotosTestSupport
@testable import PhotosSQLite

/// `CatalogBackupStore` over SQLite's online backup API: a consistent snapshot while another
/// connection writes, a self-contained file, and the way back.
final class CatalogBackupTests: TemporaryFolderTestCase {
    /// The SQLite backend's own behaviour: skipped on a PostgreSQL run.
    override func setUpWithError() throws {
        try TestDatabase.requireSQLite(because: "the SQLite backup of photos.sqlite")
        try super.setUpWithError()
    }

    override var label: String { "photos-backup-store" }

    private func names(_ db: Database) throws -> [String] {
        try db.statement("SELECT name FROM probe ORDER BY name").map { $0.string(0) }
    }

    /// A row in a table of the test's own beside the schema (the copy is of pages, whatever
    /// the tables).
    private func insertPhoto(_ db: Database, _ name: String) throws {
        try db.execute("CREATE TABLE IF NOT EXISTS probe (name TEXT NOT NULL)")
        try db.execute("INSERT INTO probe (name) VALUES ('\(name)')")
    }

    func testTheCopyHoldsWhatWasCommittedAndNothingOfAnOpenTransaction() throws {
        let db = try Database(path: dir + "/photos.sqlite")
        try db.migrate()
        try insertPhoto(db, "A")
        let writer = try Database(path: dir + "/photos.sqlite")
        try writer.execute("BEGIN IMMEDIATE")
        try insertPhoto(writer, "B") // not committed while the copy is taken

        let bytes = try db.backupCatalog(to: dir + "/copy.sqlite")
        try writer.execute("COMMIT") // the writer was not blocked by the copy

        var st = stat()
        XCTAssertEqual(stat(dir + "/copy.sqlite", &st), 0)
        XCTAssertEqual(Int64(st.st_size), bytes)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/copy.sqlite-wal"), "self-contained")
        let copy = try Database(path: dir + "/copy.sqlite", readOnly: true)
        XCTAssertEqual(try names(copy), ["A"])
        XCTAssertEqual(try copy.userVersion, Schema.currentVersion)
        XCTAssertEqual(try copy.scalarString("PRAGMA integrity_check"), "ok")
        XCTAssertEqual(try names(db), ["A", "B"])
    }

    func testRestoreReplacesTheWholeCatalog() throws {
        let source = try Database(path: dir + "/a.sqlite")
        try source.migrate()
        try insertPhoto(source, "A")
        _ = try source.backupCatalog(to: dir + "/copy.sqlite")
        let target = try Database(path: dir + "/b.sqlite")
        try target.migrate()
        try insertPhoto(target, "Z")
        try target.restoreCatalog(from: dir + "/copy.sqlite")
        XCTAssertEqual(try names(target), ["A"])
        XCTAssertEqual(try target.scalarString("PRAGMA journal_mode"), "wal", "the target keeps its own journal")
    }

    func testAFailedCopyLeavesNothing() throws {
        let db = try Database(path: dir + "/photos.sqlite")
        try db.migrate()
        XCTAssertThrowsError(try db.backupCatalog(to: dir + "/missing/copy.sqlite"))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.contains("copy") }, [])
        XCTAssertThrowsError(try db.restoreCatalog(from: dir + "/none.sqlite"))
    }
}
