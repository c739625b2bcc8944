import PhotosModel
import PhotosPostgreSQL
import PhotosTestSupport
import XCTest

/// `CatalogTables` (what `photos catalog move` copies) names every table and column of the
/// PostgreSQL schema with each column's type, pages rows by the primary key, and reads keys in
/// the same order as SQLite (collation "C": byte order of UTF-8).
final class CatalogTablesCoverPostgresSchemaTests: PostgresTestCase {
    func testEveryTableAndColumnOfTheSchemaIsCopiedWithItsType() throws {
        XCTAssertEqual(try db.schemaVersion(), CatalogTables.schemaVersion)
        let tables = try db.statement(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' AND table_name <> 'schema_version' ORDER BY table_name COLLATE \"C\""
        ).map { $0.string(0) }
        XCTAssertEqual(tables, CatalogTables.all.map(\.name).sorted())
        for table in CatalogTables.all {
            let columns = try db.statement(
                "SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ?"
            ).map([table.name]) { ($0.string(0), $0.string(1)) }
            XCTAssertEqual(Set(columns.map(\.0)), Set(table.columns.map(\.name)), table.name)
            for (name, type) in columns {
                let kind = table.columns.first { $0.name == name }?.kind
                let expected: CatalogColumn.Kind =
                    ["bigint", "integer"].contains(type) ? .integer : type == "bytea" ? .bytes : .text
                XCTAssertEqual(kind, expected, "\(table.name).\(name) is \(type)")
            }
            let key = try db.statement(
                """
                SELECT a.attname FROM pg_index i
                JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey)
                WHERE i.indrelid = (current_schema() || '.' || ?)::regclass AND i.indisprimary
                ORDER BY array_position(i.indkey::int2[], a.attnum)
                """
            ).map([table.name]) { $0.string(0) }
            XCTAssertEqual(key, table.key, "\(table.name): rows are paged by the primary key")
            let identity = try db.statement(
                "SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ? AND is_identity = 'YES'"
            ).map([table.name]) { $0.string(0) }
            XCTAssertEqual(identity, table.identity.map { [$0] } ?? [], "\(table.name): identity column")
        }
    }

    /// Pages of at most two rows give every row once, in the byte order SQLite gives.
    func testPagesWalkEveryRowOnceInBytewiseKeyOrder() throws {
        let senders = ["b", "B", "a", "é", "Z", "a b"]
        for (n, sender) in senders.enumerated() {
            for scope in ["private", "shared"] {
                try db.run("INSERT INTO sync_applied (sender, scope, token) VALUES (?, ?, ?)", [sender, scope, n])
            }
        }
        let table = try XCTUnwrap(CatalogTables.all.first { $0.name == "sync_applied" })
        var seen: [[CatalogValue]] = []
        var after: [CatalogValue]?
        while true {
            let page = try db.catalogRows(of: table, after: after, limit: 2)
            seen += page
            guard page.count == 2, let last = page.last else { break }
            after = table.keyIndexes.map { last[$0] }
        }
        let expected = senders.enumerated()
            .sorted { Array($0.element.utf8).lexicographicallyPrecedes(Array($1.element.utf8)) }
            .flatMap { n, s in
                ["private", "shared"].map { [CatalogValue.text(s), .text($0), .integer(Int64(n))] }
            }
        XCTAssertEqual(seen, expected)
    }
}
