import PhotosModel
import PhotosSQL

/// The history feed on SQLite: the statements are `PhotosSQL`'s (`HistoryFeedStore where
/// Self: SQLConnection`, HistoryFeedStore+SQL.swift); the token sequence is the backend's own.
extension Database: HistoryFeedStore {
    public func issuedHistoryToken() throws -> Int64 {
        // AUTOINCREMENT's sequence remembers the last token issued even when compaction has
        // deleted every transaction, so a consumer advanced now is never set back to 0.
        let newest = try scalarInt("SELECT COALESCE(max(token), 0) FROM history_transaction") ?? 0
        let issued =
            try scalarInt("SELECT COALESCE(max(seq), 0) FROM sqlite_sequence WHERE name = 'history_transaction'") ?? 0
        return Int64(max(newest, issued))
    }
}

/// `compact-history` on SQLite: the reads and the plain deletes are `PhotosSQL`'s
/// (`HistoryCompactionStore where Self: SQLConnection`, HistoryFeedStore+SQL.swift); what stays
/// here is SQLite's own: the bulk delete that remakes the indexes, and the pages given back to
/// the file system (pragmas).
extension Database: HistoryCompactionStore {
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
    ///
    /// With `reclaimingSpace`, in a library with auto-vacuum, the transaction is set to commit
    /// in FULL auto-vacuum mode (`reclaimSpace` sets INCREMENTAL back): that commit moves the
    /// pages in use past the final size into free pages below it and truncates the whole
    /// free-page list at once, so the freed pages are never written, where
    /// `PRAGMA incremental_vacuum` takes them one at a time from the end of the file, each
    /// looked up in the free-page list by an exact search through its trunk pages (quadratic:
    /// 0.8 CPU s for the 30,000 pages of a million changes) after the commit wrote them all
    /// (https://www.sqlite.org/pragma.html#pragma_auto_vacuum: FULL and INCREMENTAL switch
    /// without a VACUUM). The deletes then run with `secure_delete = FAST` instead of a build's
    /// default ON (Debian's): ON zeroes and writes every freed page, which that commit removes
    /// from the file or overwrites with a page in use anyway; FAST still zeroes what is deleted
    /// from the pages kept (https://www.sqlite.org/pragma.html#pragma_secure_delete), so the
    /// file after the commit holds the same bytes. A rollback restores the mode with the rows.
    public func deleteHistory(_ cut: HistoryCut, reclaimingSpace: Bool) throws {
        guard reclaimingSpace, try scalarInt("PRAGMA auto_vacuum") ?? 0 != 0 else { return try deleteRows(cut) }
        let secureDelete = try scalarInt("PRAGMA secure_delete") ?? 1
        try execute("PRAGMA secure_delete = FAST")
        defer { try? execute("PRAGMA secure_delete = \(secureDelete == 2 ? "FAST" : String(secureDelete))") }
        try deleteRows(cut)
        try execute("PRAGMA auto_vacuum = FULL")
    }

    /// The deletes of `deleteHistory`.
    private func deleteRows(_ cut: HistoryCut) throws {
        let all = try scalarInt("SELECT count(*) FROM history_change") ?? 0
        let doomed = try historyChangeCount(of: cut)
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
            try deleteHistoryChanges(of: cut)
            for (_, sql) in indexes { try execute(sql) }
        } else {
            try deleteHistoryChanges(of: cut)
        }
        try deleteHistoryTransactions(of: cut)
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

    public func databaseSizeBytes() throws -> Int64 {
        Int64(try scalarInt("PRAGMA page_count") ?? 0) * (try pageSize)
    }

    /// Returns the free pages to the file system and checkpoints the WAL.
    ///
    /// Libraries are created with `auto_vacuum = INCREMENTAL` (2); older files (NONE) keep
    /// their pages. Free pages left (none after a `deleteHistory` that reclaimed at its commit)
    /// go by one commit in FULL mode, for the reason `deleteHistory` gives, and the library is
    /// set back to INCREMENTAL — also when a crash after such a commit left it FULL (nothing
    /// else makes a library FULL).
    public func reclaimSpace() throws -> Int64 {
        let pagesBefore = Int64(try scalarInt("PRAGMA page_count") ?? 0)
        if try scalarInt("PRAGMA auto_vacuum") ?? 0 != 0 {
            if try scalarInt("PRAGMA freelist_count") ?? 0 > 0 {
                try inTransaction(.immediate) {
                    try execute("PRAGMA auto_vacuum = FULL")
                    return .commit
                }
            }
            // Setting the mode back needs the write lock again: when another writer holds it
            // past the wait, the library stays FULL (a commit that frees pages then returns
            // them at once) until the next call, rather than failing a compaction that committed.
            if try scalarInt("PRAGMA auto_vacuum") != 2 { _ = try? execute("PRAGMA auto_vacuum = INCREMENTAL") }
        }
        // A checkpoint another connection's reader blocks is retried at the next one.
        _ = try? execute("PRAGMA wal_checkpoint(TRUNCATE)")
        let pagesAfter = Int64(try scalarInt("PRAGMA page_count") ?? 0)
        return max(0, pagesBefore - pagesAfter) * (try pageSize)
    }
}
