import PhotosModel
import PhotosTestSupport
import XCTest

@testable import PhotosSQLite

/// `CatalogTables` (what `photos catalog move` copies) names every table and column of the
/// SQLite schema it claims, with each column's declared type, and lists referenced tables
/// before referencing ones: a migration that adds a table or column fails here until the copy
/// carries it.
final class CatalogTablesCoverSchemaTests: TemporaryFolderTestCase {
    override var label: String { "photos-catalog-tables" }

    func testEveryTableAndColumnOfTheSchemaIsCopiedWithItsType() throws {
        let db = try Database(path: dir + "/a.sqlite")
        _ = try db.migrate(to: CatalogTables.schemaVersion)
        let tables = try db.statement(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name"
        ).map { $0.string(0) }
        XCTAssertEqual(tables, CatalogTables.all.map(\.name).sorted())
        for table in CatalogTables.all {
            let columns = try db.statement("SELECT name, upper(type), pk FROM pragma_table_info(?) ORDER BY cid")
                .map([table.name]) { ($0.string(0), $0.string(1), $0.int(2)) }
            XCTAssertEqual(Set(columns.map(\.0)), Set(table.columns.map(\.name)), table.name)
            for (name, type, _) in columns {
                let kind = table.columns.first { $0.name == name }?.kind
                let expected: CatalogColumn.Kind = type == "INTEGER" ? .integer : type == "BLOB" ? .bytes : .text
                XCTAssertEqual(kind, expected, "\(table.name).\(name) is \(type)")
            }
            let key = columns.filter { $0.2 > 0 }.sorted { $0.2 < $1.2 }.map(\.0)
            XCTAssertEqual(key, table.key, "\(table.name): rows are paged by the primary key")
        }
    }

    func testReferencedTablesComeFirst() throws {
        let db = try Database(path: dir + "/a.sqlite")
        _ = try db.migrate(to: CatalogTables.schemaVersion)
        let order = CatalogTables.all.map(\.name)
        for (index, table) in order.enumerated() {
            let referenced = try db.statement("SELECT DISTINCT \"table\" FROM pragma_foreign_key_list(?)")
                .map([table]) { $0.string(0) }
            for parent in referenced {
                let parentIndex = try XCTUnwrap(order.firstIndex(of: parent), parent)
                XCTAssertLessThan(parentIndex, index, "\(table) references \(parent)")
            }
        }
    }

    /// Pages of at most two rows, each after the last key of the one before, give every row
    /// once in key order, also for a key of two text columns.
    func testPagesWalkEveryRowOnceInKeyOrder() throws {
        let db = try Database(path: dir + "/a.sqlite")
        _ = try db.migrate(to: CatalogTables.schemaVersion)
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
