import Foundation
import PhotosModel
import PhotosSQL

/// The history's writes that PostgreSQL spells its own way: the token comes from a sequence
/// under an advisory lock, and changes go in multi-row INSERTs (one round trip a batch). The
/// reads and the set-wise deletes are `PhotosSQL`'s (`HistoryStore where Self: SQLConnection`,
/// HistoryStore+SQL.swift, TagMerge+SQL.swift).
extension PostgresDatabase: HistoryStore {
    /// Draws the token from the sequence `history_token` while holding the transaction-level
    /// advisory lock `historyLock` of this catalog (PostgreSQL docs §9.27.10 `pg_advisory_xact_lock`), which
    /// is released only when the caller's transaction commits or rolls back. So a transaction
    /// that draws a token waits until every transaction that drew a smaller one has ended:
    /// tokens become visible in commit order, and a consumer that has read up to token N never
    /// later finds a transaction with a token ≤ N (issue 12 item 4). The lock is held from
    /// the history row to the commit only (`HistoryWriter` writes its row last), so writers
    /// still run their batches side by side. A sequence never goes back, so a token is greater
    /// than every token handed out before, also after compaction; a rolled-back transaction
    /// (a dry run) leaves a gap.
    public func appendHistoryTransaction(timestamp: String, author: String, context: HistoryContext) throws -> Int64 {
        try run("SELECT pg_advisory_xact_lock(\(historyLock))")
        return try insertReturningID(
            "INSERT INTO history_transaction (token, timestamp, author, context) VALUES (nextval('history_token'), ?, ?, ?) RETURNING token",
            [timestamp, author, context.rawValue])
    }

    /// Rows per multi-row INSERT of `appendHistoryChanges` (7 parameters a row, far below the
    /// protocol's 65,535).
    static let historyChangeBatch = 256

    /// Inserts `changes` in order with multi-row INSERTs of up to `historyChangeBatch` rows:
    /// one round trip per batch, not per change (a dedupe or tag command on a big catalog logs
    /// one change per photo it touches). Rows of one INSERT … VALUES get their ids in order.
    public func appendHistoryChanges(_ changes: [HistoryChange], token: Int64) throws {
        var start = changes.startIndex
        while start < changes.endIndex {
            let part = changes[start..<min(start + PostgresDatabase.historyChangeBatch, changes.endIndex)]
            var values: [SQLBindable] = []
            values.reserveCapacity(part.count * 7)
            for change in part { values += HistorySQL.changeArguments(change, token: token) }
            let rows = Array(repeating: "(?, ?, ?, ?, ?, ?, ?)", count: part.count).joined(separator: ", ")
            try execute(
                sql: "INSERT INTO history_change (\(HistorySQL.changeInsertColumns)) VALUES \(rows)", arguments: values)
            start = part.endIndex
        }
    }
}
