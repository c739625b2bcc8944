/// The current row of a result, read by column index (0-based) with typed getters: what the
/// statements shared by both catalog backends need from SQLite's `Row` and PostgreSQL's
/// `PGRow` (SwiftPM's SQLite wrapper reads rows the same way, `Row.int64(at:)` …). A row is
/// valid only inside the closure that received it.
public protocol SQLRow {
    /// True when column `index` is NULL.
    func isNull(_ index: Int) -> Bool
    /// Column `index` as a 64-bit integer; NULL reads as 0.
    func int64(_ index: Int) -> Int64
    /// Column `index` as a double; NULL reads as 0.
    func double(_ index: Int) -> Double
    /// Column `index` as text (UTF-8, NUL-free); NULL reads as "".
    func string(_ index: Int) -> String
    /// Column `index` as bytes (a BLOB, a BYTEA), zero bytes included; NULL reads as empty.
    func bytes(_ index: Int) -> [UInt8]
    /// Column `index` when it holds an integer; nil for NULL and, on SQLite (whose columns
    /// take any storage class, https://www.sqlite.org/datatype3.html), for a value stored as
    /// text, real or blob.
    func storedInteger(_ index: Int) -> Int64?
}

extension SQLRow {
    /// Column `index` as an integer; NULL reads as 0.
    public func int(_ index: Int) -> Int { Int(int64(index)) }
    /// Column `index` as text, or nil when NULL.
    public func optionalString(_ index: Int) -> String? { isNull(index) ? nil : string(index) }
    /// Column `index` as an integer, or nil when NULL.
    public func optionalInt(_ index: Int) -> Int? { isNull(index) ? nil : int(index) }
}

/// A catalog connection that runs parameterised statements (`?` placeholders, bound by
/// position) and steps through their rows: the layer under the statements whose text is the
/// same on SQLite and PostgreSQL (`CatalogStore`, `MergeSourceStore`, … in this module). Each
/// backend keeps its dialect (upserts, `RETURNING`, identity columns, locks, pragmas), its
/// transactions and its errors; statements here throw whatever the backend throws
/// (`SQLiteError`, `PostgresError`). GRDB's `Database.execute(sql:arguments:)` and
/// `Row.fetchAll(_:sql:arguments:)` give the names.
///
/// Each backend keeps its statement reuse: SQLite prepares a statement once per connection
/// and SQL text; PostgreSQL prepares it once per connection, SQL text and parameter types.
public protocol SQLConnection: AnyObject {
    /// The row type the backend hands to decoding closures.
    associatedtype ResultRow: SQLRow

    /// Which backend's dialect the connection speaks, for the few statements whose text
    /// differs (`SQLDialect`).
    var dialect: SQLDialect { get }

    /// Runs a statement that returns no rows.
    /// - Throws: the backend's error.
    func execute(sql: String, arguments: [SQLBindable]) throws

    /// The first row mapped by `decode`, or nil when there is none.
    /// - Throws: the backend's error, or what `decode` throws.
    func fetchOne<T>(sql: String, arguments: [SQLBindable], _ decode: (ResultRow) throws -> T) throws -> T?

    /// Every row mapped by `decode`; for results of a few rows (PostgreSQL receives them whole).
    /// - Throws: the backend's error, or what `decode` throws.
    func fetchAll<T>(sql: String, arguments: [SQLBindable], _ decode: (ResultRow) throws -> T) throws -> [T]

    /// Every row mapped by `decode`, for results that grow with the catalog: PostgreSQL reads
    /// them through a cursor in pages (`PGStatement.streamedMap`), so memory holds the mapped
    /// values and one page, not both whole; SQLite steps as `fetchAll` does.
    /// - Throws: the backend's error, or what `decode` throws.
    func fetchPaged<T>(sql: String, arguments: [SQLBindable], _ decode: (ResultRow) throws -> T) throws -> [T]

    /// Calls `body` for each row, in order; `body` may run other statements on this
    /// connection (SQLite steps a statement of its own, not the cached one; PostgreSQL reads
    /// through a cursor in pages, `PGStatement.forEach`).
    /// - Throws: the backend's error, or what `body` throws.
    func forEachRow(sql: String, arguments: [SQLBindable], _ body: (ResultRow) throws -> Void) throws

    /// Every row mapped by `decode`, as `fetchAll`, but planned for these arguments at every
    /// execution instead of by a plan kept for the statement text: for lookups on a table the
    /// same transaction fills from empty (`sync_entry` during a first reconcile), where
    /// PostgreSQL's generic plan of a prepared statement, made over the empty table, stays a
    /// sequential scan (PostgreSQL docs, `PREPARE`, Notes). SQLite's default is `fetchAll`
    /// (its planner sees the table as it is at each `sqlite3_step` after a schema or
    /// statistics change, and the cached statement costs no round trip).
    /// - Throws: the backend's error, or what `decode` throws.
    func fetchAllPlanningEachExecution<T>(
        sql: String, arguments: [SQLBindable], _ decode: (ResultRow) throws -> T
    ) throws -> [T]

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    var changes: Int { get }

    // MARK: sync/history

    /// The backend's error for a catalog that breaks an invariant its migrations keep (a row
    /// a migration inserts is missing, so the catalog was changed by hand): an `SQLiteError`
    /// (`SQLITE_ERROR`), a `PostgresError` (`XX000`, internal error), so that the shared
    /// statements throw what the rest of the backend throws.
    /// - Parameters:
    ///   - message: what is wrong, in words.
    ///   - sql: the statement (or its outline) that found it.
    func catalogInvariantError(_ message: String, sql: String) -> any Error
}

extension SQLConnection {
    public func fetchAllPlanningEachExecution<T>(
        sql: String, arguments: [SQLBindable], _ decode: (ResultRow) throws -> T
    ) throws -> [T] {
        try fetchAll(sql: sql, arguments: arguments, decode)
    }

    /// The first column of the first row as an integer, or nil (no row, or NULL).
    /// - Throws: the backend's error.
    public func fetchInt(sql: String, arguments: [SQLBindable]) throws -> Int? {
        try fetchOne(sql: sql, arguments: arguments) { $0.isNull(0) ? nil : $0.int(0) } ?? nil
    }

    /// The first column of the first row as text, or nil (no row, or NULL).
    /// - Throws: the backend's error.
    public func fetchString(sql: String, arguments: [SQLBindable]) throws -> String? {
        try fetchOne(sql: sql, arguments: arguments) { $0.optionalString(0) } ?? nil
    }
}
