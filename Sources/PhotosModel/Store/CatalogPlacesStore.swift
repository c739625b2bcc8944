/// Where a catalog shared by several library folders keeps its originals (issue 31 item A3):
/// one folder every machine mounts, recorded in the catalog (`catalog_originals`) so that each
/// library folder naming the catalog uses it, with the id written into that folder's marker
/// file (`OriginalsMarker`) so that an empty mount point or another library's folder at the
/// same path is told apart from the catalog's own.
public struct OriginalsRootRecord: Sendable, Equatable {
    /// The absolute path of the originals' folder (what `ExternalDataStore.root` is on every
    /// machine), without a trailing slash.
    public var root: String
    /// The catalog's id (a lowercase UUID, 36 characters), also written in `root`'s marker.
    public var catalogID: String
    /// When it was recorded, ISO 8601 UTC.
    public var recordedAt: String
    /// True when it was recorded for a catalog that held photos already (made before schema
    /// version 7): library folders that opened it before are not in `catalog_folder`, so the
    /// catalog counts as shared.
    public var unknownFolders: Bool

    public init(root: String, catalogID: String, recordedAt: String, unknownFolders: Bool = false) {
        self.root = root
        self.catalogID = catalogID
        self.recordedAt = recordedAt
        self.unknownFolders = unknownFolders
    }
}

/// What the catalog records of its places, read at every open of a shared catalog in one
/// statement: the originals root, and the library folders that have opened it.
public struct CatalogPlaces: Sendable, Equatable {
    /// The recorded originals root; nil for a catalog that records none (a SQLite catalog, or
    /// a PostgreSQL one made before schema version 7 and not opened for writing since).
    public var originals: OriginalsRootRecord?
    /// How many library folders (host and path) have opened the catalog for writing.
    public var folders: Int
    /// True when the folder asked about is among them.
    public var folderKnown: Bool

    public init(originals: OriginalsRootRecord?, folders: Int, folderKnown: Bool) {
        self.originals = originals
        self.folders = folders
        self.folderKnown = folderKnown
    }
}

/// The catalog's record of its originals root and of the library folders that opened it
/// (tables `catalog_originals`, one row, and `catalog_folder`, one row per host and folder).
public protocol CatalogPlacesStore: AnyObject {
    /// The recorded originals root, the number of library folders recorded, and whether
    /// `folder` on `host` is one of them.
    /// - Parameters:
    ///   - host: the machine's host name (gethostname(2)).
    ///   - folder: the library folder's absolute path.
    /// - Throws: the store's error.
    func catalogPlaces(host: String, folder: String) throws -> CatalogPlaces

    /// Records (or replaces) the originals root, in the caller's write transaction.
    /// - Throws: the store's error (`.constraint` for a relative path or an id that is no UUID).
    func recordOriginalsRoot(_ record: OriginalsRootRecord) throws

    /// Records that `folder` on `host` opened the catalog (nothing when it is recorded), in the
    /// caller's write transaction.
    /// - Parameter openedAt: ISO 8601 UTC.
    /// - Throws: the store's error.
    func recordCatalogFolder(host: String, folder: String, openedAt: String) throws
}
