import PhotosModel
import PhotosSQL
import PhotosTestSupport
import XCTest

@testable import PhotosSQLite

/// Issue 24 item 2 on SQLite: migration 16 rebuilds `photo_data` keeping every row of a
/// version-15 library (ids, values, the largest id ever given) as the photo's `primary` original
/// (format NULL: the photo's); a photo then takes one original per role.
final class OriginalRolesMigrationTests: TemporaryFolderTestCase {
    override func setUpWithError() throws {
        try TestDatabase.requireSQLite(because: "SQLite schema migration 16 on photos.sqlite")
        try super.setUpWithError()
    }

    override var label: String { "photos-originals16" }

    private func sha(_ n: Int) -> String { String(repeating: "0", count: 48) + String(format: "%016x", n) }

    func testAVersion15LibraryKeepsEveryOriginalAsPrimary() throws {
        let db = try Database(path: dir + "/a.sqlite")
        try db.migrate(to: 15)
        try db.execute(
            """
            INSERT INTO photo (id, unique_name, display_name, imported_at, width, height, format, zone_id)
                VALUES (3, 'A', 'a.jpg', '2025-01-01T00:00:00.000Z', 4, 3, 'jpeg', 'default'),
                       (8, 'B', 'b.png', '2025-01-01T00:00:00.000Z', 4, 3, 'png', 'default');
            INSERT INTO photo_data (id, photo_id, sha256, byte_size, file_ref)
                VALUES (5, 3, '\(sha(1))', 10, 'ref-a'), (12, 8, '\(sha(2))', 20, 'ref-b');
            DELETE FROM photo_data WHERE id = 12;
            INSERT INTO photo_data (id, photo_id, sha256, byte_size, file_ref) VALUES (9, 8, '\(sha(2))', 20, 'ref-b');
            """)
        XCTAssertEqual(try db.migrate(), 15)
        XCTAssertEqual(try db.userVersion, Schema.currentVersion)
        let rows = try db.statement(
            "SELECT id, photo_id, sha256, byte_size, file_ref, role, coalesce(format, 'NULL') FROM photo_data ORDER BY id"
        ).map {
            "\($0.int(0))|\($0.int(1))|\($0.string(2).suffix(2))|\($0.int(3))|\($0.string(4))|\($0.string(5))|\($0.string(6))"
        }
        XCTAssertEqual(rows, ["5|3|01|10|ref-a|primary|NULL", "9|8|02|20|ref-b|primary|NULL"])
        XCTAssertEqual(
            try db.scalarInt("SELECT seq FROM sqlite_sequence WHERE name = 'photo_data'"), 12,
            "the largest id ever given stays given")
        XCTAssertEqual(try db.statement("PRAGMA foreign_key_check").map { $0.string(0) }, [])
    }

    func testAPhotoHasOneOriginalPerRole() throws {
        let db = try Database(path: dir + "/b.sqlite")
        try db.migrate()
        let row = PhotoRow(
            uniqueName: "P", displayName: "IMG_1.JPG", importedAt: "2026-01-02T03:04:05.678Z",
            captureDate: "2025-06-07T08:09:10", captureOffset: nil, captureSource: "exif", width: 4, height: 3,
            format: .jpeg, orientation: .up, zoneID: ZoneID(rawValue: "default"))
        let id = try db.transaction(.immediate) { () -> Int64 in
            let writer = try PhotoWriter(db)
            let id = try writer.insert(row, sha256: sha(1), byteSize: 100, fileReference: "ref-jpg", thumbnail: nil)
            try writer.insertOriginal(
                PhotoOriginal(role: .raw, sha256: sha(2), byteSize: 2_000, fileReference: "ref-raw", format: .raw),
                ofPhoto: id)
            return id
        }
        XCTAssertThrowsError(
            try db.transaction(.immediate) {
                try PhotoWriter(db).insertOriginal(
                    PhotoOriginal(role: .raw, sha256: sha(3), byteSize: 3, fileReference: "x", format: .raw),
                    ofPhoto: id)
            }, "UNIQUE (photo_id, role)")
        let rows = try db.statement("SELECT role, format, byte_size, file_ref FROM photo_data ORDER BY role").map {
            "\($0.string(0))|\($0.string(1))|\($0.int(2))|\($0.string(3))"
        }
        XCTAssertEqual(rows, ["primary|jpeg|100|ref-jpg", "raw|raw|2000|ref-raw"])
        XCTAssertEqual(
            try db.originals(ofPhoto: id),
            [
                PhotoOriginal(role: .primary, sha256: sha(1), byteSize: 100, fileReference: "ref-jpg", format: .jpeg),
                PhotoOriginal(role: .raw, sha256: sha(2), byteSize: 2_000, fileReference: "ref-raw", format: .raw)
            ])
        // One row per photo where one is wanted: the photo list sees its primary only.
        XCTAssertEqual(try db.photo(uniqueName: "P")?.sha256, sha(1))
    }
}
