import Foundation
import PhotosFiles
import PhotosPostgreSQL
import PhotosSQLite

/// Byte-for-byte snapshots of a library, compared before and after a command that must change
/// nothing (dry runs, refused writes).
public enum LibrarySnapshot {
    /// The catalog of the library folder `root` on whichever backend holds it: the schema, its
    /// version and every table's rows (sorted), read through a read-only connection that leaves
    /// nothing behind (`dumpDatabase` for SQLite; for PostgreSQL `schema_version`, the DDL
    /// `PostgresDatabase.schemaSQL` describes and each table's rows as text). Sequences are left
    /// out: PostgreSQL draws identities and history tokens outside transactions, so a rolled-back
    /// dry run moves them without changing the catalog.
    /// - Throws: `SQLiteError` or `PostgresError` when the catalog cannot be read.
    public static func dumpCatalog(_ root: String) throws -> [String] {
        switch TestDatabase.backend(ofLibraryAt: root) {
        case nil: return ["<no database>"]
        case .sqlite?: return try dumpDatabase(SQLiteCatalogBackend.databasePath(root: root))
        case .postgresql?:
            let db = try PostgresDatabase(try PostgresCatalogBackend.recordedConnection(root: root) ?? "")
            try db.setQueryOnly(true)
            var lines = ["schema_version=\(try db.schemaVersion())"]
            lines += try db.schemaSQL()
            let catalog = try TestCatalog(root: root, readOnly: true)
            let tables = try db.statement(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name"
            ).map { $0.string(0) }
            for table in tables {
                lines.append("table \(table)")
                let rows = try catalog.rows("SELECT * FROM \"\(table)\"").map {
                    $0.map { $0 ?? "NULL" }.joined(separator: "|")
                }
                lines += rows.sorted().map { "  \(table): \($0)" }
            }
            return lines
        }
    }

    /// Every table's rows (sorted), the schema and `PRAGMA user_version` of the SQLite database
    /// file `path`, read through a read-only connection that leaves no file behind.
    public static func dumpDatabase(_ path: String) throws -> [String] {
        guard FileManager.default.fileExists(atPath: path) else { return ["<no database>"] }
        let db = try Database(path: path, readOnly: true)
        var lines = ["user_version=\(try db.userVersion)"]
        let tables = try Statement.prepare(db, "SELECT type, name, sql FROM sqlite_master ORDER BY type, name")
            .map { ($0.string(0), $0.string(1), $0.string(2)) }
        for (type, name, sql) in tables {
            lines.append("\(type) \(name): \(sql)")
            guard type == "table" else { continue }
            let quoted = "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
            var rows: [String] = []
            try Statement.prepare(db, "SELECT * FROM \(quoted)").forEach { row in
                rows.append((0..<row.count).map { "\(row.value($0))" }.joined(separator: "|"))
            }
            lines += rows.sorted().map { "  \(name): \($0)" }
        }
        return lines
    }

    /// Every entry under `root` (not following symbolic links): path, type, size, SHA-256 and
    /// mtime of files. The database's own rows are compared by `dumpDatabase`.
    public static func fileTree(_ root: String) -> [String] {
        var result: [String] = []
        var folders = [root]
        while let folder = folders.popLast() {
            var st = stat()
            guard lstat(folder, &st) == 0 else { continue }
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
            for name in names.sorted() {
                let path = folder + "/" + name
                guard lstat(path, &st) == 0 else { continue }
                let rel = String(path.dropFirst(root.count))
                let mtime = "\(st.st_mtim.tv_sec).\(st.st_mtim.tv_nsec)"
                switch st.st_mode & S_IFMT {
                case S_IFDIR:
                    result.append("dir \(rel) mtime \(mtime)")
                    folders.append(path)
                case S_IFREG:
                    let sha = (try? SHA256Hasher.hex(ofFileAt: path).hex) ?? "?"
                    result.append("file \(rel) \(st.st_size) \(sha) mtime \(mtime)")
                default:
                    result.append("other \(rel)")
                }
            }
        }
        return result.sorted()
    }
}

/// Turns the current-schema library at `lib` into what version 1 wrote: no capture offset or
/// source columns, capture dates as version 1 stored them (`…Z`, EXIF only), user_version 1.
public func downgradeToSchemaVersion1(_ lib: String) throws {
    let db = try Database(path: lib + "/photos.sqlite")
    try db.execute(
        """
        UPDATE photo SET capture_date = CASE WHEN capture_source = 'exif' THEN substr(capture_date, 1, 19) || 'Z' END;
        ALTER TABLE photo DROP COLUMN capture_offset;
        ALTER TABLE photo DROP COLUMN capture_source;
        \(dropTablesOfSchemaVersion6)
        PRAGMA user_version = 1;
        PRAGMA wal_checkpoint(TRUNCATE);
        """)
}

/// SQL that removes what the migrations of issue 31 added as tables: the originals root (item
/// A3: `catalog_originals`, `catalog_folder`) and what a file said (items 4 and 5:
/// `photo_file_state`), and the perceptual signatures of issue 27 (`photo_signature`, a later
/// migration that references `photo`), and the owner address of issue 29 (`library_owner`).
public let dropTablesOfSchemaVersion7 = """
    DROP TABLE IF EXISTS catalog_originals; DROP TABLE IF EXISTS catalog_folder;
    DROP TABLE IF EXISTS photo_file_state; DROP TABLE IF EXISTS photo_signature;
    DROP TABLE IF EXISTS library_owner; DROP TABLE IF EXISTS place;
    """

/// SQL that removes what migrations 6 (sync, issue 11) and later added, for the helpers that turn a current
/// library into one an older version wrote.
public let dropTablesOfSchemaVersion6 = """
    \(dropTablesOfSchemaVersion7)
    DROP TABLE IF EXISTS sync_library; DROP TABLE IF EXISTS sync_entry; DROP TABLE IF EXISTS sync_applied;
    DROP TABLE IF EXISTS sync_peer; DROP TABLE IF EXISTS sync_membership;
    DROP INDEX IF EXISTS history_change_object;
    """
