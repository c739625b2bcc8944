import Foundation
import PhotosModel
import PhotosTestSupport
import XCTest

@testable import PhotosSQLite

/// SQLite files photos did not make (issue 31 item 17): every connection runs no view, trigger
/// or extension; a file from elsewhere is read with bounded work and value lengths; a library,
/// backup or export state file holding a view, trigger or virtual table is refused before it is
/// read.
final class UntrustedDatabaseTests: TemporaryFolderTestCase {
    override func setUpWithError() throws {
        try TestDatabase.requireSQLite(because: "SQLite files from elsewhere")
        try super.setUpWithError()
    }

    override var label: String { "photos-untrusted-sqlite" }

    /// A database of `sql` at `path`, closed.
    private func make(_ path: String, _ sql: String) throws {
        let db = try Database(path: path)
        try db.execute("PRAGMA journal_mode = DELETE")
        try db.execute(sql)
        db.close()
    }

    /// A query that never ends stops at the work bound for the file's size, as an
    /// `UntrustedDatabaseError` naming the file, in well under a second of work.
    func testTheWorkBoundStopsAQueryThatNeverEnds() throws {
        let path = dir + "/small.sqlite"
        try make(path, "CREATE TABLE t (x)")
        let db = try Database(path: path, readOnly: true)
        try db.boundForUntrustedFile(maxValueBytes: 1 << 20, workPerByte: 64, baseWork: 1_000_000)
        let started = Date()
        XCTAssertThrowsError(
            try db.readingUntrusted {
                try db.scalarInt(
                    "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n")
            }
        ) { error in
            XCTAssertEqual(
                error as? UntrustedDatabaseError,
                UntrustedDatabaseError(
                    path: path, reason: "reading it takes far more work than a file of its size can need"))
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 5)
    }

    /// A value longer than the limit is not read, whatever its record says.
    func testTheLengthLimitRefusesALongStoredValue() throws {
        let path = dir + "/long.sqlite"
        try make(path, "CREATE TABLE t (x); INSERT INTO t VALUES (zeroblob(3000000));")
        let db = try Database(path: path, readOnly: true)
        try db.boundForUntrustedFile(maxValueBytes: 1 << 20)
        XCTAssertThrowsError(try db.readingUntrusted { try db.statement("SELECT x FROM t").first { $0.blob(0).count } })
        { error in
            XCTAssertEqual((error as? UntrustedDatabaseError)?.reason, "it holds a value longer than 1048576 bytes")
        }
    }

    /// Views and triggers are not run on any connection (a library of photos has none).
    func testNoConnectionRunsAViewOrATrigger() throws {
        let path = dir + "/views.sqlite"
        try make(path, "CREATE TABLE t (x); CREATE VIEW v AS SELECT x FROM t;")
        let db = try Database(path: path)
        XCTAssertThrowsError(try db.scalarInt("SELECT count(*) FROM v"))
        XCTAssertThrowsError(try db.scalarInt("SELECT load_extension('/nonexistent')"))
    }

    /// The expected schema, and each kind of difference, named.
    func testRequireSchemaNamesTheDifference() throws {
        let path = dir + "/schema.sqlite"
        try make(path, "CREATE TABLE t (a TEXT PRIMARY KEY, b)")
        let db = try Database(path: path, readOnly: true)
        try db.requireSchema(tables: ["t": ["a", "b"]], indexes: ["sqlite_autoindex_t_1"])
        XCTAssertThrowsError(try db.requireSchema(tables: ["t": ["a", "c"]], indexes: ["sqlite_autoindex_t_1"]))
        XCTAssertThrowsError(try db.requireSchema(tables: ["t": ["a", "b"]], indexes: [])) { error in
            XCTAssertEqual(
                (error as? UntrustedDatabaseError)?.reason,
                "it holds index \"sqlite_autoindex_t_1\", which it may not")
        }
        XCTAssertTrue(Database.isVirtualTable("CREATE  virtual\tTABLE x USING fts5(a)"))
        XCTAssertFalse(Database.isVirtualTable("CREATE TABLE virtual (a)"))
    }

    /// A library (`merge --from`, `catalog move`'s source, any open) with a view is not opened:
    /// read-only and writable opens alike.
    func testALibraryWithAViewIsNotOpened() throws {
        try FileManager.default.createDirectory(atPath: dir + "/lib", withIntermediateDirectories: true)
        let path = SQLiteCatalogBackend.databasePath(root: dir + "/lib")
        let db = try Database(path: path)
        try db.migrate()
        try db.execute("CREATE VIEW sneaky AS SELECT 1")
        db.close()
        for readOnly in [true, false] {
            XCTAssertThrowsError(
                try SQLiteCatalogBackend().open(root: dir + "/lib", options: StoreOpenOptions(readOnly: readOnly))
            ) { error in
                XCTAssertEqual(
                    error as? UntrustedDatabaseError,
                    UntrustedDatabaseError(path: path, reason: "it holds view \"sneaky\", which no photos library has"))
                XCTAssertEqual((error as? StoreErrorConvertible)?.storeError.kind, .corrupt)
            }
        }
    }

    /// A backup file with a trigger is not restored: not one page is copied.
    func testABackupWithATriggerIsNotRestored() throws {
        let source = try Database(path: dir + "/a.sqlite")
        try source.migrate()
        try source.execute(
            "CREATE TABLE probe (name TEXT); CREATE TRIGGER t AFTER INSERT ON probe BEGIN SELECT 1; END;")
        _ = try source.backupCatalog(to: dir + "/copy.sqlite")
        let target = try Database(path: dir + "/b.sqlite")
        try target.migrate()
        try target.execute("CREATE TABLE keep (name TEXT); INSERT INTO keep VALUES ('Z')")
        XCTAssertThrowsError(try target.restoreCatalog(from: dir + "/copy.sqlite")) { error in
            XCTAssertEqual(
                (error as? UntrustedDatabaseError)?.reason, "it holds trigger \"t\", which no photos library has")
        }
        XCTAssertEqual(try target.scalarString("SELECT name FROM keep"), "Z")
        XCTAssertEqual(try target.scalarInt("SELECT count(*) FROM sqlite_master WHERE type = 'trigger'"), 0)
    }

    /// An export state file in DEST that is not one (a view where its table is, an extra
    /// object) is not used: writable and read-only opens alike.
    func testAnExportStateFileWithAViewIsRefused() throws {
        let path = dir + "/.photos-export.sqlite"
        try make(
            path,
            """
            CREATE TABLE rows (x);
            CREATE VIEW export_file AS WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT i AS path FROM n;
            PRAGMA user_version = 1;
            """)
        XCTAssertThrowsError(try ExportStateDatabase.open(path: path)) { error in
            XCTAssertTrue(error is UntrustedDatabaseError, "\(error)")
        }
        XCTAssertNil(ExportStateDatabase.openReadOnly(path: path))
        let sound = dir + "/sound.sqlite"
        _ = try ExportStateDatabase.open(path: sound)
        XCTAssertNotNil(ExportStateDatabase.openReadOnly(path: sound))
        XCTAssertNoThrow(try ExportStateDatabase.open(path: sound))
    }
}
