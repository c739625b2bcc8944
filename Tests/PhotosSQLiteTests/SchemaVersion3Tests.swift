import XCTest
import PhotosTestSupport
import PhotosModel
@testable import PhotosSQLite

/// Issue 10 item 2: migration 3 gives ratings and participants a stable uuid (sync replicates
/// by uuid), keeps their row ids and values, and the migrator refuses a migration that leaves
/// a dangling foreign key.
final class SchemaVersion3Tests: TemporaryFolderTestCase {
    /// The SQLite backend's own behaviour: skipped on a PostgreSQL run.
    override func setUpWithError() throws {
        try TestDatabase.requireSQLite(because: "SQLite schema migration 3 on photos.sqlite")
        try super.setUpWithError()
    }

    override var label: String { "photos-schema3" }

    func testMigrationGivesEveryRatingAndParticipantADistinctVersion4UUID() throws {
        let db = try Database(path: dir + "/a.sqlite")
        try db.migrate(to: 2)
        try db.run(
            "INSERT INTO photo (id, unique_name, display_name, imported_at, width, height, format, zone_id) VALUES (7, 'P', 'p.jpg', '2025-01-01T00:00:00Z', 1, 1, 'jpeg', 'default')"
        )
        for value in [1, 5, 3] { try db.run("INSERT INTO rating (photo_id, value) VALUES (7, ?)", [value]) }
        try db.run("INSERT INTO zone (id, name, scope) VALUES ('z', 'z', 'private')")
        try db.run("INSERT INTO share (id, title, created) VALUES ('z', 'T', '2025-01-01T00:00:00Z')")
        try db.run(
            "INSERT INTO participant (id, share_id, email, role, permission, acceptance) VALUES (4, 'z', 'a@b.c', 'owner', 'read-write', 'accepted')"
        )
        try db.run(
            "INSERT INTO participant (id, share_id, email, role, permission) VALUES (9, 'z', 'd@e.f', 'private-user', 'read-only')"
        )

        XCTAssertEqual(try db.migrate(to: 3), 2)
        XCTAssertEqual(try db.userVersion, 3)
        let ratings = try db.statement("SELECT id, photo_id, value, uuid FROM rating ORDER BY id").map {
            ($0.int(0), $0.int(1), $0.int(2), $0.string(3))
        }
        XCTAssertEqual(ratings.map { [$0.0, $0.1, $0.2] }, [[1, 7, 1], [2, 7, 5], [3, 7, 3]], "row ids and values kept")
        let participants = try db.statement(
            "SELECT id, email, role, permission, acceptance, uuid FROM participant ORDER BY id"
        )
        .map { [$0.string(0), $0.string(1), $0.string(2), $0.string(3), $0.string(4), $0.string(5)] }
        XCTAssertEqual(
            participants.map { Array($0.prefix(5)) },
            [["4", "a@b.c", "owner", "read-write", "accepted"], ["9", "d@e.f", "private-user", "read-only", "pending"]])
        let uuids = ratings.map(\.3) + participants.map { $0[5] }
        XCTAssertEqual(Set(uuids).count, uuids.count, "distinct")
        for uuid in uuids {
            // RFC 9562 §5.4: lowercase 8-4-4-4-12 hex, version nibble 4, variant 10xx.
            XCTAssertNotNil(
                uuid.range(
                    of: "^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$",
                    options: .regularExpression), uuid)
            XCTAssertEqual(UUID(uuidString: uuid)?.uuidString.lowercased(), uuid)
        }
        // The new columns are required and unique.
        XCTAssertThrowsError(try db.run("INSERT INTO rating (photo_id, value) VALUES (7, 2)")) {
            XCTAssertEqual(($0 as? SQLiteError)?.isConstraint, true)
        }
        XCTAssertThrowsError(try db.run("INSERT INTO rating (uuid, photo_id, value) VALUES (?, 7, 2)", [ratings[0].3]))
        { XCTAssertEqual(($0 as? SQLiteError)?.isConstraint, true) }
        // The indexes and cascades survive the rebuild.
        XCTAssertEqual(
            try db.scalarString(
                "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'rating' AND sql IS NOT NULL"),
            "rating_photo")
        try db.run("DELETE FROM photo WHERE id = 7")
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM rating"), 0, "ON DELETE CASCADE kept")
        try db.run("DELETE FROM share WHERE id = 'z'")
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM participant"), 0)
    }

    func testForeignKeyCheckRefusesADanglingRow() throws {
        let db = try Database(path: dir + "/b.sqlite")
        try db.migrate()
        try db.execute("PRAGMA foreign_keys = OFF")
        try db.run("INSERT INTO rating (uuid, photo_id, value) VALUES ('00000000-0000-4000-8000-000000000000', 42, 1)")
        try db.execute("PRAGMA foreign_keys = ON")
        XCTAssertThrowsError(try db.checkForeignKeys()) {
            XCTAssertEqual($0 as? MigrationError, .foreignKeyViolation(table: "rating", rowID: 1, parent: "photo"))
        }
    }
}

/// Issue 10 item 4: SQLite errors are matchable by result code, primary or extended.
final class ResultCodeTests: XCTestCase {
    /// The SQLite backend's own behaviour: skipped on a PostgreSQL run.
    override func setUpWithError() throws {
        try TestDatabase.requireSQLite(because: "SQLite result codes")
        try super.setUpWithError()
    }

    func testPrimaryPatternsMatchTheirExtendedCodes() throws {
        let dir = NSTemporaryDirectory() + "photos-rescode-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let db = try Database(path: dir + "/r.sqlite")
        try db.execute("CREATE TABLE t (x INTEGER UNIQUE)")
        try db.run("INSERT INTO t (x) VALUES (1)")
        do {
            try db.run("INSERT INTO t (x) VALUES (1)")
            XCTFail("a duplicate was inserted")
        } catch let error as SQLiteError {
            XCTAssertEqual(error.resultCode, .constraintUnique)
            XCTAssertTrue(ResultCode.constraint ~= error.resultCode, "the primary pattern matches the extended code")
            XCTAssertFalse(ResultCode.constraintForeignKey ~= error.resultCode)
            switch error.resultCode {
            case .busy: XCTFail("not busy")
            case .constraint: break
            default: XCTFail("\(error.resultCode)")
            }
        }
        XCTAssertTrue(ResultCode.busy ~= ResultCode(rawValue: 517), "SQLITE_BUSY_SNAPSHOT is busy")
        XCTAssertTrue(ResultCode.readonly ~= ResultCode(rawValue: 1032), "SQLITE_READONLY_DBMOVED is read-only")
    }
}

/// Issue 10 item 1: one migrator, used by the library and by an export folder's state database.
final class MigratorTests: XCTestCase {
    /// The SQLite backend's own behaviour: skipped on a PostgreSQL run.
    override func setUpWithError() throws {
        try TestDatabase.requireSQLite(because: "the SQLite schema migrator")
        try super.setUpWithError()
    }

    func testExportStateDatabaseMigratesThroughTheSameMigrator() throws {
        let dir = NSTemporaryDirectory() + "photos-migrator-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/state.sqlite"
        let state = try ExportStateDatabase.open(path: path)
        try state.upsert(
            [
                ExportFileRow(
                    path: "a.jpg", uniqueName: "U", kind: "original", sha256: String(repeating: "0", count: 64),
                    byteSize: 3, mtimeNanoseconds: 7)
            ], exportedAt: "2026-01-01T00:00:00Z")
        XCTAssertEqual(try state.rows().map(\.path), ["a.jpg"])
        try state.delete(paths: ["a.jpg"])
        XCTAssertEqual(try state.rows(), [])
        let db = try Database(path: path)
        XCTAssertEqual(try db.userVersion, ExportStateDatabase.migrator.currentVersion)
        XCTAssertEqual(try db.scalarInt("PRAGMA auto_vacuum"), 0, "only the library asks for incremental vacuum")
        try db.execute("PRAGMA user_version = 9")
        XCTAssertThrowsError(try ExportStateDatabase.open(path: path)) {
            XCTAssertEqual($0 as? MigrationError, .newerLibrary(found: 9, supported: 2))
        }
        XCTAssertNil(ExportStateDatabase.openReadOnly(path: path), "a dry run reads only the current version")
    }

    /// Version 2 (issue 24 item 2): a state written by an export of version 1 keeps its rows, and
    /// takes the kinds of a photo's other originals (`raw`, `pairedVideo`), which version 1's
    /// CHECK refused (SQLite error 275); an unknown kind is still refused.
    func testExportStateVersion1IsMigratedToTakeEveryOriginalsKind() throws {
        let dir = NSTemporaryDirectory() + "photos-migrator-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/state.sqlite"
        let sha = String(repeating: "0", count: 64)
        do {
            let old = try Database(path: path)
            _ = try ExportStateDatabase.migrator.migrate(old, to: 1)
            XCTAssertEqual(try old.userVersion, 1)
            try old.execute(
                "INSERT INTO export_file VALUES ('IMG_1.JPG', 'U', 'original', '\(sha)', 3, 7, '2026-01-01T00:00:00Z')")
            XCTAssertThrowsError(
                try old.execute("INSERT INTO export_file VALUES ('IMG_1.DNG', 'U', 'raw', '\(sha)', 3, 7, 'x')"),
                "version 1 has no kind for a RAW")
        }
        let state = try ExportStateDatabase.open(path: path)
        XCTAssertEqual(try Database(path: path).userVersion, 2)
        XCTAssertEqual(try state.rows().map(\.path), ["IMG_1.JPG"])
        try state.upsert(
            ["raw", "pairedVideo"].map {
                ExportFileRow(
                    path: "IMG_1." + $0, uniqueName: "U", kind: $0, sha256: sha, byteSize: 3, mtimeNanoseconds: 7)
            }, exportedAt: "2026-01-01T00:00:00Z")
        XCTAssertEqual(try state.rows(uniqueName: "U").map(\.kind), ["original", "pairedVideo", "raw"])
        XCTAssertThrowsError(
            try state.upsert(
                [
                    ExportFileRow(
                        path: "x", uniqueName: "U", kind: "other", sha256: sha, byteSize: 3, mtimeNanoseconds: 7)
                ],
                exportedAt: "2026-01-01T00:00:00Z"))
        XCTAssertNotNil(ExportStateDatabase.openReadOnly(path: path))
    }
}
