import Foundation
import PhotosCore
import PhotosModel
import PhotosPostgreSQL
import PhotosSQLite

/// The composition root: the one place in the program that names a storage backend and
/// injects it into Core (`Library`), so that Core and the rest of the CLI depend only on
/// PhotosModel's protocols (`CatalogBackend`, `LibraryStore`, `ExportStateBackend`).
///
/// `catalogBackend(forLibraryAt:)` is asked for every library folder: a folder with
/// `catalog.postgresql` (written by `photos init --database`) keeps its catalog in that
/// PostgreSQL database; any other is SQLite (`ROOT/photos.sqlite`).
enum CompositionRoot {
    /// The backend that holds the catalog of the library folder `root`: PostgreSQL when the
    /// folder records a connection, SQLite otherwise.
    static func catalogBackend(forLibraryAt root: String) -> any CatalogBackend {
        if FileManager.default.fileExists(atPath: PostgresCatalogBackend.connectionFile(root: root)) {
            return PostgresCatalogBackend()
        }
        return SQLiteCatalogBackend()
    }

    /// True when the folder `root` holds a SQLite catalog (`photos.sqlite`).
    static func sqliteCatalogExists(at root: String) -> Bool { SQLiteCatalogBackend().catalogExists(at: root) }

    /// The SQLite catalog's file name, for messages.
    static let sqliteCatalogName = SQLiteCatalogBackend.databaseName

    /// Where exports keep their state databases (`DEST/.photos-export.sqlite`): always SQLite,
    /// a local file next to the exported files whatever holds the catalog.
    static let exportStates: any ExportStateBackend = SQLiteExportStateBackend()

    /// Opens the library at `root` with its folder's backend (`Library.init`, same parameters).
    /// - Throws: what `Library.init` throws.
    static func openLibrary(
        root: String, create: Bool, busyTimeout: Double, readOnly: Bool = false, dryRun: Bool = false,
        acceptingOlderSchema: Bool = false
    ) throws -> Library {
        let library = try Library(
            root: root, backend: catalogBackend(forLibraryAt: root), exportStates: exportStates, create: create,
            busyTimeout: busyTimeout, readOnly: readOnly, dryRun: dryRun, acceptingOlderSchema: acceptingOlderSchema)
        library.changesets = changesets
        return library
    }

    /// The file format of changesets (`sync`, `share export`/`accept`): always SQLite files.
    static let changesets: any ChangesetBackend = SQLiteChangesetBackend()

    /// Opens the library at `root` with a backend chosen by the caller (`photos init --database`).
    /// - Throws: what `Library.init` throws.
    static func openLibrary(root: String, backend: any CatalogBackend, create: Bool, busyTimeout: Double) throws
        -> Library
    {
        let library = try Library(
            root: root, backend: backend, exportStates: exportStates, create: create, busyTimeout: busyTimeout)
        library.changesets = changesets
        return library
    }

    /// True when the folder `root` holds a library catalog.
    static func libraryExists(at root: String) -> Bool {
        Library.exists(at: root, backend: catalogBackend(forLibraryAt: root))
    }

    /// `Library.whatIsNotWritable` with the folder's backend.
    static func whatIsNotWritable(_ root: String) -> String {
        Library.whatIsNotWritable(root, backend: catalogBackend(forLibraryAt: root))
    }

    /// `Library.accessProblem` with the folder's backend.
    static func accessProblem(_ root: String) -> String? {
        Library.accessProblem(root, backend: catalogBackend(forLibraryAt: root))
    }

    /// The schema version this build writes for the library folder `root`.
    static func currentSchemaVersion(forLibraryAt root: String) -> Int {
        catalogBackend(forLibraryAt: root).currentSchemaVersion
    }
}
