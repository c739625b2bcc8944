import Foundation
import PhotosModel

/// The PostgreSQL catalog of a library: the library folder keeps its originals
/// (`ROOT/ExternalData`, on storage every machine mounts) and, in `ROOT/catalog.postgresql`,
/// the libpq connection string of the database that holds its catalog — without a password
/// (`ConnectionInfo.recorded`); libpq finds that at connect time in `PGPASSWORD`,
/// `~/.pgpass`/`PGPASSFILE` or a service file (libpq docs §34.15, §34.16, §34.17).
public struct PostgresCatalogBackend: CatalogBackend {
    /// The file in the library folder naming the catalog's database.
    public static let connectionFileName = "catalog.postgresql"

    /// The connection string used to connect (it may hold a password only when given on the
    /// command line of this process: `photos init --database`); nil: the one recorded in the
    /// library folder, read when the catalog is opened.
    public let connectionString: String?

    /// - Parameter connectionString: the libpq connection string, or nil for the one the
    ///   library folder records.
    public init(connectionString: String? = nil) { self.connectionString = connectionString }

    /// The connection file of the library folder `root`.
    public static func connectionFile(root: String) -> String { root + "/" + connectionFileName }

    /// The connection string recorded in the library folder `root`, or nil when it has none.
    /// - Throws: the read error of a file that exists but cannot be read.
    public static func recordedConnection(root: String) throws -> String? {
        let path = connectionFile(root: root)
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let text = try String(contentsOfFile: path, encoding: .utf8)
        // Comment lines start with `#`; the connection string is the first other line.
        return text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .first { !$0.isEmpty && !$0.hasPrefix("#") } ?? ""
    }

    /// Writes the connection file of the library folder `root` (which exists): `info` without
    /// its password, atomically (a temporary file renamed over it).
    /// - Throws: the write error.
    public static func record(_ info: ConnectionInfo, root: String) throws {
        let text = """
            # The PostgreSQL database holding this library's catalog (photos init --database).
            # A libpq connection string without the password: libpq reads that from PGPASSWORD,
            # ~/.pgpass (PGPASSFILE) or a service file.
            \(info.recorded)

            """
        try text.write(toFile: connectionFile(root: root), atomically: true, encoding: .utf8)
    }

    public var name: String { "postgresql" }

    public var currentSchemaVersion: Int { PostgresSchema.currentVersion }

    /// True: several library folders, on several machines, may name one PostgreSQL catalog.
    public var sharesCatalog: Bool { true }

    /// True when the folder names a PostgreSQL catalog (`catalog.postgresql`).
    public func catalogExists(at root: String) -> Bool {
        FileManager.default.fileExists(atPath: PostgresCatalogBackend.connectionFile(root: root))
    }

    /// The connection file: the one local file of a catalog that lives on a server.
    public func catalogFiles(at root: String) -> [String] { [PostgresCatalogBackend.connectionFile(root: root)] }

    /// Connects; never migrates (`Library` decides that). A read-only open rejects writes for
    /// the session (`default_transaction_read_only`).
    /// - Throws: `PostgresError` (class `08` when the server cannot be reached).
    public func open(root: String, options: StoreOpenOptions) throws -> any LibraryStore {
        let conninfo: String
        if let connectionString {
            conninfo = connectionString
        } else {
            do {
                conninfo = try PostgresCatalogBackend.recordedConnection(root: root) ?? ""
            } catch {
                throw PostgresError(
                    sqlState: "58030",
                    message:
                        "cannot read \(PostgresCatalogBackend.connectionFile(root: root)): \(error.localizedDescription)"
                )
            }
        }
        let db = try PostgresDatabase(conninfo, busyTimeout: options.lockWait)
        if options.readOnly { try db.setQueryOnly(true) }
        return db
    }
}

extension PostgresDatabase: LibraryStore {
    /// `BEGIN READ WRITE` (also in a dry run's read-only session) and the catalog writer lock,
    /// a transaction-level advisory lock (PostgreSQL docs §9.27.10), waiting up to `seconds`
    /// (`lock_timeout`) for another writer: writers are serialized as on SQLite (`BEGIN
    /// IMMEDIATE`), so every check-then-write of Core stays race-free across machines; the
    /// expensive part of an import (decoding, thumbnails, hashing) runs in parallel in each
    /// process, and each process commits its own batches.
    public func writeTransaction(waitingUpTo seconds: Double, _ body: () throws -> TransactionCompletion) throws {
        let previous = busyTimeout
        if seconds != previous { setBusyTimeout(seconds) }
        defer { if seconds != previous { setBusyTimeout(previous) } }
        try inTransaction(.exclusive) { try body() == .commit }
    }

    /// `REPEATABLE READ READ ONLY`: one snapshot.
    public func readTransaction<T>(_ body: () throws -> T) throws -> T { try transaction(.read, body) }

    /// `default_transaction_read_only`.
    public func setRejectingWrites(_ on: Bool) throws { try setQueryOnly(on) }

    public func migrateToCurrentSchema() throws { try migrate() }

    public func schemaDefinition() throws -> [String] { try schemaSQL() }

    public func schemaHeader(version: Int) -> String { "-- schema version \(version) (table schema_version)" }

    /// The catalog's tables with their indexes and TOAST data, in bytes (`pg_total_relation_size`).
    public func storageBytes() -> Int64 {
        let bytes = try? scalarInt(
            "SELECT COALESCE(sum(pg_total_relation_size(c.oid)), 0)::bigint FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = current_schema() AND c.relkind = 'r'"
        )
        return Int64((bytes ?? nil) ?? 0)
    }

    public func makePhotoInserter() throws -> any PhotoInserter { PostgresPhotoInserter(self) }
}

/// `PhotoInserter` over `PostgresPhotoWriter`: Core has checked `hasOriginal(sha256:in:)`
/// first in the same transaction (which holds the original's advisory lock to its end).
final class PostgresPhotoInserter: PhotoInserter {
    private let db: PostgresDatabase
    private let writer: PostgresPhotoWriter

    init(_ db: PostgresDatabase) {
        self.db = db
        writer = PostgresPhotoWriter(db)
    }

    func insert(_ row: PhotoRow, sha256: String, byteSize: Int, fileReference: String, thumbnail: ThumbnailRow?)
        throws -> Int64
    {
        try writer.insert(
            row, sha256: sha256, byteSize: byteSize, fileReference: fileReference,
            thumbnail: thumbnail.map { (data: $0.data, width: $0.width, height: $0.height) })
    }

    func insertOriginal(_ original: PhotoOriginal, ofPhoto photoID: Int64) throws {
        try writer.insertOriginal(original, ofPhoto: photoID)
    }

    @discardableResult
    func link(photo: Int64, tag: Int64) throws -> Bool {
        try writer.link(photo: photo, tag: tag)
        return db.changes > 0
    }

    func insert(_ row: RatingRow) throws {
        try writer.insertRating(uuid: row.uuid, photo: row.photoRowID, value: row.value, author: row.author)
    }
}

extension PostgresError: StoreErrorConvertible {
    /// The SQLSTATE classified (PostgreSQL docs Appendix A; see `PostgresError`): a server
    /// that cannot be reached is `.cannotOpen`.
    public var storeError: StoreError {
        let kind: StoreError.Kind
        if isLoginRefused {
            kind = .refused
        } else if isUnavailable {
            kind = .unavailable
        } else if isConnectionFailure {
            kind = .cannotOpen
        } else if isBusy {
            kind = .busy
        } else if isPermission {
            kind = .readOnly
        } else if isIO {
            kind = .io
        } else if isCorrupt {
            kind = .corrupt
        } else if isConstraint {
            kind = .constraint
        } else if sqlState == "0A000" {
            kind = .unsupported
        } else {
            kind = .other
        }
        return StoreError(
            kind, message: StatementSummary.summary(message, limit: StatementSummary.messageLimit), detail: description)
    }
}

extension PostgresMigrationError: StoreErrorConvertible {
    public var storeError: StoreError {
        switch self {
        case let .newerLibrary(found, supported):
            return StoreError(
                .newerSchema(found: found, supported: supported), message: description, detail: description)
        case .unexpectedSchema:
            return StoreError(.corrupt, message: description, detail: description)
        }
    }
}
