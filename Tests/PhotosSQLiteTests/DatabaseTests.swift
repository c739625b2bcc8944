import XCTest
import PhotosTestSupport
@testable import PhotosSQLite

final class DatabaseTests: TemporaryFolderTestCase {
    /// The SQLite backend's own behaviour: skipped on a PostgreSQL run.
    override func setUpWithError() throws {
        try TestDatabase.requireSQLite(because: "the SQLite Database class")
        try super.setUpWithError()
    }

    override var label: String { "photos-storage" }

    func testConnectionIsConfiguredForWALForeignKeysAndNormalSync() throws {
        let db = try Database(path: dir + "/a.sqlite")
        XCTAssertEqual(try db.scalarString("PRAGMA journal_mode"), "wal")
        XCTAssertEqual(try db.scalarInt("PRAGMA foreign_keys"), 1)
        XCTAssertEqual(try db.scalarInt("PRAGMA synchronous"), 1, "NORMAL is 1")
        XCTAssertEqual(try db.scalarInt("PRAGMA busy_timeout"), 30_000)
    }

    func testMigrationCreatesEveryTableAndSetsUserVersion() throws {
        let db = try Database(path: dir + "/a.sqlite")
        XCTAssertEqual(try db.migrate(), 0)
        XCTAssertEqual(try db.userVersion, Schema.currentVersion)
        let tables = try db.statement(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name"
        ).map { $0.string(0) }
        XCTAssertEqual(
            tables,
            [
                "catalog_folder", "catalog_originals", "history_change", "history_consumer", "history_transaction",
                "library_owner", "participant", "photo", "photo_data", "photo_file_state", "photo_signature",
                "photo_tag", "place", "rating",
                "share",
                "sync_applied", "sync_entry", "sync_library",
                "sync_membership", "sync_peer", "tag", "thumbnail", "zone"
            ])
        XCTAssertEqual(try db.scalarString("SELECT scope FROM zone WHERE id = 'default'"), "private")
        // Running it again changes nothing.
        XCTAssertEqual(try db.migrate(), Schema.currentVersion)
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM zone"), 1)
    }

    /// A golden list of indexes: an accidental schema change shows up here.
    func testEveryForeignKeyAndLookupColumnIsIndexed() throws {
        let db = try Database(path: dir + "/a.sqlite")
        try db.migrate()
        let indexes = try db.statement(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name"
        ).map { $0.string(0) }
        XCTAssertEqual(
            indexes,
            [
                "history_change_entity", "history_change_object", "history_change_token", "history_change_zone",
                "history_transaction_author",
                "history_transaction_timestamp", "photo_capture_date", "photo_content_identifier", "photo_data_sha256",
                "photo_file_state_image", "photo_imported_at", "photo_position",
                "photo_tag_tag", "photo_zone", "place_position", "place_search_name", "rating_photo",
                "rating_photo_author", "sync_entry_token",
                "sync_entry_zone", "tag_zone_name"
            ])
        // Every foreign key column is the leading column of some index (or a primary/unique key).
        for table in [
            "photo", "photo_data", "thumbnail", "tag", "photo_tag", "rating", "participant", "share", "history_change",
            "photo_file_state", "photo_signature"
        ] {
            let fks = try Statement.prepare(db, "SELECT \"from\" FROM pragma_foreign_key_list(?)").map([table]) {
                $0.string(0)
            }
            let leading = try Statement.prepare(
                db, "SELECT ii.name FROM pragma_index_list(?) il JOIN pragma_index_info(il.name) ii WHERE ii.seqno = 0"
            )
            .map([table]) { $0.string(0) }
            let pk = try Statement.prepare(db, "SELECT name FROM pragma_table_info(?) WHERE pk = 1").map([table]) {
                $0.string(0)
            }
            for column in fks {
                XCTAssertTrue(leading.contains(column) || pk.contains(column), "\(table).\(column) has no index")
            }
        }
    }

    func testNewerLibraryIsRefused() throws {
        let db = try Database(path: dir + "/a.sqlite")
        try db.migrate()
        try db.execute("PRAGMA user_version = \(Schema.currentVersion + 5)")
        XCTAssertThrowsError(try db.migrate()) { error in
            XCTAssertEqual(
                error as? MigrationError,
                .newerLibrary(found: Schema.currentVersion + 5, supported: Schema.currentVersion))
            XCTAssertTrue("\(error)".contains("newer"))
        }
    }

    func testTransactionRollsBackAndRethrowsTheFirstError() throws {
        let db = try Database(path: dir + "/a.sqlite")
        try db.execute("CREATE TABLE t (x INTEGER NOT NULL UNIQUE)")
        struct Boom: Error {}
        XCTAssertThrowsError(
            try db.transaction {
                try db.run("INSERT INTO t (x) VALUES (?)", [1])
                throw Boom()
            }
        ) { XCTAssertTrue($0 is Boom) }
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM t"), 0)
        XCTAssertFalse(db.isInTransaction)
        XCTAssertThrowsError(
            try db.transaction {
                try db.run("INSERT INTO t (x) VALUES (?)", [2])
                try db.run("INSERT INTO t (x) VALUES (?)", [2])
            }
        ) { error in
            let e = error as? SQLiteError
            XCTAssertEqual(e?.code, 19)
            XCTAssertEqual(e?.extendedCode, 2067, "SQLITE_CONSTRAINT_UNIQUE")
            XCTAssertTrue(e?.isConstraint ?? false)
            XCTAssertTrue(
                e?.description.hasPrefix("SQLite error 2067: UNIQUE constraint failed: t.x while executing") ?? false,
                e?.description ?? "")
        }
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM t"), 0)
    }

    func testSecondWriterTimesOutWithBusy() throws {
        let path = dir + "/a.sqlite"
        let a = try Database(path: path)
        try a.execute("CREATE TABLE t (x)")
        let b = try Database(path: path, busyTimeout: 0.2)
        try a.execute("BEGIN IMMEDIATE")
        let start = Date()
        XCTAssertThrowsError(try b.transaction { try b.run("INSERT INTO t VALUES (1)") }) { error in
            XCTAssertTrue((error as? SQLiteError)?.isBusy ?? false, "\(error)")
        }
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(start), 0.15, "waited for the busy timeout")
        try a.execute("COMMIT")
        try b.transaction { try b.run("INSERT INTO t VALUES (1)") }
        XCTAssertEqual(try a.scalarInt("SELECT count(*) FROM t"), 1)
    }

    func testValuesRoundTripThroughParameters() throws {
        let db = try Database(path: dir + "/a.sqlite")
        try db.execute("CREATE TABLE v (i, r, t, b, n)")
        let blob: [UInt8] = [0, 1, 2, 255]
        try db.run(
            "INSERT INTO v VALUES (?, ?, ?, ?, ?)",
            [Int64.max, 1.5, "é'; DROP TABLE v; --", blob, Optional<String>.none])
        let row = try db.statement("SELECT i, r, t, b, n FROM v").first {
            ($0.int64(0), $0.double(1), $0.string(2), $0.blob(3), $0.isNull(4))
        }
        XCTAssertEqual(row?.0, Int64.max)
        XCTAssertEqual(row?.1, 1.5)
        XCTAssertEqual(row?.2, "é'; DROP TABLE v; --")
        XCTAssertEqual(row?.3, blob)
        XCTAssertEqual(row?.4, true)
    }

    func testOpeningAFolderFailsWithAnError() {
        XCTAssertThrowsError(try Database(path: dir)) { XCTAssertTrue($0 is SQLiteError) }
    }
}
