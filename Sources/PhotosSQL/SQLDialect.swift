import PhotosModel

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

    // MARK: catalog/verify

    /// The operator of a pattern match that ignores case (`CatalogStore.keys(_:withPrefix:limit:)`):
    /// SQLite's `LIKE` already folds ASCII letters (https://www.sqlite.org/lang_expr.html#like),
    /// PostgreSQL's `LIKE` folds nothing, its `ILIKE` does (PostgreSQL docs §9.7.1).
    public var caseInsensitiveLike: String {
        switch self {
        case .sqlite: return "LIKE"
        case .postgresql: return "ILIKE"
        }
    }

    /// The condition that `column` equals the next parameter ignoring case
    /// (`CatalogStore.exactKey`): SQLite's `NOCASE` collation folds ASCII letters only and lets an
    /// index on the column serve (https://www.sqlite.org/datatype3.html#collation); PostgreSQL
    /// has no such collation built in, so both sides are folded with `lower` (Unicode letters
    /// too, by the database's locale, PostgreSQL docs §9.4).
    public func equalsIgnoringCase(_ column: String) -> String {
        switch self {
        case .sqlite: return "\(column) = ? COLLATE NOCASE"
        case .postgresql: return "lower(\(column)) = lower(?)"
        }
    }

    /// The function of a BLOB's (BYTEA's) length in bytes (`StatsStore`): SQLite's `length`
    /// counts bytes of a BLOB (https://www.sqlite.org/lang_corefunc.html#length); PostgreSQL's
    /// `length` of a `bytea` does too, but `octet_length` says so for every type (PostgreSQL
    /// docs §9.5), and is what the statement has always used there.
    public var byteLength: String {
        switch self {
        case .sqlite: return "length"
        case .postgresql: return "octet_length"
        }
    }

    /// A parameter that takes a value of `kind` (`photos catalog move`'s copied rows, whose
    /// columns may be all NULL): SQLite needs no type, its parameter takes the value's storage
    /// class (https://www.sqlite.org/datatype3.html); PostgreSQL infers an untyped parameter's
    /// type from its use, and takes a column of NULLs in a multi-row VALUES list for text
    /// (PostgreSQL docs §10.5), so each is cast.
    public func typedParameter(_ kind: CatalogColumn.Kind) -> String {
        switch (self, kind) {
        case (.sqlite, _): return "?"
        case (.postgresql, .integer): return "?::bigint"
        case (.postgresql, .text): return "?::text"
        case (.postgresql, .bytes): return "?::bytea"
        }
    }

    /// The expression of a photo's UTC instant, `YYYY-MM-DDTHH:MM:SS.fff`, that
    /// `CatalogStore.forEachPhoto` compares with an `.instant` bound: its local capture time
    /// less its offset, or, when the offset is unknown, less the next parameter (the bound's
    /// offset in minutes east); a photo without a capture time has its import time (UTC). The
    /// two have no date arithmetic in common: SQLite's date functions take modifiers
    /// (`strftime`, a `printf`-made `'+N minutes'`, https://www.sqlite.org/lang_datefunc.html),
    /// PostgreSQL's take intervals and format with `to_char` (PostgreSQL docs §9.8, §9.9).
    public var photoInstant: String {
        switch self {
        case .sqlite:
            return
                "COALESCE(strftime('%Y-%m-%dT%H:%M:%f', p.capture_date, printf('%+d minutes', -COALESCE(p.capture_offset, ?))), strftime('%Y-%m-%dT%H:%M:%f', p.imported_at))"
        case .postgresql:
            return
                "COALESCE(to_char(p.capture_date::timestamp - make_interval(mins => COALESCE(p.capture_offset, ?::int)), 'YYYY-MM-DD\"T\"HH24:MI:SS.MS'), to_char(p.imported_at::timestamptz AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS'))"
        }
    }
}
