import Foundation
import PhotosPostgreSQL
import PhotosSQL
import PhotosSQLite
import PhotosTestSupport
import XCTest

/// The shared statement layer (`SQLConnection`, `SQLRow`) reads back what it binds, the same on
/// SQLite's `Database` and PostgreSQL's `PostgresDatabase`: NULL in every column, the extreme
/// 64-bit integers, bytes with zero bytes in them (a BLOB; a BYTEA travelling binary one way
/// and as `\x` hex text the other), and non-ASCII text.
final class SQLConnectionTypedGetterTests: XCTestCase {
    /// Bytes with NULs at the start, inside and at the end, and every high value kind.
    static let bytes: [UInt8] = [0, 1, 0, 0x7F, 0x80, 0xFF, 0x5C, 0x78, 0]
    /// Precomposed and decomposed accents, CJK, an emoji (4 UTF-8 bytes) and a quote.
    static let text = "Zoë Zoe\u{0308} 日本語 🙂 ' \\x"

    func testSQLiteDatabaseReadsBackWhatItBinds() throws {
        let folder = NSTemporaryDirectory() + "photos-sqlrow-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let db = try Database(path: folder + "/t.sqlite")
        try db.execute("CREATE TABLE t (n INTEGER PRIMARY KEY, i INTEGER, r REAL, s TEXT, b BLOB)")
        try check(db)
        // SQLite keeps text that is no number in an INTEGER column: `storedInteger` says it is none.
        try db.execute("INSERT INTO t (n, i) VALUES (9, 'twelve')")
        XCTAssertEqual(
            try db.fetchOne(sql: "SELECT i FROM t WHERE n = 9", arguments: []) { $0.storedInteger(0) }, .some(nil))
    }

    func testPostgresDatabaseReadsBackWhatItBinds() throws {
        let made = try TestDatabase.makeSchema()
        defer { made.drop() }
        let db = try PostgresDatabase(made.connectionString)
        try db.execute("CREATE TABLE t (n bigint PRIMARY KEY, i bigint, r double precision, s text, b bytea)")
        try check(db)
    }

    /// Writes three rows through `execute(sql:arguments:)` and reads them with every fetch.
    private func check<C: SQLConnection>(_ db: C, file: StaticString = #filePath, line: UInt = #line) throws {
        let insert = "INSERT INTO t (n, i, r, s, b) VALUES (?, ?, ?, ?, ?)"
        try db.execute(
            sql: insert,
            arguments: [1, Int64.max, 0.1, SQLConnectionTypedGetterTests.text, SQLConnectionTypedGetterTests.bytes])
        XCTAssertEqual(db.changes, 1, file: file, line: line)
        try db.execute(sql: insert, arguments: [2, Int64.min, -1.5e300, "", [UInt8]()])
        try db.execute(sql: insert, arguments: [3, SQLValue.null, SQLValue.null, SQLValue.null, SQLValue.null])
        try db.execute(sql: "UPDATE t SET r = r WHERE n > ?", arguments: [1])
        XCTAssertEqual(db.changes, 2, file: file, line: line)

        typealias Read = (i: Int64, stored: Int64?, r: Double, s: String, os: String?, b: [UInt8], nulls: [Bool])
        func read(_ row: C.ResultRow) -> Read {
            (
                row.int64(1), row.storedInteger(1), row.double(2), row.string(3), row.optionalString(3),
                row.bytes(4), (1...4).map { row.isNull($0) }
            )
        }
        let sql = "SELECT n, i, r, s, b FROM t WHERE n >= ? ORDER BY n"
        let all = try db.fetchAll(sql: sql, arguments: [1], read)
        var streamed: [Read] = []
        try db.forEachRow(sql: sql, arguments: [1]) { streamed.append(read($0)) }
        let paged = try db.fetchPaged(sql: sql, arguments: [1], read)
        for rows in [all, streamed, paged] {
            XCTAssertEqual(rows.count, 3, file: file, line: line)
            guard rows.count == 3 else { continue }
            XCTAssertEqual(rows[0].i, Int64.max, file: file, line: line)
            XCTAssertEqual(rows[0].stored, Int64.max, file: file, line: line)
            XCTAssertEqual(rows[0].r, 0.1, file: file, line: line)
            XCTAssertEqual(rows[0].s, SQLConnectionTypedGetterTests.text, file: file, line: line)
            XCTAssertEqual(rows[0].s.unicodeScalars.count, SQLConnectionTypedGetterTests.text.unicodeScalars.count)
            XCTAssertEqual(rows[0].b, SQLConnectionTypedGetterTests.bytes, file: file, line: line)
            XCTAssertEqual(rows[0].nulls, [false, false, false, false], file: file, line: line)
            XCTAssertEqual(rows[1].i, Int64.min, file: file, line: line)
            XCTAssertEqual(rows[1].r, -1.5e300, file: file, line: line)
            XCTAssertEqual(rows[1].os, "", file: file, line: line)
            XCTAssertEqual(rows[1].b, [], file: file, line: line)
            XCTAssertEqual(rows[1].nulls, [false, false, false, false], file: file, line: line)
            XCTAssertEqual(rows[2].i, 0, file: file, line: line)
            XCTAssertNil(rows[2].stored, file: file, line: line)
            XCTAssertEqual(rows[2].r, 0, file: file, line: line)
            XCTAssertEqual(rows[2].s, "", file: file, line: line)
            XCTAssertNil(rows[2].os, file: file, line: line)
            XCTAssertEqual(rows[2].b, [], file: file, line: line)
            XCTAssertEqual(rows[2].nulls, [true, true, true, true], file: file, line: line)
        }
        XCTAssertEqual(try db.fetchInt(sql: "SELECT i FROM t WHERE n = ?", arguments: [2]), Int(Int64.min))
        XCTAssertNil(try db.fetchInt(sql: "SELECT i FROM t WHERE n = ?", arguments: [3]))
        XCTAssertNil(try db.fetchInt(sql: "SELECT i FROM t WHERE n = ?", arguments: [4]))
        XCTAssertEqual(
            try db.fetchString(sql: "SELECT s FROM t WHERE s = ?", arguments: [SQLConnectionTypedGetterTests.text]),
            SQLConnectionTypedGetterTests.text)
        // A blob parameter compares byte for byte, NULs included.
        XCTAssertEqual(
            try db.fetchInt(sql: "SELECT n FROM t WHERE b = ?", arguments: [SQLConnectionTypedGetterTests.bytes]), 1)
        XCTAssertNil(try db.fetchOne(sql: "SELECT n FROM t WHERE n = ?", arguments: [99]) { $0.int(0) })
    }
}
