import XCTest
import PhotosTestSupport
import PhotosSQL
@testable import PhotosPostgreSQL
@testable import PhotosSQLite

/// The catalog tables both backends derive from their migrations' SQL (`MigrationTables`), which
/// tells another program's table from ours in `init` and `catalog move`.
final class MigrationTablesTests: TemporaryFolderTestCase {
    static let sqliteRebuildTables: Set<String> = [
        "participant_v3", "rating_v3", "photo_v4",
        // #31 A8 (AUTOINCREMENT)
        "photo_v8", "photo_data_v8", "thumbnail_v8", "tag_v8", "rating_v8", "participant_v8", "history_change_v8",
        // issue 24 (RAW, TIFF, GIF, JPEG XL formats)
        "photo_v12",
        // issue 25 (the video format)
        "photo_v14",
        // issue 24 item 2 (a photo's several originals)
        "photo_data_v16"
    ]

    func testSQLiteListIsExactlyTheTablesAMigratedCatalogHolds() throws {
        try TestDatabase.requireSQLite(because: "reads sqlite_master of a migrated photos.sqlite")
        let db = try Database(path: dir + "/a.sqlite")
        _ = try db.migrate()
        // Also the tables SQLite migrations build to replace a table (CREATE, copy, DROP,
        // RENAME: SQLite cannot change a column's constraints in place), never left behind.
        XCTAssertEqual(Set(try db.tableNames()), Schema.tableNames.subtracting(Self.sqliteRebuildTables))
        XCTAssertTrue(Schema.tableNames.isSuperset(of: ["photo", "photo_data", "thumbnail", "tag", "share"]))
    }

    func testBothBackendsNameTheSameCatalogTables() {
        // PostgreSQL keeps its version in a table of its own; SQLite in PRAGMA user_version.
        XCTAssertEqual(
            PostgresSchema.catalogTableNames.subtracting(["schema_version"]),
            Schema.tableNames.subtracting(Self.sqliteRebuildTables))
    }

    func testIfNotExistsAndSeveralTablesInOneStatementAreRead() {
        let sql = ["CREATE TABLE a (x INTEGER); CREATE TABLE IF NOT EXISTS b_2 (y TEXT);", "CREATE INDEX i ON a (x)"]
        XCTAssertEqual(MigrationTables.created(by: sql), ["a", "b_2"])
    }
}
