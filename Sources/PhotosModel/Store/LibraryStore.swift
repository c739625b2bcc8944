/// How a transaction body ends its transaction (GRDB's `TransactionCompletion`).
public enum TransactionCompletion: Sendable {
    /// Keep the changes.
    case commit
    /// Discard the changes (a dry run, or a body that found nothing to do).
    case rollback
}

/// The insert path of new photos with their photo data, thumbnail, tag links and ratings,
/// prepared once per write transaction: the one write path of `import`'s batch writer and
/// `merge`. Used only inside the write transaction it was made in
/// (`LibraryStore.makePhotoInserter()`).
public protocol PhotoInserter: AnyObject {
    /// Inserts a photo and its photo data (one per photo), and its thumbnail when given.
    /// - Parameters:
    ///   - row: the photo.
    ///   - sha256: 64 lowercase hex digits of the original.
    ///   - byteSize: the original's size in bytes.
    ///   - fileReference: where the original is in external data.
    ///   - thumbnail: the thumbnail, or nil for none (merge of a photo without a sound one).
    /// - Returns: the new photo's id (an identity the store assigns: SQLite's rowid,
    ///   PostgreSQL's `GENERATED ALWAYS AS IDENTITY` column read back with `RETURNING`).
    /// - Throws: the store's error (`StoreError.Kind.constraint` for a duplicate uniqueName).
    func insert(_ row: PhotoRow, sha256: String, byteSize: Int, fileReference: String, thumbnail: ThumbnailRow?)
        throws -> Int64

    /// Adds `original`, of a role other than `primary` the photo has no original of yet, to the
    /// photo of row id `photoID` (issue 24 item 2: the RAW of a RAW+JPEG pair).
    /// - Throws: the store's error (`StoreError.Kind.constraint` when the photo has an original
    ///   of that role).
    func insertOriginal(_ original: PhotoOriginal, ofPhoto photoID: Int64) throws

    /// Links a photo to a tag; nothing when the link exists.
    /// - Returns: true when a link was added.
    /// - Throws: the store's error.
    @discardableResult
    func link(photo: Int64, tag: Int64) throws -> Bool

    /// Inserts a rating.
    /// - Throws: the store's error.
    func insert(_ row: RatingRow) throws
}

/// One open catalog of a library: every store protocol Core reads and writes through, plus
/// the transactions, modes and schema that `Library` needs. A backend module implements it
/// (PhotosSQLite's `Database`; a PostgreSQL module over libpq) and a `CatalogBackend` opens
/// it; Core never sees the backend's handle, statements or error type.
///
/// An instance is used from one thread at a time.
public protocol LibraryStore: CatalogStore, HistoryStore, HistoryFeedStore, HistoryCompactionStore, ZonePurgeStore,
    TagDedupeStore, VerifyStore, MergeSourceStore, MergeTargetStore, ImportStore, ExportStore, StatsStore,
    CatalogBackupStore,
    MetadataStore, SyncStore, CatalogCopyStore, CatalogPlacesStore, GazetteerStore
{
    /// Runs `body` in one write transaction and ends it the way `body` says. The transaction
    /// takes the catalog's write lock when it begins (SQLite `BEGIN IMMEDIATE`; PostgreSQL an
    /// advisory transaction lock under `lock_timeout`), waiting up to `seconds` for other
    /// writers; when `body` throws it is rolled back and the error rethrown.
    /// - Parameters:
    ///   - seconds: the longest wait for another writer's lock, in seconds.
    ///   - body: the work; its result commits or rolls back.
    /// - Throws: `StoreError` of kind `.busy` when the lock is not had in time (as a
    ///   `StoreErrorConvertible`), the store's error, or what `body` throws.
    func writeTransaction(waitingUpTo seconds: Double, _ body: () throws -> TransactionCompletion) throws

    /// Runs `body` in one read transaction: every read sees the same snapshot (SQLite
    /// `BEGIN DEFERRED` in WAL mode; PostgreSQL `REPEATABLE READ, READ ONLY`).
    /// - Throws: the store's error, or what `body` throws.
    func readTransaction<T>(_ body: () throws -> T) throws -> T

    /// While on, every statement that would change the catalog outside `writeTransaction` fails
    /// with `StoreError.Kind.readOnly` (SQLite `PRAGMA query_only`; PostgreSQL
    /// `default_transaction_read_only`). A dry run keeps it on outside its always-rolled-back
    /// transactions; `writeTransaction` of a dry run turns it off for its own duration.
    /// - Throws: the store's error.
    func setRejectingWrites(_ on: Bool) throws

    /// The catalog's schema version (0 for a store that holds no library yet).
    /// - Throws: the store's error.
    func schemaVersion() throws -> Int

    /// Migrates the catalog to the backend's current schema version (one migrator, each step in
    /// its own transaction).
    /// - Throws: `StoreError.Kind.newerSchema` when the catalog is newer than this build.
    func migrateToCurrentSchema() throws

    /// The DDL of every table and index, ordered by type and name (`photos schema`).
    /// - Throws: the store's error.
    func schemaDefinition() throws -> [String]

    /// Refuses a place that holds tables of another program (`ForeignTablesError`): before
    /// the catalog exists (schema version 0) every table or view there is another program's
    /// (PostgreSQL: but `schema_version`, which the first migration's transaction creates);
    /// afterwards every one that no migration of this backend creates. `photos init` and
    /// `photos catalog move` call it on their target; the migrations call it before creating
    /// the catalog's first table.
    /// - Throws: `ForeignTablesError` naming the place and its other tables;
    ///   `MissingCatalogSchemaError` for a PostgreSQL search path without an existing schema;
    ///   the store's error.
    func requireOnlyCatalogTables() throws

    /// Refuses a catalog at the current schema version that is not one: a table of another
    /// program beside it (`ForeignTablesError`), or a table of the current schema
    /// (`CatalogTables.all`) missing (the backend's unexpected-schema error, a `.corrupt`
    /// `StoreError`): a file or schema that set its version number itself, or lost a table. Every
    /// open of a library at the current version calls it, so that no command meets the gap as
    /// "no such table" half-way.
    /// - Throws: `ForeignTablesError`; the backend's unexpected-schema error; the store's error.
    func requireCatalogTables() throws

    /// The comment line `photos schema` prints first: the version and where the backend keeps it.
    func schemaHeader(version: Int) -> String

    /// Bytes the catalog takes on disk (SQLite: the database file and its WAL), or 0 when the
    /// backend cannot tell (a server).
    func storageBytes() -> Int64

    /// Prepares the photo insert path inside the caller's write transaction.
    /// - Throws: the store's error.
    func makePhotoInserter() throws -> any PhotoInserter

    /// Closes the connection; the store is not used afterwards. (Also done when it is released.)
    func close()
}

/// How a `CatalogBackend` opens a library's catalog.
public struct StoreOpenOptions: Sendable {
    /// Open without writing anything: no creation, no migration (workers' lookups, a library
    /// this user may only read, `export --dry-run`).
    public var readOnly: Bool
    /// Create the catalog when absent (the caller has created the library folder).
    public var create: Bool
    /// Seconds a statement waits for another process's lock by default.
    public var lockWait: Double

    public init(readOnly: Bool = false, create: Bool = false, lockWait: Double = 30) {
        self.readOnly = readOnly
        self.create = create
        self.lockWait = lockWait
    }
}

/// A database kind that can hold a library's catalog: the opener the composition root (the
/// `photos` executable's `CatalogBackends`) picks for a library folder and injects into
/// `Library`. PhotosSQLite's `SQLiteCatalogBackend` is the default; a PostgreSQL backend
/// implements the same protocol in its own module.
public protocol CatalogBackend: Sendable {
    /// Short name of the backend (`sqlite`, `postgresql`), for messages and the folder's
    /// backend marker.
    var name: String { get }

    /// The schema version this build writes and understands.
    var currentSchemaVersion: Int { get }

    /// True when several library folders (on several machines) may name one catalog of this
    /// backend (PostgreSQL): the catalog then records the one originals root they all use
    /// (`CatalogPlacesStore`, issue 31 item A3). False for a catalog that is a file of its
    /// folder (SQLite), whose originals are always `LIBRARY/ExternalData`.
    var sharesCatalog: Bool { get }

    /// True when the library folder `root` holds a catalog of this backend.
    func catalogExists(at root: String) -> Bool

    /// The files of the catalog inside `root` whose permissions decide whether this process may
    /// read and write it, main file first (SQLite: the database and its `-wal`, `-shm`); empty
    /// for a catalog that lives on a server.
    func catalogFiles(at root: String) -> [String]

    /// Opens the catalog of the library folder `root` (which exists).
    /// - Throws: the backend's error, a `StoreErrorConvertible` (`.cannotOpen`, `.readOnly`,
    ///   `.corrupt`, `.busy`, …).
    func open(root: String, options: StoreOpenOptions) throws -> any LibraryStore
}

extension CatalogBackend {
    /// False: a catalog of one library folder.
    public var sharesCatalog: Bool { false }
}

/// The state database an export keeps in its destination folder (`ExportState`): what it
/// wrote, by path. Always a local file next to the exported files, whatever holds the catalog.
public protocol ExportStateStore: AnyObject {
    /// Every row.
    /// - Throws: the store's error.
    func rows() throws -> [ExportFileRow]

    /// The row of `path`, nil when none (the primary key: one index lookup).
    /// - Throws: the store's error.
    func row(path: String) throws -> ExportFileRow?

    /// The rows of one photo (`uniqueName`), ordered by path (index `export_file_unique_name`).
    /// - Throws: the store's error.
    func rows(uniqueName: String) throws -> [ExportFileRow]

    /// At most `limit` rows in path order (byte order), after `afterPath` when given: keyset
    /// pages, so that a reader holds one page of a big export's state (issue 31 A11).
    /// - Throws: the store's error.
    func rows(afterPath: String?, limit: Int) throws -> [ExportFileRow]

    /// Records (or replaces) rows, in one transaction.
    /// - Parameter exportedAt: ISO 8601 UTC.
    /// - Throws: the store's error.
    func upsert(_ rows: [ExportFileRow], exportedAt: String) throws

    /// Removes the rows of `paths`, in one transaction.
    /// - Throws: the store's error.
    func delete(paths: [String]) throws
}

/// Opens export state databases (injected by the composition root with the catalog backend).
public protocol ExportStateBackend: Sendable {
    /// Opens (creating and migrating when needed) the state database at `path`.
    /// - Parameter lockWait: seconds to wait for another process's lock.
    /// - Throws: the store's error, a `StoreErrorConvertible` (`.corrupt` or `.newerSchema`
    ///   for a damaged or newer file, `.busy`, `.readOnly`, `.io` for the environment).
    func open(path: String, lockWait: Double) throws -> any ExportStateStore

    /// Opens the state database at `path` read-only, without creating or migrating it; nil when
    /// it does not exist or cannot be read (a dry run).
    func openReadOnly(path: String) -> (any ExportStateStore)?
}

/// A failure of a store, classified without naming the backend, so that Core and the CLI map
/// it without importing the backend's module. Each backend translates its own error
/// (SQLite result codes, https://www.sqlite.org/rescode.html; PostgreSQL SQLSTATEs, PostgreSQL
/// docs Appendix A) by conforming it to `StoreErrorConvertible`.
public struct StoreError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    public enum Kind: Sendable, Equatable {
        /// Another writer held the lock past the wait (SQLite BUSY/LOCKED; PostgreSQL
        /// `lock_not_available` 55P03).
        case busy
        /// The catalog may not be written (read-only file, file system or permission; a write
        /// while writes are rejected; PostgreSQL 25006, 42501).
        case readOnly
        /// The catalog cannot be opened (SQLite CANTOPEN; PostgreSQL connection failure 08xxx).
        case cannotOpen
        /// The catalog's server is up but takes no connection now: every slot used, a role's or
        /// database's CONNECTION LIMIT reached, starting up or shutting down (PostgreSQL 53300,
        /// 57P03 at connect time, PostgreSQL docs Appendix A). Retrying later can succeed.
        case unavailable
        /// The catalog's server refused this user: a failed authentication, a role or database
        /// that does not exist, a host-based authentication rule rejecting the connection, no
        /// CONNECT privilege (PostgreSQL class 28, 3D000, 42501 at connect time). Retrying does
        /// not help; the user's credentials or the server's configuration must change.
        case refused
        /// A read or write failed, the disk is full, or memory ran out.
        case io
        /// The catalog is damaged or not a catalog at all.
        case corrupt
        /// A constraint refused the change (unique, foreign key, check; PostgreSQL class 23).
        case constraint
        /// The catalog was written by a newer photos.
        case newerSchema(found: Int, supported: Int)
        /// The backend does not do this operation (PostgreSQL `feature_not_supported` 0A000:
        /// `photos backup` of a catalog that lives on a server, whose copy is `pg_dump`'s).
        case unsupported
        /// Anything else: a bug (misuse, a statement that does not compile).
        case other
    }

    public var kind: Kind
    /// The backend's own message (`sqlite3_errmsg`, `PQresultErrorMessage`).
    public var message: String
    /// The full error line with the backend's code and the statement (never bound values).
    public var detail: String

    public init(_ kind: Kind, message: String, detail: String) {
        self.kind = kind
        self.message = message
        self.detail = detail
    }

    public var description: String { detail }
}

/// A backend's error that says what kind of `StoreError` it is (SQLiteError, MigrationError,
/// a PostgreSQL error): Core classifies through this without knowing the backend.
public protocol StoreErrorConvertible: Error {
    /// The error, classified.
    var storeError: StoreError { get }
}
