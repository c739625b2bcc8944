import PhotosModel
import PhotosSQL

/// `CatalogCopyStore` on SQLite: `PhotosSQL`'s `CatalogCopyStore where Self: SQLConnection`, but
/// for the reads that check each value's storage class, the inserts one row at a time, and the
/// identities kept in `sqlite_sequence`.
extension Database: CatalogCopyStore {
    public func catalogRows(of table: CatalogTable, after key: [CatalogValue]?, limit: Int) throws
        -> [[CatalogValue]]
    {
        let (sql, args) = CatalogCopySQL.page(of: table, after: key, limit: limit, dialect: dialect)
        // Each value's storage class checked against the column's kind: SQLite's columns take
        // any (https://www.sqlite.org/datatype3.html), and a copy must not turn one into another.
        return try fetchAll(sql: sql, arguments: args) { row in
            try table.columns.enumerated().map { index, column in
                let value = row.value(index)
                switch (value, column.kind) {
                case (.null, _): return .null
                case (.integer(let v), .integer): return .integer(v)
                case (.text(let v), .text): return .text(v)
                case (.blob(let v), .bytes): return .bytes(v)
                default:
                    throw CatalogCopyError.unexpectedValue(
                        table: table.name, column: column.name, found: "\(value)")
                }
            }
        }
    }

    public func insertCatalogRows(_ rows: [[CatalogValue]], into table: CatalogTable) throws {
        guard !rows.isEmpty else { return }
        // One row per statement, prepared once: SQLite runs it in-process (no round trip to save
        // by batching rows, and no limit of parameters to mind).
        let insert = try statement(CatalogCopySQL.insert(into: table, rows: 1, dialect: dialect))
        for row in rows { try insert.run(row.map(\.sqlValue)) }
    }

    public func finishCatalogCopy(issuedHistoryToken: Int64) throws {
        // Rowid tables continue after the largest id by themselves; AUTOINCREMENT's
        // `sqlite_sequence` row is set to the source's last issued token (inserting explicit
        // tokens has set it to the largest copied one, https://www.sqlite.org/autoinc.html §3).
        try run("DELETE FROM sqlite_sequence WHERE name = 'history_transaction'")
        if issuedHistoryToken > 0 {
            try run(
                "INSERT INTO sqlite_sequence (name, seq) VALUES ('history_transaction', ?)", [issuedHistoryToken])
        }
    }

    public func issuedIdentities() throws -> [String: Int64] {
        var issued: [String: Int64] = [:]
        for table in CatalogTables.all {
            guard let identity = table.identity else { continue }
            let largest = try scalarInt("SELECT COALESCE(max(\(identity)), 0) FROM \(table.name)") ?? 0
            let remembered =
                try scalarInt("SELECT COALESCE(max(seq), 0) FROM sqlite_sequence WHERE name = ?", [table.name]) ?? 0
            issued[table.name] = Int64(max(largest, remembered))
        }
        return issued
    }

    public func continueIdentities(after issued: [String: Int64]) throws {
        // AUTOINCREMENT's next id is above `sqlite_sequence.seq` (https://www.sqlite.org/autoinc.html §3).
        for (table, id) in issued.sorted(by: { $0.key < $1.key }) where id > 0 {
            let seq = try scalarInt("SELECT seq FROM sqlite_sequence WHERE name = ?", [table])
            if let seq {
                if Int64(seq) < id { try run("UPDATE sqlite_sequence SET seq = ? WHERE name = ?", [id, table]) }
            } else {
                try run("INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)", [table, id])
            }
        }
    }

    /// A file has no session: nil.
    public func catalogSessionIdentity() throws -> String? { nil }

    /// A file shares no server's lock: false.
    public func sharesDatabase(withSession identity: String) throws -> Bool { false }
}
