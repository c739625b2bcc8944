import CSQLite
import Foundation

/// One SQLite connection, configured the way every `photos` command needs it:
/// WAL journal, `foreign_keys=ON`, `synchronous=NORMAL` and a busy timeout.
///
/// A connection is used from one thread at a time. Related SQLite documentation:
/// https://www.sqlite.org/wal.html, https://www.sqlite.org/pragma.html
public final class Database {
    let handle: OpaquePointer
    /// The database file's path.
    public let path: String
    private var statementCache: [String: Statement] = [:]

    /// How a transaction takes its locks (https://www.sqlite.org/lang_transaction.html).
    public enum TransactionKind: String {
        /// Takes the read lock on first read; for read-only work.
        case deferred = "DEFERRED"
        /// Takes the write lock at BEGIN, waiting up to the busy timeout: every writer uses this,
        /// because a deferred read upgraded to a write fails with BUSY without waiting.
        case immediate = "IMMEDIATE"
    }

    /// Opens (and creates, unless `readOnly`) the database at `path`.
    /// - Parameters:
    ///   - path: file path of the database.
    ///   - readOnly: open with `SQLITE_OPEN_READONLY`.
    ///   - busyTimeout: seconds to wait for another connection's lock before failing with BUSY.
    /// - Throws: `SQLiteError` when the file cannot be opened or configured (for example when
    ///   the journal mode cannot be switched to WAL).
    public init(path: String, readOnly: Bool = false, busyTimeout: Double = 30) throws {
        var db: OpaquePointer?
        let flags = (readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE))
            | SQLITE_OPEN_NOMUTEX
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let error = SQLiteError(handle: db, code: rc)
            if let db { sqlite3_close_v2(db) }
            throw error
        }
        self.handle = db
        self.path = path
        sqlite3_extended_result_codes(db, 1)
        sqlite3_busy_timeout(db, Int32(max(0, min(busyTimeout * 1000, Double(Int32.max)))))
        do {
            try execute("PRAGMA foreign_keys = ON")
            if !readOnly {
                let mode = try scalarString("PRAGMA journal_mode = WAL")
                guard mode?.lowercased() == "wal" else {
                    throw SQLiteError(extendedCode: SQLITE_ERROR, message: "journal_mode is \(mode ?? "unknown"), not wal", sql: "PRAGMA journal_mode = WAL")
                }
                try execute("PRAGMA synchronous = NORMAL")
            }
        } catch {
            statementCache.removeAll()
            sqlite3_close_v2(db)
            throw error
        }
    }

    deinit {
        statementCache.removeAll()
        sqlite3_close_v2(handle)
    }

    /// Runs one or more SQL statements that take no parameters.
    /// - Throws: `SQLiteError`.
    public func execute(_ sql: String) throws {
        var errmsg: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &errmsg)
        if rc != SQLITE_OK {
            let message = errmsg.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(rc))
            sqlite3_free(errmsg)
            throw SQLiteError(extendedCode: sqlite3_extended_errcode(handle), message: message, sql: sql)
        }
    }

    /// Prepares `sql` once per connection and returns the cached statement afterwards.
    /// - Throws: `SQLiteError` when the SQL does not compile.
    public func statement(_ sql: String) throws -> Statement {
        if let cached = statementCache[sql] { return cached }
        let statement = try Statement(database: self, sql: sql)
        statementCache[sql] = statement
        return statement
    }

    /// Runs a parameterised statement that returns no rows.
    /// - Throws: `SQLiteError`.
    public func run(_ sql: String, _ values: [SQLBindable] = []) throws {
        try statement(sql).run(values)
    }

    /// The first column of the first row as an integer, or nil.
    /// - Throws: `SQLiteError`.
    public func scalarInt(_ sql: String, _ values: [SQLBindable] = []) throws -> Int? {
        try statement(sql).first(values) { $0.isNull(0) ? nil : $0.int(0) } ?? nil
    }

    /// The first column of the first row as text, or nil.
    /// - Throws: `SQLiteError`.
    public func scalarString(_ sql: String, _ values: [SQLBindable] = []) throws -> String? {
        try statement(sql).first(values) { $0.optionalString(0) } ?? nil
    }

    /// The rowid of the last successful INSERT on this connection.
    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    public var changes: Int { Int(sqlite3_changes(handle)) }

    /// True while a transaction is open on this connection.
    public var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// Runs `body` in one transaction: commits when it returns, rolls back and rethrows the
    /// first error when it throws.
    /// - Parameter kind: `.immediate` for every writer (see `TransactionKind`).
    /// - Throws: `SQLiteError` (BUSY when the lock is not had within the busy timeout), or
    ///   what `body` throws.
    public func transaction<T>(_ kind: TransactionKind = .immediate, _ body: () throws -> T) throws -> T {
        try execute("BEGIN \(kind.rawValue)")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            if isInTransaction { try? execute("ROLLBACK") }
            throw error
        }
    }

    /// `PRAGMA user_version`: the schema version this library was migrated to.
    public var userVersion: Int {
        get throws { try scalarInt("PRAGMA user_version") ?? 0 }
    }
}
