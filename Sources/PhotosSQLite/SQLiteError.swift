import CSQLite
import PhotosModel

/// An error reported by SQLite: its extended result code, the primary code, SQLite's message
/// and the SQL that failed (never the bound values).
///
/// Related SQLite documentation: https://www.sqlite.org/rescode.html
public struct SQLiteError: Error, CustomStringConvertible, Equatable {
    /// The extended result code, e.g. 2067 (`SQLITE_CONSTRAINT_UNIQUE`).
    public let extendedCode: Int32
    /// The message from `sqlite3_errmsg` (or `sqlite3_errstr` when there is no handle).
    public let message: String
    /// The statement that failed, when there was one.
    public let sql: String?

    /// The primary result code: the low 8 bits of the extended code, e.g. 19 (`SQLITE_CONSTRAINT`).
    public var code: Int32 { extendedCode & 0xff }

    /// True for `SQLITE_BUSY` and `SQLITE_LOCKED`: another connection holds the lock past the busy timeout.
    public var isBusy: Bool { code == SQLITE_BUSY || code == SQLITE_LOCKED }

    /// True for `SQLITE_CONSTRAINT` and its extended codes.
    public var isConstraint: Bool { code == SQLITE_CONSTRAINT }

    public init(extendedCode: Int32, message: String, sql: String? = nil) {
        self.extendedCode = extendedCode
        self.message = message
        self.sql = sql
    }

    init(handle: OpaquePointer?, code: Int32, sql: String? = nil) {
        if let handle {
            self.init(
                extendedCode: sqlite3_extended_errcode(handle),
                message: String(cString: sqlite3_errmsg(handle)), sql: sql)
        } else {
            self.init(extendedCode: code, message: String(cString: sqlite3_errstr(code)), sql: sql)
        }
    }

    /// The code, the message and the statement, each cut to a line's worth (`StatementSummary`).
    public var description: String {
        var text =
            "SQLite error \(extendedCode): \(StatementSummary.summary(message, limit: StatementSummary.messageLimit))"
        if let sql { text += " while executing `\(StatementSummary.summary(sql))`" }
        return text
    }
}
