import PhotosModel
import PhotosSQL

/// `PhotosSQL`'s `MetadataStore where Self: SQLConnection`.
extension PostgresDatabase: MetadataStore {}

extension PostgresDatabase: CatalogBackupStore {
    /// Not done by `photos` for a catalog on a server: its copy is the server's business
    /// (`pg_dump`/`pg_restore`, or the server's own backups, PostgreSQL docs chapter 26).
    /// - Throws: `PostgresError` `0A000` (feature_not_supported, `StoreError.Kind.unsupported`:
    ///   exit 69) saying so; nothing is written.
    public func backupCatalog(to destination: String) throws -> Int64 {
        try refuseCatalogBackupIfUnsupported()
        return 0
    }

    /// See `backupCatalog`: always throws.
    /// - Throws: `PostgresError` `0A000` (feature_not_supported).
    public func refuseCatalogBackupIfUnsupported() throws {
        throw PostgresError(
            sqlState: "0A000",
            message:
                "the catalog of this library is the PostgreSQL database \(info.display): back it up with pg_dump (photos backup copies only SQLite catalogs)"
        )
    }

    /// Not done by `photos` for a catalog on a server (`pg_restore`).
    /// - Throws: `PostgresError` `0A000` (feature_not_supported); nothing is changed.
    public func restoreCatalog(from source: String) throws {
        throw PostgresError(
            sqlState: "0A000",
            message:
                "the catalog of this library is the PostgreSQL database \(info.display): restore it with pg_restore (photos restore writes only SQLite catalogs)"
        )
    }
}
