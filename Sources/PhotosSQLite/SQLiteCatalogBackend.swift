import CSQLite
import Foundation
import PhotosModel

/// The SQLite catalog of a library: `ROOT/photos.sqlite` (+ `-wal`, `-shm`), migrated by
/// `Schema.migrator`. The default `CatalogBackend`; the composition root injects it.
public struct SQLiteCatalogBackend: CatalogBackend {
    /// File name of the database inside the library folder.
    public static let databaseName = "photos.sqlite"

    public init() {}

    /// The database file of the library folder `root`.
    public static func databasePath(root: String) -> String { root + "/" + databaseName }

    public var name: String { "sqlite" }

    public var currentSchemaVersion: Int { Schema.currentVersion }

    public func catalogExists(at root: String) -> Bool {
        FileManager.default.fileExists(atPath: SQLiteCatalogBackend.databasePath(root: root))
    }

    public func catalogFiles(at root: String) -> [String] {
        let db = SQLiteCatalogBackend.databasePath(root: root)
        return [db, db + "-wal", db + "-shm"]
    }

    /// Opens `ROOT/photos.sqlite` (creating the file when `options.create`); never migrates
    /// (`Library` decides that through `migrateToCurrentSchema()`). A writable open first
    /// refuses a file holding another program's tables, or one at the current version missing a
    /// table or column of it, before anything is written to it (`LibraryStore.requireCatalogTables`).
    /// - Throws: `ForeignTablesError`, `MigrationError.unexpectedSchema`, `SQLiteError`.
    ///
    /// Every open, read-only ones too (`merge --from`, `catalog move`'s source, a library of
    /// another user): a library has only plain tables and indexes, so one holding a view, a
    /// trigger or a virtual table is not opened (`Database.requirePlainTablesOnly`, issue 31
    /// item 17); the connection runs no view, trigger, extension or untrusted function
    /// (`photos_sqlite_harden`), and reads no value longer than `maxValueBytes`. With plain
    /// tables only, the work of photos' own queries is bounded by the rows there are.
    /// - Throws: `UntrustedDatabaseError` for a view, trigger or virtual table.
    public func open(root: String, options: StoreOpenOptions) throws -> any LibraryStore {
        let db = try Database(
            path: SQLiteCatalogBackend.databasePath(root: root), readOnly: options.readOnly,
            busyTimeout: options.lockWait,
            beforeWriting: { db in
                try db.requirePlainTablesOnly()
                try Schema.migrator.requireKnownTables(db)
                if try db.userVersion == Schema.currentVersion { try db.requireCatalogTables() }
            })
        db.limitValueLength(SQLiteCatalogBackend.maxValueBytes)
        if options.readOnly { try db.requirePlainTablesOnly() }
        return db
    }

    /// The longest value a library's row may hold, bytes (`SQLITE_LIMIT_LENGTH`): 64 MiB, far
    /// above any a library writes (a thumbnail is a 120-pixel JPEG, text values are at most a
    /// few KiB), so a hostile value of hundreds of MB is an error, not an allocation.
    public static let maxValueBytes = 64 << 20
}

extension Database: LibraryStore {
    /// `BEGIN IMMEDIATE` with the busy timeout set to `seconds` for the wait on the write lock
    /// (https://www.sqlite.org/lang_transaction.html), restored afterwards.
    public func writeTransaction(waitingUpTo seconds: Double, _ body: () throws -> TransactionCompletion) throws {
        let previous = busyTimeout
        if seconds != previous { setBusyTimeout(seconds) }
        defer { if seconds != previous { setBusyTimeout(previous) } }
        try inTransaction(.immediate, body)
    }

    /// `BEGIN DEFERRED`: one snapshot in WAL mode.
    public func readTransaction<T>(_ body: () throws -> T) throws -> T {
        try transaction(.deferred, body)
    }

    /// `PRAGMA query_only`.
    public func setRejectingWrites(_ on: Bool) throws { try setQueryOnly(on) }

    /// `PRAGMA user_version`.
    public func schemaVersion() throws -> Int { try userVersion }

    public func migrateToCurrentSchema() throws { try migrate() }

    public func schemaDefinition() throws -> [String] { try schemaSQL() }

    public func schemaHeader(version: Int) -> String { Schema.header(version: version) }

    /// The database file and its WAL, in bytes.
    public func storageBytes() -> Int64 {
        var total: Int64 = 0
        for suffix in ["", "-wal"] {
            if let size = (try? FileManager.default.attributesOfItem(atPath: path + suffix))?[.size] as? NSNumber {
                total += size.int64Value
            }
        }
        return total
    }

    public func makePhotoInserter() throws -> any PhotoInserter { try PhotoWriter(self) }
}

/// The export state databases, `DEST/.photos-export.sqlite`, as SQLite files.
public struct SQLiteExportStateBackend: ExportStateBackend {
    public init() {}

    public func open(path: String, lockWait: Double) throws -> any ExportStateStore {
        try ExportStateDatabase.open(path: path, busyTimeout: lockWait)
    }

    public func openReadOnly(path: String) -> (any ExportStateStore)? {
        ExportStateDatabase.openReadOnly(path: path)
    }
}

extension ExportStateDatabase: ExportStateStore {}

extension SQLiteError: StoreErrorConvertible {
    /// The result code classified (https://www.sqlite.org/rescode.html).
    public var storeError: StoreError {
        let kind: StoreError.Kind
        switch code {
        case SQLITE_BUSY, SQLITE_LOCKED: kind = .busy
        case SQLITE_READONLY, SQLITE_PERM, SQLITE_AUTH: kind = .readOnly
        case SQLITE_CANTOPEN: kind = .cannotOpen
        case SQLITE_IOERR, SQLITE_FULL, SQLITE_NOMEM: kind = .io
        case SQLITE_CORRUPT, SQLITE_NOTADB: kind = .corrupt
        case SQLITE_CONSTRAINT: kind = .constraint
        default: kind = .other
        }
        return StoreError(kind, message: message, detail: description)
    }
}

extension MigrationError: StoreErrorConvertible {
    /// A newer library is `.newerSchema`; a damaged one or a failed migration `.corrupt`.
    public var storeError: StoreError {
        if case let .newerLibrary(found, supported) = self {
            return StoreError(
                .newerSchema(found: found, supported: supported), message: description, detail: description)
        }
        return StoreError(.corrupt, message: description, detail: description)
    }
}
