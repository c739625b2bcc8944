import Foundation
import PhotosSQLite

/// A persistent-history transaction as `photos history` lists it (SPEC §4, §5a).
public struct HistoryTransaction: Equatable {
    /// Monotonically increasing token.
    public var token: Int64
    /// ISO 8601 UTC.
    public var timestamp: String
    public var author: String
    public var context: String
    public var changes: [HistoryChange]

    /// `{"token":N,"timestamp":"…","author":"…","context":"…","changes":[…]}`.
    public var json: JSONValue {
        .object([
            ("token", .int(Int(token))), ("timestamp", .string(timestamp)), ("author", .string(author)),
            ("context", .string(context)),
            ("changes", .array(changes.map { change in
                var pairs: [(String, JSONValue)] = [("entity", .string(change.entity)), ("id", .string(change.objectID)),
                                                    ("type", .string(change.type.rawValue))]
                if !change.updated.isEmpty { pairs.append(("updated", .array(change.updated.map(JSONValue.string)))) }
                if let tombstone = change.tombstone { pairs.append(("tombstone", .object(tombstone.map { ($0.0, .string($0.1)) }))) }
                if let zone = change.zone { pairs.append(("zone", .string(zone))) }
                return .object(pairs)
            })),
        ])
    }
}

/// Which history `photos history` lists. Transactions are kept when their author matches;
/// changes when their entity and zone match; a transaction left without changes is dropped.
public struct HistoryFilter {
    /// Only transactions after this token.
    public var sinceToken: Int64 = 0
    public var authors: [String] = []
    public var excludedAuthors: [String] = []
    /// Entity names, e.g. `Tag`.
    public var entities: [String] = []
    public var zone: String?

    public init() {}
}

/// A registered history consumer: a name and the last token it processed.
public struct HistoryConsumer: Equatable {
    public var name: String
    public var token: Int64
}

extension Library {
    /// The highest token in the history (0 when empty).
    /// - Throws: `SQLiteError`.
    public func currentHistoryToken() throws -> Int64 {
        // AUTOINCREMENT's sequence remembers the last token issued even when compaction has
        // deleted every transaction, so a consumer advanced now is never set back to 0.
        let newest = try db.scalarInt("SELECT COALESCE(max(token), 0) FROM history_transaction") ?? 0
        let issued = try db.scalarInt("SELECT COALESCE(max(seq), 0) FROM sqlite_sequence WHERE name = 'history_transaction'") ?? 0
        return Int64(max(newest, issued))
    }

    /// True when compaction deleted transactions after `token` that a consumer at `token` had not
    /// processed (Core Data's NSPersistentHistoryTokenExpiredError). Tokens come from
    /// AUTOINCREMENT and a rolled-back transaction takes its token back, so the only gaps are
    /// compaction's.
    public func historyExpired(after token: Int64) throws -> Bool {
        guard token < (try currentHistoryToken()) else { return false }
        return try db.scalarInt("SELECT 1 FROM history_transaction WHERE token = ?", [token + 1]) == nil
    }

    /// Calls `body` for each transaction matching `filter`, in token order, without holding
    /// the whole history in memory.
    /// - Throws: `SQLiteError`, or what `body` throws.
    public func forEachHistoryTransaction(matching filter: HistoryFilter, _ body: (HistoryTransaction) throws -> Void) throws {
        var sql = "SELECT token, timestamp, author, context FROM history_transaction WHERE token > ?"
        var args: [SQLBindable] = [filter.sinceToken]
        if !filter.authors.isEmpty {
            sql += " AND author IN (\(Array(repeating: "?", count: filter.authors.count).joined(separator: ",")))"
            args += filter.authors as [SQLBindable]
        }
        if !filter.excludedAuthors.isEmpty {
            sql += " AND author NOT IN (\(Array(repeating: "?", count: filter.excludedAuthors.count).joined(separator: ",")))"
            args += filter.excludedAuthors as [SQLBindable]
        }
        sql += " ORDER BY token"
        var changeSQL = "SELECT entity, object_id, type, updated, tombstone, zone_id FROM history_change WHERE token = ?"
        var changeArgs: [SQLBindable] = []
        if !filter.entities.isEmpty {
            changeSQL += " AND entity IN (\(Array(repeating: "?", count: filter.entities.count).joined(separator: ",")))"
            changeArgs += filter.entities as [SQLBindable]
        }
        if let zone = filter.zone {
            changeSQL += " AND zone_id = ?"
            changeArgs.append(zone)
        }
        changeSQL += " ORDER BY id"
        let changes = try Statement.prepare(db, changeSQL)
        // SQLite's json_each walks the stored JSON in document order, so tombstone keys keep
        // the order they were written in (https://www.sqlite.org/json1.html#jeach).
        let elements = try Statement.prepare(db, "SELECT key, value FROM json_each(?)")
        func strings(_ json: String?) throws -> [String] {
            guard let json else { return [] }
            return try elements.map([json]) { $0.string(1) }
        }
        func pairs(_ json: String?) throws -> [(String, String)]? {
            guard let json else { return nil }
            return try elements.map([json]) { ($0.string(0), $0.string(1)) }
        }
        try Statement.prepare(db, sql).forEach(args) { row in
            let token = row.int64(0)
            var transaction = HistoryTransaction(token: token, timestamp: row.string(1), author: row.string(2),
                                                 context: row.string(3), changes: [])
            transaction.changes = try changes.map([token] + changeArgs) { c in
                HistoryChange(entity: c.string(0), objectID: c.string(1), type: ChangeType(rawValue: c.string(2)) ?? .update,
                              updated: try strings(c.optionalString(3)),
                              tombstone: try pairs(c.optionalString(4)), zone: c.optionalString(5))
            }
            if transaction.changes.isEmpty && (!filter.entities.isEmpty || filter.zone != nil) { return }
            try body(transaction)
        }
    }

    /// Every registered consumer, by name.
    /// - Throws: `SQLiteError`.
    public func historyConsumers() throws -> [HistoryConsumer] {
        try db.statement("SELECT name, token FROM history_consumer ORDER BY name").map { HistoryConsumer(name: $0.string(0), token: $0.int64(1)) }
    }

    /// The last token `name` processed, or nil when it is not registered.
    /// - Throws: `SQLiteError`.
    public func consumerToken(_ name: String) throws -> Int64? {
        try db.statement("SELECT token FROM history_consumer WHERE name = ?").first([name]) { $0.int64(0) }
    }

    /// Registers `name` or moves its token. Call inside a write transaction when it must
    /// commit together with other changes.
    /// - Throws: `SQLiteError`.
    public func setConsumerToken(_ name: String, _ token: Int64) throws {
        try db.run("INSERT INTO history_consumer (name, token) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET token = excluded.token", [name, token])
    }

    /// Removes a consumer, so that it no longer holds compaction back.
    /// - Returns: true when it existed.
    /// - Throws: `PhotosError` 75 when busy, `SQLiteError`.
    @discardableResult
    public func removeConsumer(_ name: String) throws -> Bool {
        try write {
            try db.run("DELETE FROM history_consumer WHERE name = ?", [name])
            return db.changes > 0
        }
    }
}

/// Where `history compact` cuts.
public enum CompactionCutoff: Equatable {
    /// Transactions with a timestamp before this instant (Core Data's `deleteHistory(before: Date)`).
    case date(Date)
    /// Transactions with a token below this one (`deleteHistory(before: token)`).
    case token(Int64)
}

/// What `history compact` removed.
public struct CompactionReport: Equatable {
    public var transactions = 0
    public var changes = 0
    /// Bytes the database file shrank by (pages freed × page size, after the incremental vacuum).
    public var bytes: Int64 = 0
    /// The highest token deleted (0 when none).
    public var throughToken: Int64 = 0
    /// True when a consumer's token held the cut back.
    public var limitedByConsumer: String?
    public var dryRun = false

    public var json: JSONValue {
        .object([("transactions", .int(transactions)), ("changes", .int(changes)), ("bytes", .int(Int(bytes))),
                 ("throughToken", .int(Int(throughToken))), ("limitedByConsumer", .optional(limitedByConsumer)),
                 ("dryRun", .bool(dryRun))])
    }
}

extension Library {
    /// Deletes history transactions (and their changes) before `cutoff`, never past the lowest
    /// token of a registered consumer unless `force` — a consumer must still see what it has not
    /// processed. One IMMEDIATE transaction; then the freed pages are returned to the file system
    /// with `PRAGMA incremental_vacuum` (libraries are created with `auto_vacuum=INCREMENTAL`)
    /// and the WAL is checkpointed. Semantics of Core Data's `NSPersistentHistoryChangeRequest
    /// .deleteHistory(before:)` (SPEC §4). A dry run runs the same deletes, rolls them back and
    /// neither vacuums nor checkpoints; its `bytes` are the pages the deletes freed.
    /// - Throws: `PhotosError` 75 when busy, `SQLiteError`.
    public func compactHistory(_ cutoff: CompactionCutoff, force: Bool = false, dryRun: Bool = false) throws -> CompactionReport {
        try self.dryRun(dryRun) { try compact(cutoff, force: force) }
    }

    private func compact(_ cutoff: CompactionCutoff, force: Bool) throws -> CompactionReport {
        var report = CompactionReport()
        report.dryRun = isDryRun
        let freeBefore = Int64(try db.scalarInt("PRAGMA freelist_count") ?? 0)
        let pageSize = Int64(try db.scalarInt("PRAGMA page_size") ?? 4096)
        let pagesBefore = Int64(try db.scalarInt("PRAGMA page_count") ?? 0)
        try write {
            var limit: Int64
            switch cutoff {
            case .token(let t): limit = t - 1
            case .date(let date):
                limit = Int64(try db.scalarInt("SELECT COALESCE(max(token), 0) FROM history_transaction WHERE timestamp < ?",
                                               [ISODate.string(from: date)]) ?? 0)
            }
            if !force, let lowest = try db.statement("SELECT name, token FROM history_consumer ORDER BY token, name LIMIT 1")
                .first({ ($0.string(0), $0.int64(1)) }), lowest.1 < limit {
                limit = lowest.1
                report.limitedByConsumer = lowest.0
            }
            var dateClause = ""
            var args: [SQLBindable] = [limit]
            if case .date(let date) = cutoff {
                dateClause = " AND timestamp < ?"
                args.append(ISODate.string(from: date))
            }
            report.transactions = try db.scalarInt("SELECT count(*) FROM history_transaction WHERE token <= ?" + dateClause, args) ?? 0
            report.changes = try db.scalarInt("SELECT count(*) FROM history_change WHERE token IN (SELECT token FROM history_transaction WHERE token <= ?" + dateClause + ")", args) ?? 0
            report.throughToken = report.transactions > 0
                ? Int64(try db.scalarInt("SELECT max(token) FROM history_transaction WHERE token <= ?" + dateClause, args) ?? 0) : 0
            guard report.transactions > 0 else { return }
            try db.run("DELETE FROM history_change WHERE token IN (SELECT token FROM history_transaction WHERE token <= ?" + dateClause + ")", args)
            try db.run("DELETE FROM history_transaction WHERE token <= ?" + dateClause, args)
            if isDryRun {
                report.bytes = max(0, Int64(try db.scalarInt("PRAGMA freelist_count") ?? 0) - freeBefore) * pageSize
            }
        }
        guard !isDryRun, report.transactions > 0 else { return report }
        if try db.scalarInt("PRAGMA auto_vacuum") == 2 {
            try db.execute("PRAGMA incremental_vacuum")
        }
        _ = try? db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        let pagesAfter = Int64(try db.scalarInt("PRAGMA page_count") ?? 0)
        report.bytes = max(0, pagesBefore - pagesAfter) * pageSize
        return report
    }
}
