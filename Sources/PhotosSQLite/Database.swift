import CSQLite
import Foundation
import PhotosModel

/// One SQLite connection, configured the way every `photos` command needs it:
/// WAL journal, `foreign_keys=ON`, `synchronous=NORMAL` and a busy timeout.
///
/// A connection is used from one thread at a time. Related SQLite documentation:
/// https://www.sqlite.org/wal.html, https://www.sqlite.org/pragma.html
public final class Database {
    let handle: OpaquePointer
    /// The database file's path.
    public let path: String
    /// Seconds a statement waits for another connection's lock (`setBusyTimeout`).
    public private(set) var busyTimeout: Double
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
    ///   - readOnly: open an existing database for reading only (see `openForReading`).
    ///   - busyTimeout: seconds to wait for another connection's lock before failing with BUSY.
    ///   - check: for a writable open, run on the open connection before anything is written
    ///     (the switch to WAL is the first write); what it throws closes the file and is thrown.
    /// - Throws: what `check` throws; `SQLiteError` when the file cannot be opened or configured (for example when
    ///   the journal mode cannot be switched to WAL: `SQLITE_READONLY_*` on a library this
    ///   process may not write).
    public init(
        path: String, readOnly: Bool = false, busyTimeout: Double = 30,
        beforeWriting check: ((Database) throws -> Void)? = nil
    ) throws {
        let db: OpaquePointer
        if readOnly {
            db = try Database.openForReading(path, busyTimeout: busyTimeout)
        } else {
            var opened: OpaquePointer?
            let rc = sqlite3_open_v2(
                path, &opened, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
            guard rc == SQLITE_OK, let opened else {
                let error = SQLiteError(handle: opened, code: rc)
                if let opened { sqlite3_close_v2(opened) }
                throw error
            }
            // A file this process may not write opens read-only without an error; say so
            // now, before a first read creates `-wal`/`-shm` files that it could not remove.
            if sqlite3_db_readonly(opened, "main") == 1 {
                sqlite3_close_v2(opened)
                throw SQLiteError(extendedCode: SQLITE_READONLY, message: "the database file is read-only", sql: nil)
            }
            db = opened
        }
        // Every connection: whatever file it is, schema-defined SQL runs no untrusted function,
        // views, triggers and extensions not at all (issue 31 item 17, `photos_sqlite_harden`).
        let hardened = photos_sqlite_harden(db)
        guard hardened == SQLITE_OK else {
            let error = SQLiteError(handle: db, code: hardened)
            sqlite3_close_v2(db)
            throw error
        }
        self.handle = db
        self.path = path
        self.busyTimeout = busyTimeout
        sqlite3_extended_result_codes(db, 1)
        sqlite3_busy_timeout(db, Int32(max(0, min(busyTimeout * 1000, Double(Int32.max)))))
        Database.registerNormalize(db)
        do {
            try execute("PRAGMA foreign_keys = ON")
            if !readOnly {
                // Before the first write (the WAL switch rewrites the header of a file in
                // another journal mode): a file that is not ours stays as it was.
                try check?(self)
                let mode = try scalarString("PRAGMA journal_mode = WAL")
                guard mode?.lowercased() == "wal" else {
                    throw SQLiteError(
                        extendedCode: SQLITE_ERROR, message: "journal_mode is \(mode ?? "unknown"), not wal",
                        sql: "PRAGMA journal_mode = WAL")
                }
                try execute("PRAGMA synchronous = NORMAL")
                // Checkpoint every 8,192 WAL pages (32 MiB with 4 KiB pages) instead of SQLite's
                // 1,000 (https://www.sqlite.org/pragma.html#pragma_wal_autocheckpoint): an import
                // into a 1,000,000-photo library dirties a random leaf of each unique index per
                // photo (UUIDs, SHA-256s), so its WAL passed 1,000 pages almost every batch and
                // each checkpoint copied and fdatasync'ed the database again: 31 fdatasync calls
                // for 2,000 photos instead of 7, and about 0.9 s more system time
                // (Benchmarks/README.md, import into a big library).
                try execute("PRAGMA wal_autocheckpoint = 8192")
            }
        } catch {
            statementCache.removeAll()
            sqlite3_close_v2(db)
            throw error
        }
    }

    /// Registers the SQL function `normalize(text)`: its argument in Unicode NFC (Unicode
    /// Standard Annex #15), the one-argument form of PostgreSQL's `normalize` (PostgreSQL docs
    /// §9.4), so that statements shared by both backends compare tag names by their normalized
    /// form (a name another program stored decomposed is the same tag, #31 A9). ASCII text and
    /// values that are not text are returned as given; deterministic and innocuous
    /// (https://www.sqlite.org/c3ref/create_function.html).
    static func registerNormalize(_ db: OpaquePointer) {
        sqlite3_create_function_v2(
            db, "normalize", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS, nil,
            { context, count, values in
                guard count == 1, let value = values?[0] else { return sqlite3_result_null(context) }
                guard sqlite3_value_type(value) == SQLITE_TEXT, let text = sqlite3_value_text(value) else {
                    return sqlite3_result_value(context, value)
                }
                let bytes = UnsafeBufferPointer(start: text, count: Int(sqlite3_value_bytes(value)))
                if bytes.allSatisfy({ $0 < 0x80 }) { return sqlite3_result_value(context, value) }
                let normalized = String(decoding: bytes, as: UTF8.self).precomposedStringWithCanonicalMapping
                sqlite3_result_text(context, normalized, -1, photos_sqlite_transient())
            }, nil, nil, nil)
    }

    /// Opens an existing database for reading only, creating nothing and leaving nothing behind,
    /// trying in turn (SQLite's read-only WAL rules, https://www.sqlite.org/wal.html §
    /// "Read-Only Databases"):
    /// 1. read-write without create, with `PRAGMA query_only` — when the file and folder are
    ///    writable, this connection then behaves like every other one (its `-wal`/`-shm` are
    ///    removed by the last connection to close);
    /// 2. `SQLITE_OPEN_READONLY`, only when the `-wal` and `-shm` files exist (a writer has the
    ///    database open, or crashed): their content is read too. Not when they would have to be
    ///    created: files owned by this user would be left in someone else's library;
    /// 3. `immutable=1` — no `-wal`, so the database file holds every commit (a library on
    ///    read-only media, or of another user); SQLite then creates no file and takes no lock.
    /// Each step is checked by reading the schema; a step that fails with a permission or
    /// open error (`SQLITE_READONLY`, `SQLITE_CANTOPEN`, `SQLITE_PERM`, `SQLITE_IOERR`) gives way
    /// to the next. Each step waits up to `busyTimeout` seconds for another connection's lock
    /// (a writer's checkpoint or WAL recovery) before its probe fails with BUSY.
    /// - Throws: `SQLiteError` of the last step when none works, or the first other error.
    static func openForReading(_ path: String, busyTimeout: Double) throws -> OpaquePointer {
        var uri = "file:"
        for byte in path.utf8 {
            let c = Character(Unicode.Scalar(byte))
            if c.isASCII && (c.isLetter || c.isNumber || "/-._~".contains(c)) {
                uri.append(c)
            } else {
                uri += String(format: "%%%02X", byte)
            }
        }
        let attempts: [(String, Int32, Bool)] = [
            (path, SQLITE_OPEN_READWRITE, true),
            (path, SQLITE_OPEN_READONLY, false),
            (uri + "?immutable=1", SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, false)
        ]
        var lastError = SQLiteError(extendedCode: SQLITE_CANTOPEN, message: "unable to open database file")
        let companions = access(path + "-wal", F_OK) == 0 && access(path + "-shm", F_OK) == 0
        for (name, flags, queryOnly) in attempts {
            if flags == SQLITE_OPEN_READONLY && !companions { continue }
            var db: OpaquePointer?
            let rc = sqlite3_open_v2(name, &db, flags | SQLITE_OPEN_NOMUTEX, nil)
            guard rc == SQLITE_OK, let db else {
                lastError = SQLiteError(handle: db, code: rc)
                if let db { sqlite3_close_v2(db) }
                if [SQLITE_CANTOPEN, SQLITE_PERM, SQLITE_READONLY, SQLITE_IOERR].contains(rc & 0xff) { continue }
                throw lastError
            }
            sqlite3_extended_result_codes(db, 1)
            sqlite3_busy_timeout(db, Int32(max(0, min(busyTimeout * 1000, Double(Int32.max)))))
            // Before the probe reads the schema (`photos_sqlite_harden`).
            let hardened = photos_sqlite_harden(db)
            guard hardened == SQLITE_OK else {
                lastError = SQLiteError(handle: db, code: hardened)
                sqlite3_close_v2(db)
                throw lastError
            }
            if queryOnly && sqlite3_db_readonly(db, "main") == 1 {
                sqlite3_close_v2(db)
                continue
            }
            var probe = sqlite3_exec(db, queryOnly ? "PRAGMA query_only = 1" : "SELECT 1", nil, nil, nil)
            if probe == SQLITE_OK { probe = sqlite3_exec(db, "SELECT count(*) FROM sqlite_master", nil, nil, nil) }
            if probe == SQLITE_OK { return db }
            lastError = SQLiteError(handle: db, code: probe)
            sqlite3_close_v2(db)
            if [SQLITE_CANTOPEN, SQLITE_PERM, SQLITE_READONLY, SQLITE_IOERR].contains(probe & 0xff) { continue }
            throw lastError
        }
        throw lastError
    }

    private var isClosed = false

    /// Closes the connection (finalizing its statements); it is not used afterwards. Also done
    /// when the `Database` is released.
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        statementCache.removeAll()
        sqlite3_close_v2(handle)
        workBudget?.deallocate()
        workBudget = nil
    }

    /// The work left to this connection when it reads an untrusted file
    /// (`boundForUntrustedFile`); nil when unbounded. Freed after the connection is closed.
    var workBudget: UnsafeMutablePointer<photos_sqlite_work_budget>?

    deinit { close() }

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

    /// Runs `body` in one transaction and ends it the way `body` says: `.commit` or
    /// `.rollback`. When `body` throws, the transaction is rolled back and the error rethrown.
    /// A dry run is this with `.rollback`: the real code runs and nothing stays (GRDB's
    /// `TransactionCompletion`, https://www.sqlite.org/lang_transaction.html).
    /// - Parameter kind: `.immediate` for every writer (see `TransactionKind`).
    /// - Throws: `SQLiteError` (BUSY when the lock is not had within the busy timeout), or
    ///   what `body` throws.
    public func inTransaction(_ kind: TransactionKind = .immediate, _ body: () throws -> TransactionCompletion) throws {
        try execute("BEGIN \(kind.rawValue)")
        do {
            switch try body() {
            case .commit: try execute("COMMIT")
            case .rollback: try execute("ROLLBACK")
            }
        } catch {
            if isInTransaction { try? execute("ROLLBACK") }
            throw error
        }
    }

    /// Runs `body` in one transaction: commits when it returns, rolls back and rethrows the
    /// first error when it throws.
    /// - Parameter kind: `.immediate` for every writer (see `TransactionKind`).
    /// - Throws: `SQLiteError` (BUSY when the lock is not had within the busy timeout), or
    ///   what `body` throws.
    public func transaction<T>(_ kind: TransactionKind = .immediate, _ body: () throws -> T) throws -> T {
        var result: T?
        try inTransaction(kind) {
            result = try body()
            return .commit
        }
        guard let result else { preconditionFailure("a committed transaction body returned") }
        return result
    }

    /// `PRAGMA query_only` (https://www.sqlite.org/pragma.html#pragma_query_only): while true,
    /// every statement that would change the database file fails with `SQLITE_READONLY`.
    /// A dry run keeps it on outside its always-rolled-back transactions.
    /// - Throws: `SQLiteError`.
    public func setQueryOnly(_ on: Bool) throws {
        try execute("PRAGMA query_only = \(on ? 1 : 0)")
    }

    /// Sets how long a statement waits for another connection's lock before failing with BUSY.
    /// - Parameter seconds: the wait in seconds (0: fail at once).
    public func setBusyTimeout(_ seconds: Double) {
        busyTimeout = seconds
        sqlite3_busy_timeout(handle, Int32(max(0, min(seconds * 1000, Double(Int32.max)))))
    }

    /// `PRAGMA user_version`: the schema version this library was migrated to.
    public var userVersion: Int {
        get throws { try scalarInt("PRAGMA user_version") ?? 0 }
    }
}
