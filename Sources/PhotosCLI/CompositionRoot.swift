import PhotosCore
import PhotosModel
import PhotosSQLite

/// The composition root: the one place in the program that names a storage backend and
/// injects it into Core (`Library`), so that Core and the rest of the CLI depend only on
/// PhotosModel's protocols (`CatalogBackend`, `LibraryStore`, `ExportStateBackend`).
///
/// Seam for a second backend: `catalogBackend(forLibraryAt:)` is asked for every library
/// folder, so a folder may later say which backend holds its catalog (for example a small
/// file in the folder naming `postgresql` and its connection) and get that backend here;
/// today every library is SQLite (`ROOT/photos.sqlite`).
enum CompositionRoot {
    /// The backend that holds the catalog of the library folder `root`: SQLite by default.
    static func catalogBackend(forLibraryAt root: String) -> any CatalogBackend {
        SQLiteCatalogBackend()
    }

    /// Where exports keep their state databases (`DEST/.photos-export.sqlite`): always SQLite,
    /// a local file next to the exported files whatever holds the catalog.
    static let exportStates: any ExportStateBackend = SQLiteExportStateBackend()

    /// Opens the library at `root` with its folder's backend (`Library.init`, same parameters).
    /// - Throws: what `Library.init` throws.
    static func openLibrary(
        root: String, create: Bool, busyTimeout: Double, readOnly: Bool = false, dryRun: Bool = false,
        acceptingOlderSchema: Bool = false
    ) throws -> Library {
        try Library(
            root: root, backend: catalogBackend(forLibraryAt: root), exportStates: exportStates, create: create,
            busyTimeout: busyTimeout, readOnly: readOnly, dryRun: dryRun, acceptingOlderSchema: acceptingOlderSchema)
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
