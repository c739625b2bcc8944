/// One value of a catalog row as `photos catalog move` carries it between backends: the three
/// storage classes the schema uses (SQLite's INTEGER, TEXT and BLOB storage classes,
/// https://www.sqlite.org/datatype3.html §2; PostgreSQL's BIGINT/INTEGER, TEXT and BYTEA).
public enum CatalogValue: Equatable, Sendable {
    case null
    case integer(Int64)
    case text(String)
    /// BLOB/BYTEA bytes (thumbnails).
    case bytes([UInt8])
}

/// A column of a catalog table and the kind of value it holds.
public struct CatalogColumn: Sendable, Equatable {
    /// The storage class of a column (`CatalogValue` without NULL).
    public enum Kind: Sendable, Equatable {
        case integer, text, bytes
    }

    /// The column's name, the same on every backend.
    public let name: String
    /// What the column holds (NULL is allowed where the schema allows it).
    public let kind: Kind

    public init(_ name: String, _ kind: Kind) {
        self.name = name
        self.kind = kind
    }
}

/// A table of the catalog as `photos catalog move` copies it: its columns, the key its rows
/// are paged by (the primary key, unique and never NULL) and the identity column whose
/// sequence must continue past the copied values.
public struct CatalogTable: Sendable, Equatable {
    /// The table's name, the same on every backend.
    public let name: String
    /// Every column of the table at `CatalogTables.schemaVersion`, in the order rows carry them.
    public let columns: [CatalogColumn]
    /// The primary key's columns (a prefix-free subset of `columns`): rows are read in this
    /// order, one page after the key of the last row of the page before.
    public let key: [String]
    /// The column filled by an identity/rowid when an insert leaves it out (`id`), or nil.
    public let identity: String?

    public init(_ name: String, _ columns: [CatalogColumn], key: [String], identity: String? = nil) {
        self.name = name
        self.columns = columns
        self.key = key
        self.identity = identity
    }

    /// The positions of `key` in `columns`.
    public var keyIndexes: [Int] { key.compactMap { k in columns.firstIndex { $0.name == k } } }
}

/// Every table of the catalog at schema version `schemaVersion` (SQLite `Schema` and
/// `PostgresSchema` migrations 1–21), in dependency order: a table comes after every table it
/// references, so rows inserted in this order satisfy each foreign key, and rows deleted in the
/// reverse order never cascade.
public enum CatalogTables {
    /// The schema version these tables describe; a catalog of another version is not copied.
    public static let schemaVersion = 22

    private static func i(_ name: String) -> CatalogColumn { CatalogColumn(name, .integer) }
    private static func t(_ name: String) -> CatalogColumn { CatalogColumn(name, .text) }

    /// What a catalog whose tables have `columns` (table name → column names) lacks of these
    /// tables, as "no table NAME" or "no column TABLE.COLUMN" for the first gap in `all`'s
    /// order; nil when it has every table and column (more columns are not a gap).
    public static func firstMissing(in columns: [String: Set<String>]) -> String? {
        for table in all {
            guard let present = columns[table.name] else { return "no table \(table.name)" }
            if let column = table.columns.first(where: { !present.contains($0.name) }) {
                return "no column \(table.name).\(column.name)"
            }
        }
        return nil
    }

    /// The tables, referenced before referencing.
    public static let all: [CatalogTable] = [
        CatalogTable("zone", [t("id"), t("name"), t("scope")], key: ["id"]),
        CatalogTable("share", [t("id"), t("title"), t("created"), t("public_permission")], key: ["id"]),
        CatalogTable(
            "participant",
            [i("id"), t("uuid"), t("share_id"), t("email"), t("role"), t("permission"), t("acceptance")],
            key: ["id"], identity: "id"),
        CatalogTable(
            "photo",
            [
                i("id"), t("unique_name"), t("display_name"), t("imported_at"), t("capture_date"),
                i("capture_offset"), t("capture_source"), i("width"), i("height"), t("format"), i("orientation"),
                t("zone_id"), i("latitude_e7"), i("longitude_e7"), i("altitude_mm"),
                t("kind"), i("duration_ms"), t("video_codec"), t("camera_make"), t("camera_model"), t("lens_model"),
                t("camera_format"), t("title"), t("description"), t("content_identifier"), t("place_name")
            ], key: ["id"], identity: "id"),
        CatalogTable(
            "photo_data", [i("id"), i("photo_id"), t("sha256"), i("byte_size"), t("file_ref"), t("role"), t("format")],
            key: ["id"], identity: "id"),
        CatalogTable(
            "thumbnail", [i("id"), i("photo_id"), CatalogColumn("data", .bytes), i("width"), i("height")],
            key: ["id"], identity: "id"),
        CatalogTable("tag", [i("id"), t("uuid"), t("name"), t("zone_id")], key: ["id"], identity: "id"),
        CatalogTable("photo_tag", [i("photo_id"), i("tag_id")], key: ["photo_id", "tag_id"]),
        CatalogTable(
            "rating", [i("id"), t("uuid"), i("photo_id"), i("value"), t("author")], key: ["id"], identity: "id"),
        CatalogTable("history_transaction", [i("token"), t("timestamp"), t("author"), t("context")], key: ["token"]),
        CatalogTable(
            "history_change",
            [i("id"), i("token"), t("entity"), t("object_id"), t("type"), t("updated"), t("tombstone"), t("zone_id")],
            key: ["id"], identity: "id"),
        CatalogTable("history_consumer", [t("name"), i("token")], key: ["name"]),
        CatalogTable(
            "sync_library", [i("singleton"), t("id"), i("change_token"), i("reconciled_history_token")],
            key: ["singleton"]),
        CatalogTable(
            "sync_entry",
            [
                t("entity"), t("object_id"), t("attribute"), t("value"), t("stamp_time"), t("stamp_library"),
                i("token"), t("zone_id")
            ], key: ["entity", "object_id", "attribute"]),
        CatalogTable("sync_applied", [t("sender"), t("scope"), i("token")], key: ["sender", "scope"]),
        CatalogTable("sync_peer", [t("library_id"), t("scope"), i("acknowledged")], key: ["library_id", "scope"]),
        CatalogTable("sync_membership", [t("zone_id"), t("email"), t("owner"), t("left_at")], key: ["zone_id"]),
        // Issue 31 item A3 (migration 7): the originals root and the library folders of a shared catalog.
        CatalogTable(
            "catalog_originals", [i("singleton"), t("root"), t("catalog_id"), t("recorded_at"), i("unknown_folders")],
            key: ["singleton"]),
        CatalogTable("catalog_folder", [t("host"), t("folder"), t("first_opened")], key: ["host", "folder"]),
        CatalogTable(
            "photo_file_state",
            [
                i("photo_id"), t("image_sha256"), t("file_tags"), i("file_rating"), t("file_capture_date"),
                i("file_capture_offset"), t("replaced_sha256s")
            ], key: ["photo_id"]),
        // Issue 27 item 1 (migration 17): each photo's perceptual signature.
        CatalogTable(
            "photo_signature",
            [i("photo_id"), i("algorithm"), i("phash"), i("mean_cb"), i("mean_cr"), i("low_information")],
            key: ["photo_id"]),
        // Issue 29 item 1 (migration 19): the library's owner address.
        CatalogTable("library_owner", [i("singleton"), t("email")], key: ["singleton"]),
        // Issue 26 item 3 (migration 21): the gazetteer `places load` filled.
        CatalogTable(
            "place",
            [
                i("geonames_id"), t("name"), t("search_name"), t("admin1"), t("country_code"), t("country_name"),
                i("latitude_e7"), i("longitude_e7"), i("population")
            ], key: ["geonames_id"])
    ]

    /// True when `row` of `table` is one that a new catalog's migrations insert by themselves
    /// (the private scope's zone `default`; the one `sync_library` row with a random library
    /// id), or that the first open of a new catalog records (its originals root and library
    /// folder, issue 31 item A3), so that a catalog holding only those is empty.
    public static func isSeedRow(_ row: [CatalogValue], of table: CatalogTable) -> Bool {
        switch table.name {
        case "zone": return row.first == .text("default")
        case "sync_library", "catalog_originals", "catalog_folder": return true
        default: return false
        }
    }
}

/// Export and import of a whole catalog, table by table, for `photos catalog move` (moving a
/// library's catalog between backends, SQLite ⇄ PostgreSQL): rows of typed values read in
/// pages in key order (memory bounded by one page, thumbnails included), written in one
/// transaction of the target, and the sequences set after the copied values so that ids and
/// history tokens continue where the source left off.
public protocol CatalogCopyStore: AnyObject {
    /// At most `limit` rows of `table` whose key is greater than `after` (nil: from the first),
    /// ordered by key (byte order of UTF-8 for text), each with `table.columns` in order.
    /// - Throws: `CatalogCopyError.unexpectedValue` for a value of another storage class than
    ///   its column's; the store's error.
    func catalogRows(of table: CatalogTable, after key: [CatalogValue]?, limit: Int) throws -> [[CatalogValue]]

    /// Deletes every row of every table of `CatalogTables.all` (in reverse order), in the
    /// caller's write transaction: the seed rows of a new catalog make way for the copied ones.
    /// - Throws: the store's error.
    func deleteAllCatalogRows() throws

    /// Inserts `rows` (each with `table.columns` in order, identity values included) into
    /// `table`, in the caller's write transaction.
    /// - Throws: the store's error (`.constraint` for a row the schema refuses).
    func insertCatalogRows(_ rows: [[CatalogValue]], into table: CatalogTable) throws

    /// After the last insert: moves every identity sequence past the largest copied id and the
    /// history token sequence to `issuedHistoryToken` (`HistoryFeedStore.issuedHistoryToken`
    /// of the source, which compaction may have left above every remaining token), so that the
    /// next transaction gets the token after it (PostgreSQL `setval`, PostgreSQL docs §9.17;
    /// SQLite's `sqlite_sequence`, https://www.sqlite.org/autoinc.html).
    /// - Throws: the store's error.
    func finishCatalogCopy(issuedHistoryToken: Int64) throws

    /// The largest id ever issued per table with an identity (`CatalogTable.identity`), table
    /// name → id: the larger of its largest id and what its sequence remembers (SQLite's
    /// `sqlite_sequence`, PostgreSQL's identity sequence, `is_called` false: 0), so that a copy
    /// continues above ids of rows deleted before it (#31 A8: no id is given twice).
    /// - Throws: the store's error.
    func issuedIdentities() throws -> [String: Int64]

    /// After the last insert (and `finishCatalogCopy`): moves each table's identity sequence
    /// to at least `issued[table]` (`issuedIdentities` of the source), never down.
    /// - Throws: the store's error.
    func continueIdentities(after issued: [String: Int64]) throws

    /// An identity of this store's own database session and catalog (on PostgreSQL the
    /// backend's process id and start time, `pg_stat_activity`, PostgreSQL docs §28.2.3, and
    /// the catalog's schema), for telling whether another store is connected to the same
    /// catalog under another name; nil for a store of a file.
    /// - Throws: the store's error.
    func catalogSessionIdentity() throws -> String?

    /// True when the session `identity` (another store's `catalogSessionIdentity`) is
    /// connected to this store's database and catalog schema, whatever host name or service
    /// it used: both are then one catalog with one writer lock (the advisory lock keys mix in
    /// the schema). Another schema of the same database is another catalog: false. False for a
    /// store of a file.
    /// - Throws: the store's error.
    func sharesDatabase(withSession identity: String) throws -> Bool
}

/// Why a catalog was not copied, typed with the table, column or catalog at fault.
public enum CatalogCopyError: Error, Equatable, CustomStringConvertible {
    /// The target catalog `target` already holds rows (the first found in `table`): a copy
    /// never mixes two catalogs.
    case targetNotEmpty(target: String, table: String)
    /// A catalog's schema version is not the one `CatalogTables` describes.
    case schemaVersion(catalog: String, found: Int, expected: Int)
    /// `table.column` holds a value of another storage class than the schema's (a damaged
    /// SQLite file: SQLite stores what it is given).
    case unexpectedValue(table: String, column: String, found: String)
    /// The target refused rows of `table` (a constraint of its schema, a trigger): `message`
    /// is the database's own words, without the statement. A SQLite catalog can hold what
    /// PostgreSQL's stricter schema refuses (two photos of one original: `photo_data.sha256`
    /// is UNIQUE there).
    case rowsRefused(target: String, table: String, message: String)
    /// The target is the source.
    case sameCatalog(target: String)
    /// The target is in the source's PostgreSQL database (another schema, or the same one
    /// named another way): both share one writer lock, which the copy holds.
    case sameDatabase(target: String)

    public var description: String {
        switch self {
        case let .targetNotEmpty(target, table):
            return "the target catalog \(target) is not empty (table \(table) has rows): copy into a new database"
        case let .schemaVersion(catalog, found, expected):
            return
                "catalog \(catalog) has schema version \(found), the copy needs \(expected) (run 'photos init' first)"
        case let .unexpectedValue(table, column, found):
            return "\(table).\(column) holds \(found), not the column's type: run 'photos verify' on the library"
        case let .rowsRefused(target, table, message):
            return
                "\(target) refused rows of table \(table): \(message) (run 'photos verify' on the library; it reports rows a catalog should not hold)"
        case let .sameCatalog(target):
            return "the library already keeps its catalog in \(target)"
        case let .sameDatabase(target):
            return
                "\(target) is the library's own catalog under another name (the same database and schema)"
        }
    }
}
