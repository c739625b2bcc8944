import Foundation
import PhotosCore
import PhotosSQLite

extension TestDatabase {
    /// `args` of an in-process run of the CLI (`CLI.run`, with `environment` as its variables)
    /// ready to run on this run's backend: the same preparation `BinaryTestCase.run` makes for
    /// the binary (`BinaryTestCase.preparingLibraries`), so that a library an in-process
    /// `import`, `init` or `share accept` creates is a PostgreSQL library on a schema of its own
    /// in PostgreSQL mode. In SQLite mode `args` unchanged.
    /// - Throws: `PostgresError` when the test server cannot be reached.
    public static func preparingLibraries(_ args: [String], environment: [String: String]) throws -> [String] {
        try BinaryTestCase.preparingLibraries(args, environment: environment)
    }
}

extension TestDatabase {
    /// Makes the folder `root` (which has no catalog yet) a SQLite library whatever the run's
    /// backend: for tests of one PostgreSQL and one SQLite library together (sync, sharing
    /// across backends), which `BinaryTestCase.run` would otherwise give two PostgreSQL ones.
    /// - Throws: what `Library.init` throws.
    public static func initializeSQLiteLibrary(at root: String) throws {
        let library = try Library(
            root: root, backend: SQLiteCatalogBackend(), exportStates: SQLiteExportStateBackend(), create: true,
            busyTimeout: 5)
        library.changesets = SQLiteChangesetBackend()
    }
}
