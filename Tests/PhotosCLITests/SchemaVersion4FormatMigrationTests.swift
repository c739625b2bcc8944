import Foundation
import XCTest
import PhotosTestSupport
import PhotosSQLite

/// Issue 13 item 2: migration 4 rebuilds `photo` so that `format` allows HEIF, AVIF and WebP.
/// The rebuild drops the old table, which with foreign keys on would cascade-delete every
/// photo_data, thumbnail, rating and photo_tag row: a version-3 library with all of those must
/// keep every row, pass `foreign_key_check`, and then import a HEIC.
final class SchemaVersion4FormatMigrationTests: XCTestCase {
    var dir = ""

    override func setUpWithError() throws {
        dir = NSTemporaryDirectory() + "photos-schema4-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    /// Turns the current library at `lib` into what version 3 wrote: the photo table with
    /// `CHECK (format IN ('jpeg', 'png'))`, no rating author (migration 5), user_version 3 (foreign
    /// keys off for the rebuild).
    func downgradeToSchemaVersion3(_ lib: String) throws {
        let db = try Database(path: lib + "/photos.sqlite")
        try db.execute("PRAGMA foreign_keys = OFF")
        try db.execute(
            """
            BEGIN;
            CREATE TABLE photo_v3 (
                id           INTEGER PRIMARY KEY,
                unique_name  TEXT NOT NULL UNIQUE,
                display_name TEXT NOT NULL,
                imported_at  TEXT NOT NULL,
                capture_date TEXT,
                width        INTEGER NOT NULL CHECK (width > 0),
                height       INTEGER NOT NULL CHECK (height > 0),
                format       TEXT NOT NULL CHECK (format IN ('jpeg', 'png')),
                orientation  INTEGER NOT NULL DEFAULT 1 CHECK (orientation BETWEEN 1 AND 8),
                zone_id      TEXT NOT NULL REFERENCES zone(id),
                capture_offset INTEGER CHECK (capture_offset BETWEEN -1080 AND 1080),
                capture_source TEXT
            );
            INSERT INTO photo_v3 SELECT id, unique_name, display_name, imported_at, capture_date, width, height,
                format, orientation, zone_id, capture_offset, capture_source FROM photo;
            DROP TABLE photo;
            ALTER TABLE photo_v3 RENAME TO photo;
            CREATE INDEX photo_zone ON photo(zone_id);
            CREATE INDEX photo_capture_date ON photo(capture_date);
            CREATE INDEX photo_imported_at ON photo(imported_at);
            -- Migration 16's original role and format go: one original per photo.
            CREATE TABLE photo_data_v3 (
                id        INTEGER PRIMARY KEY,
                photo_id  INTEGER NOT NULL UNIQUE REFERENCES photo(id) ON DELETE CASCADE,
                sha256    TEXT NOT NULL CHECK (length(sha256) = 64),
                byte_size INTEGER NOT NULL CHECK (byte_size >= 0),
                file_ref  TEXT NOT NULL
            );
            INSERT INTO photo_data_v3 SELECT id, photo_id, sha256, byte_size, file_ref FROM photo_data;
            DROP TABLE photo_data;
            ALTER TABLE photo_data_v3 RENAME TO photo_data;
            CREATE INDEX photo_data_sha256 ON photo_data(sha256);
            \(dropTablesOfSchemaVersion6)
            DROP INDEX rating_photo_author;
            ALTER TABLE rating DROP COLUMN author;
            PRAGMA user_version = 3;
            COMMIT;
            PRAGMA wal_checkpoint(TRUNCATE);
            """)
    }

    /// Every row of every table (sorted), without the schema text and version.
    func rows(_ lib: String) throws -> [String] {
        try LibrarySnapshot.dumpDatabase(lib + "/photos.sqlite").filter { $0.hasPrefix("  ") }
    }

    func count(_ db: Database, _ table: String) throws -> Int {
        try db.scalarInt("SELECT count(*) FROM \(table)") ?? -1
    }

    func testVersion3LibraryKeepsEveryRowAndThenImportsAHEIC() throws {
        try TestDatabase.requireSQLite(
            because:
                "a SQLite file schema version 3 wrote and SQLite's table rebuild (PostgreSQL catalogs start at the current schema)"
        )
        let lib = dir + "/lib"
        let imported = photos([
            "--library", lib, "import", samplesDir + "/storm.jpg", samplesDir + "/kite.png", samplesDir + "/path.jpg"
        ])
        XCTAssertEqual(imported.status, 0, imported.stderr)
        let names = photos(["--library", lib, "list", "--json"]).stdout.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }.compactMap { $0["uniqueName"] as? String }
        XCTAssertEqual(names.count, 3)
        XCTAssertEqual(photos(["--library", lib, "tag", "add", "Sky"] + names).status, 0)
        XCTAssertEqual(photos(["--library", lib, "tag", "add", "Kite", names[1]]).status, 0)
        for (name, value) in zip(names, ["5", "2", "4"]) {
            XCTAssertEqual(photos(["--library", lib, "rate", name, value]).status, 0)
        }
        try downgradeToSchemaVersion3(lib)

        let before = try rows(lib)
        do {
            let db = try Database(path: lib + "/photos.sqlite", readOnly: true)
            XCTAssertEqual(try db.userVersion, 3)
            XCTAssertEqual(
                try [
                    count(db, "photo"), count(db, "photo_data"), count(db, "thumbnail"), count(db, "rating"),
                    count(db, "tag"), count(db, "photo_tag")
                ], [3, 3, 3, 3, 2, 4], "the fixture has rows in every table")
            XCTAssertTrue(
                try db.schemaSQL().contains { $0.contains("CHECK (format IN ('jpeg', 'png'))") }, "the version-3 CHECK")
        }

        let upgraded = photos(["--library", lib, "init"])
        XCTAssertEqual(
            upgraded.stdout, "Migrated library at \(lib) from schema version 3 to \(Schema.currentVersion)\n",
            upgraded.stderr)
        // Migration 5 (ratings per author) adds rating.author, NULL for the ratings before it;
        // migration 6 adds the sync tables' own rows; migration #31 A8 (AUTOINCREMENT) a
        // `sqlite_sequence` row per table, at its largest id.
        let after = try rows(lib)
        XCTAssertEqual(
            after.filter { !$0.hasPrefix("  sync_") && !$0.hasPrefix("  sqlite_sequence: ") }.sorted(),
            before.filter { !$0.hasPrefix("  sqlite_sequence: ") }.map {
                // Migrations 13-15 add the position (NULL), kind ('still'), duration and codec (NULL);
                // migration 16 the original's role ('primary') and format (NULL); migration 18 the
                // camera make, model, lens and RAW container (NULL); migration 20 the title and description (NULL);
                // migration 21 the content identifier (NULL); migration 22 the place name set by hand (NULL).
                $0.hasPrefix("  rating: ")
                    ? $0 + "|null"
                    : $0.hasPrefix("  photo: ")
                        ? $0 + "|null|null|null|text(\"still\")|null|null|null|null|null|null|null|null|null|null"
                        : $0.hasPrefix("  photo_data: ") ? $0 + "|text(\"primary\")|null" : $0
            }
            .sorted(),
            "every row of every table kept, ids included")
        XCTAssertTrue(after.contains("  sqlite_sequence: text(\"photo\")|integer(3)"), "\(after)")
        XCTAssertEqual(try rows(lib).filter { $0.hasPrefix("  rating: ") }.count, 3)
        do {
            let db = try Database(path: lib + "/photos.sqlite", readOnly: true)
            XCTAssertEqual(try db.userVersion, Schema.currentVersion)
            XCTAssertEqual(try db.statement("PRAGMA foreign_key_check").map { $0.string(0) }, [])
            XCTAssertEqual(try db.scalarInt("PRAGMA foreign_keys"), 1, "enforcement is back on after migrating")
            XCTAssertEqual(
                try db.statement(
                    "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'photo' AND sql IS NOT NULL ORDER BY name"
                )
                .map { $0.string(0) },
                ["photo_capture_date", "photo_content_identifier", "photo_imported_at", "photo_position", "photo_zone"])
            XCTAssertEqual(
                try db.statement("SELECT name FROM pragma_table_info('photo') ORDER BY cid").map { $0.string(0) },
                [
                    "id", "unique_name", "display_name", "imported_at", "capture_date", "width", "height", "format",
                    "orientation", "zone_id", "capture_offset", "capture_source", "latitude_e7", "longitude_e7",
                    "altitude_mm", "kind", "duration_ms", "video_codec", "camera_make", "camera_model", "lens_model",
                    "camera_format", "title", "description", "content_identifier", "place_name"
                ])
        }
        XCTAssertEqual(photos(["--library", lib, "verify"]).status, 0)

        let heic = photos(["--library", lib, "import", packageRoot + "/Samples-formats/storm.heic"])
        XCTAssertEqual(heic.status, 0, heic.stderr)
        let db = try Database(path: lib + "/photos.sqlite", readOnly: true)
        XCTAssertEqual(
            try db.statement("SELECT format FROM photo ORDER BY format").map { $0.string(0) },
            ["heif", "jpeg", "jpeg", "png"])
        XCTAssertEqual(
            try db.scalarString("SELECT format FROM photo ORDER BY id DESC LIMIT 1"), "heif",
            "the HEIC is stored as heif")
        XCTAssertThrowsError(
            try Database(path: lib + "/photos.sqlite").run("UPDATE photo SET format = 'bmp' WHERE id = 1"),
            "the CHECK still refuses other formats")
        // Deleting a photo still cascades (the references follow the rebuilt table).
        let rw = try Database(path: lib + "/photos.sqlite")
        XCTAssertEqual(try [count(rw, "photo_data"), count(rw, "thumbnail")], [4, 4])
        try rw.run("DELETE FROM photo WHERE format = 'heif'")
        XCTAssertEqual(try [count(rw, "photo_data"), count(rw, "thumbnail"), count(rw, "rating")], [3, 3, 3])
    }
}
