import PhotosPostgreSQL
import PhotosTestSupport
import XCTest

/// A writer that excludes the others (maintenance) waits for the catalog writer lock up to the
/// busy timeout and then fails with `55P03`, classified busy (the CLI's 75).
final class WriterLockBusyTests: PostgresTestCase {
    func testAnExclusiveWriterGivesUpAfterTheBusyTimeout() throws {
        let other = try PostgresDatabase(connectionString, busyTimeout: 0.2)
        try db.inTransaction(.write) {
            XCTAssertThrowsError(try other.inTransaction(.exclusive) { true }) { error in
                let e = error as? PostgresError
                XCTAssertEqual(e?.sqlState, "55P03")
                XCTAssertEqual(e?.isBusy, true)
            }
            XCTAssertFalse(other.isInTransaction)
            // Shared writers run side by side.
            try other.inTransaction(.write) { true }
            return true
        }
        // Once the first writer has ended, the exclusive one gets the lock.
        try other.inTransaction(.exclusive) { true }
    }

    func testARejectingSessionFailsWritesOutsideItsWriteTransactions() throws {
        try db.setQueryOnly(true)
        XCTAssertThrowsError(try db.run("INSERT INTO zone (id, name, scope) VALUES ('z', 'z', 'private')")) { error in
            XCTAssertEqual((error as? PostgresError)?.sqlState, "25006")
            XCTAssertEqual((error as? PostgresError)?.isPermission, true)
        }
        try db.inTransaction(.exclusive) {
            try db.run("INSERT INTO zone (id, name, scope) VALUES ('z', 'z', 'private')")
            return false
        }
        try db.setQueryOnly(false)
        XCTAssertFalse(try db.zoneExists("z"))
    }
}
