/// Which transactions a history compaction deletes: those with a token up to `throughToken`
/// and, when `before` is given, a timestamp before it (ISO 8601 UTC, compared as text, which
/// orders it by time).
public struct HistoryCut: Equatable, Sendable {
    /// The highest token the cut may reach (inclusive).
    public var throughToken: Int64
    /// Only transactions with a timestamp before this one.
    public var before: String?

    public init(throughToken: Int64, before: String? = nil) {
        self.throughToken = throughToken
        self.before = before
    }
}

/// What a history cut holds.
public struct HistoryCutSize: Equatable, Sendable {
    public var transactions = 0
    public var changes = 0
    /// The highest token among them (0 when none).
    public var lastToken: Int64 = 0

    public init(transactions: Int = 0, changes: Int = 0, lastToken: Int64 = 0) {
        self.transactions = transactions
        self.changes = changes
        self.lastToken = lastToken
    }
}

/// Where `history compact` deletes old history and returns the space (Core Data's
/// `NSPersistentHistoryChangeRequest.deleteHistory(before:)`, SPEC §4). Core decides the cut
/// (the cut-off, held back by the lowest consumer unless forced) and when space is reclaimed
/// (never in a dry run); a store counts, deletes and reclaims.
///
/// Designed for a PostgreSQL implementation (libpq) without changing Core:
/// - Every method but `reclaimSpace` runs inside the caller's write transaction
///   (`Library.write`: SQLite BEGIN IMMEDIATE; PostgreSQL a transaction-level advisory lock,
///   `pg_advisory_xact_lock`), so no transaction commits between counting and deleting.
/// - The deletes are two set-wise statements (`DELETE … WHERE token <= $1 [AND timestamp < $2]`;
///   `ON DELETE CASCADE` of `history_change` could replace the first on PostgreSQL).
/// - `freeSpaceBytes` is the file's free-page list here (`freelist_count × page_size`); a
///   PostgreSQL store has no such list inside a transaction and reports 0 (a dry run then says
///   0 bytes), or an estimate from `pg_relation_size` of the rows deleted.
/// - `reclaimSpace` is what returns freed space to the file system: here a vacuum of the free
///   pages (libraries are created with `auto_vacuum = INCREMENTAL`; `deleteHistory` with
///   `reclaimingSpace` lets its commit return them already) and a WAL checkpoint; on
///   PostgreSQL `VACUUM history_change, history_transaction` (which cannot run inside a
///   transaction block, so it is its own call, made after the commit) measured with
///   `pg_total_relation_size` before and after.
public protocol HistoryCompactionStore: AnyObject {
    /// The highest token of a transaction with a timestamp before `timestamp` (ISO 8601 UTC),
    /// or 0 when none.
    /// - Throws: the store's error.
    func lastHistoryToken(before timestamp: String) throws -> Int64

    /// The consumer with the lowest token (ties: the first by name), or nil when none is
    /// registered.
    /// - Throws: the store's error.
    func lowestHistoryConsumer() throws -> HistoryConsumer?

    /// How many transactions and changes `cut` selects.
    /// - Throws: the store's error.
    func historySize(of cut: HistoryCut) throws -> HistoryCutSize

    /// Deletes the transactions `cut` selects and their changes.
    /// - Parameter reclaimingSpace: true when the space the deletes free is to go back to the
    ///   file system (never in a dry run): the store may then return it when the caller's
    ///   transaction commits instead of in `reclaimSpace` (SQLite: that commit runs in FULL
    ///   auto-vacuum mode). `reclaimSpace` is called after the commit either way.
    /// - Throws: the store's error.
    func deleteHistory(_ cut: HistoryCut, reclaimingSpace: Bool) throws

    /// The size of the database in bytes as the current transaction sees it, the measure of
    /// what compaction gives back (SQLite: `page_count × page_size`; 0 where the backend
    /// cannot tell).
    /// - Throws: the store's error.
    func databaseSizeBytes() throws -> Int64

    /// Bytes of the database's free space that deletes have freed and the file still holds, in
    /// bytes (SQLite: free pages × page size; 0 where the backend cannot tell).
    /// - Throws: the store's error.
    func freeSpaceBytes() throws -> Int64

    /// Returns the space that deletes freed to the file system and checkpoints the write-ahead
    /// log. Call outside a transaction, after the deletes committed.
    /// - Returns: the bytes the database shrank by (0 when nothing could be returned).
    /// - Throws: the store's error (a failed checkpoint is not one: the space is then returned
    ///   at the next checkpoint).
    func reclaimSpace() throws -> Int64
}

extension HistoryCompactionStore {
    /// Deletes the transactions `cut` selects and their changes, leaving the space they free
    /// to `reclaimSpace` (`deleteHistory(_:reclaimingSpace:)` with false).
    /// - Throws: the store's error.
    public func deleteHistory(_ cut: HistoryCut) throws { try deleteHistory(cut, reclaimingSpace: false) }
}
