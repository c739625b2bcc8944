import PhotosModel

extension Database: CatalogCopyStore {
    public func catalogRows(of table: CatalogTable, after key: [CatalogValue]?, limit: Int) throws
        -> [[CatalogValue]]
    {
        let columns = table.columns.map(\.name).joined(separator: ", ")
        let keyList = table.key.joined(separator: ", ")
        var sql = "SELECT \(columns) FROM \(table.name)"
        var args: [SQLBindable] = []
        if let key {
            // A row value comparison (https://www.sqlite.org/rowvalue.html §2.1): the rows after
            // the last one of the page before, in key order.
            let marks = Array(repeating: "?", count: key.count).joined(separator: ", ")
            sql += " WHERE (\(keyList)) > (\(marks))"
            args = key.map(\.sqlValue)
        }
        sql += " ORDER BY \(keyList) LIMIT ?"
        args.append(limit)
        return try statement(sql).map(args) { row in
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

    public func deleteAllCatalogRows() throws {
        for table in CatalogTables.all.reversed() { try execute("DELETE FROM \(table.name)") }
    }

    public func insertCatalogRows(_ rows: [[CatalogValue]], into table: CatalogTable) throws {
        guard !rows.isEmpty else { return }
        let marks = Array(repeating: "?", count: table.columns.count).joined(separator: ", ")
        let insert = try statement(
            "INSERT INTO \(table.name) (\(table.columns.map(\.name).joined(separator: ", "))) VALUES (\(marks))")
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

extension CatalogValue: SQLBindable {
    public var sqlValue: SQLValue {
        switch self {
        case .null: return .null
        case .integer(let v): return .integer(v)
        case .text(let v): return .text(v)
        case .bytes(let v): return .blob(v)
        }
    }
}
