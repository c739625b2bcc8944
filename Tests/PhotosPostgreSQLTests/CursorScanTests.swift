import PhotosModel
import PhotosPostgreSQL
import XCTest

/// `PGStatement.forEach` reads a SELECT through a server-side cursor in pages of
/// `PostgresDatabase.pageRows` rows instead of one whole libpq result: every row arrives once,
/// in order, inside and outside a transaction; a row handler may run other statements between
/// pages; the cursor is closed at the end and when the handler throws; and the scans that grow
/// with the catalog (`forEachRecordedOriginal`, `forEachThumbnail`, `forEachPhoto`) read the same
/// rows as a whole result does.
final class CursorScanTests: PostgresTestCase {
    /// More rows than two pages, one more than a multiple of the page: the last page is short.
    private var rowCount: Int { 2 * PostgresDatabase.pageRows + 1 }

    /// The scan cursors open on the connection (`pg_cursors` also lists the protocol's portal
    /// of the query asking).
    private func openCursors() throws -> Int {
        try db.scalarInt("SELECT count(*) FROM pg_cursors WHERE name LIKE 'photos_cursor_%'") ?? -1
    }

    func testEveryRowArrivesOnceInOrderInsideAndOutsideATransaction() throws {
        let select = try db.statement("SELECT n, 'row ' || n FROM generate_series(1, ?) AS n ORDER BY n")
        var outside: [Int] = []
        try select.forEach([rowCount]) { row in
            XCTAssertEqual(row.string(1), "row \(row.int(0))")
            outside.append(row.int(0))
        }
        XCTAssertEqual(outside, Array(1...rowCount))
        XCTAssertEqual(try openCursors(), 0)

        var inside: [Int] = []
        try db.transaction(.read) { try select.forEach([rowCount]) { inside.append($0.int(0)) } }
        XCTAssertEqual(inside, outside)
        // Exactly a page, and no row at all.
        XCTAssertEqual(
            try select.streamedMap([PostgresDatabase.pageRows]) { $0.int(0) }.count, PostgresDatabase.pageRows)
        XCTAssertEqual(try select.streamedMap([0]) { $0.int(0) }, [])
        XCTAssertEqual(try openCursors(), 0)
    }

    /// A handler that writes between pages (as `forEachPhoto`'s callers may): the writes land,
    /// and the scan, like a whole result, reads the rows as they were when it started.
    func testAHandlerMayRunOtherStatementsBetweenPages() throws {
        try db.execute("CREATE TABLE scan_log (n BIGINT NOT NULL)")
        try db.execute("INSERT INTO scan_log SELECT generate_series(1, \(rowCount))")
        var seen = 0
        try db.transaction(.write) {
            try db.statement("SELECT n FROM scan_log ORDER BY n").forEach { row in
                seen += 1
                if row.int(0) % 500 == 0 { try db.run("INSERT INTO scan_log (n) VALUES (?)", [-row.int(0)]) }
                XCTAssertEqual(try openCursors(), 1)
            }
        }
        XCTAssertEqual(seen, rowCount)
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM scan_log WHERE n < 0"), rowCount / 500)
        XCTAssertEqual(try openCursors(), 0)
    }

    func testTheCursorIsClosedWhenTheHandlerThrows() throws {
        struct Stop: Error {}
        let select = try db.statement("SELECT n FROM generate_series(1, ?) AS n")
        XCTAssertThrowsError(try select.forEach([rowCount]) { if $0.int(0) == 1500 { throw Stop() } }) {
            XCTAssertTrue($0 is Stop, "\($0)")
        }
        XCTAssertEqual(try openCursors(), 0)
        // The connection is usable afterwards, inside a transaction too.
        try db.transaction(.read) {
            XCTAssertThrowsError(try select.forEach([rowCount]) { _ in throw Stop() })
            XCTAssertEqual(try db.scalarInt("SELECT 1"), 1)
        }
        XCTAssertEqual(try openCursors(), 0)
    }

    /// The catalog scans of verify and list over more than two pages of photos: the same rows,
    /// in the same order, as the whole-result queries they replace.
    func testCatalogScansReadEveryPhotoOfABigCatalog() throws {
        let writer = PostgresPhotoWriter(db)
        try db.transaction(.write) {
            for n in 0..<rowCount {
                _ = try writer.insert(
                    photo(String(format: "P%05d", n)), sha256: sha(n), byteSize: n, fileReference: "ref\(n)",
                    thumbnail: (data: [UInt8(n % 256), 1, 2], width: 4, height: 3))
            }
        }
        let originals = try db.recordedOriginals()
        XCTAssertEqual(originals.map(\.sha256), (0..<rowCount).map(sha))
        XCTAssertEqual(originals.map(\.byteSize), Array(0..<rowCount))
        XCTAssertEqual(try db.recordedOriginalCount(), rowCount)

        var thumbnails: [RecordedThumbnail] = []
        try db.forEachThumbnail { thumbnails.append($0) }
        XCTAssertEqual(thumbnails.map(\.photo.uniqueName), (0..<rowCount).map { String(format: "P%05d", $0) })
        XCTAssertEqual(thumbnails.map { $0.data[0] }, (0..<rowCount).map { UInt8($0 % 256) })

        var listed: [String] = []
        var query = PhotoQuery()
        query.sort = .name
        query.descending = true
        try db.forEachPhoto(matching: query) { listed.append($0.uniqueName) }
        XCTAssertEqual(listed, (0..<rowCount).reversed().map { String(format: "P%05d", $0) })
        XCTAssertEqual(try openCursors(), 0)
    }
}
