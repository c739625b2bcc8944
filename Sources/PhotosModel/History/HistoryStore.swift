/// Where persistent history is stored: the write side of SPEC §4's `history_transaction` and
/// `history_change`. Core's `HistoryWriter` decides *what* is recorded (which objects, merged
/// per transaction, in which order, by which author); a store only writes it.
///
/// Designed for a second implementation on PostgreSQL (libpq) without changing Core:
/// - The token is returned by the store (`INSERT … RETURNING token` on both SQLite ≥ 3.35 and
///   PostgreSQL; an identity column there, AUTOINCREMENT here): Core never reads a "last
///   insert row id".
/// - Tombstones and `updated` are handed over as typed values, and the store serializes them
///   (SQLite `json_object`/text, PostgreSQL `jsonb_build_object`/`jsonb`); Core never builds
///   JSON for the database.
/// - A set-wise delete is one call naming the entity and the selection, so each backend writes
///   its own `INSERT … SELECT` with its own placeholders (`?` vs `$1`).
/// - Every method runs inside the caller's write transaction (`CatalogStore.write`), which
///   holds the backend's write lock (SQLite BEGIN IMMEDIATE; PostgreSQL a transaction-level
///   advisory lock), so tokens are assigned in commit order.
public protocol HistoryStore: AnyObject {
    /// Appends one history transaction row.
    /// - Parameters:
    ///   - timestamp: ISO 8601 UTC with milliseconds.
    ///   - author: who made the change (`HistoryAuthor.name(for:)`).
    ///   - context: the command (`HistoryContext`).
    /// - Returns: the new token, greater than every token ever handed out (also after compaction).
    /// - Throws: the store's error (`SQLiteError`).
    func appendHistoryTransaction(timestamp: String, author: String, context: HistoryContext) throws -> Int64

    /// Appends `changes` to the transaction `token`, in order.
    /// - Throws: the store's error.
    func appendHistoryChanges(_ changes: [HistoryChange], token: Int64) throws

    /// The delete changes (object id, zone, tombstone in `HistoryEntity.tombstoneKeys` order)
    /// of the rows `selection` names, in row order, read from the rows before they go.
    /// - Throws: the store's error.
    func deleteChanges(_ entity: HistoryEntity, _ selection: HistorySelection) throws -> [HistoryChange]

    /// True when `selection` names at least one row of `entity`.
    /// - Throws: the store's error.
    func hasRows(_ entity: HistoryEntity, _ selection: HistorySelection) throws -> Bool

    /// Appends to `token` one delete change per row `selection` names, with the same object id,
    /// zone and tombstone as `deleteChanges` gives, in one statement (for large sets: `purge`
    /// of a 10,000-photo zone).
    /// - Throws: the store's error.
    func appendDeleteChangesSetWise(_ entity: HistoryEntity, _ selection: HistorySelection, token: Int64) throws

    /// Appends to `token`, in one statement, the changes the row-wise merge of `merges` records
    /// (`dedupe-tags`, SPEC §5), in its order: per merge, per loser, a Photo update of `tags`
    /// (zone: the photo's) for each photo linked to the loser and not recorded for an earlier
    /// loser of the call, by unique name; then the loser's Tag delete with its tombstone
    /// `{name, uuid}` (`TagMerge.loserRows`); after a merge's losers, the winner's Tag update of
    /// `photos` when its `photosRelinked` > 0. Call before `TagDedupeStore.mergeTags`, with no
    /// other change of those objects in the transaction (they are not merged with these).
    /// - Throws: the store's error.
    func appendTagMergeChangesSetWise(_ merges: [TagMerge], token: Int64) throws
}
