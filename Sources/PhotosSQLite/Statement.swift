import CSQLite
import Foundation
import PhotosSQL

/// A value bound to a parameter or read from a column (`PhotosSQL.SQLValue`, shared with the
/// PostgreSQL backend).
public typealias SQLValue = PhotosSQL.SQLValue
/// Types that bind themselves to a statement parameter (`PhotosSQL.SQLBindable`).
public typealias SQLBindable = PhotosSQL.SQLBindable

/// One prepared statement. It is finalized when the object is released.
///
/// Parameters are bound by position (1-based, as `sqlite3_bind_*`); SQL is always parameterised.
public final class Statement {
    let handle: OpaquePointer
    unowned let database: Database
    /// The SQL text this statement was prepared from.
    public let sql: String

    init(database: Database, sql: String) throws {
        var stmt: OpaquePointer?
        let rc = sqlite3_prepare_v2(database.handle, sql, -1, &stmt, nil)
        guard rc == SQLITE_OK, let stmt else {
            throw SQLiteError(handle: database.handle, code: rc, sql: sql)
        }
        self.handle = stmt
        self.database = database
        self.sql = sql
    }

    deinit { sqlite3_finalize(handle) }

    /// Resets the statement and binds `values` to parameters 1…n.
    /// - Throws: `SQLiteError` when a value cannot be bound.
    @discardableResult
    public func bind(_ values: [SQLBindable]) throws -> Statement {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        for (index, value) in values.enumerated() {
            try bind(value.sqlValue, at: Int32(index + 1))
        }
        return self
    }

    private func bind(_ value: SQLValue, at index: Int32) throws {
        let rc: Int32
        switch value {
        case .null: rc = sqlite3_bind_null(handle, index)
        case .integer(let v): rc = sqlite3_bind_int64(handle, index, v)
        case .real(let v): rc = sqlite3_bind_double(handle, index, v)
        case .text(let v): rc = sqlite3_bind_text(handle, index, v, -1, photos_sqlite_transient())
        case .blob(let v):
            rc = v.withUnsafeBytes { buf in
                sqlite3_bind_blob64(
                    handle, index, buf.baseAddress ?? UnsafeRawPointer(bitPattern: 1), sqlite3_uint64(buf.count),
                    photos_sqlite_transient())
            }
        }
        guard rc == SQLITE_OK else { throw SQLiteError(handle: database.handle, code: rc, sql: sql) }
    }

    /// Steps once. Returns true when a row is available, false when the statement is done.
    /// - Throws: `SQLiteError` (busy, constraint, I/O …).
    public func step() throws -> Bool {
        let rc = sqlite3_step(handle)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let error = SQLiteError(handle: database.handle, code: rc, sql: sql)
            sqlite3_reset(handle)
            throw error
        }
    }

    /// Binds `values`, runs the statement to completion and resets it.
    /// - Throws: `SQLiteError`.
    public func run(_ values: [SQLBindable] = []) throws {
        try bind(values)
        while try step() {}
        sqlite3_reset(handle)
    }

    /// Binds `values` and calls `body` for each row.
    /// - Throws: `SQLiteError`, or what `body` throws.
    public func forEach(_ values: [SQLBindable] = [], _ body: (Row) throws -> Void) throws {
        try bind(values)
        defer { sqlite3_reset(handle) }
        let row = Row(statement: self)
        while try step() { try body(row) }
    }

    /// Binds `values` and returns the first row mapped by `body`, or nil when there is none.
    /// - Throws: `SQLiteError`, or what `body` throws.
    public func first<T>(_ values: [SQLBindable] = [], _ body: (Row) throws -> T) throws -> T? {
        try bind(values)
        defer { sqlite3_reset(handle) }
        guard try step() else { return nil }
        return try body(Row(statement: self))
    }

    /// Binds `values` and maps every row with `body`.
    /// - Throws: `SQLiteError`, or what `body` throws.
    public func map<T>(_ values: [SQLBindable] = [], _ body: (Row) throws -> T) throws -> [T] {
        var result: [T] = []
        try forEach(values) { result.append(try body($0)) }
        return result
    }
}

/// The current row of a statement; valid only inside the closure that received it.
public struct Row: SQLRow {
    let statement: Statement

    /// Number of columns in the result.
    public var count: Int { Int(sqlite3_column_count(statement.handle)) }

    /// True when column `index` (0-based) is NULL.
    public func isNull(_ index: Int) -> Bool {
        sqlite3_column_type(statement.handle, Int32(index)) == SQLITE_NULL
    }
    /// Column `index` (0-based) as an integer; NULL reads as 0.
    public func int(_ index: Int) -> Int { Int(sqlite3_column_int64(statement.handle, Int32(index))) }
    /// Column `index` as a 64-bit integer; NULL reads as 0.
    public func int64(_ index: Int) -> Int64 { sqlite3_column_int64(statement.handle, Int32(index)) }
    /// Column `index` as a double; NULL reads as 0.
    public func double(_ index: Int) -> Double { sqlite3_column_double(statement.handle, Int32(index)) }
    /// Column `index` as text; NULL reads as "".
    public func string(_ index: Int) -> String {
        guard let p = sqlite3_column_text(statement.handle, Int32(index)) else { return "" }
        return String(cString: p)
    }
    /// Column `index` as text, or nil when NULL.
    public func optionalString(_ index: Int) -> String? { isNull(index) ? nil : string(index) }
    /// Column `index` as an integer, or nil when NULL.
    public func optionalInt(_ index: Int) -> Int? { isNull(index) ? nil : int(index) }
    /// Column `index` as bytes; NULL reads as empty.
    public func blob(_ index: Int) -> [UInt8] {
        let n = Int(sqlite3_column_bytes(statement.handle, Int32(index)))
        guard n > 0, let p = sqlite3_column_blob(statement.handle, Int32(index)) else { return [] }
        return Array(UnsafeRawBufferPointer(start: p, count: n))
    }
    /// Column `index` as bytes (`blob`); NULL reads as empty.
    public func bytes(_ index: Int) -> [UInt8] { blob(index) }
    /// Column `index` when its storage class is INTEGER, else nil.
    public func storedInteger(_ index: Int) -> Int64? {
        sqlite3_column_type(statement.handle, Int32(index)) == SQLITE_INTEGER ? int64(index) : nil
    }
    /// Column `index` as a tagged value.
    public func value(_ index: Int) -> SQLValue {
        switch sqlite3_column_type(statement.handle, Int32(index)) {
        case SQLITE_INTEGER: return .integer(int64(index))
        case SQLITE_FLOAT: return .real(double(index))
        case SQLITE_TEXT: return .text(string(index))
        case SQLITE_BLOB: return .blob(blob(index))
        default: return .null
        }
    }
}

extension Statement {
    /// Prepares a statement outside the connection's cache, for a query that stays open while
    /// other (cached) statements run.
    /// - Throws: `SQLiteError` when the SQL does not compile.
    public static func prepare(_ database: Database, _ sql: String) throws -> Statement {
        try Statement(database: database, sql: sql)
    }
}

extension Statement {
    /// `map([], body)`: every row of a statement without parameters.
    public func map<T>(_ body: (Row) throws -> T) throws -> [T] { try map([], body) }
    /// `first([], body)`.
    public func first<T>(_ body: (Row) throws -> T) throws -> T? { try first([], body) }
    /// `forEach([], body)`.
    public func forEach(_ body: (Row) throws -> Void) throws { try forEach([], body) }
}
