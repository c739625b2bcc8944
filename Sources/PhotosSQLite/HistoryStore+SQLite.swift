import Foundation
import PhotosModel
import PhotosSQL

/// The history's writes that SQLite spells its own way: the token is the AUTOINCREMENT rowid
/// (never reused, also after compaction), and each change is one run of a cached INSERT (no
/// round trip to save). The reads and the set-wise deletes are `PhotosSQL`'s
/// (`HistoryStore where Self: SQLConnection`, HistoryStore+SQL.swift, TagMerge+SQL.swift).
extension Database: HistoryStore {
    public func appendHistoryTransaction(timestamp: String, author: String, context: HistoryContext) throws -> Int64 {
        try run(
            "INSERT INTO history_transaction (timestamp, author, context) VALUES (?, ?, ?)",
            [timestamp, author, context.rawValue])
        return lastInsertRowID
    }

    public func appendHistoryChanges(_ changes: [HistoryChange], token: Int64) throws {
        guard !changes.isEmpty else { return }
        let insert = try statement(
            "INSERT INTO history_change (\(HistorySQL.changeInsertColumns)) VALUES (?, ?, ?, ?, ?, ?, ?)")
        for change in changes { try insert.run(HistorySQL.changeArguments(change, token: token)) }
    }
}
