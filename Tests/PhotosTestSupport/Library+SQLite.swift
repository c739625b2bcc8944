import PhotosCore
import PhotosModel
import PhotosSQLite

/// The tests' composition root: Core takes its backend injected (the `photos` binary's
/// `CompositionRoot` picks it per folder); in-process tests use SQLite, as the binary does by
/// default.
extension Library {
    /// Opens the library at `root` with the SQLite backend (`Library.init`, same parameters).
    /// - Throws: what `Library.init` throws.
    public convenience init(
        root: String, create: Bool, busyTimeout: Double = 30, readOnly: Bool = false, dryRun: Bool = false,
        acceptingOlderSchema: Bool = false
    ) throws {
        try self.init(
            root: root, backend: SQLiteCatalogBackend(), exportStates: SQLiteExportStateBackend(), create: create,
            busyTimeout: busyTimeout, readOnly: readOnly, dryRun: dryRun, acceptingOlderSchema: acceptingOlderSchema)
    }

    /// The library's SQLite database file (`ROOT/photos.sqlite`).
    public var databasePath: String { SQLiteCatalogBackend.databasePath(root: root) }

    /// The library's own SQLite connection, for tests that inspect or damage rows inside the
    /// library's transactions or check its modes (query-only during a dry run): a second
    /// connection would wait for the library's own write lock. Tests that only read or set up
    /// rows between commands open their own `Database(path: databasePath)` instead.
    public var sqlite: Database {
        guard let database = store as? Database else {
            preconditionFailure("the tests' libraries are opened with SQLiteCatalogBackend")
        }
        return database
    }
}
