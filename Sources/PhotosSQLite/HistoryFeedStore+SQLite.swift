import PhotosModel
import PhotosSQL

/// The history feed's SQLite dialect: the token sequence and the JSON functions; the rest is
/// `PhotosSQL`'s `HistoryFeedStore where Self: SQLConnection & SQLJSONDialect`.
extension Database: HistoryFeedStore, SQLJSONDialect {
    // SQLite's json_each walks the stored JSON in document order, so tombstone keys keep the
    // order they were written in (https://www.sqlite.org/json1.html#jeach).
    public static let jsonArrayElementsSQL = "SELECT value FROM json_each(?)"
    public static let jsonObjectMembersSQL = "SELECT key, value FROM json_each(?)"
    // json_extract gives a JSON integer as INTEGER and a string as TEXT; the types are PostgreSQL's.
    public static func jsonRecordsSQL(_ alias: String, _ columns: KeyValuePairs<String, String>) -> String {
        let members = columns.map { "json_extract(value, '$.\($0.key)') AS \($0.key)" }.joined(separator: ", ")
        return "(SELECT \(members) FROM json_each(?)) AS \(alias)"
    }

    public func issuedHistoryToken() throws -> Int64 {
        // AUTOINCREMENT's sequence remembers the last token issued even when compaction has
        // deleted every transaction, so a consumer advanced now is never set back to 0.
        let newest = try scalarInt("SELECT COALESCE(max(token), 0) FROM history_transaction") ?? 0
        let issued =
            try scalarInt("SELECT COALESCE(max(seq), 0) FROM sqlite_sequence WHERE name = 'history_transaction'") ?? 0
        return Int64(max(newest, issued))
    }
}

extension Database: HistoryCompactionStore {
    public func lastHistoryToken(before timestamp: String) throws -> Int64 {
        Int64(
            try scalarInt("SELECT COALESCE(max(token), 0) FROM history_transaction WHERE timestamp < ?", [timestamp])
                ?? 0)
    }

    public func lowestHistoryConsumer() throws -> HistoryConsumer? {
        try statement("SELECT \(HistoryRows.consumerColumns) FROM history_consumer ORDER BY token, name LIMIT 1").first(
            HistoryRows.consumer)
    }

    /// The WHERE clause on `history_transaction` of `cut`, and its arguments.
    private func clause(_ cut: HistoryCut) -> (String, [SQLBindable]) {
        guard let before = cut.before else { return ("token <= ?", [cut.throughToken]) }
        return ("token <= ? AND timestamp < ?", [cut.throughToken, before])
    }

    public func historySize(of cut: HistoryCut) throws -> HistoryCutSize {
        let (whereClause, args) = clause(cut)
        var size = HistoryCutSize()
        size.transactions = try scalarInt("SELECT count(*) FROM history_transaction WHERE " + whereClause, args) ?? 0
        size.changes =
            try scalarInt(
                "SELECT count(*) FROM history_change WHERE token IN (SELECT token FROM history_transaction WHERE "
                    + whereClause + ")", args) ?? 0
        size.lastToken =
            size.transactions > 0
            ? Int64(try scalarInt("SELECT max(token) FROM history_transaction WHERE " + whereClause, args) ?? 0) : 0
        return size
    }

    /// Deletes the changes of the transactions `cut` selects, then the transactions.
    ///
    /// When the cut takes most of `history_change` (more rows than it keeps, and at least
    /// `bulkDeleteMinimum`), its secondary indexes are dropped first and made again from
    /// their stored definitions (`sqlite_master.sql`) after the delete, in the same
    /// transaction: removing each row from every index costs more than building the indexes
    /// again over the rows kept (https://www.sqlite.org/lang_createindex.html; the truncate
    /// optimization of a DELETE without WHERE does not apply here, foreign keys being on,
    /// https://www.sqlite.org/lang_delete.html#truncateopt). The rows kept, their ids and
    /// the schema text are the same either way; a rollback (a dry run, an error) restores
    /// the indexes with the rows.
    public func deleteHistory(_ cut: HistoryCut) throws {
        let (whereClause, args) = clause(cut)
        let cutChanges =
            "DELETE FROM history_change WHERE token IN (SELECT token FROM history_transaction WHERE " + whereClause
            + ")"
        let all = try scalarInt("SELECT count(*) FROM history_change") ?? 0
        let doomed =
            try scalarInt(
                "SELECT count(*) FROM history_change WHERE token IN (SELECT token FROM history_transaction WHERE "
                    + whereClause + ")", args) ?? 0
        if doomed >= Database.bulkDeleteMinimum && doomed > all - doomed {
            let indexes = try statement(
                """
                SELECT name, sql FROM sqlite_master
                WHERE type = 'index' AND tbl_name = 'history_change' AND sql IS NOT NULL ORDER BY name
                """
            ).map { ($0.string(0), $0.string(1)) }
            for (name, _) in indexes {
                // An identifier in double quotes, a quote in it doubled (sqlite.org/lang_keywords.html).
                let quoted = String(name.flatMap { $0 == "\"" ? ["\"", "\""] : [$0] })
                try execute("DROP INDEX \"\(quoted)\"")
            }
            try run(cutChanges, args)
            for (_, sql) in indexes { try execute(sql) }
        } else {
            try run(cutChanges, args)
        }
        try run("DELETE FROM history_transaction WHERE " + whereClause, args)
    }

    /// The fewest history changes a compaction deletes by dropping and remaking the indexes
    /// of `history_change` (below it the ordinary delete is as quick).
    static let bulkDeleteMinimum = 10_000

    /// The page size in bytes (https://www.sqlite.org/pragma.html#pragma_page_size).
    private var pageSize: Int64 {
        get throws { Int64(try scalarInt("PRAGMA page_size") ?? 4096) }
    }

    public func freeSpaceBytes() throws -> Int64 {
        Int64(try scalarInt("PRAGMA freelist_count") ?? 0) * (try pageSize)
    }

    public func reclaimSpace() throws -> Int64 {
        let pagesBefore = Int64(try scalarInt("PRAGMA page_count") ?? 0)
        // Libraries are created with auto_vacuum = INCREMENTAL (2); older files keep their pages.
        if try scalarInt("PRAGMA auto_vacuum") == 2 {
            try execute("PRAGMA incremental_vacuum")
        }
        // A checkpoint another connection's reader blocks is retried at the next one.
        _ = try? execute("PRAGMA wal_checkpoint(TRUNCATE)")
        let pagesAfter = Int64(try scalarInt("PRAGMA page_count") ?? 0)
        return max(0, pagesBefore - pagesAfter) * (try pageSize)
    }
}
