import Foundation
import XCTest
import PhotosTestSupport
@testable import PhotosCore
import PhotosModel
import PhotosSQLite

/// `history compact` returns the space its deletes free at their commit (SQLite: the commit runs
/// in FULL auto-vacuum mode, the deletes with `secure_delete = FAST`): the rows kept are the same,
/// the library is INCREMENTAL again afterwards with no free page, the file is as small as its
/// pages, no byte of a deleted change is left in it, and the connection's `secure_delete` is what
/// it was. A dry run changes neither the file nor the modes.
final class HistoryCompactionReturnsSpaceAtCommitTests: XCTestCase {
    var tmp: TempDir!
    override func setUpWithError() throws { tmp = try TempDir("photos-compact-commit") }
    override func tearDown() { tmp?.cleanup() }

    /// 60 transactions of 12 changes with 400-byte tombstones: odd tokens stamped 2019 (marked
    /// `DOOMED-<token>-`), even tokens 2021 (marked `KEPT-<token>-`), so the cut frees pages all
    /// over the history tables; the last ten transactions (kept) are written after them, at the
    /// end of the file, so that their pages must move into the freed ones below the final size.
    private func makeLibrary() throws -> Library {
        let lib = try Library(root: tmp.file("L"), create: true)
        let store = lib.historyStore
        try lib.write {
            for k in 1...70 {
                let doomed = k <= 60 && k % 2 == 1
                let token = try store.appendHistoryTransaction(
                    timestamp: doomed ? "2019-06-01T00:00:00.000Z" : "2021-06-01T00:00:00.000Z", author: "test",
                    context: .tagDelete)
                let marker = (doomed ? "DOOMED-" : "KEPT-") + "\(token)-"
                try store.appendHistoryChanges(
                    (0..<12).map {
                        HistoryChange(
                            entity: "Tag", objectID: "tag-\(k)-\($0)", type: .delete,
                            tombstone: [("name", marker + String(repeating: "x", count: 400)), ("uuid", "u-\($0)")])
                    }, token: token)
            }
        }
        return lib
    }

    private let cutoff = Date(timeIntervalSince1970: 1_577_836_800) // 2020-01-01T00:00:00Z

    /// Every history row as text, in token and id order.
    private func history(_ lib: Library) throws -> [String] {
        try lib.catalog.rows(
            "SELECT t.token, t.timestamp, t.author, t.context FROM history_transaction t ORDER BY t.token"
        ).map { $0.map { $0 ?? "NULL" }.joined(separator: "|") }
            + lib.catalog.rows(
                "SELECT c.id, c.token, c.entity, c.object_id, c.type, c.tombstone FROM history_change c ORDER BY c.token, c.id"
            ).map { $0.map { $0 ?? "NULL" }.joined(separator: "|") }
    }

    private func contains(_ path: String, _ text: String) throws -> Bool {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        return bytes.range(of: Data(text.utf8)) != nil
    }

    private func fileSize(_ path: String) -> Int64 {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.int64Value ?? -1
    }

    /// On both backends: the cut takes the 30 odd transactions and keeps the rest as they were.
    func testACompactionKeepsTheSameRows() throws {
        let lib = try makeLibrary()
        let kept = try history(lib).filter { !$0.contains("2019-06-01") && !$0.contains("DOOMED-") }
        let report = try lib.compactHistory(.date(cutoff), force: true)
        XCTAssertEqual([report.transactions, report.changes, Int(report.throughToken)], [30, 360, 59])
        XCTAssertEqual(try history(lib), kept)
        XCTAssertEqual(try lib.catalog.scalarInt("SELECT count(*) FROM history_change"), 40 * 12)
    }

    func testTheCommitReturnsTheSpaceAndLeavesNoDeletedByte() throws {
        try TestDatabase.requireSQLite(because: "SQLite's auto-vacuum modes, free pages and the bytes of photos.sqlite")
        let lib = try makeLibrary()
        let db = lib.sqlite
        try db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        let before = fileSize(lib.databasePath)
        XCTAssertTrue(try contains(lib.databasePath, "DOOMED-1-"), "the deleted changes are in the file before")
        let secureDelete = try db.scalarInt("PRAGMA secure_delete")
        let kept = try history(lib).filter { !$0.contains("2019-06-01") && !$0.contains("DOOMED-") }

        let report = try lib.compactHistory(.date(cutoff), force: true)
        XCTAssertEqual([report.transactions, report.changes], [30, 360])
        XCTAssertEqual(try history(lib), kept, "the same rows, ids and values")
        XCTAssertEqual(try db.statement("PRAGMA integrity_check").map { $0.string(0) }, ["ok"])
        XCTAssertEqual(try db.scalarInt("PRAGMA auto_vacuum"), 2, "INCREMENTAL again")
        XCTAssertEqual(try db.scalarInt("PRAGMA freelist_count"), 0, "every freed page given back")
        XCTAssertEqual(try db.scalarInt("PRAGMA secure_delete"), secureDelete, "the connection's setting back")
        let pages = Int64(try XCTUnwrap(db.scalarInt("PRAGMA page_count")))
        let pageSize = Int64(try XCTUnwrap(db.scalarInt("PRAGMA page_size")))
        let after = fileSize(lib.databasePath)
        XCTAssertEqual(after, pages * pageSize)
        XCTAssertEqual(fileSize(lib.databasePath + "-wal"), 0, "checkpointed with TRUNCATE")
        XCTAssertGreaterThan(report.bytes, 100_000)
        XCTAssertEqual(report.bytes, before - after, "the bytes the file shrank by")
        for token in stride(from: 1, through: 59, by: 2) {
            XCTAssertFalse(try contains(lib.databasePath, "DOOMED-\(token)-"), "no byte of token \(token) is left")
        }
        for token in [2, 60, 61, 70] {
            XCTAssertTrue(try contains(lib.databasePath, "KEPT-\(token)-"), "token \(token) is kept")
        }

        // A later delete frees pages again: the library reclaims incrementally, not at each commit.
        try lib.write { try lib.historyCompaction.deleteHistory(HistoryCut(throughToken: 62)) }
        XCTAssertGreaterThan(try db.scalarInt("PRAGMA freelist_count") ?? 0, 0)
    }

    func testADryRunLeavesTheFileAndTheModes() throws {
        try TestDatabase.requireSQLite(because: "SQLite's auto-vacuum modes and the bytes of photos.sqlite")
        let lib = try makeLibrary()
        let db = lib.sqlite
        try db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: lib.databasePath))
        let secureDelete = try db.scalarInt("PRAGMA secure_delete")

        let dry = try lib.compactHistory(.date(cutoff), force: true, dryRun: true)
        XCTAssertEqual([dry.transactions, dry.changes], [30, 360])
        XCTAssertGreaterThan(dry.bytes, 0)
        try db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: lib.databasePath)), bytes, "the same bytes")
        XCTAssertEqual(try db.scalarInt("PRAGMA secure_delete"), secureDelete)
        // A write after the dry run frees pages as an INCREMENTAL library does.
        try lib.write { try lib.historyCompaction.deleteHistory(HistoryCut(throughToken: 10)) }
        XCTAssertGreaterThan(try db.scalarInt("PRAGMA freelist_count") ?? 0, 0)
        XCTAssertEqual(try db.scalarInt("PRAGMA auto_vacuum"), 2)
    }

    func testALibraryLeftFullByACrashIsSetBackToIncremental() throws {
        try TestDatabase.requireSQLite(because: "SQLite's auto-vacuum modes")
        let lib = try makeLibrary()
        let db = lib.sqlite
        // What a crash between the reclaiming commit and the next one leaves.
        try db.execute("PRAGMA auto_vacuum = FULL")
        XCTAssertEqual(try db.scalarInt("PRAGMA auto_vacuum"), 1)
        XCTAssertEqual(try lib.historyCompaction.reclaimSpace(), 0, "nothing free to give back")
        XCTAssertEqual(try db.scalarInt("PRAGMA auto_vacuum"), 2)

        // Free pages left by deletes that did not reclaim go at the next reclaim, all at once.
        try lib.write { try lib.historyCompaction.deleteHistory(HistoryCut(throughToken: 40)) }
        let free = Int64(try XCTUnwrap(db.scalarInt("PRAGMA freelist_count")))
        XCTAssertGreaterThan(free, 0)
        let pageSize = Int64(try XCTUnwrap(db.scalarInt("PRAGMA page_size")))
        XCTAssertGreaterThanOrEqual(try lib.historyCompaction.reclaimSpace(), free * pageSize)
        XCTAssertEqual(try db.scalarInt("PRAGMA freelist_count"), 0)
        XCTAssertEqual(try db.scalarInt("PRAGMA auto_vacuum"), 2)
        XCTAssertEqual(try db.statement("PRAGMA integrity_check").map { $0.string(0) }, ["ok"])
    }
}
