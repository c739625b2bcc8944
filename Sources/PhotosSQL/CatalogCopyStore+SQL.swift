import PhotosModel

/// The statements of `CatalogCopyStore` (`photos catalog move`) whose text is the same on both
/// backends; each backend keeps its bulk insert of copied rows and its identities (SQLite's
/// `sqlite_sequence`, PostgreSQL's sequences), and decodes the rows it reads.
public enum CatalogCopySQL {
    /// The SELECT of one page of `table` in key order after the row of key `key` (nil: from the
    /// first), at most `limit` rows, with its arguments. A row value comparison (SQLite
    /// https://www.sqlite.org/rowvalue.html §2.1, PostgreSQL docs §9.24.5: a row constructor
    /// comparison) takes the rows after the last one of the page before; text keys compare
    /// bytewise on both (SQLite BINARY, PostgreSQL collation "C").
    public static func page(
        of table: CatalogTable, after key: [CatalogValue]?, limit: Int, dialect: SQLDialect
    ) -> (sql: String, arguments: [SQLBindable]) {
        let columns = table.columns.map(\.name).joined(separator: ", ")
        let keyList = table.key.joined(separator: ", ")
        var sql = "SELECT \(columns) FROM \(table.name)"
        var args: [SQLBindable] = []
        if let key {
            let marks = table.keyIndexes.map { dialect.typedParameter(table.columns[$0].kind) }
                .joined(separator: ", ")
            sql += " WHERE (\(keyList)) > (\(marks))"
            args = key.map(\.sqlValue)
        }
        sql += " ORDER BY \(keyList) LIMIT ?"
        args.append(limit)
        return (sql, args)
    }

    /// `INSERT INTO table (columns) VALUES (…), (…)` of `rows` rows, each parameter typed as
    /// the dialect wants it (`SQLDialect.typedParameter`).
    public static func insert(into table: CatalogTable, rows: Int, dialect: SQLDialect) -> String {
        let one = "(" + table.columns.map { dialect.typedParameter($0.kind) }.joined(separator: ", ") + ")"
        return "INSERT INTO \(table.name) (\(table.columns.map(\.name).joined(separator: ", "))) VALUES "
            + Array(repeating: one, count: rows).joined(separator: ", ")
    }
}

/// `CatalogCopyStore` on any `SQLConnection`: the statements both backends share.
extension CatalogCopyStore where Self: SQLConnection {
    /// Every row of every catalog table, children first (`CatalogTables.all` reversed).
    public func deleteAllCatalogRows() throws {
        for table in CatalogTables.all.reversed() { try execute(sql: "DELETE FROM \(table.name)", arguments: []) }
    }
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
