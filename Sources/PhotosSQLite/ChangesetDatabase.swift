import PhotosModel

/// The SQLite file `changeset.sqlite` inside a changeset folder: its tables and their reads and
/// writes. Core decides what goes in and checks everything it reads (the file comes from
/// someone else).
///
/// Tables: `header(key, value)` (`format`, `version`, `sender`, `scope`, `fromToken`, `toToken`,
/// `created`, `participant`); `acknowledgement(library_id, scope, token)` (what the sender has
/// applied from others); `entry(entity, object_id, attribute, value, stamp_time, stamp_library,
/// zone_id)`; `thumbnail(photo, data, width, height)`; `original(sha256, byte_size, path)`.
public final class ChangesetDatabase: ChangesetWriter, ChangesetReading {
    /// The file name inside the changeset folder.
    public static let fileName = "changeset.sqlite"
    /// The folder of originals inside the changeset folder.
    public static let originalsFolder = changesetOriginalsFolder

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

    /// The longest value or row a changeset holds, bytes (`SQLITE_LIMIT_LENGTH` when read): a
    /// thumbnail of at most 1 MiB (Core's `ChangesetReader.thumbnailLimit`) and its row.
    public static let maxRowBytes = (1 << 20) + (1 << 16)

    /// The tables `ddl` creates, with their columns in order.
    static let expectedTables: [String: [String]] = [
        "header": ["key", "value"],
        "acknowledgement": ["library_id", "scope", "token"],
        "entry": ["entity", "object_id", "attribute", "value", "stamp_time", "stamp_library", "zone_id"],
        "thumbnail": ["photo", "data", "width", "height"],
        "original": ["sha256", "byte_size", "path"]
    ]

    /// The indexes `ddl` creates: those of the primary keys.
    static let expectedIndexes: Set<String> = Set(expectedTables.keys.map { "sqlite_autoindex_\($0)_1" })

    /// Opens a changeset database for reading (nothing is written to it). The file comes from
    /// someone else and is run by nobody (issue 31 item 17): the connection is hardened
    /// (`photos_sqlite_harden`: no views, triggers, extensions or untrusted functions) and bounded
    /// (`Database.boundForUntrustedFile`: values and rows at most `maxRowBytes`, work by the
    /// file's size, a small in-memory temporary store); its schema must be exactly `ddl`'s
    /// plain tables and their primary-key indexes (`Database.requireSchema`); then
    /// `PRAGMA quick_check`.
    /// - Throws: `UntrustedDatabaseError` for another schema, a value too long or work too
    ///   great; `SQLiteError` when it is not a readable SQLite file; `MigrationError.damaged`.
    public static func open(path: String) throws -> ChangesetDatabase {
        let db = try Database(path: path, readOnly: true, busyTimeout: 1)
        try db.boundForUntrustedFile(maxValueBytes: maxRowBytes)
        try db.requireSchema(tables: expectedTables, indexes: expectedIndexes)
        guard try db.readingUntrusted({ try db.scalarString("PRAGMA quick_check") }) == "ok" else {
            throw MigrationError.damaged(path: path)
        }
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
        try db.readingUntrusted {
            var values: [String: String] = [:]
            try db.statement("SELECT key, value FROM header").forEach { row in
                if !row.isNull(1) { values[row.string(0)] = row.string(1) }
            }
            return values
        }
    }

    /// Every acknowledgement (unchecked). - Throws: `SQLiteError`.
    public func acknowledgements() throws -> [(library: String, scope: String, token: Int64)] {
        try db.readingUntrusted {
            try db.statement("SELECT library_id, scope, token FROM acknowledgement").map {
                ($0.string(0), $0.string(1), $0.int64(2))
            }
        }
    }

    /// Every entry as raw text, in key order (checked by Core).
    /// - Throws: `SQLiteError`.
    public func rawEntries() throws -> [RawChangesetEntry] {
        try db.readingUntrusted {
            try db.statement(
                "SELECT entity, object_id, attribute, value, stamp_time, stamp_library, zone_id FROM entry ORDER BY entity, object_id, attribute"
            ).map {
                RawChangesetEntry(
                    entity: $0.string(0), objectID: $0.string(1), attribute: $0.string(2), value: $0.optionalString(3),
                    time: $0.string(4), library: $0.string(5), zone: $0.optionalString(6))
            }
        }
    }

    /// The thumbnail of a photo, nil when none. - Throws: `SQLiteError`.
    public func thumbnail(photo: String) throws -> (data: [UInt8], width: Int, height: Int)? {
        try db.readingUntrusted {
            try db.statement("SELECT data, width, height FROM thumbnail WHERE photo = ?").first([photo]) {
                ($0.blob(0), $0.int(1), $0.int(2))
            }
        }
    }

    /// Every original recorded (unchecked). - Throws: `SQLiteError`.
    public func originals() throws -> [ChangesetOriginal] {
        try db.readingUntrusted {
            try db.statement("SELECT sha256, byte_size, path FROM original ORDER BY sha256").map {
                ChangesetOriginal(sha256: $0.string(0), byteSize: $0.int(1), path: $0.string(2))
            }
        }
    }
}

/// Changesets as SQLite files (`ChangesetDatabase`), for the composition root.
public struct SQLiteChangesetBackend: ChangesetBackend {
    public init() {}
    public var fileName: String { ChangesetDatabase.fileName }
    public func create(path: String) throws -> any ChangesetWriter { try ChangesetDatabase.create(path: path) }
    public func open(path: String) throws -> any ChangesetReading { try ChangesetDatabase.open(path: path) }
}
