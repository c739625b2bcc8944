import PhotosModel
import PhotosSQL

/// `VerifyStore` on SQLite: `PhotosSQL`'s `VerifyStore where Self: SQLConnection`, but for what
/// SQLite does its own way: snapshot readers over one WAL snapshot, `integrity_check` and
/// `foreign_key_check`, display names read as BLOBs, the thumbnail heads cut with `substr`.
extension Database: VerifyStore {
    /// Seconds `openSnapshotReaders` waits for another writer's lock before it gives up (and
    /// verify reads everything on this connection): verify itself writes nothing, and a writer
    /// commits its batch within this.
    static let snapshotLockWait = 1.0

    /// Read-only connections to this database whose WAL snapshots are this connection's: a
    /// third connection takes the write lock (`BEGIN IMMEDIATE`, waiting up to
    /// `snapshotLockWait`), this connection and then each reader begin their read transaction
    /// (the first read fixes a WAL snapshot, https://www.sqlite.org/wal.html), and the lock is
    /// let go — no commit can fall between those reads, so all see the last commit before it.
    /// Empty when the lock cannot be had (a read-only library, a long writer).
    /// - Throws: `SQLiteError` from this connection's first read.
    public func openSnapshotReaders(count: Int) throws -> [VerifySnapshotReader] {
        guard count > 0, let locker = try? Database(path: path, busyTimeout: Database.snapshotLockWait) else {
            return []
        }
        defer { locker.close() }
        guard (try? locker.execute("BEGIN IMMEDIATE")) != nil else { return [] }
        defer { try? locker.execute("ROLLBACK") }
        // This connection's snapshot, fixed by its first read.
        _ = try scalarInt("SELECT count(*) FROM sqlite_schema")
        return VerifySnapshotReader.open(
            count: count, connect: { try? Database(path: path, readOnly: true, busyTimeout: busyTimeout) },
            begin: {
                try $0.execute("BEGIN DEFERRED")
                _ = try $0.scalarInt("SELECT count(*) FROM sqlite_schema")
            },
            end: {
                if $0.isInTransaction { try? $0.execute("ROLLBACK") }
                $0.close()
            })
    }

    public func storageProblems(thorough: Bool) throws -> [String] {
        try statement(thorough ? "PRAGMA integrity_check" : "PRAGMA quick_check").map { $0.string(0) }.filter {
            $0 != "ok"
        }
    }

    public func danglingReferences() throws -> [DanglingReference] {
        try statement("PRAGMA foreign_key_check").map {
            DanglingReference(table: $0.string(0), rowID: $0.int64(1), parent: $0.string(2))
        }
    }

    public func photosWithImpossibleDisplayName() throws -> [(uniqueName: String, displayName: [UInt8])] {
        try statement(
            """
            SELECT unique_name, CAST(display_name AS BLOB) FROM photo
            WHERE instr(CAST(display_name AS BLOB), x'00') > 0 OR instr(display_name, '/') > 0 OR display_name IN ('', '.', '..')
            ORDER BY unique_name
            """
        ).map { ($0.string(0), $0.blob(1)) }
    }

    /// Recorded originals in order of their row id (SQLite steps through them: no cursor
    /// planning to steer, unlike PostgreSQL's).
    public func forEachRecordedOriginal(_ body: (RecordedOriginal) throws -> Void) throws {
        try forEachRow(sql: VerifySQL.recordedOriginals(order: "d.id"), arguments: []) {
            try body(VerifySQL.recordedOriginal($0))
        }
    }

    public func forEachThumbnailHead(headBytes: Int, _ body: (ThumbnailHead) throws -> Void) throws {
        // A BLOB as stored; a value stored as TEXT by an outside write is taken as its bytes.
        let sql = VerifySQL.thumbnailHeads(
            head: "substr(CAST(t.data AS BLOB), 1, ?)", last: "substr(CAST(t.data AS BLOB), -2)",
            length: "length(CAST(t.data AS BLOB))")
        try forEachRow(sql: sql, arguments: [max(1, headBytes)]) { try body(VerifySQL.thumbnailHead($0)) }
    }
}
