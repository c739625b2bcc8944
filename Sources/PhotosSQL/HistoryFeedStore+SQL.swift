import PhotosModel

/// The columns of `history_transaction`, `history_change` and `history_consumer` as the feed
/// reads them back.
public enum HistorySQL {
    /// `history_transaction` as read: token, timestamp, author, context.
    public static let transactionColumns = "token, timestamp, author, context"

    /// A transaction row selected with `transactionColumns`, without its changes.
    public static func transaction<R: SQLRow>(_ row: R) -> HistoryTransaction {
        HistoryTransaction(
            token: row.int64(0), timestamp: row.string(1), author: row.string(2), context: row.string(3), changes: [])
    }

    /// `history_change` as read: entity, object id, type, updated (JSON array text),
    /// tombstone (JSON object text), zone.
    public static let changeColumns = "entity, object_id, type, updated, tombstone, zone_id"

    /// `history_consumer` as read: name, token.
    public static let consumerColumns = "name, token"

    /// A consumer row selected with `consumerColumns`.
    public static func consumer<R: SQLRow>(_ row: R) -> HistoryConsumer {
        HistoryConsumer(name: row.string(0), token: row.int64(1))
    }
}

/// `HistoryFeedStore` on any `SQLConnection` (the stored JSON read with `SQLDialect`'s JSON
/// readers), but for `issuedHistoryToken` (each backend's token sequence).
extension HistoryFeedStore where Self: SQLConnection {
    public func hasHistoryTransaction(token: Int64) throws -> Bool {
        try fetchInt(sql: "SELECT 1 FROM history_transaction WHERE token = ?", arguments: [token]) != nil
    }

    /// Transactions through a scan of their own (`forEachRow`: a cursor on PostgreSQL), each
    /// with its changes read by one cached statement.
    public func forEachHistoryTransaction(matching filter: HistoryFilter, _ body: (HistoryTransaction) throws -> Void)
        throws
    {
        func placeholders(_ n: Int) -> String { Array(repeating: "?", count: n).joined(separator: ",") }
        var sql = "SELECT \(HistorySQL.transactionColumns) FROM history_transaction WHERE token > ?"
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
        var changeSQL = "SELECT \(HistorySQL.changeColumns) FROM history_change WHERE token = ?"
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
        func strings(_ json: String?) throws -> [String] {
            guard let json else { return [] }
            return try fetchAll(sql: dialect.jsonArrayElementsSQL, arguments: [json]) { $0.string(0) }
        }
        func pairs(_ json: String?) throws -> [(String, String)]? {
            guard let json else { return nil }
            return try fetchAll(sql: dialect.jsonObjectMembersSQL, arguments: [json]) { ($0.string(0), $0.string(1)) }
        }
        try forEachRow(sql: sql, arguments: args) { row in
            var transaction = HistorySQL.transaction(row)
            transaction.changes = try fetchAll(sql: changeSQL, arguments: [transaction.token] + changeArgs) { c in
                HistoryChange(
                    entity: c.string(0), objectID: c.string(1), type: ChangeType(rawValue: c.string(2)) ?? .update,
                    updated: try strings(c.optionalString(3)),
                    tombstone: try pairs(c.optionalString(4)), zone: c.optionalString(5))
            }
            if transaction.changes.isEmpty && filter.filtersChanges { return }
            try body(transaction)
        }
    }

    public func photoInsertAuthors(uniqueNames: [String]) throws -> [String: String] {
        guard !uniqueNames.isEmpty else { return [:] }
        let marks = Array(repeating: "?", count: uniqueNames.count).joined(separator: ",")
        let rows = try fetchAll(
            sql: """
                SELECT c.object_id, t.author FROM history_change c JOIN history_transaction t ON t.token = c.token
                WHERE c.object_id IN (\(marks)) AND c.entity = ? AND c.type = 'insert' ORDER BY c.token
                """,
            arguments: uniqueNames as [SQLBindable] + [HistoryEntity.photo.rawValue]
        ) { ($0.string(0), $0.string(1)) }
        var authors: [String: String] = [:]
        for (name, author) in rows where authors[name] == nil { authors[name] = author }
        return authors
    }

    public func historyConsumers() throws -> [HistoryConsumer] {
        try fetchAll(sql: "SELECT \(HistorySQL.consumerColumns) FROM history_consumer ORDER BY name", arguments: []) {
            HistorySQL.consumer($0)
        }
    }

    public func historyConsumerToken(_ name: String) throws -> Int64? {
        try fetchOne(sql: "SELECT token FROM history_consumer WHERE name = ?", arguments: [name]) { $0.int64(0) }
    }

    public func setHistoryConsumerToken(_ name: String, _ token: Int64) throws {
        try execute(
            sql:
                "INSERT INTO history_consumer (name, token) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET token = excluded.token",
            arguments: [name, token])
    }

    public func removeHistoryConsumer(_ name: String) throws -> Bool {
        try execute(sql: "DELETE FROM history_consumer WHERE name = ?", arguments: [name])
        return changes > 0
    }
}

/// `compact-history`'s reads and its two deletes (`HistoryCompactionStore`) on any
/// `SQLConnection`; each backend keeps `deleteHistory` (SQLite's bulk path drops and remakes
/// the indexes of `history_change` between the deletes, and reclaims pages at the commit) and
/// the file-size questions (`freeSpaceBytes`, `databaseSizeBytes`, `reclaimSpace`: pragmas on
/// SQLite, nothing a client reads cheaply on PostgreSQL).
extension HistoryCompactionStore where Self: SQLConnection {
    public func lastHistoryToken(before timestamp: String) throws -> Int64 {
        Int64(
            try fetchInt(
                sql: "SELECT COALESCE(max(token), 0) FROM history_transaction WHERE timestamp < ?",
                arguments: [timestamp]) ?? 0)
    }

    public func lowestHistoryConsumer() throws -> HistoryConsumer? {
        try fetchOne(
            sql: "SELECT \(HistorySQL.consumerColumns) FROM history_consumer ORDER BY token, name LIMIT 1",
            arguments: []
        ) { HistorySQL.consumer($0) }
    }

    /// The WHERE clause on `history_transaction` of `cut`, and its arguments.
    private func clause(_ cut: HistoryCut) -> (String, [SQLBindable]) {
        guard let before = cut.before else { return ("token <= ?", [cut.throughToken]) }
        return ("token <= ? AND timestamp < ?", [cut.throughToken, before])
    }

    public func historySize(of cut: HistoryCut) throws -> HistoryCutSize {
        let (whereClause, args) = clause(cut)
        var size = HistoryCutSize()
        size.transactions =
            try fetchInt(sql: "SELECT count(*) FROM history_transaction WHERE " + whereClause, arguments: args) ?? 0
        size.changes = try historyChangeCount(of: cut)
        size.lastToken =
            size.transactions > 0
            ? Int64(
                try fetchInt(sql: "SELECT max(token) FROM history_transaction WHERE " + whereClause, arguments: args)
                    ?? 0) : 0
        return size
    }

    /// The number of `history_change` rows of the transactions `cut` selects.
    /// - Throws: the backend's error.
    public func historyChangeCount(of cut: HistoryCut) throws -> Int {
        let (whereClause, args) = clause(cut)
        return try fetchInt(
            sql: "SELECT count(*) FROM history_change WHERE token IN (SELECT token FROM history_transaction WHERE "
                + whereClause + ")", arguments: args) ?? 0
    }

    /// Deletes the changes of the transactions `cut` selects, in one statement (run before
    /// `deleteHistoryTransactions`, whose `ON DELETE CASCADE` then finds none to delete).
    /// - Throws: the backend's error.
    public func deleteHistoryChanges(of cut: HistoryCut) throws {
        let (whereClause, args) = clause(cut)
        try execute(
            sql: "DELETE FROM history_change WHERE token IN (SELECT token FROM history_transaction WHERE "
                + whereClause + ")", arguments: args)
    }

    /// Deletes the transactions `cut` selects.
    /// - Throws: the backend's error.
    public func deleteHistoryTransactions(of cut: HistoryCut) throws {
        let (whereClause, args) = clause(cut)
        try execute(sql: "DELETE FROM history_transaction WHERE " + whereClause, arguments: args)
    }
}
