import Foundation
import PhotosCore
import PhotosPostgreSQL
import PhotosSQLite
import XCTest

/// The catalog backend the tests run on, chosen by one environment variable:
/// `PHOTOS_TEST_DATABASE_URL` (a libpq connection string of a server the tests may create
/// schemas on, for example `postgresql://postgres@127.0.0.1:54329/postgres`) makes libraries
/// PostgreSQL ones; unset, they are SQLite ones (`.ci/run` runs the suite both ways).
///
/// In PostgreSQL mode every library a test creates — in process through `Library(root:create:)`,
/// or by the `photos` binary through `BinaryTestCase.run` — gets a fresh schema of its own
/// (`makeSchema`), recorded in the folder as `photos init --database` records it
/// (`PostgresCatalogBackend.record`); the schema is dropped when the test's temporary folder is
/// removed (`TemporaryFolderTestCase`, `TempDir.cleanup`), else when the test process exits.
public enum TestDatabase {
    /// The variable's name.
    public static let variable = "PHOTOS_TEST_DATABASE_URL"

    /// The catalog backends a test run can use.
    public enum Backend: String, Sendable {
        case sqlite
        case postgresql
    }

    /// The server's connection string, when the variable is set and not empty.
    public static var postgresURL: String? {
        guard let url = ProcessInfo.processInfo.environment[variable], !url.isEmpty else { return nil }
        return url
    }

    /// The backend new libraries of this run get: PostgreSQL when `PHOTOS_TEST_DATABASE_URL`
    /// is set, SQLite otherwise.
    public static var backend: Backend { postgresURL == nil ? .sqlite : .postgresql }

    /// True when this run makes PostgreSQL libraries.
    public static var isPostgreSQL: Bool { backend == .postgresql }

    /// The server's connection string.
    /// - Throws: `XCTSkip` naming the variable when it is not set.
    public static func requirePostgres() throws -> String {
        guard let postgresURL else {
            throw XCTSkip("\(variable) is not set: PostgreSQL tests skipped (.ci/run starts a server and sets it)")
        }
        return postgresURL
    }

    /// Skips the test in PostgreSQL mode: for tests of SQLite's own behaviour (WAL files,
    /// PRAGMAs, `quick_check`, damaged `photos.sqlite` bytes, old SQLite schema files, `photos
    /// backup`/`restore` of a SQLite catalog), which have no PostgreSQL counterpart.
    /// - Parameter reason: what SQLite-only behaviour the test checks, for the skip message.
    /// - Throws: `XCTSkip` naming `reason` when `PHOTOS_TEST_DATABASE_URL` is set.
    public static func requireSQLite(because reason: String) throws {
        if isPostgreSQL {
            throw XCTSkip("SQLite only (\(variable) is set: this run is on PostgreSQL): \(reason)")
        }
    }

    /// A fresh, empty schema of its own on the test server (so tests run in parallel without
    /// seeing each other's tables), and the connection string that makes it the search path
    /// (`options=-csearch_path=…`, libpq docs §34.1.2).
    /// - Returns: the connection string; `drop` removes the schema and everything in it.
    /// - Throws: `XCTSkip` when no server is configured, `PostgresError` when it cannot be reached.
    public static func makeSchema() throws -> (connectionString: String, schema: String, drop: @Sendable () -> Void) {
        let base = try requirePostgres()
        let schema = "photos_test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let admin = try PostgresDatabase(base)
        try admin.execute("CREATE SCHEMA \(schema)")
        let info = try ConnectionInfo(base).setting("options", to: "-csearch_path=\(schema)")
        let drop: @Sendable () -> Void = {
            if let admin = try? PostgresDatabase(base) { try? admin.execute("DROP SCHEMA \(schema) CASCADE") }
        }
        return (info.connectionString, schema, drop)
    }

    /// Makes the library folder `root` (which has no catalog yet) a PostgreSQL library on a
    /// fresh schema, as `photos init --database` does: creates the folder and the catalog,
    /// then records the connection in `root/catalog.postgresql` with the product's own
    /// `PostgresCatalogBackend.record`. The schema is dropped with the folder (`dropSchemas(under:)`).
    /// - Returns: the library, opened with the PostgreSQL backend.
    /// - Throws: `XCTSkip` when no server is configured; what `Library.init` throws.
    @discardableResult
    public static func initializePostgreSQLLibrary(at root: String, busyTimeout: Double = 30) throws -> Library {
        let connectionString = try makeSchema(forLibraryAt: root)
        let library = try Library(
            root: root, backend: PostgresCatalogBackend(connectionString: connectionString),
            exportStates: SQLiteExportStateBackend(), create: true, busyTimeout: busyTimeout)
        library.changesets = SQLiteChangesetBackend()
        try PostgresCatalogBackend.record(try ConnectionInfo(connectionString), root: root)
        return library
    }

    /// A fresh schema (`makeSchema`) for the library folder `root`, dropped with the folder.
    /// - Returns: its connection string, for `photos init --database`.
    /// - Throws: `XCTSkip` when no server is configured, `PostgresError` when it cannot be reached.
    public static func makeSchema(forLibraryAt root: String) throws -> String {
        let made = try makeSchema()
        schemas.add(folder: root, drop: made.drop)
        return made.connectionString
    }

    /// Copies the library folder `source` to `destination` (which does not exist), as `cp -R`
    /// copies a SQLite library: a library of its own with the same catalog, originals and
    /// library id. For a PostgreSQL library the catalog is copied into a fresh schema (every
    /// table's rows, the identity and history-token sequences where they were), and the copy's
    /// `catalog.postgresql` names it: the two folders do not share a catalog.
    /// - Throws: the copy error, `PostgresError`.
    public static func copyLibrary(_ source: String, to destination: String) throws {
        try FileManager.default.copyItem(atPath: source, toPath: destination)
        guard backend(ofLibraryAt: source) == .postgresql,
            let recorded = try PostgresCatalogBackend.recordedConnection(root: source)
        else { return }
        let from = try PostgresDatabase(recorded)
        let sourceSchema = try from.scalarString("SELECT current_schema()") ?? ""
        let connectionString = try makeSchema(forLibraryAt: destination)
        let to = try PostgresDatabase(connectionString)
        _ = try to.migrate()
        let tables = try to.statement(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name"
        ).map { $0.string(0) }
        // Foreign keys are triggers PostgreSQL skips in replica mode, so tables copy in any order.
        var sql = "BEGIN; SET LOCAL session_replication_role = replica;"
        for table in tables {
            sql += " DELETE FROM \"\(table)\"; INSERT INTO \"\(table)\" SELECT * FROM \"\(sourceSchema)\".\"\(table)\";"
        }
        sql += " COMMIT;"
        try to.execute(sql)
        let identities = try to.statement(
            "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = current_schema() AND is_identity = 'YES'"
        ).map { ($0.string(0), $0.string(1)) }
        for (table, column) in identities {
            try to.execute(
                "SELECT setval(pg_get_serial_sequence('\(table)', '\(column)'), COALESCE((SELECT last_value FROM \"\(sourceSchema)\".\"\(table)_\(column)_seq\"), 1), (SELECT is_called FROM \"\(sourceSchema)\".\"\(table)_\(column)_seq\"))"
            )
        }
        try to.execute(
            "SELECT setval('history_token', (SELECT last_value FROM \"\(sourceSchema)\".history_token), (SELECT is_called FROM \"\(sourceSchema)\".history_token))"
        )
        try PostgresCatalogBackend.record(try ConnectionInfo(connectionString), root: destination)
    }

    /// The backend of the library folder `root` as the `photos` binary's composition root picks
    /// it (`catalog.postgresql`: PostgreSQL; otherwise SQLite), or nil when it has no catalog.
    public static func backend(ofLibraryAt root: String) -> Backend? {
        if PostgresCatalogBackend().catalogExists(at: root) { return .postgresql }
        if SQLiteCatalogBackend().catalogExists(at: root) { return .sqlite }
        return nil
    }

    /// Drops the schemas of the libraries made by this process inside the folder `folder`
    /// (called when a test's temporary folder is removed).
    public static func dropSchemas(under folder: String) { schemas.drop(under: folder) }

    /// The schemas this process made for library folders, dropped with their folder or at exit.
    private static let schemas = SchemaRegistry()
}

/// The schemas made for library folders: (folder, drop), under a lock (tests and their
/// teardown may run on different threads).
private final class SchemaRegistry: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [(folder: String, drop: @Sendable () -> Void)] = []
    private var registeredExitHandler = false

    func add(folder: String, drop: @escaping @Sendable () -> Void) {
        lock.lock()
        defer { lock.unlock() }
        entries.append((folder, drop))
        if !registeredExitHandler {
            registeredExitHandler = true
            atexit { TestDatabase.dropSchemas(under: "/") }
        }
    }

    func drop(under folder: String) {
        lock.lock()
        let prefix = folder.hasSuffix("/") ? folder : folder + "/"
        let matching = entries.filter { $0.folder == folder || $0.folder.hasPrefix(prefix) }
        entries.removeAll { $0.folder == folder || $0.folder.hasPrefix(prefix) }
        lock.unlock()
        for entry in matching { entry.drop() }
    }
}
