/// What differs in the text of a statement between the two catalog backends, for the stores
/// whose statements are otherwise written once in this module. Anchors: SQLKit's `SQLDialect`
/// (one value per database, asked by the shared query builders), GRDB's single
/// `execute(sql:arguments:)`.
///
/// Both backends take `?` placeholders here (PostgreSQL's `PGStatement` rewrites them to
/// `$1…$n`), both accept `INSERT … ON CONFLICT … DO UPDATE/NOTHING` (sqlite.org/lang_upsert.html,
/// PostgreSQL docs "INSERT") and `RETURNING` (SQLite 3.35, sqlite.org/lang_returning.html), so
/// those need no case. Add a member here only for a difference a shared statement meets, each
/// with the reason.
public enum SQLDialect: Sendable, Equatable {
    /// SQLite 3 (https://www.sqlite.org/lang.html).
    case sqlite
    /// PostgreSQL 12 or later (https://www.postgresql.org/docs/current/sql-commands.html).
    case postgresql

    // MARK: sync/history

    /// The larger of two SQL expressions: SQLite's `max` with two arguments is its scalar
    /// maximum (sqlite.org/lang_corefunc.html#max_scalar) and it has no `GREATEST`; PostgreSQL's
    /// `max` is the aggregate only, its scalar maximum is `GREATEST` (PostgreSQL docs §9.18.4).
    /// NULL arguments differ (SQLite gives NULL, PostgreSQL ignores them); the shared
    /// statements pass columns declared NOT NULL.
    public func greatest(_ a: String, _ b: String) -> String {
        switch self {
        case .sqlite: return "max(\(a), \(b))"
        case .postgresql: return "GREATEST(\(a), \(b))"
        }
    }
}
