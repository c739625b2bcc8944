import Foundation
import XCTest
import PhotosTestSupport
@testable import PhotosCore
import PhotosModel
import PhotosSQLite

/// `history compact` deletes a cut that takes most of `history_change` by dropping its
/// indexes and making them again after the delete (a cut of a few rows deletes through the
/// indexes): either way the rows kept are the same rows with the same ids, the schema is the
/// same text, the indexes hold exactly the rows kept, a consumer reads the same transactions
/// and tokens go on from the last one handed out. A dry run changes nothing.
final class HistoryCompactionBulkDeleteTests: XCTestCase {
    var tmp: TempDir!
    override func setUpWithError() throws {
        try TestDatabase.requireSQLite(
            because:
                "the bulk path drops and remakes history_change's indexes from sqlite_master's SQL; PostgreSQL's compaction is one DELETE, held by the history tests that run on both backends"
        )
        tmp = try TempDir("photos-compact-bulk")
    }
    override func tearDown() { tmp?.cleanup() }

    /// 30 transactions of 1,000 changes each (three entities, two zones, 97 object ids); token
    /// k is stamped day k of January 2020, except token 27, stamped day 3 (a clock set back).
    private func makeLibrary() throws -> Library {
        let lib = try Library(root: tmp.file("L"), create: true)
        let db = lib.sqlite
        for k in 1...30 {
            try db.run(
                "INSERT INTO history_transaction (timestamp, author, context) VALUES (?, 'test', 'import')",
                [String(format: "2020-01-%02dT00:00:00.000Z", k == 27 ? 3 : k)])
            try db.run(
                """
                WITH RECURSIVE c(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM c WHERE i < 999)
                INSERT INTO history_change (token, entity, object_id, type, updated, zone_id)
                SELECT ?, CASE i % 3 WHEN 0 THEN 'Photo' WHEN 1 THEN 'Tag' ELSE 'Rating' END, 'object-' || (i % 97),
                       CASE i % 2 WHEN 0 THEN 'insert' ELSE 'update' END,
                       CASE i % 2 WHEN 1 THEN '["name"]' END, CASE i % 4 WHEN 0 THEN NULL ELSE 'default' END
                FROM c
                """, [k])
        }
        return lib
    }

    /// Every change row of the tokens given (all when nil), in id order, as one line each.
    private func changes(_ lib: Library, tokens: [Int]? = nil) throws -> [String] {
        let rows = try lib.sqlite.statement(
            """
            SELECT id || '|' || token || '|' || entity || '|' || object_id || '|' || type || '|'
                   || ifnull(updated, '-') || '|' || ifnull(tombstone, '-') || '|' || ifnull(zone_id, '-')
            FROM history_change ORDER BY id
            """
        ).map { $0.string(0) }
        guard let tokens else { return rows }
        let wanted = Set(tokens.map(String.init))
        return rows.filter { wanted.contains(String($0.split(separator: "|")[1])) }
    }

    private func transactions(_ lib: Library) throws -> [String] {
        try lib.sqlite.statement(
            "SELECT token || '|' || timestamp || '|' || author || '|' || context FROM history_transaction ORDER BY token"
        ).map { $0.string(0) }
    }

    private func integrity(_ lib: Library) throws -> [String] {
        try lib.sqlite.statement("PRAGMA integrity_check").map { $0.string(0) }
    }

    func testACutOfMostChangesKeepsTheSameRowsSchemaAndIndexes() throws {
        let lib = try makeLibrary()
        let schema = try lib.sqlite.schemaSQL()
        XCTAssertTrue(schema.contains { $0.contains("history_change_object") }, "the indexes the cut drops")
        let kept = try changes(lib, tokens: [26, 28, 29, 30])
        let keptTransactions = try transactions(lib).filter { ["26", "28", "29", "30"].contains($0.prefix(2)) }
        XCTAssertEqual(kept.count, 4000)

        // Before noon of day 25: tokens 1–25 and 27 (stamped day 3), 26,000 of 30,000 changes.
        let cutoff = try XCTUnwrap(ISO8601DateFormatter().date(from: "2020-01-25T12:00:00Z"))
        let dry = try lib.compactHistory(.date(cutoff), force: true, dryRun: true)
        XCTAssertEqual([dry.transactions, dry.changes, Int(dry.throughToken)], [26, 26_000, 27])
        XCTAssertEqual(try changes(lib).count, 30_000, "a dry run deletes nothing")
        XCTAssertEqual(try lib.sqlite.schemaSQL(), schema, "and leaves every index")
        XCTAssertEqual(try integrity(lib), ["ok"])

        try lib.setConsumerToken("reader", 25)
        let report = try lib.compactHistory(.date(cutoff), force: true)
        XCTAssertEqual([report.transactions, report.changes, Int(report.throughToken)], [26, 26_000, 27])
        let after = try changes(lib)
        XCTAssertTrue(after == kept, "the same rows, ids and values (\(after.count) rows, \(kept.count) expected)")
        XCTAssertEqual(try transactions(lib), keptTransactions)
        XCTAssertEqual(try lib.sqlite.schemaSQL(), schema, "the indexes made again from the same text")
        XCTAssertEqual(try integrity(lib), ["ok"], "every index holds exactly the rows kept")
        let plan = try lib.sqlite.statement(
            "EXPLAIN QUERY PLAN SELECT id FROM history_change WHERE object_id = 'object-5'"
        ).map { $0.string(3) }
        XCTAssertTrue(plan.contains { $0.contains("history_change_object") }, "\(plan)")
        XCTAssertEqual(
            try lib.sqlite.scalarInt("SELECT count(*) FROM history_change WHERE object_id = 'object-5'"),
            kept.filter { $0.split(separator: "|")[3] == "object-5" }.count)

        // What a consumer at token 25 reads now: the transactions kept, with all their changes.
        let feed: any HistoryFeedStore = lib.sqlite
        var filter = HistoryFilter()
        filter.sinceToken = 25
        var read: [(Int64, Int)] = []
        try feed.forEachHistoryTransaction(matching: filter) { read.append(($0.token, $0.changes.count)) }
        XCTAssertEqual(read.map(\.0), [26, 28, 29, 30])
        XCTAssertEqual(read.map(\.1), [1000, 1000, 1000, 1000])
        XCTAssertFalse(try feed.hasHistoryTransaction(token: 25), "a consumer behind the cut is told it missed some")
        XCTAssertEqual(try feed.issuedHistoryToken(), 30)

        // Tokens go on after the last one handed out.
        try lib.sqlite.run(
            "INSERT INTO history_transaction (timestamp, author, context) VALUES ('2020-02-01T00:00:00.000Z', 't', 'import')"
        )
        XCTAssertEqual(try lib.sqlite.scalarInt("SELECT max(token) FROM history_transaction"), 31)
    }

    func testACutOfFewChangesKeepsTheSameRows() throws {
        let lib = try makeLibrary()
        let schema = try lib.sqlite.schemaSQL()
        let kept = try changes(lib, tokens: Array(3...30))
        let report = try lib.compactHistory(.token(3))
        XCTAssertEqual([report.transactions, report.changes, Int(report.throughToken)], [2, 2000, 2])
        let after = try changes(lib)
        XCTAssertTrue(after == kept, "the same rows, ids and values (\(after.count) rows, \(kept.count) expected)")
        XCTAssertEqual(try lib.sqlite.schemaSQL(), schema)
        XCTAssertEqual(try integrity(lib), ["ok"])
    }

    func testACutOfEveryChangeLeavesEmptyIndexedTables() throws {
        let lib = try makeLibrary()
        let schema = try lib.sqlite.schemaSQL()
        let report = try lib.compactHistory(.token(31))
        XCTAssertEqual([report.transactions, report.changes, Int(report.throughToken)], [30, 30_000, 30])
        XCTAssertEqual(try changes(lib), [])
        XCTAssertEqual(try transactions(lib), [])
        XCTAssertEqual(try lib.sqlite.schemaSQL(), schema)
        XCTAssertEqual(try integrity(lib), ["ok"])
        XCTAssertEqual(try (lib.sqlite as any HistoryFeedStore).issuedHistoryToken(), 30)
    }
}
