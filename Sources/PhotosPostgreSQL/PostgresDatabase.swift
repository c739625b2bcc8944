import CPq
import PhotosModel
import Foundation

/// One libpq connection to the PostgreSQL database holding a library's catalog.
///
/// A connection is used from one thread at a time. Statements are parameterised (`?` in the
/// SQL text this module writes, numbered `$1…$n` before it reaches the server) and prepared once
/// per connection and parameter types (`PQprepare`/`PQexecPrepared`, libpq docs §34.3.1).
/// Parameters travel in text format except BYTEA, which travels binary; results come in text.
public final class PostgresDatabase {
    let connection: OpaquePointer
    /// The connection's options without the password.
    public let info: ConnectionInfo
    /// Only for scrubbing the password out of libpq's and the server's messages.
    private let scrubber: ConnectionInfo
    /// The connection string as given (a password included), for another connection to the
    /// same database (`openSnapshotReaders`).
    let connectionString: String
    private var prepared: [String: PGStatement] = [:]
    /// Statements planned at every execution (`planningEachExecution(_:)`), by SQL text.
    private var replanned: [String: PGStatement] = [:]
    private var nextStatementNumber = 0
    /// Rows changed by the last INSERT, UPDATE or DELETE (`PQcmdTuples`).
    public private(set) var changes = 0
    /// Seconds a statement waits for another session's lock (`setBusyTimeout`).
    public private(set) var busyTimeout: Double = 30
    private var closed = false
    /// The `FETCH` sent ahead by `PGStatement.forEach(prefetching:)` whose result is not
    /// received yet (at most one: libpq runs one command at a time per connection).
    private var pendingFetch: String?
    /// Results of fetches sent ahead, received early because another statement had to run
    /// (`settlePendingFetch`), by their `FETCH` text (which names the cursor).
    private var prefetched: [String: Result<PGResult, any Error>] = [:]

    /// How a transaction takes its locks.
    public enum TransactionKind: Sendable {
        /// A read-only snapshot of the whole catalog (`REPEATABLE READ READ ONLY`), for
        /// commands that read several tables and must see one state.
        case read
        /// A writer that may run beside other writers (`READ COMMITTED`, and the catalog
        /// writer lock in shared mode), relying on UNIQUE constraints with `ON CONFLICT`
        /// (`PostgresPhotoWriter`) and on the history lock for its invariants. `LibraryStore`'s
        /// write transactions use `.exclusive`.
        case write
        /// A writer that excludes every other writer (the catalog writer lock in exclusive
        /// mode), as SQLite's `BEGIN IMMEDIATE` does: every `LibraryStore.writeTransaction`
        /// (Core reads, decides and writes in one transaction).
        case exclusive
    }

    /// Rows per page of the scans that page through large tables (thumbnails: about 1,000 ×
    /// 10 KiB in memory at a time).
    public static let pageRows = 1000

    /// The base of the advisory lock key of the catalog writer lock (PostgreSQL docs §13.3.5),
    /// mixed with the catalog's schema into `writerLock`.
    public static let writerLockKey: Int64 = 0x7068_6f74_6f73_0001
    /// The base of the advisory lock key under which a history token is assigned, mixed with
    /// the catalog's schema into `historyLock`.
    public static let historyLockKey: Int64 = 0x7068_6f74_6f73_0002

    /// The advisory lock key of this catalog's writer lock: taken shared by `.write` and
    /// exclusive by `.exclusive` transactions, for the transaction. Advisory locks belong to
    /// the whole database, not to a schema (PostgreSQL docs §13.3.5), so the key is
    /// `writerLockKey` mixed with the catalog's schema (`current_schema()`, `lockKey`): two
    /// libraries whose catalogs are schemas of one database (`options=-csearch_path=…`) do not
    /// wait for each other's writers.
    public private(set) var writerLock: Int64 = PostgresDatabase.writerLockKey
    /// The advisory lock key under which this catalog assigns history tokens
    /// (`appendHistoryTransaction`): `historyLockKey` mixed with the catalog's schema.
    public private(set) var historyLock: Int64 = PostgresDatabase.historyLockKey

    /// `base` mixed with the schema name `schema`: `base` XOR the 64-bit FNV-1a hash of the
    /// name's UTF-8 bytes (the same in every process, so every connection to one catalog
    /// takes the same lock).
    public static func lockKey(_ base: Int64, schema: String) -> Int64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in schema.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        return base ^ Int64(bitPattern: hash)
    }

    /// Connects.
    /// - Parameters:
    ///   - connectionString: a libpq connection string (libpq docs §34.1.1), passed through.
    ///   - busyTimeout: seconds a statement waits for another session's lock (`lock_timeout`)
    ///     before failing with `55P03` (busy).
    /// - Throws: `PostgresError` (class `08` when the server cannot be reached; a refused login
    ///   `PostgresError.loginRefusal`'s SQLSTATE: `28P01` a wrong password, `28000` no such
    ///   role or a `pg_hba.conf` rejection, `3D000` no such database, `42501` no CONNECT
    ///   privilege), its message naming the server without the password.
    public init(_ connectionString: String, busyTimeout: Double = 30) throws {
        let scrubber = try ConnectionInfo(connectionString)
        guard let connection = PQconnectdb(connectionString) else {
            throw PostgresError(sqlState: "53200", message: "out of memory while connecting")
        }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = scrubber.scrub(
                String(cString: PQerrorMessage(connection)).trimmingCharacters(in: .whitespacesAndNewlines))
            PQfinish(connection)
            // libpq gives no SQLSTATE for a failed connection; a refused login is worded by the
            // server ("password authentication failed for user …", `role "…" does not exist`).
            throw PostgresError(
                sqlState: PostgresError.loginRefusal(message) ?? PostgresError.unavailability(message) ?? "08006",
                message: "cannot connect to \(scrubber.display): \(PostgresDatabase.oneLine(message))")
        }
        PQsetNoticeProcessor(connection, photos_pq_ignore_notice, nil)
        self.connection = connection
        self.scrubber = scrubber
        self.connectionString = connectionString
        self.info = scrubber.withoutPassword
        do {
            try execute("SET client_min_messages = warning; SET timezone = 'UTC'")
            setBusyTimeout(busyTimeout)
            // The catalog's schema: the first of the search path that exists ("" for none).
            let schema = try scalarString("SELECT current_schema()") ?? ""
            writerLock = PostgresDatabase.lockKey(PostgresDatabase.writerLockKey, schema: schema)
            historyLock = PostgresDatabase.lockKey(PostgresDatabase.historyLockKey, schema: schema)
        } catch {
            PQfinish(connection)
            throw error
        }
    }

    deinit { close() }

    /// libpq's multi-line message (a line, then a tab-indented hint: "…failed: Connection
    /// refused\n\tIs the server running…") as one line: its lines trimmed, joined by "; ".
    static func oneLine(_ message: String) -> String {
        message.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }.joined(separator: "; ")
    }

    /// Closes the connection (`PQfinish`); the object is not used afterwards.
    public func close() {
        guard !closed else { return }
        closed = true
        prepared.removeAll()
        replanned.removeAll()
        PQfinish(connection)
    }

    /// The error of `result` (or of the connection when there is no result).
    func error(_ result: OpaquePointer?, sql: String?) -> PostgresError {
        guard let result else {
            let message = scrubber.scrub(String(cString: PQerrorMessage(connection)))
            return PostgresError(
                sqlState: PQstatus(connection) == CONNECTION_BAD ? "08006" : "XX000",
                message: message.trimmingCharacters(in: .whitespacesAndNewlines), sql: sql)
        }
        func field(_ code: UInt8) -> String? {
            PQresultErrorField(result, Int32(code)).map { String(cString: $0) }
        }
        let state = field(UInt8(ascii: "C")) ?? (PQstatus(connection) == CONNECTION_BAD ? "08006" : "XX000")
        let message =
            field(UInt8(ascii: "M"))
            ?? String(cString: PQresultErrorMessage(result))
            .trimmingCharacters(in: .whitespacesAndNewlines)
        return PostgresError(sqlState: state, message: scrubber.scrub(message), sql: sql)
    }

    /// Runs one or more SQL statements that take no parameters (`PQexec`).
    /// - Throws: `PostgresError`.
    public func execute(_ sql: String) throws {
        settlePendingFetch()
        let result = PQexec(connection, sql)
        defer { PQclear(result) }
        let status = result.map(PQresultStatus) ?? PGRES_FATAL_ERROR
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else { throw error(result, sql: sql) }
        changes = Int(String(cString: PQcmdTuples(result))) ?? 0
    }

    /// The statement for `sql` (with `?` placeholders), prepared on first execution.
    /// - Throws: never today; kept throwing to match the SQLite `Database.statement`.
    public func statement(_ sql: String) throws -> PGStatement {
        if let cached = prepared[sql] { return cached }
        let statement = PGStatement(database: self, sql: PGStatement.numberPlaceholders(sql))
        prepared[sql] = statement
        return statement
    }

    /// The statement for `sql` (with `?` placeholders), parsed and planned anew at every
    /// execution (`PQexecParams`, libpq docs §34.3.1) rather than prepared: for a lookup on a
    /// table that the same transaction fills from empty (`sync_entry` during a first reconcile),
    /// where a prepared statement's generic plan, made while the table was empty, stays a
    /// sequential scan however many rows follow (PostgreSQL docs `PREPARE`, "Notes": a generic
    /// plan is chosen after five executions).
    /// - Throws: never today; kept throwing to match `statement(_:)`.
    public func planningEachExecution(_ sql: String) throws -> PGStatement {
        if let cached = replanned[sql] { return cached }
        let statement = PGStatement(
            database: self, sql: PGStatement.numberPlaceholders(sql), plansEachExecution: true)
        replanned[sql] = statement
        return statement
    }

    /// A new name for a prepared statement on this connection.
    func statementName() -> String {
        nextStatementNumber += 1
        return "photos_\(nextStatementNumber)"
    }

    /// A new name for a server-side cursor on this connection (`PGStatement.forEach`).
    func cursorName() -> String {
        nextStatementNumber += 1
        return "photos_cursor_\(nextStatementNumber)"
    }

    /// The rows of a statement without parameters (`FETCH` from a cursor), whole.
    /// - Throws: `PostgresError`.
    func fetch(_ sql: String) throws -> PGResult {
        settlePendingFetch()
        return try tuples(PQexec(connection, sql), sql: sql)
    }

    /// `result` when it holds rows; else its error (the result freed).
    private func tuples(_ result: OpaquePointer?, sql: String) throws -> PGResult {
        let status = result.map(PQresultStatus) ?? PGRES_FATAL_ERROR
        guard let result, status == PGRES_TUPLES_OK else {
            let error = error(result, sql: sql)
            PQclear(result)
            throw error
        }
        return PGResult(result)
    }

    /// Sends `sql` (a `FETCH` without parameters) without waiting for its rows
    /// (`PQsendQuery`, libpq docs §34.4 "Asynchronous Command Processing"): the server reads
    /// the next page while this process works on the current one. `receiveFetch(sql)` takes
    /// the rows; any other statement on the connection first receives them (`settlePendingFetch`).
    /// - Throws: `PostgresError` when it cannot be sent.
    func sendFetch(_ sql: String) throws {
        settlePendingFetch()
        guard PQsendQuery(connection, sql) == 1 else { throw error(nil, sql: sql) }
        pendingFetch = sql
    }

    /// The rows of the fetch `sendFetch(sql)` sent.
    /// - Throws: `PostgresError` from the server, or when no such fetch was sent.
    func receiveFetch(_ sql: String) throws -> PGResult {
        settlePendingFetch()
        guard let result = prefetched.removeValue(forKey: sql) else {
            throw PostgresError(
                sqlState: "XX000", message: "no rows were fetched ahead for \(StatementSummary.summary(sql))", sql: sql)
        }
        return try result.get()
    }

    /// Receives the result of a fetch sent ahead, if any, and keeps it for `receiveFetch`, so
    /// that the connection is free for the next command.
    func settlePendingFetch() {
        guard let sql = pendingFetch else { return }
        pendingFetch = nil
        var first: OpaquePointer?
        // A command's results end with NULL (libpq docs §34.4, PQgetResult).
        while let result = PQgetResult(connection) {
            if first == nil { first = result } else { PQclear(result) }
        }
        prefetched[sql] = Result { try tuples(first, sql: sql) }
    }

    /// Forgets the rows fetched ahead for `sql` (a scan that ends early), receiving them first
    /// when they are still on their way.
    func discardFetch(_ sql: String) {
        settlePendingFetch()
        prefetched[sql] = nil
    }

    /// Records the row count of a finished command.
    func noteChanges(_ result: OpaquePointer) {
        changes = Int(String(cString: PQcmdTuples(result))) ?? 0
    }

    /// Runs a parameterised statement that returns no rows.
    /// - Throws: `PostgresError`.
    public func run(_ sql: String, _ values: [PGBindable] = []) throws {
        try statement(sql).run(values)
    }

    /// The first column of the first row as an integer, or nil.
    /// - Throws: `PostgresError`.
    public func scalarInt(_ sql: String, _ values: [PGBindable] = []) throws -> Int? {
        try statement(sql).first(values) { $0.isNull(0) ? nil : $0.int(0) } ?? nil
    }

    /// The first column of the first row as text, or nil.
    /// - Throws: `PostgresError`.
    public func scalarString(_ sql: String, _ values: [PGBindable] = []) throws -> String? {
        try statement(sql).first(values) { $0.optionalString(0) } ?? nil
    }

    /// True while a transaction is open on this connection (`PQtransactionStatus`).
    public var isInTransaction: Bool {
        let status = PQtransactionStatus(connection)
        return status == PQTRANS_INTRANS || status == PQTRANS_INERROR || status == PQTRANS_ACTIVE
    }

    /// Runs `body` in one transaction and ends it the way `body` says (`true`: commit, `false`:
    /// roll back — a dry run). When `body` throws, the transaction is rolled back and the
    /// error rethrown.
    /// - Parameter kind: which locks the transaction takes at its start (`TransactionKind`).
    /// - Throws: `PostgresError` (`55P03`, busy, when a lock is not had within the busy
    ///   timeout), or what `body` throws.
    public func inTransaction(_ kind: TransactionKind, _ body: () throws -> Bool) throws {
        do {
            switch kind {
            case .read: try execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            // READ WRITE also in a session whose default is read-only (a dry run's transactions).
            case .write:
                try execute("BEGIN READ WRITE; SELECT pg_advisory_xact_lock_shared(\(writerLock))")
            case .exclusive:
                try execute("BEGIN READ WRITE; SELECT pg_advisory_xact_lock(\(writerLock))")
            }
        } catch {
            // A lock not had in time leaves the transaction begun and aborted.
            if isInTransaction { try? execute("ROLLBACK") }
            throw error
        }
        do {
            try execute(try body() ? "COMMIT" : "ROLLBACK")
        } catch {
            if isInTransaction { try? execute("ROLLBACK") }
            throw error
        }
    }

    /// Runs `body` in one transaction: commits when it returns, rolls back and rethrows the
    /// first error when it throws.
    /// - Throws: `PostgresError`, or what `body` throws.
    public func transaction<T>(_ kind: TransactionKind = .write, _ body: () throws -> T) throws -> T {
        var result: T?
        try inTransaction(kind) {
            result = try body()
            return true
        }
        guard let result else { preconditionFailure("a committed transaction body returned") }
        return result
    }

    /// Sets how long a statement waits for another session's lock before failing with
    /// `55P03` (`lock_timeout`, PostgreSQL docs §20.11.1); 0 fails at once.
    /// - Parameter seconds: the wait in seconds.
    public func setBusyTimeout(_ seconds: Double) {
        // lock_timeout = 0 would mean "wait for ever": 1 ms is the shortest wait.
        busyTimeout = seconds
        let milliseconds = max(1, min(Int(seconds * 1000), Int(Int32.max)))
        try? execute("SET lock_timeout = \(milliseconds)")
    }

    /// While true, every transaction of this session is read-only
    /// (`default_transaction_read_only`): a dry run keeps it on outside its rolled-back
    /// transactions, as `PRAGMA query_only` does on SQLite.
    /// - Throws: `PostgresError`.
    public func setQueryOnly(_ on: Bool) throws {
        try execute("SET default_transaction_read_only = \(on ? "on" : "off")")
    }
}
