import PhotosPostgreSQL
import PhotosTestSupport
import XCTest

/// `PGStatement.forEach(_:prefetching:_:)` asks for the next page before the body sees the
/// current one, and still gives every row once, in order, also when the body runs statements
/// of its own on the connection or stops the scan early.
final class PrefetchingCursorScanTests: PostgresTestCase {
    /// More than two pages, ending in a partial one.
    private var rowCount: Int { PostgresDatabase.pageRows * 2 + 7 }

    private func series() throws -> PGStatement {
        try db.statement("SELECT n, 'row ' || n FROM generate_series(1, CAST(? AS integer)) AS n ORDER BY n")
    }

    func testEveryRowOnceInOrderInsideAndOutsideATransaction() throws {
        for inTransaction in [false, true] {
            var seen: [Int] = []
            let scan = {
                try self.series().forEach([self.rowCount], prefetching: true) { row in
                    XCTAssertEqual(row.string(1), "row \(row.int(0))")
                    seen.append(row.int(0))
                }
            }
            if inTransaction { try db.transaction(.read) { try scan() } } else { try scan() }
            XCTAssertEqual(seen, Array(1...rowCount), "in a transaction: \(inTransaction)")
        }
    }

    func testTheBodyMayUseTheConnectionWhileTheNextPageIsOnItsWay() throws {
        try db.execute("CREATE TABLE seen (n integer NOT NULL)")
        var sums: [Int] = []
        try db.transaction(.write) {
            try series().forEach([rowCount], prefetching: true) { row in
                let n = row.int(0)
                try db.run("INSERT INTO seen (n) VALUES (?)", [n])
                // A statement with rows, and a nested scan, between pages of the outer one.
                if n % PostgresDatabase.pageRows == 0 || n == rowCount {
                    sums.append(try db.scalarInt("SELECT sum(n) FROM seen") ?? -1)
                    var inner = 0
                    try series().forEach([3], prefetching: true) { inner += $0.int(0) }
                    XCTAssertEqual(inner, 6)
                }
            }
        }
        let expected = [PostgresDatabase.pageRows, PostgresDatabase.pageRows * 2, rowCount].map { $0 * ($0 + 1) / 2 }
        XCTAssertEqual(sums, expected)
        XCTAssertEqual(try db.scalarInt("SELECT count(DISTINCT n) FROM seen"), rowCount)
    }

    struct Stop: Error {}

    func testAScanStoppedByItsBodyLeavesTheConnectionUsable() throws {
        var seen = 0
        XCTAssertThrowsError(
            try series().forEach([rowCount], prefetching: true) { _ in
                seen += 1
                if seen == 5 { throw Stop() }
            }
        ) { XCTAssertTrue($0 is Stop) }
        XCTAssertEqual(seen, 5)
        // The page fetched ahead was received and dropped: the next commands get their own rows.
        XCTAssertEqual(try db.scalarInt("SELECT 41 + 1"), 42)
        var again: [Int] = []
        try series().forEach([3], prefetching: true) { again.append($0.int(0)) }
        XCTAssertEqual(again, [1, 2, 3])
    }
}
