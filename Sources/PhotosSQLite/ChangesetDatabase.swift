import PhotosModel

/// A changeset's header: who sent it, what it covers (man page, CHANGESETS).
public struct ChangesetHeader: Equatable, Sendable {
    /// `photos-changeset`.
    public static let formatName = "photos-changeset"
    /// The format version this build writes and reads.
    public static let currentVersion = 1

    /// The sender's library id (lowercase UUID).
    public var sender: String
    /// `library` for every zone, else the one zone's id.
    public var scope: String
    /// The changes after this change token of the sender…
    public var fromToken: Int64
    /// …up to and including this one.
    public var toToken: Int64
    /// ISO 8601 UTC.
    public var created: String
    /// For a share's changeset: the e-mail address of the participant it is for (owner → participant)
    /// or from (participant → owner); nil between peers.
    public var participant: String?

    public init(
        sender: String, scope: String, fromToken: Int64, toToken: Int64, created: String, participant: String? = nil
    ) {
        self.sender = sender
        self.scope = scope
        self.fromToken = fromToken
        self.toToken = toToken
        self.created = created
        self.participant = participant
    }
}

/// An original a changeset carries: `originals/SHA256` inside the changeset folder.
public struct ChangesetOriginal: Equatable, Sendable {
    /// 64 lowercase hex digits.
    public var sha256: String
    /// Bytes.
    public var byteSize: Int
    /// Relative to the changeset folder, as recorded (checked by the reader: exactly
    /// `originals/` + `sha256`).
    public var path: String

    public init(sha256: String, byteSize: Int, path: String) {
        self.sha256 = sha256
        self.byteSize = byteSize
        self.path = path
    }
}

/// The SQLite file `changeset.sqlite` inside a changeset folder: its tables and their reads and
/// writes. Core decides what goes in and checks everything it reads (the file comes from
/// someone else).
///
/// Tables: `header(key, value)` (`format`, `version`, `sender`, `scope`, `fromToken`, `toToken`,
/// `created`, `participant`); `acknowledgement(library_id, scope, token)` (what the sender has
/// applied from others); `entry(entity, object_id, attribute, value, stamp_time, stamp_library,
/// zone_id)`; `thumbnail(photo, data, width, height)`; `original(sha256, byte_size, path)`.
public final class ChangesetDatabase {
    /// The file name inside the changeset folder.
    public static let fileName = "changeset.sqlite"
    /// The folder of originals inside the changeset folder.
    public static let originalsFolder = "originals"

    private static let ddl = """
        CREATE TABLE header (key TEXT PRIMARY KEY NOT NULL, value TEXT);
        CREATE TABLE acknowledgement (library_id TEXT NOT NULL, scope TEXT NOT NULL, token INTEGER NOT NULL,
            PRIMARY KEY (library_id, scope));
        CREATE TABLE entry (entity TEXT NOT NULL, object_id TEXT NOT NULL, attribute TEXT NOT NULL, value TEXT,
            stamp_time TEXT NOT NULL, stamp_library TEXT NOT NULL, zone_id TEXT,
            PRIMARY KEY (entity, object_id, attribute));
        CREATE TABLE thumbnail (photo TEXT PRIMARY KEY NOT NULL, data BLOB NOT NULL, width INTEGER NOT NULL,
            height INTEGER NOT NULL);
        CREATE TABLE original (sha256 TEXT PRIMARY KEY NOT NULL, byte_size INTEGER NOT NULL, path TEXT NOT NULL);
        """

    private let db: Database

    private init(_ db: Database) { self.db = db }

    /// Creates a new changeset database at `path` (which must not exist) in rollback-journal mode,
    /// so that the one file holds everything once closed.
    /// - Throws: `SQLiteError`.
    public static func create(path: String) throws -> ChangesetDatabase {
        let db = try Database(path: path, busyTimeout: 1)
        try db.execute("PRAGMA journal_mode = DELETE")
        try db.execute("BEGIN")
        try db.execute(ddl)
        return ChangesetDatabase(db)
    }

    /// Opens a changeset database for reading (nothing is written to it), after
    /// `PRAGMA quick_check`.
    /// - Throws: `SQLiteError` when it is not a readable SQLite file, `MigrationError.damaged`.
    public static func open(path: String) throws -> ChangesetDatabase {
        let db = try Database(path: path, readOnly: true, busyTimeout: 1)
        guard try db.scalarString("PRAGMA quick_check") == "ok" else { throw MigrationError.damaged(path: path) }
        return ChangesetDatabase(db)
    }

    // MARK: writing

    /// Writes the header.
    /// - Throws: `SQLiteError`.
    public func write(_ header: ChangesetHeader) throws {
        let pairs: [(String, String?)] = [
            ("format", ChangesetHeader.formatName), ("version", String(ChangesetHeader.currentVersion)),
            ("sender", header.sender), ("scope", header.scope), ("fromToken", String(header.fromToken)),
            ("toToken", String(header.toToken)), ("created", header.created), ("participant", header.participant)
        ]
        for (key, value) in pairs { try db.run("INSERT INTO header (key, value) VALUES (?, ?)", [key, value]) }
    }

    /// Writes one acknowledgement. - Throws: `SQLiteError`.
    public func writeAcknowledgement(library: String, scope: String, token: Int64) throws {
        try db.run("INSERT INTO acknowledgement (library_id, scope, token) VALUES (?, ?, ?)", [library, scope, token])
    }

    /// Writes one entry. - Throws: `SQLiteError`.
    public func write(_ e: SyncEntry) throws {
        try db.run(
            "INSERT INTO entry (entity, object_id, attribute, value, stamp_time, stamp_library, zone_id) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [e.entity.rawValue, e.objectID, e.attribute, e.value, e.stamp.time, e.stamp.library, e.zone])
    }

    /// Writes a photo's thumbnail. - Throws: `SQLiteError`.
    public func writeThumbnail(photo: String, data: [UInt8], width: Int, height: Int) throws {
        try db.run(
            "INSERT INTO thumbnail (photo, data, width, height) VALUES (?, ?, ?, ?)", [photo, data, width, height])
    }

    /// Records an original (its file is written by the caller). - Throws: `SQLiteError`.
    public func write(_ original: ChangesetOriginal) throws {
        try db.run(
            "INSERT OR IGNORE INTO original (sha256, byte_size, path) VALUES (?, ?, ?)",
            [original.sha256, original.byteSize, original.path])
    }

    /// Commits what was written. - Throws: `SQLiteError`.
    public func finish() throws { try db.execute("COMMIT") }

    // MARK: reading

    /// The header's pairs as written (unchecked).
    /// - Throws: `SQLiteError` (also when the table is missing).
    public func headerValues() throws -> [String: String] {
        var values: [String: String] = [:]
        try db.statement("SELECT key, value FROM header").forEach { row in
            if !row.isNull(1) { values[row.string(0)] = row.string(1) }
        }
        return values
    }

    /// Every acknowledgement (unchecked). - Throws: `SQLiteError`.
    public func acknowledgements() throws -> [(library: String, scope: String, token: Int64)] {
        try db.statement("SELECT library_id, scope, token FROM acknowledgement").map {
            ($0.string(0), $0.string(1), $0.int64(2))
        }
    }

    /// Every entry as raw text, in key order (checked by Core).
    /// - Throws: `SQLiteError`.
    public func rawEntries() throws -> [(
        entity: String, objectID: String, attribute: String, value: String?, time: String, library: String,
        zone: String?
    )] {
        try db.statement(
            "SELECT entity, object_id, attribute, value, stamp_time, stamp_library, zone_id FROM entry ORDER BY entity, object_id, attribute"
        ).map {
            (
                $0.string(0), $0.string(1), $0.string(2), $0.optionalString(3), $0.string(4), $0.string(5),
                $0.optionalString(6)
            )
        }
    }

    /// The thumbnail of a photo, nil when none. - Throws: `SQLiteError`.
    public func thumbnail(photo: String) throws -> (data: [UInt8], width: Int, height: Int)? {
        try db.statement("SELECT data, width, height FROM thumbnail WHERE photo = ?").first([photo]) {
            ($0.blob(0), $0.int(1), $0.int(2))
        }
    }

    /// Every original recorded (unchecked). - Throws: `SQLiteError`.
    public func originals() throws -> [ChangesetOriginal] {
        try db.statement("SELECT sha256, byte_size, path FROM original ORDER BY sha256").map {
            ChangesetOriginal(sha256: $0.string(0), byteSize: $0.int(1), path: $0.string(2))
        }
    }
}
