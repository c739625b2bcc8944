import PhotosModel

extension PostgresDatabase: HistoryFeedStore {
    public func issuedHistoryToken() throws -> Int64 {
        // The sequence remembers the last token issued even when compaction has deleted every
        // transaction, so a consumer advanced now is never set back to 0. `last_value` is the
        // last value drawn by any session (`is_called` false: none yet); a drawn token of a
        // transaction still running is below every token a later commit gets.
        let newest = try scalarInt("SELECT COALESCE(max(token), 0) FROM history_transaction") ?? 0
        let issued =
            try scalarInt("SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM history_token") ?? 0
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
        var args: [PGBindable] = [filter.sinceToken]
        if let since = filter.sinceTimestamp {
            sql += " AND timestamp >= ?"
            args.append(since)
        }
        if let until = filter.untilTimestamp {
            sql += " AND timestamp < ?"
            args.append(until)
        }
        if !filter.authors.isEmpty {
            sql += " AND author IN (\(placeholders(filter.authors.count)))"
            args += filter.authors as [PGBindable]
        }
        if !filter.excludedAuthors.isEmpty {
            sql += " AND author NOT IN (\(placeholders(filter.excludedAuthors.count)))"
            args += filter.excludedAuthors as [PGBindable]
        }
        sql += " ORDER BY token"
        var changeSQL = "SELECT \(HistoryRows.changeColumns) FROM history_change WHERE token = ?"
        var changeArgs: [PGBindable] = []
        if !filter.entities.isEmpty {
            changeSQL += " AND entity IN (\(placeholders(filter.entities.count)))"
            changeArgs += filter.entities.map(\.rawValue) as [PGBindable]
        }
        if let zone = filter.zone {
            changeSQL += " AND zone_id = ?"
            changeArgs.append(zone.rawValue)
        }
        changeSQL += " ORDER BY id"
        let changes = try statement(changeSQL)
        // `json` (not `jsonb`) keeps an object's keys in document order, so tombstone keys keep
        // the order they were written in (PostgreSQL docs §9.16.1 `json_each_text`).
        let elements = try statement("SELECT value FROM json_array_elements_text(?::json)")
        let members = try statement("SELECT key, value FROM json_each_text(?::json)")
        func strings(_ json: String?) throws -> [String] {
            guard let json else { return [] }
            return try elements.map([json]) { $0.string(0) }
        }
        func pairs(_ json: String?) throws -> [(String, String)]? {
            guard let json else { return nil }
            return try members.map([json]) { ($0.string(0), $0.string(1)) }
        }
        try statement(sql).forEach(args) { row in
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

extension PostgresDatabase: HistoryCompactionStore {
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
    private func clause(_ cut: HistoryCut) -> (String, [PGBindable]) {
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

    public func deleteHistory(_ cut: HistoryCut) throws {
        let (whereClause, args) = clause(cut)
        try run(
            "DELETE FROM history_change WHERE token IN (SELECT token FROM history_transaction WHERE " + whereClause
                + ")", args)
        try run("DELETE FROM history_transaction WHERE " + whereClause, args)
    }

    /// PostgreSQL keeps no free-page count a client can read cheaply; autovacuum makes the
    /// space of deleted history rows reusable by later rows (PostgreSQL docs §25.1). 0.
    public func freeSpaceBytes() throws -> Int64 { 0 }

    /// Nothing to give back here: space freed by deleted rows is reused by the server's
    /// autovacuum, and a `VACUUM FULL` would lock the tables every importer writes. 0 bytes.
    public func reclaimSpace() throws -> Int64 { 0 }
}
