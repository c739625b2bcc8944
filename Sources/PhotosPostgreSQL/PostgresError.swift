import PhotosModel

/// An error reported by PostgreSQL or by libpq: its SQLSTATE, the server's primary message and
/// the SQL that failed (never the bound values, never the connection's password).
///
/// Classified into the same kinds as `SQLiteError` (libpq docs §34.3 `PQresultErrorField`,
/// PostgreSQL docs Appendix A "PostgreSQL Error Codes"):
/// - busy (the CLI's exit 75): `40001` serialization_failure, `40P01` deadlock_detected,
///   `55P03` lock_not_available (a lock wait longer than `lock_timeout`, which the busy timeout
///   sets), `57014` query_canceled, `57P03` cannot_connect_now, and class `08` (connection
///   exception: the server refused or dropped the connection). A server that is down or
///   restarting is a temporary failure: the same command later succeeds, as after a lock.
/// - refused (77): a connection the server refused at login (`isLoginRefused`): class `28`
///   (invalid authorization: wrong password, no such role, a `pg_hba.conf` rule),
///   `3D000` invalid_catalog_name (no such database), `42501` (no CONNECT privilege).
/// - not writable (77): class `28` (invalid authorization) and `42501` insufficient_privilege,
///   `25006` read_only_sql_transaction.
/// - unavailable (75): a server that is up but takes no connection now (`isUnavailable`:
///   `53300` too_many_connections, `57P03` cannot_connect_now, when connecting).
/// - I/O (74): class `53` (insufficient resources: disk full, out of memory) and `58` (system
///   error).
/// - corrupt (65): class `XX` (internal error: data corrupted, index corrupted).
/// - anything else (`23505` unique_violation, `23503` foreign_key_violation, syntax) is a bug.
public struct PostgresError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The five-character SQLSTATE, e.g. `23505`; `08006` for a connection libpq could not make
    /// or lost (libpq reports no SQLSTATE then).
    public let sqlState: String
    /// The server's primary message (`PG_DIAG_MESSAGE_PRIMARY`) or libpq's, with the password
    /// of the connection string (if any) replaced by `***`.
    public let message: String
    /// The statement that failed, when there was one.
    public let sql: String?

    public init(sqlState: String, message: String, sql: String? = nil) {
        self.sqlState = sqlState
        self.message = message
        self.sql = sql
    }

    /// The SQLSTATE class: its first two characters.
    public var sqlStateClass: String { String(sqlState.prefix(2)) }

    /// True when another session held a lock past `lock_timeout`, a serializable or deadlocked
    /// transaction was cancelled, or the server is unreachable: retrying later can succeed.
    public var isBusy: Bool {
        ["40001", "40P01", "55P03", "57014", "57P03"].contains(sqlState) || sqlStateClass == "08"
    }

    /// True when the server could not be reached or dropped the connection (class `08`).
    public var isConnectionFailure: Bool { sqlStateClass == "08" }

    /// True for `23505` unique_violation.
    public var isUniqueViolation: Bool { sqlState == "23505" }

    /// True for class `23` (integrity constraint violation).
    public var isConstraint: Bool { sqlStateClass == "23" }

    /// True when the server refused the connection at login: set by `PostgresDatabase.init` for
    /// the refusals `PostgresError.loginRefusal(_:)` recognises.
    public var isLoginRefused: Bool {
        sql == nil && (sqlStateClass == "28" || sqlState == "3D000" || sqlState == "42501")
    }

    /// The SQLSTATE of a refused login, from the message libpq reports for a connection that
    /// failed (libpq gives no SQLSTATE then, libpq docs §34.2 `PQerrorMessage`): the server's
    /// FATAL messages in English (PostgreSQL's `ClientAuthentication`, `InitPostgres`;
    /// `lc_messages` of another language is not recognised, and the connection failure stays
    /// class `08`). nil for anything else (a server that cannot be reached).
    /// - `28P01` invalid_password: "password authentication failed", "no password supplied";
    /// - `28000` invalid_authorization_specification: another "authentication failed" (peer,
    ///   ident, cert), "no pg_hba.conf entry", "pg_hba.conf rejects", `role "…" does not
    ///   exist`, `role "…" is not permitted to log in` (NOLOGIN);
    /// - `3D000` invalid_catalog_name: `database "…" does not exist`;
    /// - `42501` insufficient_privilege: "permission denied for database" (no CONNECT privilege).
    public static func loginRefusal(_ message: String) -> String? {
        if message.contains("password authentication failed") || message.contains("no password supplied") {
            return "28P01"
        }
        if message.contains("authentication failed") || message.contains("no pg_hba.conf entry")
            || message.contains("pg_hba.conf rejects") || message.contains("is not permitted to log in")
            || (message.contains("role \"") && message.contains("does not exist"))
        {
            return "28000"
        }
        if message.contains("database \"") && message.contains("does not exist") { return "3D000" }
        if message.contains("permission denied for database") {
            return "42501"
        }
        return nil
    }

    /// The SQLSTATE of a server that is up but takes no connection now, from libpq's message
    /// for the failed connection (libpq docs §34.2 `PQerrorMessage`; the server's FATAL
    /// messages in English, PostgreSQL's `InitPostgres` and `postmaster.c`), or nil:
    /// - `53300` too_many_connections: "sorry, too many clients already", "remaining connection
    ///   slots are reserved", "too many connections for role/database" (CONNECTION LIMIT);
    /// - `57P03` cannot_connect_now: "the database system is starting up", "is shutting down",
    ///   "is in recovery mode", "is not yet accepting connections".
    /// Retrying later can succeed: `isUnavailable`.
    public static func unavailability(_ message: String) -> String? {
        if message.contains("too many clients already") || message.contains("remaining connection slots are reserved")
            || message.contains("too many connections for role")
            || message.contains("too many connections for database")
        {
            return "53300"
        }
        if message.contains("the database system is starting up")
            || message.contains("the database system is shutting down")
            || message.contains("the database system is in recovery mode")
            || message.contains("the database system is not yet accepting connections")
        {
            return "57P03"
        }
        return nil
    }

    /// True for a connection the server took no part of now (`unavailability`: 53300, 57P03
    /// when connecting): a temporary failure.
    public var isUnavailable: Bool { sql == nil && (sqlState == "53300" || sqlState == "57P03") }

    /// True when this role may not write (class `28`, `42501`, `25006`).
    public var isPermission: Bool { sqlStateClass == "28" || sqlState == "42501" || sqlState == "25006" }

    /// True for resource and system errors (classes `53`, `58`).
    public var isIO: Bool { sqlStateClass == "53" || sqlStateClass == "58" }

    /// True for class `XX` (internal error, data or index corrupted).
    public var isCorrupt: Bool { sqlStateClass == "XX" }

    /// The SQLSTATE, the message and the statement, each cut to a line's worth
    /// (`StatementSummary`: a 30 KB statement is named by its first 160 characters).
    public var description: String {
        var text =
            "PostgreSQL error \(sqlState): \(StatementSummary.summary(message, limit: StatementSummary.messageLimit))"
        if let sql { text += " while executing `\(StatementSummary.summary(sql))`" }
        return text
    }
}
