import PhotosTestSupport
import XCTest

@testable import PhotosSQLite

/// A read-write catalog connection checkpoints its write-ahead log every 8,192 pages, not
/// SQLite's default 1,000: an import into a big library otherwise checkpointed (and fdatasync'ed
/// the database) after nearly every batch.
final class WALCheckpointIntervalTests: TemporaryFolderTestCase {
    override func setUpWithError() throws {
        try TestDatabase.requireSQLite(because: "the SQLite write-ahead log's checkpoint interval")
        try super.setUpWithError()
    }

    func testAWriterCheckpointsEvery8192Pages() throws {
        let db = try Database(path: dir + "/photos.sqlite")
        XCTAssertEqual(try db.scalarInt("PRAGMA wal_autocheckpoint"), 8192)
        XCTAssertEqual(try db.scalarString("PRAGMA journal_mode")?.lowercased(), "wal")
    }

    func testAWriteOfFewerPagesLeavesTheLogUncheckpointed() throws {
        let db = try Database(path: dir + "/photos.sqlite")
        try db.execute("CREATE TABLE probe (data BLOB NOT NULL)")
        // About 2,000 pages of 4 KiB: past SQLite's default 1,000, within 8,192.
        for _ in 0..<20 {
            try db.execute("BEGIN")
            for _ in 0..<100 { try db.execute("INSERT INTO probe (data) VALUES (zeroblob(4000))") }
            try db.execute("COMMIT")
        }
        let walBytes =
            (try? FileManager.default.attributesOfItem(atPath: dir + "/photos.sqlite-wal")[.size] as? Int) ?? 0
        // At 1,000 pages a checkpoint would have restarted the log: it would hold about 1,100
        // frames (the commit that passed 1,000, then writes from the start of the file).
        XCTAssertGreaterThan(walBytes, 1500 * 4096, "no automatic checkpoint restarted the log at 1,000 pages")
        db.close()
    }
}
