import Foundation
import PhotosCore
import PhotosFiles
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
        let before = catalogPointer(root: root)
        let library = try Library(
            root: root, backend: catalogBackend(forLibraryAt: root), exportStates: exportStates, create: create,
            busyTimeout: busyTimeout, readOnly: readOnly, dryRun: dryRun, acceptingOlderSchema: acceptingOlderSchema)
        library.changesets = changesets
        let opened = catalogPointer(root: root)
        // Switched while opening (a new library's photos.sqlite appearing is no switch): this
        // object may hold either catalog, so it writes to neither.
        let switched = before != opened && before != CatalogPointer.sqlite(nil)
        library.catalogIsCurrent = { !switched && catalogPointer(root: root) == opened }
        return library
    }

    /// Which catalog the library folder `root` uses now: the recorded PostgreSQL connection,
    /// or the file (device and inode) of its `photos.sqlite` — a renamed-away catalog and a
    /// new one of the same name differ.
    enum CatalogPointer: Equatable {
        case postgresql(String?)
        case sqlite(FileIdentity?)
    }

    /// A file's device and inode numbers (stat(2) `st_dev`, `st_ino`).
    struct FileIdentity: Equatable {
        let device: UInt64
        let inode: UInt64
    }

    /// The catalog the folder `root` points at now (`CatalogPointer`): what `catalog move`
    /// switches under the old catalog's write lock, compared by every write of a process that
    /// opened the folder before (`Library.catalogIsCurrent`).
    static func catalogPointer(root: String) -> CatalogPointer {
        let connectionFile = PostgresCatalogBackend.connectionFile(root: root)
        if FileManager.default.fileExists(atPath: connectionFile) {
            return .postgresql(try? PostgresCatalogBackend.recordedConnection(root: root))
        }
        var st = stat()
        guard stat(SQLiteCatalogBackend.databasePath(root: root), &st) == 0 else { return .sqlite(nil) }
        return .sqlite(FileIdentity(device: UInt64(st.st_dev), inode: UInt64(st.st_ino)))
    }

    /// The file format of changesets (`sync`, `share export`/`accept`): always SQLite files.
    static let changesets: any ChangesetBackend = SQLiteChangesetBackend()

    /// Opens the library at `root` with a backend chosen by the caller (`photos init --database`),
    /// recording `originalsRoot` for a shared catalog that records none (`Library.init`).
    /// - Throws: what `Library.init` throws.
    static func openLibrary(
        root: String, backend: any CatalogBackend, create: Bool, busyTimeout: Double, originalsRoot: String? = nil
    ) throws -> Library {
        let library = try Library(
            root: root, backend: backend, exportStates: exportStates, create: create, busyTimeout: busyTimeout,
            originalsRoot: originalsRoot)
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

/// The new catalog of `photos catalog move` and the file steps that make the library folder use
/// it: the one place that knows where each backend keeps its catalog and its pointer.
struct CatalogMoveTarget {
    /// The target for messages: a path, or a connection without password.
    let name: String
    /// The target's backend (`sqlite`, `postgresql`).
    let backendName: String
    /// The target catalog, open and migrated.
    let store: any LibraryStore
    /// Points the library folder at the target: one rename(2) (the last, atomic step).
    let switchOver: () throws -> Void
    /// After the source is closed: puts the old catalog aside and says where it is kept.
    let retire: () -> String
    /// When the copy failed: removes a target file this move created (nothing on a server).
    let abandon: () -> Void
}

extension CompositionRoot {
    /// The suffix of an old catalog kept aside by `catalog move`: `.moved-YYYYMMDDTHHMMSSZ`.
    private static func movedSuffix() -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        return ".moved-" + formatter.string(from: Date())
    }

    /// A name for keeping `file` aside that no file has yet: `FILE.moved-TIME`, or
    /// `FILE.moved-TIME-2`, `-3`, … when a move in the same second kept one already (rename(2)
    /// would replace it, and with it an old catalog). Free means with its `-wal` and `-shm` too.
    static func keptName(for file: String) -> String {
        let base = file + movedSuffix()
        var candidate = base
        var n = 2
        while ["", "-wal", "-shm"].contains(where: { FileManager.default.fileExists(atPath: candidate + $0) }) {
            candidate = base + "-\(n)"
            n += 1
        }
        return candidate
    }

    /// Opens the target of `photos catalog move --to TO` for the library folder `root`, whose
    /// catalog is of `sourceBackend`: `sqlite` (the folder's `photos.sqlite`) or a libpq
    /// connection string.
    /// - Throws: `UsageError` (64) for a string libpq cannot parse or a target of the source's
    ///   own backend and place; `CatalogCopyError.sameCatalog`; `LibraryError` about the
    ///   target (it cannot be reached, is busy, is newer than this build).
    static func catalogMoveTarget(_ to: String, root: String, sourceBackend: String, busyTimeout: Double) throws
        -> CatalogMoveTarget
    {
        let options = StoreOpenOptions(readOnly: false, create: true, lockWait: busyTimeout)
        let connectionFile = PostgresCatalogBackend.connectionFile(root: root)
        // The switch writes or renames the folder's catalog pointer: a folder this process may
        // not write is found before the copy, not after it has filled the target (which a
        // second try would then refuse as not empty).
        guard access(root, W_OK) == 0 else {
            throw CommandFailure(
                .noPermission,
                "library \(root): the folder is not writable (\(String(cString: strerror(errno)))); catalog move switches the folder's catalog there"
            )
        }
        if to == "sqlite" {
            guard sourceBackend != "sqlite" else {
                throw UsageError("library \(root) already keeps its catalog in SQLite (\(sqliteCatalogName))")
            }
            let backend = SQLiteCatalogBackend()
            let path = SQLiteCatalogBackend.databasePath(root: root)
            let created = !backend.catalogExists(at: root)
            let store: any LibraryStore
            // A target this move created goes again, with its -wal and -shm, when it cannot
            // be made ready (a full disk while migrating: issue 31 item 19).
            func removeCreated() {
                guard created else { return }
                for file in backend.catalogFiles(at: root) + [path + "-journal"] { unlink(file) }
            }
            do {
                store = try backend.open(root: root, options: options)
            } catch {
                removeCreated()
                throw LibraryError.wrap(error, library: path)
            }
            do {
                try migrateMoveTarget(store, name: path)
            } catch {
                store.close()
                removeCreated()
                throw error
            }
            return CatalogMoveTarget(
                name: path, backendName: backend.name, store: store,
                switchOver: {
                    // While catalog.postgresql exists the folder is a PostgreSQL library;
                    // renaming it away makes photos.sqlite the catalog.
                    let kept = keptName(for: connectionFile)
                    guard rename(connectionFile, kept) == 0 else {
                        throw CommandFailure(
                            .ioError, "cannot rename \(connectionFile): \(String(cString: strerror(errno)))")
                    }
                },
                retire: {
                    "the PostgreSQL catalog is left as it was; its connection is kept in "
                        + (latestMoved(of: connectionFile) ?? connectionFile)
                },
                abandon: {
                    store.close()
                    removeCreated()
                })
        }
        let info: ConnectionInfo
        do {
            info = try ConnectionInfo(to)
        } catch let error as PostgresError {
            throw UsageError("--to: \(error.message)")
        }
        if sourceBackend == PostgresCatalogBackend().name,
            let recorded = try? PostgresCatalogBackend.recordedConnection(root: root),
            let old = try? ConnectionInfo(recorded)
        {
            // The same server, database and options (the search_path that names the schema)
            // is the library's own catalog, however else the connection is spelled. Another
            // schema of the same database is another catalog with writer locks of its own
            // (PostgresDatabase.writerLock mixes in current_schema()).
            let place = ["host", "hostaddr", "port", "dbname", "service", "options"]
            if old == info.withoutPassword || place.allSatisfy({ old[$0] == info[$0] }) {
                throw CatalogCopyError.sameCatalog(target: info.display)
            }
        }
        let backend = PostgresCatalogBackend(connectionString: to)
        let store: any LibraryStore
        do {
            store = try backend.open(root: root, options: options)
        } catch {
            throw LibraryError.wrap(error, library: info.display)
        }
        do {
            // As `init --database`: a schema of another program's tables is not empty.
            try store.requireOnlyCatalogTables()
        } catch let error as any CatalogPlaceRefusal {
            store.close()
            throw CommandFailure(.cantCreate, "--to \(info.display): \(error)")
        } catch {
            store.close()
            throw LibraryError.wrap(error, library: info.display)
        }
        try migrateMoveTarget(store, name: info.display)
        if info["password"] != nil {
            // The folder records the connection without its password: every later command
            // connects that way (libpq then looks in PGPASSWORD, ~/.pgpass, a service file,
            // libpq docs §34.16). A move that leaves a library nobody can open is refused.
            do {
                _ = try PostgresDatabase(info.withoutPassword.connectionString, busyTimeout: busyTimeout)
            } catch {
                store.close()
                throw UsageError(
                    "--to: \(info.display) does not log in without the password given in --to, and the library folder never records a password: put it in ~/.pgpass (PGPASSFILE), PGPASSWORD or a service file, then move again"
                )
            }
        }
        let sqlitePath = SQLiteCatalogBackend.databasePath(root: root)
        return CatalogMoveTarget(
            name: info.display, backendName: backend.name, store: store,
            switchOver: {
                do {
                    if FileManager.default.fileExists(atPath: connectionFile) {
                        // From one PostgreSQL database to another: the old connection is kept.
                        try FileManager.default.copyItem(atPath: connectionFile, toPath: keptName(for: connectionFile))
                    }
                    // Written beside and renamed over: the folder becomes a PostgreSQL library.
                    try PostgresCatalogBackend.record(info, root: root)
                } catch {
                    throw CommandFailure(
                        .cantCreate,
                        "library \(root): cannot write \(PostgresCatalogBackend.connectionFileName): \(error.localizedDescription)"
                    )
                }
            },
            retire: {
                guard sourceBackend == SQLiteCatalogBackend().name else {
                    return "the old PostgreSQL catalog is left as it was; its connection is kept in "
                        + (latestMoved(of: connectionFile) ?? connectionFile)
                }
                // Closed by now (its WAL checkpointed into it): the database and what is left
                // of its -wal/-shm are renamed together, so the old catalog opens as it was.
                let kept = keptName(for: sqlitePath)
                guard rename(sqlitePath, kept) == 0 else {
                    return
                        "the old SQLite catalog is left as \(sqlitePath) (cannot rename it: \(String(cString: strerror(errno))))"
                }
                for companion in ["-wal", "-shm"] where FileManager.default.fileExists(atPath: sqlitePath + companion) {
                    _ = rename(sqlitePath + companion, kept + companion)
                }
                return "the old SQLite catalog is kept as \(kept)"
            },
            abandon: { store.close() })
    }

    /// Migrates the move's target `store` (named `name`) to the current schema; closes it when
    /// that fails.
    /// - Throws: `CommandFailure` 73 when the target's own tables refuse the catalog's (a table
    ///   of the same name and other columns: the database's message, without the statement);
    ///   `LibraryError` for the rest (busy, a newer schema, the connection lost).
    private static func migrateMoveTarget(_ store: any LibraryStore, name: String) throws {
        do {
            try store.migrateToCurrentSchema()
        } catch let error as any StoreErrorConvertible where [.constraint, .other].contains(error.storeError.kind) {
            store.close()
            let message = error.storeError.message.split(whereSeparator: \.isNewline).joined(separator: " ")
            throw CommandFailure(
                .cantCreate,
                "--to: cannot create the catalog's tables in \(name): \(message) (the target must be a new database or schema, or an empty photos catalog)"
            )
        } catch {
            store.close()
            throw LibraryError.wrap(error, library: name)
        }
    }

    /// The catalog of the library folder `root` for messages: the SQLite file, or the
    /// recorded PostgreSQL connection (never with a password).
    static func catalogDescription(root: String) -> String {
        if let recorded = try? PostgresCatalogBackend.recordedConnection(root: root),
            let info = try? ConnectionInfo(recorded)
        {
            return info.display
        }
        return SQLiteCatalogBackend.databasePath(root: root)
    }

    /// The newest `FILE.moved-…` beside `file`, when there is one.
    private static func latestMoved(of file: String) -> String? {
        let folder = PathName.parent(file)
        let prefix = PathName.lastComponent(file) + ".moved-"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.filter { $0.hasPrefix(prefix) }.max().map { folder + "/" + $0 }
    }
}
