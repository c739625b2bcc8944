import PhotosPostgreSQL
import PhotosSQL
import PhotosSQLite
import PhotosTestSupport
import XCTest

/// The PostgreSQL schema mirrors the SQLite one migration for migration.
final class PostgresSchemaMirrorTests: PostgresTestCase {
    func testMigratesToTheSameVersionAsSQLite() throws {
        XCTAssertEqual(PostgresSchema.currentVersion, Schema.currentVersion)
        XCTAssertEqual(try db.schemaVersion(), Schema.currentVersion)
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM schema_version"), 1)
        // Opening again migrates nothing.
        XCTAssertEqual(try PostgresDatabase(connectionString).migrate(), Schema.currentVersion)
    }

    func testEveryTableHasTheColumnsOfTheSQLiteTable() throws {
        let sqlite = try migratedSQLiteDatabase()
        let tables = try sqlite.statement(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name"
        ).map { $0.string(0) }
        XCTAssertFalse(tables.isEmpty)
        for table in tables {
            let sqliteColumns = try sqlite.statement("SELECT name FROM pragma_table_info(?) ORDER BY name")
                .map([table]) { $0.string(0) }
            let pgColumns = try db.statement(
                "SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ? ORDER BY column_name COLLATE \"C\""
            ).map([table]) { $0.string(0) }
            XCTAssertEqual(pgColumns, sqliteColumns, "columns of \(table)")
        }
    }

    func testANewerCatalogIsRefused() throws {
        try db.run("UPDATE schema_version SET version = ?", [PostgresSchema.currentVersion + 1])
        XCTAssertThrowsError(try PostgresDatabase(connectionString).migrate()) { error in
            XCTAssertEqual(
                error as? PostgresMigrationError,
                .newerLibrary(found: PostgresSchema.currentVersion + 1, supported: PostgresSchema.currentVersion))
        }
    }

    func testMigrationFourAcceptsTheNewFormatsAndStillChecks() throws {
        try db.transaction {
            XCTAssertNotNil(
                try PostgresPhotoWriter(db).insert(
                    {
                        var p = photo("a"); p.format = .webp; return p
                    }(), sha256: sha(1), byteSize: 1, fileReference: "x",
                    thumbnail: nil))
        }
        XCTAssertThrowsError(
            try db.transaction {
                // A typed `PhotoRow` cannot name an unknown format: the row's values, with one.
                var values = CatalogInserts.photoValues(photo("b"))
                values[8] = "bmp"
                try db.execute(sql: CatalogInserts.photo, arguments: values)
            }
        ) { error in XCTAssertEqual((error as? PostgresError)?.sqlState, "23514") }
    }
}
