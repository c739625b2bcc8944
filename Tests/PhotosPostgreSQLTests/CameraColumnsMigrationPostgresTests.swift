import PhotosModel
import PhotosPostgreSQL
import PhotosSQL
import PhotosTestSupport
import XCTest

/// Issue 24 items 1 and 7 on PostgreSQL: migration 18 keeps every photo of a version-17 catalog
/// with NULL camera columns, and new rows store and read them.
final class CameraColumnsMigrationPostgresTests: PostgresTestCase {
    func testAVersion17CatalogKeepsItsRowsWithNullCameras() throws {
        let made = try TestDatabase.makeSchema()
        defer { made.drop() }
        let old = try PostgresDatabase(made.connectionString)
        try old.migrate(to: 17)
        try old.execute(
            """
            INSERT INTO photo (id, unique_name, display_name, imported_at, width, height, format, zone_id)
                VALUES (3, 'A', 'a.jpg', '2025-01-01T00:00:00.000Z', 4, 3, 'jpeg', 'default'),
                       (8, 'B', 'b.nef', '2025-01-01T00:00:00.000Z', 6, 4, 'raw', 'default');
            """)
        XCTAssertEqual(try old.migrate(), 17)
        XCTAssertEqual(try old.schemaVersion(), PostgresSchema.currentVersion)
        let rows = try old.statement(
            """
            SELECT id, unique_name, format, coalesce(camera_make, 'NULL'), coalesce(camera_model, 'NULL'),
                   coalesce(lens_model, 'NULL'), coalesce(camera_format, 'NULL') FROM photo ORDER BY id
            """
        ).map { row in
            let values: [String] = (1..<7).map { row.string($0) }
            return ([String(row.int(0))] + values).joined(separator: "|")
        }
        XCTAssertEqual(rows, ["3|A|jpeg|NULL|NULL|NULL|NULL", "8|B|raw|NULL|NULL|NULL|NULL"])
        try old.execute(
            """
            INSERT INTO photo (id, unique_name, display_name, imported_at, width, height, format, zone_id, camera_make,
                               camera_model, lens_model, camera_format)
                VALUES (9, 'C', 'c.nef', '2025-01-01T00:00:00.000Z', 6, 4, 'raw', 'default', 'NIKON CORPORATION',
                        'NIKON D70', NULL, 'nef')
            """)
        let cameras = try old.cameraIdentities()
        XCTAssertEqual(cameras, [9: CameraIdentity(make: "NIKON CORPORATION", model: "NIKON D70", lens: nil)])
    }
}
