import PhotosModel
import PhotosSQLite
import XCTest

@testable import PhotosPostgreSQL

/// Issue 31 item 21: a PostgreSQL error printed its whole statement (about 30 KB for a batch
/// insert). An error names the statement by its first characters and says it was cut; the
/// same for SQLite's errors and for a long server message. (No server needed.)
final class LongStatementErrorTests: XCTestCase {
    /// A batch INSERT of 1,000 rows of 7 parameters: about 30,000 characters.
    private let statement =
        "INSERT INTO photo (unique_name, display_name, imported_at, width, height, format, zone_id) VALUES "
        + (0..<1000).map { i in "(" + (1...7).map { "$\(i * 7 + $0)" }.joined(separator: ", ") + ")" }
        .joined(separator: ",\n    ")

    func testAPostgreSQLErrorNamesTheStatementAndCutsIt() {
        XCTAssertGreaterThan(statement.count, 29_000)
        let error = PostgresError(
            sqlState: "23505", message: "duplicate key value violates unique constraint", sql: statement)
        let text = error.description
        XCTAssertLessThan(text.utf8.count, 400, text)
        XCTAssertTrue(
            text.hasPrefix(
                "PostgreSQL error 23505: duplicate key value violates unique constraint while executing `INSERT INTO photo (unique_name, display_name"
            ),
            text)
        XCTAssertTrue(text.hasSuffix("… (cut; \(statement.count) characters)`"), text)
        XCTAssertLessThan(error.storeError.detail.utf8.count, 400)
    }

    func testALongServerMessageIsCut() {
        let error = PostgresError(sqlState: "22021", message: String(repeating: "x", count: 50_000), sql: "SELECT 1")
        XCTAssertLessThan(error.description.utf8.count, 1200)
        XCTAssertLessThan(error.storeError.message.utf8.count, 1100)
        XCTAssertTrue(error.description.hasSuffix("while executing `SELECT 1`"), error.description)
    }

    func testASQLiteErrorNamesTheStatementAndCutsIt() {
        let error = SQLiteError(
            extendedCode: 2067, message: "UNIQUE constraint failed: photo.unique_name", sql: statement)
        XCTAssertLessThan(error.description.utf8.count, 400, error.description)
        XCTAssertTrue(error.description.contains("while executing `INSERT INTO photo (unique_name"), error.description)
    }

    /// A short statement is shown whole, its whitespace runs as one space.
    func testAShortStatementIsWhole() {
        XCTAssertEqual(StatementSummary.summary("SELECT  a,\n    b FROM t"), "SELECT a, b FROM t")
        XCTAssertEqual(
            PostgresError(sqlState: "42P01", message: "relation \"t\" does not exist", sql: "SELECT * FROM t")
                .description,
            "PostgreSQL error 42P01: relation \"t\" does not exist while executing `SELECT * FROM t`")
    }
}
