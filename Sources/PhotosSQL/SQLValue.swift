/// A value bound to a statement parameter, or read from a result column: the storage classes
/// both backends share (SQLite's INTEGER, REAL, TEXT, BLOB and NULL,
/// https://www.sqlite.org/datatype3.html; PostgreSQL's `int8`, `float8`, `text` and `bytea`).
public enum SQLValue: Equatable, Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    /// Bytes: a BLOB on SQLite, a BYTEA on PostgreSQL.
    case blob([UInt8])
}

/// Types that bind themselves to a statement parameter.
public protocol SQLBindable {
    /// The parameter value for this Swift value.
    var sqlValue: SQLValue { get }
}

extension Int: SQLBindable { public var sqlValue: SQLValue { .integer(Int64(self)) } }
extension Int64: SQLBindable { public var sqlValue: SQLValue { .integer(self) } }
extension Int32: SQLBindable { public var sqlValue: SQLValue { .integer(Int64(self)) } }
extension Double: SQLBindable { public var sqlValue: SQLValue { .real(self) } }
extension String: SQLBindable { public var sqlValue: SQLValue { .text(self) } }
extension Bool: SQLBindable { public var sqlValue: SQLValue { .integer(self ? 1 : 0) } }
extension Array: SQLBindable where Element == UInt8 { public var sqlValue: SQLValue { .blob(self) } }
extension SQLValue: SQLBindable { public var sqlValue: SQLValue { self } }
extension Optional: SQLBindable where Wrapped: SQLBindable {
    public var sqlValue: SQLValue { self?.sqlValue ?? .null }
}
