import PhotosModel

extension Database: HistoryFeedStore {
    public func issuedHistoryToken() throws -> Int64 {
        // AUTOINCREMENT's sequence remembers the last token issued even when compaction has
        // deleted every transaction, so a consumer advanced now is never set back to 0.
        let newest = try scalarInt("SELECT COALESCE(max(token), 0) FROM history_transaction") ?? 0
        let issued =
            try scalarInt("SELECT COALESCE(max(seq), 0) FROM sqlite_sequence WHERE name = 'history_transaction'") ?? 0
        return Int64(max(newest, issued))
    }

    public func hasHistoryTransaction(token: Int64) throws -> Bool {
        try scalarInt("SELECT 1 FROM history_transaction WHERE token = ?", [token]) != nil
    }

    public func forEachHistoryTransaction(matching filter: HistoryFilter, _ body: (HistoryTransaction) throws -> Void)
        throws
    {
        func placeholders(_ n: Int) -> String { Array(repeating: "?", count: n).joined(separator: ",") }
        var sql = "SELECT \(HistoryRows.transactionColumns) FROM history_transaction WHERE token > ?"
        var args: [SQLBindable] = [filter.sinceToken]
        if !filter.authors.isEmpty {
            sql += " AND author IN (\(placeholders(filter.authors.count)))"
            args += filter.authors as [SQLBindable]
        }
        if let since = filter.sinceTimestamp {
            sql += " AND timestamp >= ?"
            args.append(since)
        }
        if let until = filter.untilTimestamp {
            sql += " AND timestamp < ?"
            args.append(until)
        }
        if !filter.excludedAuthors.isEmpty {
            sql += " AND author NOT IN (\(placeholders(filter.excludedAuthors.count)))"
            args += filter.excludedAuthors as [SQLBindable]
        }
        sql += " ORDER BY token"
        var changeSQL = "SELECT \(HistoryRows.changeColumns) FROM history_change WHERE token = ?"
        var changeArgs: [SQLBindable] = []
        if !filter.entities.isEmpty {
            changeSQL += " AND entity IN (\(placeholders(filter.entities.count)))"
            changeArgs += filter.entities.map(\.rawValue) as [SQLBindable]
        }
        if let zone = filter.zone {
            changeSQL += " AND zone_id = ?"
            changeArgs.append(zone.rawValue)
        }
        changeSQL += " ORDER BY id"
        let changes = try Statement.prepare(self, changeSQL)
        // SQLite's json_each walks the stored JSON in document order, so tombstone keys keep
        // the order they were written in (https://www.sqlite.org/json1.html#jeach).
        let elements = try Statement.prepare(self, "SELECT key, value FROM json_each(?)")
        func strings(_ json: String?) throws -> [String] {
            guard let json else { return [] }
            return try elements.map([json]) { $0.string(1) }
        }
        func pairs(_ json: String?) throws -> [(String, String)]? {
            guard let json else { return nil }
            return try elements.map([json]) { ($0.string(0), $0.string(1)) }
        }
        try Statement.prepare(self, sql).forEach(args) { row in
            var transaction = HistoryRows.transaction(row)
            transaction.changes = try changes.map([transaction.token] + changeArgs) { c in
                HistoryChange(
                    entity: c.string(0), objectID: c.string(1), type: ChangeType(rawValue: c.string(2)) ?? .update,
                    updated: try strings(c.optionalString(3)),
                    tombstone: try pairs(c.optionalString(4)), zone: c.optionalString(5))
            }
            if transaction.changes.isEmpty && filter.filtersChanges { return }
            try body(transaction)
        }
    }

    public func historyConsumers() throws -> [HistoryConsumer] {
        try statement("SELECT \(HistoryRows.consumerColumns) FROM history_consumer ORDER BY name").map(
            HistoryRows.consumer)
    }

    public func historyConsumerToken(_ name: String) throws -> Int64? {
        try statement("SELECT token FROM history_consumer WHERE name = ?").first([name]) { $0.int64(0) }
    }

    public func setHistoryConsumerToken(_ name: String, _ token: Int64) throws {
        try run(
            "INSERT INTO history_consumer (name, token) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET token = excluded.token",
            [name, token])
    }

    public func removeHistoryConsumer(_ name: String) throws -> Bool {
        try run("DELETE FROM history_consumer WHERE name = ?", [name])
        return changes > 0
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
