import PhotosModel
import PhotosSQL

/// `CatalogCopyStore` on PostgreSQL: `PhotosSQL`'s `CatalogCopyStore where Self: SQLConnection`,
/// but for the inserts in batches of many rows (one round trip each), the identities kept in
/// sequences, and the session identity of `pg_stat_activity`.
extension PostgresDatabase: CatalogCopyStore {
    public func catalogRows(of table: CatalogTable, after key: [CatalogValue]?, limit: Int) throws
        -> [[CatalogValue]]
    {
        let (sql, args) = CatalogCopySQL.page(of: table, after: key, limit: limit, dialect: dialect)
        // The server's columns hold their declared types only: each value read as its kind.
        return try fetchAll(sql: sql, arguments: args) { row in
            table.columns.enumerated().map { index, column in
                if row.isNull(index) { return .null }
                switch column.kind {
                case .integer: return .integer(row.int64(index))
                case .text: return .text(row.string(index))
                case .bytes: return .bytes(row.bytes(index))
                }
            }
        }
    }

    /// Rows per INSERT statement, within the protocol's 65535 parameters (PostgreSQL docs
    /// §55.7, `Bind`: an Int16 count).
    private static func rowsPerInsert(_ table: CatalogTable) -> Int { max(1, min(500, 65535 / table.columns.count)) }

    public func insertCatalogRows(_ rows: [[CatalogValue]], into table: CatalogTable) throws {
        let per = PostgresDatabase.rowsPerInsert(table)
        var start = 0
        while start < rows.count {
            let batch = rows[start..<min(rows.count, start + per)]
            let sql = CatalogCopySQL.insert(into: table, rows: batch.count, dialect: dialect)
            try execute(sql: sql, arguments: batch.flatMap { $0.map(\.sqlValue) })
            start += batch.count
        }
    }

    public func finishCatalogCopy(issuedHistoryToken: Int64) throws {
        for table in CatalogTables.all {
            guard let identity = table.identity else { continue }
            // The identity's sequence past the largest copied id (`is_called` true: the next
            // value is the one after it); an empty table keeps a new sequence.
            try run(
                "SELECT setval(pg_get_serial_sequence('\(table.name)', '\(identity)'), max(\(identity))) FROM \(table.name) HAVING max(\(identity)) IS NOT NULL"
            )
        }
        if issuedHistoryToken > 0 {
            try run("SELECT setval('history_token', ?::bigint)", [issuedHistoryToken])
        } else {
            try run("SELECT setval('history_token', 1, false)")
        }
    }

    public func issuedIdentities() throws -> [String: Int64] {
        var issued: [String: Int64] = [:]
        for table in CatalogTables.all {
            guard let identity = table.identity else { continue }
            let largest = try scalarInt("SELECT COALESCE(max(\(identity)), 0) FROM \(table.name)") ?? 0
            guard
                let sequence = try scalarString(
                    "SELECT pg_get_serial_sequence(?, ?)", [table.name, identity])
            else {
                issued[table.name] = Int64(largest)
                continue
            }
            // `last_value` is the last value drawn (`is_called` false: none yet), PostgreSQL docs §9.17.
            let remembered =
                try scalarInt("SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM \(sequence)") ?? 0
            issued[table.name] = Int64(max(largest, remembered))
        }
        return issued
    }

    public func continueIdentities(after issued: [String: Int64]) throws {
        for (table, id) in issued.sorted(by: { $0.key < $1.key }) where id > 0 {
            guard let identity = CatalogTables.all.first(where: { $0.name == table })?.identity else { continue }
            try run(
                """
                SELECT setval(s.name, GREATEST(?::bigint, COALESCE((SELECT max(\(identity)) FROM \(table)), 0)))
                FROM (SELECT pg_get_serial_sequence(?, ?) AS name) s WHERE s.name IS NOT NULL
                """, [id, table, identity])
        }
    }

    /// `pid/backend_start`, a line break and the schema of this session (`pg_stat_activity`, PostgreSQL docs
    /// §28.2.3, and `current_schema()`, the catalog's schema).
    public func catalogSessionIdentity() throws -> String? {
        try statement(
            "SELECT pid::text || '/' || backend_start::text || chr(10) || current_schema() FROM pg_stat_activity WHERE pid = pg_backend_pid()"
        ).map([]) { $0.string(0) }.first
    }

    /// True when `pg_stat_activity` lists the session of `identity` in this database and its
    /// schema is this catalog's. Another user's sessions show no `backend_start` without
    /// `pg_read_all_stats`: false then.
    public func sharesDatabase(withSession identity: String) throws -> Bool {
        // The session part (`pid/backend_start`) has no line break; the schema follows the first.
        guard let cut = identity.firstIndex(of: "\n") else { return false }
        let session = String(identity[..<cut]), schema = String(identity[identity.index(after: cut)...])
        return try statement(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid::text || '/' || backend_start::text = ? AND current_schema() = ?"
        ).map([session, schema]) { $0.int64(0) }.first.map { $0 > 0 } ?? false
    }
}
