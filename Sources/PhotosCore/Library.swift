import Foundation
import PhotosFiles
import PhotosModel

/// A photo library on disk: a folder holding the catalog (through the injected
/// `CatalogBackend`; SQLite's `ROOT/photos.sqlite` by default) and the external data folder of
/// originals (SPEC §2).
///
/// Layout: the backend's catalog files and `ROOT/ExternalData/ab/abcdef…`, each original named
/// by its SHA-256 and sharded by the first two hex digits. Core reaches the catalog only
/// through `LibraryStore`; it never names the backend.
public final class Library {
    /// The library folder.
    public let root: String
    /// The open catalog (one per `Library`; use from one thread at a time). Core's files reach
    /// it through the narrower store protocols (`historyStore`, `verifyStore`, …).
    package let store: any LibraryStore
    /// The backend that opened `store` (the composition root chose it for this folder).
    public let backend: any CatalogBackend
    /// Where exports keep their state databases (`ExportState`).
    public let exportStates: any ExportStateBackend
    /// The file format of changesets (`sync`, `share export`/`accept`), set by the composition
    /// root; nil where no command needs it.
    public var changesets: (any ChangesetBackend)?
    /// The originals, named by SHA-256. During a dry run (`isDryRun`) this store writes and
    /// removes nothing.
    public var externalData: ExternalDataStore { isDryRun ? files.forDryRun : files }
    private let files: ExternalDataStore
    /// Where the originals are (`externalData.root`) and whether they can be used from here:
    /// `ROOT/ExternalData` for a catalog of one folder; the root a shared catalog records
    /// otherwise (issue 31 item A3), checked against its marker at this open.
    public let originals: OriginalsLocation
    /// True while a dry run is in progress (`dryRun(_:_:)`, or a library opened with `dryRun`):
    /// see `write(_:)` for what that guarantees.
    public private(set) var isDryRun = false
    /// Seconds a writer waits for another process's lock before giving up with exit 75.
    public let busyTimeout: Double
    /// Asked at the start of every write transaction, under the catalog's write lock: false
    /// when the library folder no longer uses the catalog this object opened (`photos catalog
    /// move` switched it while this process waited or read), so that the write is refused with
    /// `LibraryError.catalogMoved` instead of landing in the retired catalog. Set by the
    /// composition root, which knows where each backend's catalog pointer lives; nil: never
    /// checked.
    public var catalogIsCurrent: (@Sendable () -> Bool)?

    /// Seconds the removal of originals after a committed delete waits for another writer's
    /// lock, whatever `--wait` says (`removeUnreferencedFiles`).
    public static let cleanupWait: Double = 10

    /// Folder name of the external data inside the library folder.
    public static let externalDataName = "ExternalData"

    /// Resolves the library folder: `--library PATH`, then `$PHOTOS_LIBRARY`, then
    /// `$XDG_DATA_HOME/photos/Library`, then `~/.local/share/photos/Library` (SPEC §2; XDG Base
    /// Directory Specification 0.8 for the default of `XDG_DATA_HOME`). Reads nothing of the
    /// process: everything comes from `environment`, resolved once by the caller.
    /// - Parameters:
    ///   - explicit: `--library`, when given.
    ///   - environment: the variables, the working folder and the home folder.
    /// - Returns: an absolute path without `.`, `..`, repeated or trailing slashes.
    public static func resolvePath(explicit: String?, in environment: LibraryEnvironment) -> String {
        if let explicit, !explicit.isEmpty { return absolute(explicit, in: environment) }
        if let env = environment.variables["PHOTOS_LIBRARY"], !env.isEmpty { return absolute(env, in: environment) }
        if let xdg = environment.variables["XDG_DATA_HOME"], xdg.hasPrefix("/") { return xdg + "/photos/Library" }
        return environment.home + "/.local/share/photos/Library"
    }

    static func absolute(_ path: String, in environment: LibraryEnvironment) -> String {
        var p = path
        if p.hasPrefix("~/") { p = environment.home + p.dropFirst(1) }
        if !p.hasPrefix("/") { p = environment.currentDirectory + "/" + p }
        p = (p as NSString).standardizingPath // collapses `.`, `..` and repeated slashes
        while p.count > 1 && p.hasSuffix("/") { p.removeLast() }
        return p
    }

    /// True when `root` holds a library catalog of `backend`.
    public static func exists(at root: String, backend: any CatalogBackend) -> Bool {
        backend.catalogExists(at: root)
    }

    /// Opens the library at `root`, migrating it to the current schema.
    /// - Parameters:
    ///   - root: the library folder.
    ///   - backend: the catalog's backend, chosen by the composition root for this folder.
    ///   - exportStates: where exports keep their state databases.
    ///   - create: create the folder and database when absent (otherwise a missing library is
    ///     an error 66).
    ///   - busyTimeout: seconds to wait for another process's lock.
    ///   - readOnly: open the database read-only and skip migrations (for workers' lookups,
    ///     a library this user may only read, and `export --dry-run`); a library of an older
    ///     schema version is then refused (65, or 77 when this user may not write it).
    ///   - dryRun: open for a dry run: never create or migrate anything, and stay in dry-run
    ///     mode for the life of this object (see `write(_:)`).
    ///   - acceptingOlderSchema: with `readOnly`, open a library of an older schema version
    ///     even when this user may not write it, for a reader that copes with every older
    ///     version itself (`merge`'s other library); it is not migrated.
    ///   - originalsRoot: for a shared catalog (`CatalogBackend.sharesCatalog`) that records no
    ///     originals root yet, the absolute folder to record (`init --originals`); nil: the
    ///     folder's own `ExternalData`. A catalog that records another root refuses it.
    /// - Throws: `LibraryError.noLibrary` when the library does not exist and `create` is false
    ///   (always for a dry run); `.cannotEnter` when this user may not look into it;
    ///   `.notALibrary` for a catalog without a schema version; `.olderSchema` when a read-only
    ///   open or a dry run meets an older schema version (`.notWritable` when only a user who
    ///   can write it can upgrade it); `.cannotCreate` when it cannot be created;
    ///   `.newerSchema` when it is newer than this build; `.busy`; `.database` for the store's
    ///   other failures, among them `ForeignTablesError` for a catalog holding another
    ///   program's tables and the backend's unexpected-schema error for one missing a table of
    ///   its version (`LibraryStore.requireCatalogTables`). (The CLI's ErrorReporting gives them
    ///   66, 77, 65, 77/65, 73, 65, 75; 73 and 65 for the last two.) For a shared catalog,
    ///   `OriginalsRootChoiceError` or `OriginalsRootError` about `originalsRoot`
    ///   (`locateOriginals`); a root that cannot be used is not refused here but recorded in
    ///   `originals.problem` (`requireOriginalsRoot`).
    public init(
        root: String, backend: any CatalogBackend, exportStates: any ExportStateBackend, create: Bool,
        busyTimeout: Double = 30, readOnly: Bool = false, dryRun: Bool = false, acceptingOlderSchema: Bool = false,
        originalsRoot: String? = nil
    ) throws {
        self.root = root
        self.backend = backend
        self.exportStates = exportStates
        self.busyTimeout = busyTimeout
        let fm = FileManager.default
        let dbPath = backend.catalogFiles(at: root).first ?? root
        var st = stat()
        if stat(dbPath, &st) != 0, errno == EACCES || errno == EPERM {
            // Not "no library": one this user may not look into.
            throw LibraryError.cannotEnter(
                library: root,
                reason: Library.accessProblem(root, backend: backend)
                    ?? "\(dbPath): \(String(cString: strerror(errno)))")
        }
        if !backend.catalogExists(at: root) {
            guard create, !dryRun else {
                throw LibraryError.noLibrary(library: root)
            }
            try Library.makeFolders(root + "/" + Library.externalDataName, library: root)
        }
        var location = OriginalsLocation.local(root + "/" + Library.externalDataName)
        do {
            store = try backend.open(
                root: root, options: StoreOpenOptions(readOnly: readOnly, create: create, lockWait: busyTimeout))
            let current = backend.currentSchemaVersion
            // The version the catalog is at once opened (a read-only open of an older one for
            // `acceptingOlderSchema` stays below `current`; every other path ends at it).
            var opened = current
            if readOnly || dryRun {
                let version = try store.schemaVersion()
                opened = version
                if version > current {
                    throw LibraryError.newerSchema(library: root, found: version, supported: current)
                }
                if readOnly && version == 0 {
                    // Another program's tables are named as a migration names them (73); a file
                    // without tables, or with only a catalog's tables but no version, is no
                    // library (65).
                    do {
                        try store.requireOnlyCatalogTables()
                    } catch let error as ForeignTablesError
                        where !error.tables.allSatisfy(Library.catalogTableNames.contains)
                    {
                        throw error
                    } catch is ForeignTablesError {}
                    throw LibraryError.notALibrary(path: dbPath)
                }
                if readOnly && !acceptingOlderSchema && version < current {
                    // This build cannot read the older tables (migration 2 added the capture
                    // columns every photo query selects), and a read-only open migrates nothing.
                    if Library.accessProblem(root, backend: backend) != nil {
                        throw LibraryError.olderSchema(
                            library: root, found: version, current: current,
                            why: .notWritable(what: Library.whatIsNotWritable(root, backend: backend)))
                    }
                    throw LibraryError.olderSchema(library: root, found: version, current: current, why: .readOnlyOpen)
                }
                if dryRun && version < current {
                    // A dry run never creates, migrates or vacuums a library.
                    throw LibraryError.olderSchema(library: root, found: version, current: current, why: .dryRun)
                }
                if dryRun {
                    try store.setRejectingWrites(true)
                    isDryRun = true
                }
            } else {
                try store.migrateToCurrentSchema()
            }
            // A catalog at this version holds its tables and no other program's (a file that
            // set its version itself, a table dropped by hand): refused here, not as "no such
            // table" half-way through a command.
            if opened == current { try store.requireCatalogTables() }
            // A shared catalog's originals are where it records them, for every folder on it.
            if backend.sharesCatalog && opened == current {
                location = try Library.locateOriginals(
                    store: store, library: root, mayWrite: !readOnly && !dryRun, proposed: originalsRoot,
                    busyTimeout: busyTimeout)
            }
        } catch let error as OriginalsRootChoiceError {
            throw error
        } catch let error as OriginalsRootError {
            throw error
        } catch {
            throw LibraryError.wrap(error, library: root)
        }
        if !readOnly, !dryRun, !location.isCatalogRoot, !fm.fileExists(atPath: location.root) {
            try? fm.createDirectory(atPath: location.root, withIntermediateDirectories: true)
        }
        originals = location
        files = ExternalDataStore(root: location.root)
    }

    /// The tables of a catalog of the current version on either backend (`CatalogTables`, and
    /// PostgreSQL's `schema_version`).
    static let catalogTableNames = Set(CatalogTables.all.map(\.name) + ["schema_version"])

    /// Runs `body` as a dry run when `enabled` (and as itself otherwise): the real code path,
    /// with every `write(_:)` rolled back, `externalData` writing and removing nothing, and
    /// the database's query-only mode on, so that a statement run outside `write(_:)` that would change
    /// the database fails instead of writing. Nested calls stay dry; the mode ends with the
    /// outermost call (unless the library was opened with `dryRun`).
    ///
    /// This is the one mechanism behind every `--dry-run` (import, merge, purge, dedupe-tags,
    /// history compact, verify --repair): a command runs its ordinary code inside
    /// `library.dryRun(flag) { … }` (or on a library opened with `dryRun: true`) and reports
    /// what that code counted. File effects outside the library (export's DEST) go through a
    /// writer with its own dry-run flag (`Exporter`).
    /// - Throws: what `body` throws; `LibraryError` when the store cannot reject writes.
    public func dryRun<T>(_ enabled: Bool, _ body: () throws -> T) throws -> T {
        guard enabled, !isDryRun else { return try body() }
        do { try store.setRejectingWrites(true) } catch { throw LibraryError.wrap(error, library: root) }
        isDryRun = true
        defer {
            isDryRun = false
            try? store.setRejectingWrites(false)
        }
        return try body()
    }

    /// Which part of the library at `root` this process may not write, as words for an error
    /// message: a read-only file system, the library folder, one of the catalog's files
    /// (`backend.catalogFiles(at:)`: SQLite's database and its `-wal`/`-shm` companions),
    /// checked with access(2) and statvfs(3) `ST_RDONLY`.
    public static func whatIsNotWritable(_ root: String, backend: any CatalogBackend) -> String {
        var fs = statvfs()
        if statvfs(root, &fs) == 0, fs.f_flag & UInt(ST_RDONLY) != 0 {
            return "it is on a read-only file system"
        }
        var parts: [String] = []
        if access(root, W_OK) != 0 {
            parts.append("the library folder \(root) is not writable (\(String(cString: strerror(errno))))")
        }
        for path in backend.catalogFiles(at: root) where access(path, F_OK) == 0 && access(path, W_OK) != 0 {
            parts.append("\(path) is not writable (\(String(cString: strerror(errno))))")
        }
        return parts.isEmpty ? "permission denied" : parts.joined(separator: "; ")
    }

    /// Why the library at `root` cannot be read by this process (the folder cannot be entered,
    /// the catalog's main file cannot be read), or nil when access(2) sees no problem.
    public static func accessProblem(_ root: String, backend: any CatalogBackend) -> String? {
        if access(root, X_OK) != 0, errno == EACCES || errno == EPERM {
            return "the library folder \(root) cannot be entered (\(String(cString: strerror(errno))))"
        }
        guard let db = backend.catalogFiles(at: root).first else {
            let denied = [EACCES, EPERM, EROFS]
            if access(root, W_OK) != 0, denied.contains(errno) { return whatIsNotWritable(root, backend: backend) }
            return nil
        }
        if access(db, R_OK) != 0, errno == EACCES || errno == EPERM {
            return "the database \(db) cannot be read (\(String(cString: strerror(errno))))"
        }
        let denied = [EACCES, EPERM, EROFS]
        if access(root, W_OK) != 0, denied.contains(errno) { return whatIsNotWritable(root, backend: backend) }
        if access(db, W_OK) != 0, denied.contains(errno) { return whatIsNotWritable(root, backend: backend) }
        return nil
    }

    /// File in the library folder whose flock(2) keeps `verify --repair` from removing the
    /// originals a running import has written but not yet committed (they look like orphans).
    public static let importLockName = "import.lock"

    /// The import lock file of this library: `LIBRARY/import.lock`; for a catalog that several
    /// library folders have opened (`OriginalsLocation.isShared`) whose originals root is
    /// usable here, `ROOT/.photos-import.lock` in that root, so that the
    /// imports of every machine writing there hold it (flock(2); NFS clients map it to a
    /// byte-range lock the server knows) and no machine's `verify --repair` takes another
    /// machine's uncommitted originals for orphans (issue 31 item A3).
    public var importLockPath: String {
        if originals.isShared && originals.problem == nil {
            return originals.root + "/" + ExternalDataStore.importLockName
        }
        return root + "/" + Library.importLockName
    }

    /// Locks the import lock file: shared for an import (imports run side by side), exclusive
    /// and without waiting for removing orphans. The kernel drops the lock when the process
    /// dies, so a `kill -9` never leaves it held.
    /// - Returns: the descriptor (close it to release), or nil when `exclusive` and an import
    ///   holds the lock, or when the file cannot be opened.
    ///   During a dry run the lock file is not created: when it does not exist no import runs,
    ///   and a descriptor of `/dev/null` stands for the lock.
    public func lockImports(exclusive: Bool) -> Int32? {
        let lockPath = importLockPath
        var fd = open(lockPath, O_RDWR | (isDryRun ? 0 : O_CREAT) | O_CLOEXEC, 0o666)
        if fd < 0, isDryRun, errno == ENOENT { return open("/dev/null", O_RDONLY | O_CLOEXEC) }
        if fd < 0, errno == EACCES || errno == EROFS {
            // A library this user may only read: a shared lock on a read-only descriptor works.
            fd = open(lockPath, O_RDONLY | O_CLOEXEC)
        }
        guard fd >= 0 else { return nil }
        while flock(fd, exclusive ? LOCK_EX | LOCK_NB : LOCK_SH) != 0 {
            if errno == EINTR { continue }
            close(fd)
            return nil
        }
        return fd
    }

    /// Whether an import or merge holds the import lock now, asked without waiting: the lock is
    /// taken exclusively with `LOCK_NB` (flock(2)) and, when that succeeds, held by the returned
    /// descriptor until the caller closes it, so that no import or merge starts meanwhile.
    /// - Returns: `.free(fd)` (close `fd` soon: imports wait for it), `.held` when another
    ///   descriptor holds it (shared or exclusive), `.unknown` when the lock file cannot be
    ///   opened (a library this user may not write, without a lock file: no import can run).
    func probeImportLock() -> ImportLockProbe {
        if let fd = lockImports(exclusive: true) { return .free(fd) }
        let fd = open(importLockPath, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return .unknown }
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            if errno == EINTR { continue }
            let held = errno == EWOULDBLOCK
            close(fd)
            return held ? .held : .unknown
        }
        // Free after all (its holder was just done).
        return .free(fd)
    }

    /// What `probeImportLock` found.
    enum ImportLockProbe {
        /// No one held it; the descriptor holds it exclusively now (close it to release).
        case free(Int32)
        /// An import or merge holds it.
        case held
        /// It could not be asked (no lock file that this user may open): judged as free.
        case unknown
    }

    /// `mkdir -p path` with the system's reason on failure (Foundation's messages say neither
    /// which component failed nor why, e.g. "NSCocoaErrorDomain error 512" for a file in the way).
    /// - Throws: `LibraryError.cannotCreate` naming the library and the folder that cannot be created.
    static func makeFolders(_ path: String, library: String) throws {
        var prefix = ""
        for component in path.split(separator: "/", omittingEmptySubsequences: true) {
            prefix += "/" + component
            var st = stat()
            if stat(prefix, &st) == 0 {
                guard st.st_mode & S_IFMT == S_IFDIR else {
                    throw LibraryError.cannotCreate(library: library, reason: "\(prefix) exists and is not a folder")
                }
                continue
            }
            if mkdir(prefix, 0o777) != 0 && errno != EEXIST {
                throw LibraryError.cannotCreate(
                    library: library, reason: "\(prefix): \(String(cString: strerror(errno)))")
            }
        }
    }

    /// Runs `body` in one write transaction (`LibraryStore.writeTransaction`, waiting up to
    /// `busyTimeout` seconds for another writer), mapping a lock timeout to `LibraryError.busy`.
    /// The transaction commits when `body` returns — except during a dry run (`isDryRun`),
    /// when it always rolls back: `body` sees its own changes (so counts are those of a real
    /// run), and nothing stays. Every write of a command goes through here.
    /// - Throws: `LibraryError.busy` past `busyTimeout`, `LibraryError`, or what `body` throws
    ///   (after rolling back).
    public func write<T>(_ body: () throws -> T) throws -> T {
        try write(waitingUpTo: busyTimeout, body)
    }

    /// `write(_:)` waiting up to `seconds` for another writer's lock instead of `busyTimeout`.
    /// - Throws: `LibraryError.busy`, `LibraryError`, or what `body` throws (after rolling back).
    public func write<T>(waitingUpTo seconds: Double, _ body: () throws -> T) throws -> T {
        var result: T?
        do {
            let dry = isDryRun
            if dry { try store.setRejectingWrites(false) }
            defer { if dry { try? store.setRejectingWrites(true) } }
            try store.writeTransaction(waitingUpTo: seconds) {
                // Under the lock `catalog move` holds while it switches the folder over: a
                // writer that waited for it finds the switch here.
                if let catalogIsCurrent, !catalogIsCurrent() { throw LibraryError.catalogMoved(library: root) }
                result = try body()
                return dry ? .rollback : .commit
            }
        } catch let e as any StoreErrorConvertible {
            throw LibraryError.wrap(e, library: root)
        }
        guard let result else { preconditionFailure("a finished transaction body returned") }
        return result
    }
}
