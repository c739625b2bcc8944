import Foundation
import PhotosModel

/// The SQLite file `DEST/.photos-export.sqlite`: its schema (migrated by the package's one
/// `Migrator`), and its reads and writes. Core's `ExportState` decides what is recorded.
public final class ExportStateDatabase {
    /// The state database's migrations.
    public static let migrator = Migrator(migrations: [
        """
        CREATE TABLE export_file (
            path        TEXT PRIMARY KEY NOT NULL,
            unique_name TEXT NOT NULL,
            kind        TEXT NOT NULL CHECK (kind IN ('original', 'xmp', 'json', 'thumbnail')),
            sha256      TEXT NOT NULL,
            byte_size   INTEGER NOT NULL,
            mtime_ns    INTEGER NOT NULL,
            exported_at TEXT NOT NULL
        );
        CREATE INDEX export_file_unique_name ON export_file(unique_name, kind);
        """,
        // Version 2 (issue 24 item 2, issue 25 item 2): a photo's other originals (a RAW+JPEG
        // pair's `raw`, a Live Photo's `pairedVideo`) are exported beside its primary, so the
        // kind takes their roles. SQLite cannot change a CHECK in place: the table is rebuilt
        // (SQLite "ALTER TABLE" §7, the 12-step procedure: new table, copy, drop, rename).
        """
        CREATE TABLE export_file_v2 (
            path        TEXT PRIMARY KEY NOT NULL,
            unique_name TEXT NOT NULL,
            kind        TEXT NOT NULL CHECK (kind IN ('original', 'raw', 'pairedVideo', 'xmp', 'json', 'thumbnail')),
            sha256      TEXT NOT NULL,
            byte_size   INTEGER NOT NULL,
            mtime_ns    INTEGER NOT NULL,
            exported_at TEXT NOT NULL
        );
        INSERT INTO export_file_v2 (path, unique_name, kind, sha256, byte_size, mtime_ns, exported_at)
            SELECT path, unique_name, kind, sha256, byte_size, mtime_ns, exported_at FROM export_file;
        DROP TABLE export_file;
        ALTER TABLE export_file_v2 RENAME TO export_file;
        CREATE INDEX export_file_unique_name ON export_file(unique_name, kind);
        """
    ])

    private let db: Database

    private init(_ db: Database) { self.db = db }

    /// Opens (creating or migrating) the state database at `path`.
    /// - Throws: `MigrationError.newerLibrary` for one from a newer photos, `.damaged` when it
    ///   fails `PRAGMA quick_check`, `SQLiteError` when it cannot be opened.
    public static func open(path: String, busyTimeout: Double = 5) throws -> ExportStateDatabase {
        let db = try Database(path: path, busyTimeout: busyTimeout, beforeWriting: requireOwnSchema)
        let version = try db.userVersion
        guard version <= migrator.currentVersion else {
            throw MigrationError.newerLibrary(found: version, supported: migrator.currentVersion)
        }
        guard try db.scalarString("PRAGMA quick_check") == "ok" else { throw MigrationError.damaged(path: path) }
        try migrator.migrate(db)
        return ExportStateDatabase(db)
    }

    /// Opens the state database at `path` read-only, when it exists and has the current
    /// version (a dry run creates and migrates nothing); nil otherwise.
    public static func openReadOnly(path: String) -> ExportStateDatabase? {
        guard access(path, F_OK) == 0, let db = try? Database(path: path, readOnly: true, busyTimeout: 5),
            let version = try? db.userVersion, version == migrator.currentVersion, (try? requireOwnSchema(db)) != nil
        else { return nil }
        return ExportStateDatabase(db)
    }

    /// The longest value a state row holds, bytes: a path (PATH_MAX 4096) and a few short fields.
    static let maxValueBytes = 64 << 10

    /// The state file is in DEST, where anyone who writes there may have put another
    /// (issue 31 item 17): before anything is read or written, the connection reads no value
    /// over `maxValueBytes`, and the file holds nothing at version 0 and exactly `export_file`
    /// with its columns and indexes at versions 1 and 2 (no view, trigger or other object).
    /// - Throws: `UntrustedDatabaseError`; `SQLiteError`.
    static func requireOwnSchema(_ db: Database) throws {
        db.limitValueLength(maxValueBytes)
        switch try db.userVersion {
        case 0: try db.requireSchema(tables: [:], indexes: [])
        case 1, 2:
            try db.requireSchema(
                tables: [
                    "export_file": ["path", "unique_name", "kind", "sha256", "byte_size", "mtime_ns", "exported_at"]
                ], indexes: ["sqlite_autoindex_export_file_1", "export_file_unique_name"])
        default: return
        }
    }

    private static let columns = "SELECT path, unique_name, kind, sha256, byte_size, mtime_ns FROM export_file"

    private static func row(_ r: Row) -> ExportFileRow {
        ExportFileRow(
            path: r.string(0), uniqueName: r.string(1), kind: r.string(2), sha256: r.string(3), byteSize: r.int(4),
            mtimeNanoseconds: r.int64(5))
    }

    /// Every row.
    /// - Throws: `SQLiteError`.
    public func rows() throws -> [ExportFileRow] {
        try db.statement(Self.columns).map(Self.row)
    }

    /// The row of `path` (the primary key), nil when none.
    /// - Throws: `SQLiteError`.
    public func row(path: String) throws -> ExportFileRow? {
        try db.statement(Self.columns + " WHERE path = ?").map([path], Self.row).first
    }

    /// The rows of `uniqueName`, by path (index `export_file_unique_name`).
    /// - Throws: `SQLiteError`.
    public func rows(uniqueName: String) throws -> [ExportFileRow] {
        try db.statement(Self.columns + " WHERE unique_name = ? ORDER BY path").map([uniqueName], Self.row)
    }

    /// At most `limit` rows in path order after `afterPath` (keyset paging on the primary key).
    /// - Throws: `SQLiteError`.
    public func rows(afterPath: String?, limit: Int) throws -> [ExportFileRow] {
        if let afterPath {
            return try db.statement(Self.columns + " WHERE path > ? ORDER BY path LIMIT ?").map(
                [afterPath, limit], Self.row)
        }
        return try db.statement(Self.columns + " ORDER BY path LIMIT ?").map([limit], Self.row)
    }

    /// Inserts or replaces `rows` in one transaction.
    /// - Parameter exportedAt: ISO 8601 UTC.
    /// - Throws: `SQLiteError`.
    public func upsert(_ rows: [ExportFileRow], exportedAt: String) throws {
        try db.transaction(.immediate) {
            let insert = try db.statement(
                "INSERT OR REPLACE INTO export_file (path, unique_name, kind, sha256, byte_size, mtime_ns, exported_at) VALUES (?, ?, ?, ?, ?, ?, ?)"
            )
            for e in rows {
                try insert.run([e.path, e.uniqueName, e.kind, e.sha256, e.byteSize, e.mtimeNanoseconds, exportedAt])
            }
        }
    }

    /// Deletes the rows of `paths` in one transaction.
    /// - Throws: `SQLiteError`.
    public func delete(paths: [String]) throws {
        try db.transaction(.immediate) {
            let delete = try db.statement("DELETE FROM export_file WHERE path = ?")
            for p in paths { try delete.run([p]) }
        }
    }
}
