import CSQLite
import Foundation
import PhotosFiles
import PhotosModel

/// The catalog backup with SQLite's online backup API (https://www.sqlite.org/backup.html,
/// https://www.sqlite.org/c3ref/backup_finish.html): `sqlite3_backup_step(-1)` copies every
/// page in one step under one read transaction, so the copy is one consistent snapshot; in
/// WAL mode writers go on meanwhile (https://www.sqlite.org/wal.html §2.2).
extension Database: CatalogBackupStore {
    public func backupCatalog(to destination: String) throws -> Int64 {
        let folder = PathName.parent(destination)
        let temporary =
            (folder.isEmpty ? "." : folder) + "/." + PathName.lastComponent(destination) + ".partial-"
            + String(getpid())
        Glibc.unlink(temporary)
        var copy: OpaquePointer?
        let rc = sqlite3_open_v2(
            temporary, &copy, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
        guard rc == SQLITE_OK, let copy else {
            let error = SQLiteError(handle: copy, code: rc)
            if let copy { sqlite3_close_v2(copy) }
            Glibc.unlink(temporary)
            throw error
        }
        do {
            try Database.copyPages(from: handle, to: copy)
            // The copy is a file of its own: no -wal beside it, everything in the main file.
            try Database.exec(copy, "PRAGMA journal_mode=DELETE")
            sqlite3_close_v2(copy)
        } catch {
            sqlite3_close_v2(copy)
            Glibc.unlink(temporary)
            throw error
        }
        let fd = open(temporary, O_RDONLY | O_CLOEXEC)
        if fd >= 0 {
            fsync(fd)
            Glibc.close(fd)
        }
        guard Glibc.rename(temporary, destination) == 0 else {
            let message = String(cString: strerror(errno))
            Glibc.unlink(temporary)
            throw SQLiteError(
                extendedCode: SQLITE_CANTOPEN, message: "cannot rename the copy to \(destination): \(message)")
        }
        var st = stat()
        return stat(destination, &st) == 0 ? Int64(st.st_size) : 0
    }

    /// The backup file comes from elsewhere (issue 31 item 17): before a page is copied, it is
    /// opened hardened, bounded and read-only, and must hold only plain tables and indexes
    /// (`requirePlainTablesOnly`): no view, trigger or virtual table comes into the library.
    /// - Throws: `UntrustedDatabaseError`, `SQLiteError`.
    public func restoreCatalog(from source: String) throws {
        let copy = try Database(path: source, readOnly: true, busyTimeout: busyTimeout)
        defer { copy.close() }
        try copy.boundForUntrustedFile(maxValueBytes: SQLiteCatalogBackend.maxValueBytes)
        try copy.requirePlainTablesOnly()
        try Database.copyPages(from: copy.handle, to: handle)
    }

    /// Copies every page of `source`'s main database over `destination`'s, in one step.
    private static func copyPages(from source: OpaquePointer, to destination: OpaquePointer) throws {
        guard let backup = sqlite3_backup_init(destination, "main", source, "main") else {
            throw SQLiteError(handle: destination, code: sqlite3_errcode(destination))
        }
        var rc = sqlite3_backup_step(backup, -1)
        // BUSY/LOCKED: another connection holds a lock this step needs; wait as the busy
        // timeout would, a few times, then give up with the busy error.
        var attempts = 0
        while (rc == SQLITE_BUSY || rc == SQLITE_LOCKED) && attempts < 300 {
            usleep(100_000)
            attempts += 1
            rc = sqlite3_backup_step(backup, -1)
        }
        let finish = sqlite3_backup_finish(backup)
        guard rc == SQLITE_DONE else {
            throw SQLiteError(extendedCode: rc, message: String(cString: sqlite3_errstr(rc)))
        }
        guard finish == SQLITE_OK else { throw SQLiteError(handle: destination, code: finish) }
    }

    private static func exec(_ db: OpaquePointer, _ sql: String) throws {
        let rc = sqlite3_exec(db, sql, nil, nil, nil)
        guard rc == SQLITE_OK else { throw SQLiteError(handle: db, code: rc, sql: sql) }
    }
}
