import PhotosModel
import PhotosSQL

/// `PhotosSQL`'s `ImportStore where Self: SQLConnection`, but for `hasOriginal`, which first
/// takes the advisory lock of the original (a server has other sessions importing at once;
/// SQLite's one writer holds the whole file's write lock).
extension PostgresDatabase: ImportStore {
    /// True when some photo of `scope` has an original of SHA-256 `sha256`, asked after
    /// taking the transaction-level advisory lock of that original (two int4 keys: the
    /// catalog's schema and the SHA-256, `hashtext`; PostgreSQL docs §9.27.10), held until the
    /// transaction ends. The duplicate rule holds per zone (issue 31 A1), which no UNIQUE
    /// constraint of `photo_data` can state; the lock makes the check-then-insert of two
    /// concurrent importers of one original wait for each other as the former `UNIQUE
    /// (sha256)` with `ON CONFLICT DO NOTHING` did: the second sees the first's row once it
    /// committed (READ COMMITTED: each statement sees what committed before it). Importers
    /// take originals in ascending SHA-256 order, so two never wait in a cycle.
    /// - Throws: `PostgresError` (`55P03` busy past the lock timeout).
    public func hasOriginal(sha256: String, in scope: DuplicateScope) throws -> Bool {
        try run("SELECT pg_advisory_xact_lock(hashtext(current_schema()), hashtext(?))", [sha256])
        return try isRecordedOriginal(sha256: sha256, in: scope)
    }
}
