/// Where `photos backup` and `photos restore` copy the catalog (SPEC §5 backup): a consistent
/// snapshot taken while other processes read and write the library, and the way back. Backend
/// neutral: SQLite implements it with its online backup API; a server database would use its
/// own dump and restore. The originals are files and are not the store's business.
public protocol CatalogBackupStore {
    /// Writes a consistent copy of the whole catalog — every transaction committed before the
    /// copy began and none after, never half of one — to the new file `destination`. Other
    /// connections keep reading and writing meanwhile. The file appears complete or not at all
    /// (written beside it, flushed, then renamed into place).
    /// - Returns: the size of the copy in bytes.
    /// - Throws: the store's error when the catalog cannot be read (busy past the timeout: a
    ///   busy error) or `destination` cannot be written; nothing is left at `destination` then.
    func backupCatalog(to destination: String) throws -> Int64

    /// Throws what `backupCatalog` would throw because this store does not back up its
    /// catalog at all (a catalog on a server), before `photos backup` makes its folder.
    /// - Throws: the store's refusal; nothing by default.
    func refuseCatalogBackupIfUnsupported() throws

    /// Replaces the whole catalog of this store with the copy in `source` (one that
    /// `backupCatalog` wrote), in one step: other connections see the old catalog or the
    /// restored one. The copy's schema version comes with it (migrate afterwards).
    /// - Throws: the store's error when `source` is not a readable copy or this catalog is busy.
    func restoreCatalog(from source: String) throws
}

extension CatalogBackupStore {
    /// Stores that back up their catalog refuse nothing up front.
    public func refuseCatalogBackupIfUnsupported() throws {}
}
