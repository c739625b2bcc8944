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

    /// A SELECT of one column, the elements of the JSON array text bound to its one parameter
    /// as text, in document order: SQLite's `json_each` walks the stored JSON in document order
    /// (https://www.sqlite.org/json1.html#jeach); PostgreSQL has no `json_each` over an array,
    /// `json_array_elements_text` is its reader (PostgreSQL docs §9.16.1), and the parameter
    /// needs its `::json` cast (a bare parameter there is of unknown type).
    public var jsonArrayElementsSQL: String {
        switch self {
        case .sqlite: return "SELECT value FROM json_each(?)"
        case .postgresql: return "SELECT value FROM json_array_elements_text(?::json)"
        }
    }

    /// A SELECT of two columns, key and value (as text) of each member of the JSON object text
    /// bound to its one parameter, in document order (so tombstone keys keep the order they
    /// were written in): SQLite's `json_each`; PostgreSQL's `json_each_text` over `json` (not
    /// `jsonb`, which reorders keys; PostgreSQL docs §9.16.1).
    public var jsonObjectMembersSQL: String {
        switch self {
        case .sqlite: return "SELECT key, value FROM json_each(?)"
        case .postgresql: return "SELECT key, value FROM json_each_text(?::json)"
        }
    }

    /// A FROM item named `alias`: one row per object of the JSON array text bound to its one
    /// parameter, with a column per member named in `columns` (name → type, `bigint` or
    /// `text`), as the set-wise tag merge reads `TagMerge.loserRows`. SQLite has no
    /// `json_to_recordset`: `json_extract` per member over `json_each` gives a JSON integer as
    /// INTEGER and a string as TEXT, so the types are PostgreSQL's (docs §9.16.1
    /// `json_to_recordset`).
    public func jsonRecordsSQL(_ alias: String, _ columns: KeyValuePairs<String, String>) -> String {
        switch self {
        case .sqlite:
            let members = columns.map { "json_extract(value, '$.\($0.key)') AS \($0.key)" }.joined(separator: ", ")
            return "(SELECT \(members) FROM json_each(?)) AS \(alias)"
        case .postgresql:
            let members = columns.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            return "json_to_recordset(?::json) AS \(alias)(\(members))"
        }
    }

    /// A TEXT expression: the compact JSON object (`{"key":"value",…}`, members in the order
    /// given) of `members`, each a key (a literal without quotes or backslashes) and a TEXT
    /// expression, NULL as `null` — the text `JSONValue.serialized()` writes for the row-wise
    /// tombstones. SQLite's `json_object` writes exactly that
    /// (https://www.sqlite.org/json1.html#jobj); PostgreSQL's `json_build_object` puts a space
    /// around each colon, so its text is built from `to_json` of each value, which escapes a
    /// string as JSON does (RFC 8259 §7).
    public func jsonObjectText(_ members: [(key: String, value: String)]) -> String {
        switch self {
        case .sqlite:
            return "json_object(" + members.map { "'\($0.key)', \($0.value)" }.joined(separator: ", ") + ")"
        case .postgresql:
            let parts = members.map { "'\"\($0.key)\":' || COALESCE(to_json(\($0.value))::text, 'null')" }
            return "'{' || " + parts.joined(separator: " || ',' || ") + " || '}'"
        }
    }

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
