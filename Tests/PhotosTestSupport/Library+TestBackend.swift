import PhotosCore
import PhotosModel
import PhotosPostgreSQL
import PhotosSQLite

/// The tests' composition root: Core takes its backend injected (the `photos` binary's
/// `CompositionRoot` picks it per folder). In-process tests pick it the same way for an existing
/// library folder (`catalog.postgresql`: PostgreSQL, otherwise SQLite); a new library gets the
/// backend of the run (`TestDatabase.backend`: PostgreSQL when `PHOTOS_TEST_DATABASE_URL` is set).
extension Library {
    /// Opens the library at `root` (`Library.init`, same parameters) with the backend of its
    /// folder; with `create` and no catalog yet, creates it with the run's backend: on
    /// PostgreSQL a fresh schema recorded in the folder as `photos init --database` does
    /// (`TestDatabase.initializePostgreSQLLibrary`).
    /// - Throws: what `Library.init` throws.
    public convenience init(
        root: String, create: Bool, busyTimeout: Double = 30, readOnly: Bool = false, dryRun: Bool = false,
        acceptingOlderSchema: Bool = false
    ) throws {
        let backend: any CatalogBackend
        switch TestDatabase.backend(ofLibraryAt: root) {
        case .postgresql?:
            backend = PostgresCatalogBackend()
        case .sqlite?:
            backend = SQLiteCatalogBackend()
        case nil:
            if create, !dryRun, !readOnly, TestDatabase.isPostgreSQL {
                // Made first (its connection closed when it is released), then opened below as
                // every later open does.
                _ = try TestDatabase.initializePostgreSQLLibrary(at: root, busyTimeout: busyTimeout)
                backend = PostgresCatalogBackend()
            } else {
                backend = TestDatabase.isPostgreSQL ? PostgresCatalogBackend() : SQLiteCatalogBackend()
            }
        }
        try self.init(
            root: root, backend: backend, exportStates: SQLiteExportStateBackend(), create: create,
            busyTimeout: busyTimeout, readOnly: readOnly, dryRun: dryRun, acceptingOlderSchema: acceptingOlderSchema)
        changesets = SQLiteChangesetBackend()
    }

    /// The backend holding this library's catalog.
    public var testBackend: TestDatabase.Backend { store is PostgresDatabase ? .postgresql : .sqlite }

    /// The library's catalog through its own connection, backend-neutral (`TestCatalog`): for
    /// tests that inspect or tamper rows, also inside the library's transactions (a second
    /// connection would wait for the library's own write lock).
    public var catalog: TestCatalog { TestCatalog(self) }

    /// The library's SQLite database file (`ROOT/photos.sqlite`); only for SQLite-only tests
    /// (`TestDatabase.requireSQLite`).
    public var databasePath: String { SQLiteCatalogBackend.databasePath(root: root) }

    /// The library's own SQLite connection, for tests of SQLite's own behaviour (modes,
    /// PRAGMAs); every other test uses `catalog`.
    public var sqlite: Database {
        guard let database = store as? Database else {
            preconditionFailure(
                "library \(root) is not on SQLite: use `catalog`, or skip with TestDatabase.requireSQLite(because:)")
        }
        return database
    }
}
