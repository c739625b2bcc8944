import PhotosModel
import PhotosPostgreSQL
import PhotosSQL
import PhotosTestSupport
import XCTest

/// Issue 24 item 2 on PostgreSQL: migration 16 keeps every `photo_data` row of a version-15
/// catalog, as the photo's `primary` original (format NULL: the photo's), and a photo then takes
/// one original per role.
final class OriginalRolesMigrationPostgresTests: PostgresTestCase {
    func testAVersion15CatalogKeepsEveryOriginalAsPrimary() throws {
        let made = try TestDatabase.makeSchema()
        defer { made.drop() }
        let old = try PostgresDatabase(made.connectionString)
        try old.migrate(to: 15)
        try old.execute(
            """
            INSERT INTO photo (id, unique_name, display_name, imported_at, width, height, format, zone_id)
                VALUES (3, 'A', 'a.jpg', '2025-01-01T00:00:00.000Z', 4, 3, 'jpeg', 'default'),
                       (8, 'B', 'b.png', '2025-01-01T00:00:00.000Z', 4, 3, 'png', 'default');
            INSERT INTO photo_data (id, photo_id, sha256, byte_size, file_ref)
                VALUES (5, 3, '\(sha(1))', 10, 'ref-a'), (9, 8, '\(sha(2))', 20, 'ref-b');
            """)
        XCTAssertEqual(try old.migrate(), 15)
        XCTAssertEqual(try old.schemaVersion(), PostgresSchema.currentVersion)
        let rows = try old.statement(
            "SELECT id, photo_id, sha256, byte_size, file_ref, role, coalesce(format, 'NULL') FROM photo_data ORDER BY id"
        ).map {
            "\($0.int(0))|\($0.int(1))|\($0.string(2).suffix(2))|\($0.int(3))|\($0.string(4))|\($0.string(5))|\($0.string(6))"
        }
        XCTAssertEqual(rows, ["5|3|01|10|ref-a|primary|NULL", "9|8|02|20|ref-b|primary|NULL"])
    }

    func testAPhotoHasOneOriginalPerRole() throws {
        let writer = PostgresPhotoWriter(db)
        let id = try db.transaction {
            try writer.insert(photo("P"), sha256: sha(1), byteSize: 100, fileReference: "ref-jpg", thumbnail: nil)
        }
        try db.transaction {
            try writer.insertOriginal(
                PhotoOriginal(role: .raw, sha256: sha(2), byteSize: 2_000, fileReference: "ref-raw", format: .raw),
                ofPhoto: id)
        }
        XCTAssertThrowsError(
            try db.transaction {
                try writer.insertOriginal(
                    PhotoOriginal(role: .raw, sha256: sha(3), byteSize: 3, fileReference: "x", format: .raw),
                    ofPhoto: id)
            }
        ) { XCTAssertEqual(($0 as? PostgresError)?.sqlState, "23505", "UNIQUE (photo_id, role)") }
        let rows = try db.statement("SELECT role, format, byte_size, file_ref FROM photo_data ORDER BY role").map {
            "\($0.string(0))|\($0.string(1))|\($0.int(2))|\($0.string(3))"
        }
        XCTAssertEqual(rows, ["primary|jpeg|100|ref-jpg", "raw|raw|2000|ref-raw"])
        XCTAssertEqual(try db.originals(ofPhoto: id).map(\.role), [.primary, .raw])
        XCTAssertEqual(try db.originals(ofPhoto: id).last?.byteSize, 2_000)
    }
}
