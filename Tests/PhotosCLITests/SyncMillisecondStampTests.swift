import Foundation
import PhotosPostgreSQL
import PhotosSQLite
import PhotosTestSupport
import XCTest

/// Issue 31 item A6: sync's conflict rule compares stamps to the millisecond, as the man page
/// says. History transactions are stamped `YYYY-MM-DDTHH:MM:SS.fffZ`; two ratings of one author
/// made 0.3 s apart in one second on two libraries end as the later one on both sides, whatever
/// the library ids; a library of before keeps its whole-second stamps as `….000Z`. Runs on the
/// backend of the run (`PHOTOS_TEST_DATABASE_URL`).
final class SyncMillisecondStampTests: TemporaryFolderTestCase {
    override var label: String { "photos-sync-ms" }

    @discardableResult
    func ok(_ args: [String], file: StaticString = #filePath, line: UInt = #line) -> String {
        let r = photos(args)
        XCTAssertEqual(r.status, 0, "\(args): \(r.stderr)", file: file, line: line)
        return r.stdout
    }

    func jsonLines(_ text: String) throws -> [[String: Any]] {
        try text.split(separator: "\n").map {
            try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any], String($0))
        }
    }

    /// Milliseconds since 1970 of a `YYYY-MM-DDTHH:MM:SS.fffZ` stamp (nil for another form).
    func milliseconds(_ stamp: String) -> Int64? {
        let u = Array(stamp.utf8)
        guard u.count == 24, u[19] == UInt8(ascii: "."), u[23] == UInt8(ascii: "Z"),
            let ms = Int64(String(stamp.dropFirst(20).prefix(3)))
        else { return nil }
        let formatter = ISO8601DateFormatter()
        guard let date = formatter.date(from: String(stamp.prefix(19)) + "Z") else { return nil }
        return Int64(date.timeIntervalSince1970) * 1000 + ms
    }

    func testTheLaterOfTwoRatingsInOneSecondWinsOnBothSides() throws {
        let x = dir + "/x", y = dir + "/y"
        ok(["--library", x, "import", "-q", samplesDir + "/storm.jpg"])
        ok(["--library", y, "init", "-q"])
        // Y's id is the larger: with stamps of whole seconds the tie went to Y's earlier rating.
        try TestCatalog(root: x).run("UPDATE sync_library SET id = ?", ["00000000-0000-4000-8000-000000000001"])
        try TestCatalog(root: y).run("UPDATE sync_library SET id = ?", ["ffffffff-ffff-4fff-bfff-ffffffffffff"])
        ok(["--library", y, "sync", "-q", "--from", x])
        let photo = try XCTUnwrap(try jsonLines(ok(["--library", y, "list", "--json"])).first?["uniqueName"] as? String)
        // Both ratings within one second: start just after a second begins.
        let fraction = Date().timeIntervalSince1970.truncatingRemainder(dividingBy: 1)
        Thread.sleep(forTimeInterval: fraction < 0.02 ? 0.02 - fraction : 1.02 - fraction)
        ok(["--library", y, "rate", "-q", photo, "1"])
        Thread.sleep(forTimeInterval: 0.3)
        ok(["--library", x, "rate", "-q", photo, "5"])
        ok(["--library", x, "sync", "-q", "--from", y])
        ok(["--library", y, "sync", "-q", "--from", x])
        for lib in [x, y] {
            let ratings = try jsonLines(ok(["--library", lib, "rating", "list", "--json", photo]))
            XCTAssertEqual(ratings.map { $0["value"] as? Int }, [5], lib)
        }
        // Stored stamps have milliseconds: the two rate transactions 0.3 s apart or more.
        func rateTime(_ lib: String) throws -> String {
            try XCTUnwrap(
                try TestCatalog(root: lib).scalarString(
                    "SELECT timestamp FROM history_transaction WHERE context = 'rate' ORDER BY token LIMIT 1"))
        }
        let yTime = try rateTime(y), xTime = try rateTime(x)
        let yMS = try XCTUnwrap(milliseconds(yTime), yTime), xMS = try XCTUnwrap(milliseconds(xTime), xTime)
        XCTAssertGreaterThanOrEqual(xMS - yMS, 300, "\(yTime) \(xTime)")
        XCTAssertNotEqual(yTime.dropFirst(20).prefix(3), "000", yTime)
        for lib in [x, y] {
            for row in try TestCatalog(root: lib).rows("SELECT timestamp FROM history_transaction") {
                XCTAssertNotNil(milliseconds(row[0] ?? ""), "\(lib): \(row)")
            }
            for row in try TestCatalog(root: lib).rows("SELECT stamp_time FROM sync_entry") {
                XCTAssertNotNil(milliseconds(row[0] ?? ""), "\(lib): \(row)")
            }
        }
        // The winning value's stamp is X's rate transaction's time, to the millisecond.
        let stamp = try TestCatalog(root: y).scalarString(
            "SELECT stamp_time FROM sync_entry WHERE entity = 'Rating' AND attribute = 'value' AND stamp_library = ?",
            ["00000000-0000-4000-8000-000000000001"])
        XCTAssertEqual(stamp, xTime)
    }

    /// `history --since` and `--until` compare to the millisecond: a bound inside a second
    /// splits the transactions of that second.
    func testHistoryBoundsHaveMilliseconds() throws {
        let lib = dir + "/lib"
        ok(["--library", lib, "import", "-q", samplesDir + "/storm.jpg"])
        let catalog = try TestCatalog(root: lib)
        let time = try XCTUnwrap(try catalog.scalarString("SELECT max(timestamp) FROM history_transaction"))
        let ms = try XCTUnwrap(milliseconds(time), time)
        let second = String(time.prefix(19))
        // A bound 1 ms after the transaction excludes it from --since and includes it in --until.
        let after = second + String(format: ".%03dZ", Int(ms % 1000) + 1)
        let since = try jsonLines(ok(["--library", lib, "history", "--json", "--since", after]))
        XCTAssertTrue(since.isEmpty, "\(after): \(since)")
        let until = try jsonLines(ok(["--library", lib, "history", "--json", "--until", after]))
        XCTAssertEqual(until.last?["timestamp"] as? String, time)
        let from = try jsonLines(ok(["--library", lib, "history", "--json", "--since", time]))
        XCTAssertEqual(from.map { $0["timestamp"] as? String }, [time])
    }

    /// Migration #31 A6 keeps a library's whole-second stamps as `….000Z` (history and sync state).
    func testTheMigrationGivesOldStampsMilliseconds() throws {
        let before = Issue31Migrations.version(before: "#31 A6")
        let old = "2024-05-01T10:00:20Z"
        if TestDatabase.isPostgreSQL {
            let made = try TestDatabase.makeSchema()
            defer { made.drop() }
            let db = try PostgresDatabase(made.connectionString)
            try db.migrate(to: before)
            try db.run(
                "INSERT INTO history_transaction (token, timestamp, author, context) VALUES (1, ?, 'me', 'rate')", [old]
            )
            try db.run(
                "INSERT INTO sync_entry (entity, object_id, attribute, value, stamp_time, stamp_library, token) VALUES ('Rating', 'r', 'value', '1', ?, 'l', 1)",
                [old])
            try db.migrate()
            XCTAssertEqual(try db.scalarString("SELECT timestamp FROM history_transaction"), "2024-05-01T10:00:20.000Z")
            XCTAssertEqual(try db.scalarString("SELECT stamp_time FROM sync_entry"), "2024-05-01T10:00:20.000Z")
            return
        }
        let db = try Database(path: dir + "/old.sqlite")
        try db.migrate(to: before)
        try db.run("INSERT INTO history_transaction (timestamp, author, context) VALUES (?, 'me', 'rate')", [old])
        try db.run(
            "INSERT INTO history_transaction (timestamp, author, context) VALUES ('2024-05-01T10:00:20.250Z', 'me', 'rate')"
        )
        try db.run(
            "INSERT INTO sync_entry (entity, object_id, attribute, value, stamp_time, stamp_library, token) VALUES ('Rating', 'r', 'value', '1', ?, 'l', 1)",
            [old])
        try db.migrate()
        XCTAssertEqual(
            try db.statement("SELECT timestamp FROM history_transaction ORDER BY token").map { $0.string(0) },
            ["2024-05-01T10:00:20.000Z", "2024-05-01T10:00:20.250Z"])
        XCTAssertEqual(try db.scalarString("SELECT stamp_time FROM sync_entry"), "2024-05-01T10:00:20.000Z")
    }
}

/// Schema versions around the migrations of issue 31 (the lead renumbers migrations at merge):
/// found by the marker in their SQL (`-- #31 A6`), the same index on both backends.
enum Issue31Migrations {
    /// The version just before the migration whose SQL holds `marker`.
    static func version(before marker: String) -> Int {
        let sqlite = Schema.migrations.firstIndex { $0.contains("-- " + marker) }
        let postgres = PostgresSchema.migrations.firstIndex { $0.contains("-- " + marker) }
        precondition(sqlite != nil && sqlite == postgres, "migration \(marker) at one index on both backends")
        return sqlite ?? 0
    }
}
