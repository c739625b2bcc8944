import CSQLite

/// A SQLite result code, primary or extended, matchable in a `switch` or `catch` (GRDB's
/// `ResultCode`): `case .busy` matches `SQLITE_BUSY` and every extended code of it
/// (`SQLITE_BUSY_SNAPSHOT`, …), `case .constraintUnique` only that extended code.
///
/// Related SQLite documentation: https://www.sqlite.org/rescode.html
public struct ResultCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The numeric code.
    public let rawValue: Int32

    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// The primary code: the low 8 bits.
    public var primary: ResultCode { ResultCode(rawValue: rawValue & 0xff) }

    public var description: String { "\(rawValue) (\(String(cString: sqlite3_errstr(rawValue))))" }

    /// A primary pattern matches every extended code of it; an extended one only itself.
    public static func ~= (pattern: ResultCode, code: ResultCode) -> Bool {
        pattern.rawValue == pattern.primary.rawValue ? pattern == code.primary : pattern == code
    }

    public static let error = ResultCode(rawValue: SQLITE_ERROR)
    public static let perm = ResultCode(rawValue: SQLITE_PERM)
    public static let busy = ResultCode(rawValue: SQLITE_BUSY)
    public static let locked = ResultCode(rawValue: SQLITE_LOCKED)
    public static let nomem = ResultCode(rawValue: SQLITE_NOMEM)
    public static let readonly = ResultCode(rawValue: SQLITE_READONLY)
    public static let ioerr = ResultCode(rawValue: SQLITE_IOERR)
    public static let corrupt = ResultCode(rawValue: SQLITE_CORRUPT)
    public static let full = ResultCode(rawValue: SQLITE_FULL)
    public static let cantopen = ResultCode(rawValue: SQLITE_CANTOPEN)
    public static let constraint = ResultCode(rawValue: SQLITE_CONSTRAINT)
    public static let auth = ResultCode(rawValue: SQLITE_AUTH)
    public static let notadb = ResultCode(rawValue: SQLITE_NOTADB)
    /// SQLITE_CONSTRAINT_UNIQUE (2067).
    public static let constraintUnique = ResultCode(rawValue: 2067)
    /// SQLITE_CONSTRAINT_FOREIGNKEY (787).
    public static let constraintForeignKey = ResultCode(rawValue: 787)
}

extension SQLiteError {
    /// The extended result code, matchable (`case .busy`, `case .constraintUnique`).
    public var resultCode: ResultCode { ResultCode(rawValue: extendedCode) }
}
