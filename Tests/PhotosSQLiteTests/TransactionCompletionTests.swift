import Foundation
import XCTest
import PhotosTestSupport
@testable import PhotosSQLite

/// The transaction primitive dry runs are built on, and the read-only open (issue 9 items 1, 10).
final class TransactionCompletionTests: TemporaryFolderTestCase {
    /// The SQLite backend's own behaviour: skipped on a PostgreSQL run.
    override func setUpWithError() throws {
        try TestDatabase.requireSQLite(because: "SQLite transactions of the Database class")
        try super.setUpWithError()
    }

    override var label: String { "photos-txn" }
    func makeDatabase() throws -> Database {
        let db = try Database(path: dir + "/t.sqlite")
        try db.execute("CREATE TABLE t (x INTEGER)")
        return db
    }

    func testTheBodyDecidesCommitOrRollbackAndSeesItsOwnChanges() throws {
        let db = try makeDatabase()
        var seen = -1
        try db.inTransaction {
            try db.run("INSERT INTO t VALUES (1)")
            seen = try db.scalarInt("SELECT count(*) FROM t") ?? -1
            return .rollback
        }
        XCTAssertEqual(seen, 1)
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM t"), 0)
        XCTAssertFalse(db.isInTransaction)
        try db.inTransaction {
            try db.run("INSERT INTO t VALUES (2)")
            return .commit
        }
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM t"), 1)
        struct Failure: Error {}
        XCTAssertThrowsError(
            try db.inTransaction {
                try db.run("INSERT INTO t VALUES (3)")
                throw Failure()
            })
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM t"), 1)
        XCTAssertEqual(try db.transaction { try db.scalarInt("SELECT x FROM t") }, 2)
    }

    func testQueryOnlyRefusesWritesOutsideAndAllowsReads() throws {
        let db = try makeDatabase()
        try db.setQueryOnly(true)
        XCTAssertThrowsError(try db.run("INSERT INTO t VALUES (1)")) { error in
            XCTAssertEqual((error as? SQLiteError)?.code, 8, "SQLITE_READONLY")
        }
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM t"), 0)
        try db.setQueryOnly(false)
        try db.run("INSERT INTO t VALUES (1)")
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM t"), 1)
    }

    func testReadOnlyOpenCreatesNothingAndLeavesNothingBehind() throws {
        XCTAssertThrowsError(try Database(path: dir + "/missing.sqlite", readOnly: true))
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/missing.sqlite"))
        do {
            let db = try makeDatabase()
            try db.run("INSERT INTO t VALUES (7)")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir), ["t.sqlite"])
        do {
            let reader = try Database(path: dir + "/t.sqlite", readOnly: true)
            XCTAssertEqual(try reader.scalarInt("SELECT x FROM t"), 7)
            XCTAssertThrowsError(try reader.run("INSERT INTO t VALUES (8)"))
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir), ["t.sqlite"], "no -wal/-shm left")
    }
}
