import Foundation
import PhotosPostgreSQL
import PhotosSQLite
import PhotosTestSupport
import XCTest

/// Issue 31 item A8: no id is given twice. After the row with the largest id is deleted, the
/// next row gets a larger id (SQLite AUTOINCREMENT, PostgreSQL identity sequences), so a stale
/// `rating delete ID` finds nothing (66) and deletes nothing; ratings, photos, tags,
/// participants and history changes alike; a library of before keeps its rows and ids and
/// continues above its largest id. On the backend of the run (`PHOTOS_TEST_DATABASE_URL`).
final class IDsNeverReusedTests: TemporaryFolderTestCase {
    override var label: String { "photos-ids-never-reused" }
    var lib: String { dir + "/lib" }

    @discardableResult
    func ok(_ args: [String], file: StaticString = #filePath, line: UInt = #line) -> String {
        let r = photos(["--library", lib] + args)
        XCTAssertEqual(r.status, 0, "\(args): \(r.stderr)", file: file, line: line)
        return r.stdout
    }

    func jsonLines(_ text: String) throws -> [[String: Any]] {
        try text.split(separator: "\n").map {
            try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any], String($0))
        }
    }

    func maxID(_ table: String) throws -> Int {
        try TestCatalog(root: lib).scalarInt("SELECT COALESCE(max(id), 0) FROM \(table)") ?? 0
    }

    func testAStaleRatingDeleteFindsNothingAndDeletesNothing() throws {
        ok(["import", "-q", samplesDir + "/storm.jpg", samplesDir + "/path.jpg"])
        let names = try jsonLines(ok(["list", "--json"])).compactMap { $0["uniqueName"] as? String }
        XCTAssertEqual(names.count, 2)
        ok(["--author", "ann", "rate", "-q", names[0], "3"])
        ok(["--author", "bob", "rate", "-q", names[1], "4"])
        let ratings = try jsonLines(ok(["rating", "list", "--json", names[1]]))
        let old = try XCTUnwrap(ratings.first?["id"] as? Int)
        ok(["rating", "delete", "-q", String(old)])
        // Carol rates: her rating gets a new id, not the deleted one.
        ok(["--author", "carol", "rate", "-q", names[1], "2"])
        let carol = try XCTUnwrap(try jsonLines(ok(["rating", "list", "--json", names[1]])).first?["id"] as? Int)
        XCTAssertGreaterThan(carol, old)
        // Bob's stale delete: not found, nothing deleted.
        let stale = photos(["--library", lib, "rating", "delete", String(old)])
        XCTAssertEqual(stale.status, 66, stale.stderr)
        XCTAssertTrue(stale.stderr.contains("\(old)"), stale.stderr)
        XCTAssertEqual(try TestCatalog(root: lib).scalarInt("SELECT count(*) FROM rating"), 2)
        XCTAssertEqual(
            try jsonLines(ok(["rating", "list", "--json", names[1]])).map { $0["author"] as? String }, ["carol"])
    }

    func testPhotosTagsParticipantsAndHistoryChangesGetNewIDs() throws {
        ok(["import", "-q", "--tag", "Old", samplesDir + "/storm.jpg"])
        let photo = try maxID("photo"), data = try maxID("photo_data"), thumbnail = try maxID("thumbnail")
        let tag = try maxID("tag")
        let name = try XCTUnwrap(try jsonLines(ok(["list", "--json"])).first?["uniqueName"] as? String)
        ok(["delete", "--yes", "-q", name])
        ok(["tag", "delete", "-q", "Old"])
        ok(["import", "-q", "--tag", "New", samplesDir + "/path.jpg"])
        XCTAssertGreaterThan(try maxID("photo"), photo)
        XCTAssertGreaterThan(try maxID("photo_data"), data)
        XCTAssertGreaterThan(try maxID("thumbnail"), thumbnail)
        XCTAssertGreaterThan(try maxID("tag"), tag)

        let later = try XCTUnwrap(try jsonLines(ok(["list", "--json"])).first?["uniqueName"] as? String)
        let share = try XCTUnwrap(
            try jsonLines(ok(["--json", "share", "create", "--title", "S", later])).first?["id"] as? String)
        ok(["share", "invite", "-q", share, "ann@example.org"])
        // The rows with the largest ids deleted behind photos' back: the next ones are larger still.
        let catalog = try TestCatalog(root: lib)
        let participant = try maxID("participant")
        try catalog.run("DELETE FROM participant WHERE id = ?", [participant])
        ok(["share", "invite", "-q", share, "bob@example.org"])
        XCTAssertGreaterThan(try maxID("participant"), participant)

        let change = try maxID("history_change")
        try catalog.run("DELETE FROM history_change WHERE id = ?", [change])
        ok(["tag", "add", "-q", "Later", later])
        XCTAssertGreaterThan(try maxID("history_change"), change)
        let tagNow = try maxID("tag")
        try catalog.run("DELETE FROM tag WHERE id = ?", [tagNow])
        ok(["tag", "add", "-q", "Again", later])
        XCTAssertGreaterThan(try maxID("tag"), tagNow)
    }

    /// A library of the version before migration #31 A8 keeps every row with its id; new rows
    /// continue above the largest id (all that is known of the ids used before); foreign keys
    /// still cascade.
    func testTheMigrationKeepsRowsAndContinuesAboveTheLargestID() throws {
        let before = Issue31Migrations.version(before: "#31 A8")
        let rows = """
            INSERT INTO photo (id, unique_name, display_name, imported_at, width, height, format, zone_id)
                VALUES (1, 'A', 'a.jpg', '2024-01-01T00:00:00Z', 1, 1, 'jpeg', 'default'),
                       (5, 'B', 'b.jpg', '2024-01-01T00:00:00Z', 1, 1, 'jpeg', 'default');
            INSERT INTO photo_data (id, photo_id, sha256, byte_size, file_ref)
                VALUES (7, 5, '\(String(repeating: "a", count: 64))', 1, 'aa/x');
            INSERT INTO tag (id, uuid, name, zone_id) VALUES (3, '00000000-0000-4000-8000-000000000003', 'T', 'default');
            INSERT INTO photo_tag (photo_id, tag_id) VALUES (5, 3);
            INSERT INTO rating (id, uuid, photo_id, value, author)
                VALUES (4, '00000000-0000-4000-8000-000000000004', 5, 3, 'ann');
            """
        func check(_ catalog: TestCatalog) throws {
            XCTAssertEqual(try catalog.rows("SELECT id, unique_name FROM photo ORDER BY id"), [["1", "A"], ["5", "B"]])
            XCTAssertEqual(try catalog.rows("SELECT id, photo_id FROM photo_data"), [["7", "5"]])
            XCTAssertEqual(try catalog.rows("SELECT photo_id, tag_id FROM photo_tag"), [["5", "3"]])
            XCTAssertEqual(try catalog.rows("SELECT id, value, author FROM rating"), [["4", "3", "ann"]])
            let photo = try catalog.insert(
                "INSERT INTO photo (unique_name, display_name, imported_at, width, height, format, zone_id) VALUES ('C', 'c.jpg', '2024-01-01T00:00:00Z', 1, 1, 'jpeg', 'default')"
            )
            XCTAssertEqual(photo, 6)
            let rating = try catalog.insert(
                "INSERT INTO rating (uuid, photo_id, value) VALUES ('00000000-0000-4000-8000-000000000009', 5, 1)")
            XCTAssertEqual(rating, 5)
            let tag = try catalog.insert(
                "INSERT INTO tag (uuid, name, zone_id) VALUES ('00000000-0000-4000-8000-00000000000a', 'U', 'default')")
            XCTAssertEqual(tag, 4)
            // Deleting the largest rating and inserting again: a larger id still.
            try catalog.run("DELETE FROM rating WHERE id = 5")
            XCTAssertEqual(
                try catalog.insert(
                    "INSERT INTO rating (uuid, photo_id, value) VALUES ('00000000-0000-4000-8000-00000000000b', 5, 2)"),
                6)
            // Foreign keys hold on the rebuilt tables: deleting a photo cascades.
            try catalog.run("DELETE FROM photo WHERE id = 5")
            XCTAssertEqual(try catalog.scalarInt("SELECT count(*) FROM photo_data"), 0)
            XCTAssertEqual(try catalog.scalarInt("SELECT count(*) FROM photo_tag"), 0)
            XCTAssertEqual(try catalog.scalarInt("SELECT count(*) FROM rating"), 0)
        }
        if TestDatabase.isPostgreSQL {
            let made = try TestDatabase.makeSchema()
            defer { made.drop() }
            let db = try PostgresDatabase(made.connectionString)
            try db.migrate(to: before)
            try db.execute(rows)
            try db.migrate()
            try check(TestCatalog(postgres: db))
            return
        }
        let db = try Database(path: dir + "/old.sqlite")
        try db.migrate(to: before)
        try db.execute(rows)
        try db.migrate()
        XCTAssertEqual(
            try db.statement("SELECT name FROM sqlite_sequence WHERE name IN ('photo', 'rating', 'tag') ORDER BY name")
                .map { $0.string(0) }, ["photo", "rating", "tag"])
        for table in ["photo", "photo_data", "thumbnail", "tag", "rating", "participant", "history_change"] {
            let sql = try XCTUnwrap(try db.scalarString("SELECT sql FROM sqlite_master WHERE name = ?", [table]))
            XCTAssertTrue(sql.contains("AUTOINCREMENT"), sql)
        }
        XCTAssertEqual(
            try db.statement(
                """
                SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL
                AND tbl_name IN ('photo', 'photo_data', 'thumbnail', 'tag', 'rating', 'participant', 'history_change')
                ORDER BY name
                """
            ).map { $0.string(0) },
            [
                "history_change_entity", "history_change_object", "history_change_token", "history_change_zone",
                "photo_capture_date", "photo_content_identifier", "photo_data_sha256", "photo_imported_at",
                "photo_position", "photo_zone",
                "rating_photo",
                "rating_photo_author", "tag_zone_name"
            ])
        try check(TestCatalog(sqlite: db))
    }
}
