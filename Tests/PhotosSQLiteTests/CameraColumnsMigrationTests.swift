import PhotosModel
import PhotosSQL
import PhotosTestSupport
import XCTest

@testable import PhotosSQLite

/// Issue 24 items 1 and 7 on SQLite: migration 18 adds `photo.camera_make`, `camera_model`,
/// `lens_model` and `camera_format`; a version-17 library keeps every photo row, each with NULL
/// in the four (unknown until `import --refresh-metadata`), and new rows store and read them.
final class CameraColumnsMigrationTests: TemporaryFolderTestCase {
    override func setUpWithError() throws {
        try TestDatabase.requireSQLite(because: "SQLite schema migration 18 on photos.sqlite")
        try super.setUpWithError()
    }

    override var label: String { "photos-camera18" }

    func testAVersion17LibraryKeepsItsRowsWithNullCameras() throws {
        let db = try Database(path: dir + "/a.sqlite")
        try db.migrate(to: 17)
        try db.execute(
            """
            INSERT INTO photo (id, unique_name, display_name, imported_at, width, height, format, zone_id)
                VALUES (3, 'A', 'a.jpg', '2025-01-01T00:00:00.000Z', 4, 3, 'jpeg', 'default'),
                       (8, 'B', 'b.nef', '2025-01-01T00:00:00.000Z', 6, 4, 'raw', 'default');
            """)
        XCTAssertEqual(try db.migrate(), 17)
        XCTAssertEqual(try db.userVersion, Schema.currentVersion)
        let rows = try db.statement(
            """
            SELECT id, unique_name, format, coalesce(camera_make, 'NULL'), coalesce(camera_model, 'NULL'),
                   coalesce(lens_model, 'NULL'), coalesce(camera_format, 'NULL') FROM photo ORDER BY id
            """
        ).map { row in
            let values: [String] = (1..<7).map { row.string($0) }
            return ([String(row.int(0))] + values).joined(separator: "|")
        }
        XCTAssertEqual(rows, ["3|A|jpeg|NULL|NULL|NULL|NULL", "8|B|raw|NULL|NULL|NULL|NULL"])
        try db.execute(
            """
            INSERT INTO photo (unique_name, display_name, imported_at, width, height, format, zone_id, camera_make,
                               camera_model, lens_model, camera_format)
                VALUES ('C', 'c.nef', '2025-01-01T00:00:00.000Z', 6, 4, 'raw', 'default', 'NIKON CORPORATION',
                        'NIKON D70', NULL, 'nef')
            """)
        let cameras = try db.cameraIdentities()
        XCTAssertEqual(cameras.count, 1)
        XCTAssertEqual(cameras.values.first, CameraIdentity(make: "NIKON CORPORATION", model: "NIKON D70", lens: nil))
    }
}
