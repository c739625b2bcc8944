import Foundation
import PhotosCore
import PhotosPostgreSQL
import PhotosSQLite

/// A library catalog for tests to inspect and tamper rows, backend-neutral: the same SQL runs
/// on whichever backend holds the catalog (SQLite's `photos.sqlite`, or the PostgreSQL
/// database `catalog.postgresql` names). Both backends have the same tables and columns
/// (`PostgresSchema` mirrors `Schema` migration for migration) and both take `?` placeholders
/// (PhotosPostgreSQL numbers them `$1…$n`, `PGStatement.numberPlaceholders`).
///
/// Write SQL both backends run alike. Avoid:
/// - SQLite-only syntax: `PRAGMA`, `sqlite_master`, `rowid`, `typeof`, `INSERT OR IGNORE/REPLACE`
///   (write `ON CONFLICT … DO NOTHING`), `IFNULL` (`COALESCE`), the scalar `min(a, b)`/`max(a, b)`,
///   `group_concat`, `printf`, `hex`, `randomblob`, `datetime`/`strftime`, `glob`, `LIMIT -1`,
///   `BEGIN IMMEDIATE` (`beginWriteTransaction`), double-quoted string literals.
/// - PostgreSQL-only syntax: `::` casts, `string_agg`, `RETURNING` is fine on both.
/// - Selecting a comparison (`SELECT a = b`): 0/1 on SQLite, `t`/`f` on PostgreSQL; use `CASE`.
/// - Values of the wrong type (text in an INTEGER column: SQLite stores it, PostgreSQL refuses),
///   and a text parameter compared with an integer column (PostgreSQL has no `bigint = text`).
/// - `lastInsertRowID` after an INSERT that names the id (PostgreSQL's `lastval()` is the
///   identity sequence's); `insert(_:_:)` (`RETURNING id`) holds on both.
/// - Dangling references: PostgreSQL always enforces foreign keys; tamper inside
///   `withoutForeignKeys`.
/// - A second `photo_data` row with the same `sha256`: UNIQUE on PostgreSQL before migration 7
///   (issue 31 A1), never on SQLite; `allowDuplicateOriginals` drops a leftover constraint.
/// - Result text of reals (Swift's `description` on SQLite, PostgreSQL's `float8` output): the
///   schema has no REAL column; keep arithmetic integral.
public final class TestCatalog {
    private enum Connection {
        case sqlite(Database)
        case postgres(PostgresDatabase)
    }
    private let connection: Connection

    /// The backend holding this catalog.
    public var backend: TestDatabase.Backend {
        if case .postgres = connection { return .postgresql }
        return .sqlite
    }

    /// The catalog of `library`, through the library's own connection (so that statements run
    /// inside the library's transactions and see its uncommitted rows).
    public init(_ library: Library) {
        if let postgres = library.store as? PostgresDatabase {
            connection = .postgres(postgres)
        } else if let sqlite = library.store as? Database {
            connection = .sqlite(sqlite)
        } else {
            preconditionFailure("the tests' libraries are on SQLite or PostgreSQL")
        }
    }

    /// A connection of its own to the catalog of the library folder `root`, on the backend the
    /// folder names (`TestDatabase.backend(ofLibraryAt:)`; SQLite when it has no catalog).
    /// - Parameter readOnly: open read-only (SQLite: `SQLITE_OPEN_READONLY`; PostgreSQL:
    ///   `default_transaction_read_only`).
    /// - Throws: `SQLiteError` or `PostgresError` when the catalog cannot be opened.
    public init(root: String, readOnly: Bool = false) throws {
        if TestDatabase.backend(ofLibraryAt: root) == .postgresql {
            let db = try PostgresDatabase(try PostgresCatalogBackend.recordedConnection(root: root) ?? "")
            if readOnly { try db.setQueryOnly(true) }
            connection = .postgres(db)
        } else {
            connection = .sqlite(try Database(path: SQLiteCatalogBackend.databasePath(root: root), readOnly: readOnly))
        }
    }

    /// The catalog on an open SQLite connection (a database a test migrated by hand).
    public init(sqlite db: Database) { connection = .sqlite(db) }

    /// The catalog on an open PostgreSQL connection (a schema a test migrated by hand).
    public init(postgres db: PostgresDatabase) { connection = .postgres(db) }

    /// Every row of `sql` run with `arguments`, each column as text (integers in decimal,
    /// blobs as `\x` and lowercase hex as PostgreSQL prints BYTEA, NULL as nil).
    /// - Throws: the backend's error (`SQLiteError`, `PostgresError`).
    public func rows(_ sql: String, _ arguments: [SQLBindable] = []) throws -> [[String?]] {
        try statement(sql).map(arguments) { row in (0..<row.count).map { row.text($0) } }
    }

    /// The first column of the first row of `sql` as text (as `rows`), or nil when there is
    /// no row or it is NULL.
    /// - Throws: the backend's error.
    public func scalar(_ sql: String, _ arguments: [SQLBindable] = []) throws -> String? {
        try statement(sql).first(arguments) { $0.text(0) } ?? nil
    }

    /// The first column of the first row as an integer, or nil.
    /// - Throws: the backend's error.
    public func scalarInt(_ sql: String, _ arguments: [SQLBindable] = []) throws -> Int? {
        try statement(sql).first(arguments) { $0.isNull(0) ? nil : $0.int(0) } ?? nil
    }

    /// The first column of the first row as text, or nil.
    /// - Throws: the backend's error.
    public func scalarString(_ sql: String, _ arguments: [SQLBindable] = []) throws -> String? {
        try statement(sql).first(arguments) { $0.optionalString(0) } ?? nil
    }

    /// Runs one parameterised statement.
    /// - Throws: the backend's error.
    public func run(_ sql: String, _ arguments: [SQLBindable] = []) throws {
        try statement(sql).run(arguments)
    }

    /// Runs an INSERT with `RETURNING id` appended and returns the new row's id.
    /// - Throws: the backend's error.
    @discardableResult
    public func insert(_ sql: String, _ arguments: [SQLBindable] = []) throws -> Int64 {
        try statement(sql + " RETURNING id").first(arguments) { $0.int64(0) } ?? 0
    }

    /// Runs one or more statements without parameters (`sqlite3_exec`, `PQexec`).
    /// - Throws: the backend's error.
    public func execute(_ sql: String) throws {
        switch connection {
        case .sqlite(let db): try db.execute(sql)
        case .postgres(let db): try db.execute(sql)
        }
    }

    /// The id of the row the last INSERT on this connection made (SQLite's
    /// `last_insert_rowid()`, PostgreSQL's `lastval()`: the identity sequence's last value,
    /// so only after an INSERT that let the id be assigned).
    /// - Throws: `PostgresError` when this session drew no identity yet.
    public var lastInsertRowID: Int64 {
        get throws {
            switch connection {
            case .sqlite(let db): return db.lastInsertRowID
            case .postgres(let db): return Int64(try db.scalarInt("SELECT lastval()") ?? 0)
            }
        }
    }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    public var changes: Int {
        switch connection {
        case .sqlite(let db): return db.changes
        case .postgres(let db): return db.changes
        }
    }

    /// Begins a transaction that holds the catalog's writer lock, as a writing `photos`
    /// process does (SQLite `BEGIN IMMEDIATE`; PostgreSQL the writer advisory lock,
    /// `PostgresDatabase.writerLock`): other writers wait, then exit 75. End it with `rollback`.
    /// - Throws: the backend's error.
    public func beginWriteTransaction() throws {
        switch connection {
        case .sqlite(let db): try db.execute("BEGIN IMMEDIATE")
        case .postgres(let db):
            try db.execute("BEGIN READ WRITE; SELECT pg_advisory_xact_lock(\(db.writerLock))")
        }
    }

    /// Rolls back the transaction `beginWriteTransaction` began.
    /// - Throws: the backend's error.
    public func rollback() throws { try execute("ROLLBACK") }

    /// Runs `body` with foreign keys not enforced on this connection, for tests that make
    /// dangling references on purpose (SQLite `PRAGMA foreign_keys = OFF`, outside a
    /// transaction; PostgreSQL `session_replication_role = replica`, which skips the
    /// foreign-key triggers — the test server's user is a superuser).
    /// - Throws: the backend's error, or what `body` throws.
    public func withoutForeignKeys<T>(_ body: () throws -> T) throws -> T {
        switch connection {
        case .sqlite(let db):
            try db.execute("PRAGMA foreign_keys = OFF")
            defer { try? db.execute("PRAGMA foreign_keys = ON") }
            return try body()
        case .postgres(let db):
            try db.execute("SET session_replication_role = replica")
            defer { try? db.execute("SET session_replication_role = DEFAULT") }
            return try body()
        }
    }

    /// Lets the catalog hold two `photo_data` rows with one SHA-256, as SQLite's schema does,
    /// for tests of damage that `verify` finds or that maintenance must survive: on PostgreSQL
    /// drops the UNIQUE constraint `photo_data_sha256_key` of catalogs before migration 7
    /// (issue 12 item 3; gone since issue 31 A1, the rule holds per zone); nothing on SQLite.
    /// - Throws: the backend's error.
    public func allowDuplicateOriginals() throws {
        if backend == .postgresql {
            try execute("ALTER TABLE photo_data DROP CONSTRAINT IF EXISTS photo_data_sha256_key")
        }
    }

    /// Makes every DELETE from `table` fail with `message`, as a damaged or hostile catalog
    /// might (a trigger: SQLite `RAISE(ABORT, …)`; PostgreSQL a PL/pgSQL `RAISE EXCEPTION`,
    /// SQLSTATE P0001), for tests of a command interrupted between its steps.
    /// - Throws: the backend's error.
    public func refuseDeletes(from table: String, message: String) throws {
        switch backend {
        case .sqlite:
            try execute(
                "CREATE TRIGGER refuse_delete_\(table) BEFORE DELETE ON \(table) BEGIN SELECT RAISE(ABORT, '\(message)'); END"
            )
        case .postgresql:
            try execute(
                """
                CREATE FUNCTION refuse_delete_\(table)() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN RAISE EXCEPTION '\(message)'; END $$;
                CREATE TRIGGER refuse_delete_\(table) BEFORE DELETE ON \(table)
                FOR EACH ROW EXECUTE FUNCTION refuse_delete_\(table)();
                """)
        }
    }

    /// The statement for `sql` (`?` placeholders); its rows are read whole when it runs.
    /// - Throws: never today (kept throwing as the backends' `statement`).
    public func statement(_ sql: String) throws -> TestStatement { TestStatement(catalog: self, sql: sql) }

    /// Runs `sql` and returns its rows, each column a tagged value (PostgreSQL's text
    /// results as `.text`).
    fileprivate func fetch(_ sql: String, _ arguments: [SQLBindable]) throws -> [TestRow] {
        switch connection {
        case .sqlite(let db):
            return try db.statement(sql).map(arguments) { row in
                TestRow(values: (0..<row.count).map { row.value($0) }, postgres: false)
            }
        case .postgres(let db):
            let values = arguments.map { argument -> PGValue in
                switch argument.sqlValue {
                case .null: return .null
                case .integer(let v): return .integer(v)
                case .real(let v): return .real(v)
                case .text(let v): return .text(v)
                case .blob(let v): return .bytes(v)
                }
            }
            return try db.statement(sql).map(values) { row in
                TestRow(
                    values: (0..<row.count).map { row.optionalString($0).map(SQLValue.text) ?? .null }, postgres: true)
            }
        }
    }
}

/// A statement of a `TestCatalog`, with the shape of the backends' statements.
public struct TestStatement {
    let catalog: TestCatalog
    /// The SQL, with `?` placeholders.
    public let sql: String

    /// Runs the statement with `arguments`.
    /// - Throws: the backend's error.
    public func run(_ arguments: [SQLBindable] = []) throws { _ = try catalog.fetch(sql, arguments) }

    /// Every row mapped by `body`.
    /// - Throws: the backend's error, or what `body` throws.
    public func map<T>(_ arguments: [SQLBindable] = [], _ body: (TestRow) throws -> T) throws -> [T] {
        try catalog.fetch(sql, arguments).map(body)
    }

    /// The first row mapped by `body`, or nil when there is none.
    /// - Throws: the backend's error, or what `body` throws.
    public func first<T>(_ arguments: [SQLBindable] = [], _ body: (TestRow) throws -> T) throws -> T? {
        try catalog.fetch(sql, arguments).first.map(body)
    }

    /// Calls `body` for each row.
    /// - Throws: the backend's error, or what `body` throws.
    public func forEach(_ arguments: [SQLBindable] = [], _ body: (TestRow) throws -> Void) throws {
        try catalog.fetch(sql, arguments).forEach(body)
    }

    /// `map([], body)`.
    public func map<T>(_ body: (TestRow) throws -> T) throws -> [T] { try map([], body) }
    /// `first([], body)`.
    public func first<T>(_ body: (TestRow) throws -> T) throws -> T? { try first([], body) }
    /// `forEach([], body)`.
    public func forEach(_ body: (TestRow) throws -> Void) throws { try forEach([], body) }
}

/// One result row of a `TestCatalog` statement, read whole (valid after the statement ran).
public struct TestRow {
    /// The columns: SQLite's tagged values, or PostgreSQL's text results as `.text`.
    public let values: [SQLValue]
    let postgres: Bool

    /// Number of columns.
    public var count: Int { values.count }

    /// True when column `column` (0-based) is NULL.
    public func isNull(_ column: Int) -> Bool { values[column] == .null }

    /// Column `column` as a 64-bit integer; NULL and text that is no integer read as 0.
    public func int64(_ column: Int) -> Int64 {
        switch values[column] {
        case .integer(let v): return v
        case .real(let v): return Int64(v)
        case .text(let s): return Int64(s) ?? 0
        case .blob, .null: return 0
        }
    }

    /// Column `column` as an integer; NULL reads as 0.
    public func int(_ column: Int) -> Int { Int(int64(column)) }

    /// Column `column` as an integer, or nil when NULL.
    public func optionalInt(_ column: Int) -> Int? { isNull(column) ? nil : int(column) }

    /// Column `column` as a double; NULL reads as 0.
    public func double(_ column: Int) -> Double {
        switch values[column] {
        case .integer(let v): return Double(v)
        case .real(let v): return v
        case .text(let s): return Double(s) ?? 0
        case .blob, .null: return 0
        }
    }

    /// Column `column` as text (integers in decimal); NULL reads as "".
    public func string(_ column: Int) -> String { optionalString(column) ?? "" }

    /// Column `column` as text, or nil when NULL.
    public func optionalString(_ column: Int) -> String? {
        switch values[column] {
        case .integer(let v): return String(v)
        case .real(let v): return String(v)
        case .text(let s): return s
        case .blob(let b): return String(decoding: b, as: UTF8.self)
        case .null: return nil
        }
    }

    /// Column `column` as bytes (a BLOB on SQLite, a BYTEA on PostgreSQL); NULL reads as empty.
    public func blob(_ column: Int) -> [UInt8] {
        switch values[column] {
        case .blob(let b): return b
        case .text(let s) where postgres: return TestRow.bytea(s)
        case .text(let s): return Array(s.utf8)
        case .integer, .real, .null: return []
        }
    }

    /// Column `column` as `rows` gives it: text, integers in decimal, blobs as `\x` and hex.
    public func text(_ column: Int) -> String? {
        if case .blob(let b) = values[column] { return "\\x" + b.map { String(format: "%02x", $0) }.joined() }
        return optionalString(column)
    }

    /// The bytes of a BYTEA in PostgreSQL's text format (`\x` and two hex digits a byte,
    /// PostgreSQL docs §8.4.1); other text reads as empty.
    static func bytea(_ text: String) -> [UInt8] {
        let digits = Array(text.utf8)
        guard digits.count >= 2, digits[0] == UInt8(ascii: "\\"), digits[1] == UInt8(ascii: "x") else { return [] }
        func nibble(_ u: UInt8) -> UInt8 {
            switch u {
            case 0x30...0x39: return u - 0x30
            case 0x61...0x66: return u - 0x61 + 10
            case 0x41...0x46: return u - 0x41 + 10
            default: return 0
            }
        }
        return stride(from: 2, to: digits.count - 1, by: 2).map { nibble(digits[$0]) << 4 | nibble(digits[$0 + 1]) }
    }
}
