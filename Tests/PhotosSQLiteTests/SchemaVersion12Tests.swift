import PhotosModel
import PhotosTestSupport
import XCTest

@testable import PhotosSQLite

/// Issue 24: migration 12 lets `photo.format` hold camera RAW, TIFF, GIF and JPEG XL. It
/// rebuilds `photo`, which must keep every row, id and reference, and keep ids of deleted
/// photos unused (#31 A8: the largest id ever given survives the rebuild's DROP TABLE).
final class SchemaVersion12Tests: TemporaryFolderTestCase {
    /// The SQLite backend's own migration: skipped on a PostgreSQL run.
    override func setUpWithError() throws {
        try TestDatabase.requireSQLite(because: "SQLite schema migration 12 on photos.sqlite")
        try super.setUpWithError()
    }

    override var label: String { "photos-schema12" }

    func insertPhoto(_ db: Database, id: Int, format: String) throws {
        try db.run(
            """
            INSERT INTO photo (id, unique_name, display_name, imported_at, width, height, format, zone_id)
            VALUES (?, ?, 'p.jpg', '2025-01-01T00:00:00.000Z', 4, 3, ?, 'default')
            """, [id, "P\(id)", format])
    }

    func testRowsIDsAndTheLargestIDEverGivenSurviveAndTheNewFormatsAreAccepted() throws {
        let db = try Database(path: dir + "/a.sqlite")
        try db.migrate(to: 11)
        for id in [3, 8, 9] { try insertPhoto(db, id: id, format: "jpeg") }
        try db.run("INSERT INTO rating (photo_id, value, uuid) VALUES (8, 4, '00000000-0000-4000-8000-000000000001')")
        try db.run("DELETE FROM photo WHERE id = 9")
        XCTAssertEqual(
            try db.statement("SELECT seq FROM sqlite_sequence WHERE name = 'photo'").first([]) { $0.int(0) }, 9)
        XCTAssertThrowsError(try insertPhoto(db, id: 20, format: "tiff"), "version 11 refuses tiff")

        XCTAssertEqual(try db.migrate(to: 12), 11)
        XCTAssertEqual(try db.userVersion, 12)
        XCTAssertEqual(
            try db.statement("SELECT id, format FROM photo ORDER BY id").map { [$0.string(0), $0.string(1)] },
            [["3", "jpeg"], ["8", "jpeg"]])
        XCTAssertEqual(try db.statement("SELECT photo_id, value FROM rating").map { [$0.int(0), $0.int(1)] }, [[8, 4]])
        XCTAssertEqual(try db.statement("SELECT seq FROM sqlite_sequence WHERE name = 'photo'").map { $0.int(0) }, [9])
        XCTAssertEqual(
            try db.statement("SELECT count(*) FROM sqlite_sequence WHERE name = 'photo_v12'").first([]) { $0.int(0) }, 0
        )
        // A new photo gets an id above the deleted 9, not 9 again.
        try db.run(
            "INSERT INTO photo (unique_name, display_name, imported_at, width, height, format, zone_id) VALUES ('N', 'n.tif', '2025-01-01T00:00:00.000Z', 4, 3, 'tiff', 'default')"
        )
        XCTAssertEqual(try db.statement("SELECT id FROM photo WHERE unique_name = 'N'").first([]) { $0.int(0) }, 10)
        for (id, format) in [(30, "raw"), (31, "gif"), (32, "jxl")] { try insertPhoto(db, id: id, format: format) }
        XCTAssertThrowsError(try insertPhoto(db, id: 40, format: "bmp"), "the CHECK still refuses other values")
        XCTAssertEqual(try db.statement("PRAGMA foreign_key_check").map { $0.string(0) }, [])
    }

    func testAnEmptyVersion11LibraryMigratesWithAFreshSequence() throws {
        let db = try Database(path: dir + "/b.sqlite")
        try db.migrate(to: 11)
        XCTAssertEqual(try db.migrate(to: 12), 11)
        try insertPhoto(db, id: 1, format: "gif")
        XCTAssertEqual(try db.statement("SELECT seq FROM sqlite_sequence WHERE name = 'photo'").map { $0.int(0) }, [1])
    }
}
