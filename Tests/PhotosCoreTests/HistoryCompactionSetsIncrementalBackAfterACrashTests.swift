import Foundation
import PhotosModel
import PhotosSQLite
import PhotosTestSupport
import XCTest

@testable import PhotosCore

/// A `history compact` killed between the commit of its deletes (in FULL auto-vacuum mode,
/// `deleteHistory(reclaimingSpace:)`) and setting the library back to INCREMENTAL leaves the
/// library FULL. The next compaction sets it back — also one that finds nothing to delete (the
/// usual case right after the killed one committed its deletes, or with a consumer holding the
/// cut back) — and returns the free pages and checkpoints as any compaction does.
final class HistoryCompactionSetsIncrementalBackAfterACrashTests: XCTestCase {
    var tmp: TempDir!
    override func setUpWithError() throws { tmp = try TempDir("photos-compact-full-left") }
    override func tearDown() { tmp?.cleanup() }

    /// A library with 20 transactions stamped 2021 and the state a compaction killed after its
    /// commit leaves: `auto_vacuum = FULL` (https://www.sqlite.org/pragma.html#pragma_auto_vacuum:
    /// FULL and INCREMENTAL switch without a VACUUM, as `deleteHistory` does).
    private func libraryLeftFull() throws -> Library {
        try TestDatabase.requireSQLite(because: "SQLite's auto-vacuum mode of photos.sqlite")
        let lib = try Library(root: tmp.file("L"), create: true)
        let store = lib.historyStore
        try lib.write {
            for k in 1...20 {
                let token = try store.appendHistoryTransaction(
                    timestamp: "2021-06-01T00:00:00.000Z", author: "test", context: .tagDelete)
                try store.appendHistoryChanges(
                    [HistoryChange(entity: "Tag", objectID: "tag-\(k)", type: .delete, tombstone: [("name", "t\(k)")])],
                    token: token)
            }
        }
        try lib.sqlite.execute("PRAGMA auto_vacuum = FULL")
        XCTAssertEqual(try lib.sqlite.scalarInt("PRAGMA auto_vacuum"), 1)
        return lib
    }

    func testACompactionThatDeletesNothingSetsIncrementalBack() throws {
        let lib = try libraryLeftFull()
        let report = try lib.compactHistory(.date(Date(timeIntervalSince1970: 1_262_304_000))) // 2010
        XCTAssertEqual(report.transactions, 0)
        XCTAssertEqual(try lib.sqlite.scalarInt("PRAGMA auto_vacuum"), 2, "INCREMENTAL again")
        XCTAssertEqual(try lib.catalog.scalarInt("SELECT count(*) FROM history_transaction"), 20)
    }

    func testACompactionHeldBackByAConsumerSetsIncrementalBack() throws {
        let lib = try libraryLeftFull()
        try lib.write { try lib.setConsumerToken("reader", 0) }
        let report = try lib.compactHistory(.date(Date(timeIntervalSince1970: 1_893_456_000))) // 2030
        XCTAssertEqual(report.transactions, 0)
        XCTAssertEqual(report.limitedByConsumer, "reader")
        XCTAssertEqual(try lib.sqlite.scalarInt("PRAGMA auto_vacuum"), 2, "INCREMENTAL again")
        XCTAssertEqual(try lib.catalog.scalarInt("SELECT count(*) FROM history_transaction"), 20)
    }

    func testADryRunLeavesTheModeAsItFoundIt() throws {
        let lib = try libraryLeftFull()
        _ = try lib.compactHistory(.date(Date(timeIntervalSince1970: 1_893_456_000)), dryRun: true)
        XCTAssertEqual(try lib.sqlite.scalarInt("PRAGMA auto_vacuum"), 1, "a dry run changes nothing")
        XCTAssertEqual(try lib.catalog.scalarInt("SELECT count(*) FROM history_transaction"), 20)
    }
}
