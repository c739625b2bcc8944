import Foundation
import XCTest
import PhotosTestSupport
@testable import PhotosCore
import PhotosSQLite

/// `history compact` reports the bytes the database file shrank by, measured by the store's
/// `reclaimSpace()` (incremental vacuum and WAL checkpoint), and a dry run the free space its
/// rolled-back deletes made, without changing the file.
final class HistoryCompactionSpaceTests: XCTestCase {
    var tmp: TempDir!
    override func setUpWithError() throws { tmp = try TempDir("photos-compact-space") }
    override func tearDown() { tmp.cleanup() }

    private func fileSize(_ path: String) -> Int64 {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.int64Value ?? -1
    }

    func testCompactionReportsTheBytesTheFileShrankBy() throws {
        try TestDatabase.requireSQLite(because: "the size of photos.sqlite and its WAL after a checkpoint")
        let lib = try Library(root: tmp.file("L"), create: true)
        let store: any HistoryStore = lib.sqlite
        let long = String(repeating: "x", count: 300)
        try lib.write {
            for _ in 0..<200 {
                let token = try store.appendHistoryTransaction(
                    timestamp: "2020-01-01T00:00:00.000Z", author: "t", context: .tagDelete)
                try store.appendHistoryChanges(
                    (0..<10).map {
                        HistoryChange(
                            entity: "Tag", objectID: "tag-\($0)", type: .delete,
                            tombstone: [("name", long), ("uuid", "u-\($0)")])
                    }, token: token)
            }
        }
        try lib.sqlite.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        let before = fileSize(lib.databasePath)
        XCTAssertGreaterThan(before, 600_000)

        let dry = try lib.compactHistory(.token(101), dryRun: true)
        XCTAssertEqual([dry.transactions, dry.changes, Int(dry.throughToken)], [100, 1000, 100])
        XCTAssertGreaterThan(dry.bytes, 200_000, "the free space the rolled-back deletes made")
        XCTAssertEqual(
            try lib.catalog.scalarInt("SELECT count(*) FROM history_change"), 2000, "a dry run deletes nothing")
        try lib.sqlite.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        XCTAssertEqual(fileSize(lib.databasePath), before, "nor shrinks the file")

        let real = try lib.compactHistory(.token(101))
        XCTAssertEqual([real.transactions, real.changes, Int(real.throughToken)], [100, 1000, 100])
        let after = fileSize(lib.databasePath)
        XCTAssertGreaterThan(real.bytes, 200_000)
        XCTAssertEqual(real.bytes, before - after, "the bytes the file shrank by (the WAL was checkpointed)")
        XCTAssertEqual(fileSize(lib.databasePath + "-wal"), 0, "checkpointed with TRUNCATE")

        // The store, directly: nothing left to reclaim, no free space left.
        let compaction: any HistoryCompactionStore = lib.sqlite
        XCTAssertEqual(try compaction.freeSpaceBytes(), 0)
        XCTAssertEqual(try compaction.reclaimSpace(), 0)
        XCTAssertEqual(
            try compaction.historySize(of: HistoryCut(throughToken: .max)),
            HistoryCutSize(transactions: 100, changes: 1000, lastToken: 200))
        XCTAssertEqual(
            try compaction.historySize(of: HistoryCut(throughToken: .max, before: "2020-01-01T00:00:00.000Z")),
            HistoryCutSize())
        XCTAssertEqual(try compaction.lastHistoryToken(before: "2020-01-01T00:00:00.001Z"), 200)
        XCTAssertNil(try compaction.lowestHistoryConsumer())
    }
}
