import PhotosModel

/// The columns of `history_transaction`, `history_change` and `history_consumer` as they are
/// read back: the one place of this module that knows their order in a SELECT.
enum HistoryRows {
    /// `history_transaction` as read: token, timestamp, author, context.
    static let transactionColumns = "token, timestamp, author, context"

    /// A transaction row selected with `transactionColumns`, without its changes.
    static func transaction(_ row: PGRow) -> HistoryTransaction {
        HistoryTransaction(
            token: row.int64(0), timestamp: row.string(1), author: row.string(2), context: row.string(3), changes: [])
    }

    /// `history_change` as read: entity, object id, type, updated (JSON array text),
    /// tombstone (JSON object text), zone.
    static let changeColumns = "entity, object_id, type, updated, tombstone, zone_id"

    /// `history_consumer` as read: name, token.
    static let consumerColumns = "name, token"

    /// A consumer row selected with `consumerColumns`.
    static func consumer(_ row: PGRow) -> HistoryConsumer {
        HistoryConsumer(name: row.string(0), token: row.int64(1))
    }
}

/// The columns of `tag` as read: id, uuid, name, zone.
enum StoredTagRow {
    static let columns = "id, uuid, name, zone_id"

    /// A tag row selected with `columns`.
    static func decode(_ row: PGRow) -> StoredTag {
        StoredTag(rowID: row.int64(0), uuid: row.string(1), name: row.string(2), zone: ZoneID(rawValue: row.string(3)))
    }
}

extension PostgresDatabase {
    /// Runs an `INSERT … RETURNING id` and returns the id.
    /// - Throws: `PostgresError`.
    func insertReturningID(_ sql: String, _ values: [PGBindable]) throws -> Int64 {
        guard let id = try statement(sql).first(values, { $0.int64(0) }) else {
            throw PostgresError(sqlState: "XX000", message: "an INSERT … RETURNING returned no row", sql: sql)
        }
        return id
    }
}
