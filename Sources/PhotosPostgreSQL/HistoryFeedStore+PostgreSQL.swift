import PhotosModel
import PhotosSQL

/// The history feed on PostgreSQL: the statements are `PhotosSQL`'s (`HistoryFeedStore where
/// Self: SQLConnection`, HistoryFeedStore+SQL.swift); the token sequence is the backend's own.
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
}

/// `compact-history` on PostgreSQL: the reads and the deletes are `PhotosSQL`'s
/// (`HistoryCompactionStore where Self: SQLConnection`, HistoryFeedStore+SQL.swift); what stays
/// here is what differs from SQLite: no bulk path (the server's own delete keeps the indexes
/// as it goes) and no file-size pragmas.
extension PostgresDatabase: HistoryCompactionStore {
    /// The deletes; `reclaimingSpace` changes nothing here (see `reclaimSpace`).
    public func deleteHistory(_ cut: HistoryCut, reclaimingSpace: Bool) throws {
        try deleteHistoryChanges(of: cut)
        try deleteHistoryTransactions(of: cut)
    }

    /// PostgreSQL keeps no free-page count a client can read cheaply; autovacuum makes the
    /// space of deleted history rows reusable by later rows (PostgreSQL docs §25.1). 0.
    public func freeSpaceBytes() throws -> Int64 { 0 }

    /// 0: compaction gives no space back to the file system here (see `reclaimSpace`).
    public func databaseSizeBytes() throws -> Int64 { 0 }

    /// Nothing to give back here: space freed by deleted rows is reused by the server's
    /// autovacuum, and a `VACUUM FULL` would lock the tables every importer writes. 0 bytes.
    public func reclaimSpace() throws -> Int64 { 0 }
}
