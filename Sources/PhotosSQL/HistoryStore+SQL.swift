import PhotosModel

/// How one history entity's rows are read in SQL: the FROM clause (table aliases `p` photo,
/// `d` photo_data, `th` thumbnail, `t` tag, `r` rating, `s` share, `pa` participant) and the
/// expressions of its row key, object identifier, zone and tombstone values (all TEXT), in the
/// order of `HistoryEntity.tombstoneKeys`. The one place that knows these columns: the
/// one-at-a-time and the set-wise delete are both generated from it.
struct HistoryRowSource {
    var from: String
    var rowKey: String
    var objectID: String
    var zone: String
    /// The photo row id, for the entities deleted with a photo.
    var photoRowID: String?
    var tombstone: [String]

    init(_ entity: HistoryEntity) {
        switch entity {
        case .photo:
            self.init(
                from: "photo p LEFT JOIN photo_data d ON d.photo_id = p.id AND d.role = 'primary'", rowKey: "p.id",
                objectID: "p.unique_name", zone: "p.zone_id", photoRowID: "p.id",
                tombstone: ["p.unique_name", "COALESCE(d.sha256, '')"])
        case .photoData:
            self.init(
                from: "photo_data d JOIN photo p ON p.id = d.photo_id", rowKey: "d.id",
                objectID: OriginalsSQL.objectID, zone: "p.zone_id", photoRowID: "p.id",
                tombstone: ["p.unique_name", "d.sha256"])
        case .thumbnail:
            self.init(
                from: "thumbnail th JOIN photo p ON p.id = th.photo_id", rowKey: "th.id",
                objectID: "p.unique_name", zone: "p.zone_id", photoRowID: "p.id",
                tombstone: ["p.unique_name"])
        case .rating:
            self.init(
                from: "rating r JOIN photo p ON p.id = r.photo_id", rowKey: "r.id",
                objectID: "r.uuid", zone: "p.zone_id", photoRowID: "p.id",
                tombstone: ["p.unique_name", "CAST(r.value AS TEXT)"])
        case .tag:
            self.init(
                from: "tag t", rowKey: "t.id", objectID: "t.uuid", zone: "t.zone_id", photoRowID: nil,
                tombstone: ["t.name", "t.uuid"])
        case .share:
            self.init(
                from: "share s", rowKey: "s.id", objectID: "s.id", zone: "s.id", photoRowID: nil,
                tombstone: ["s.id", "s.title"])
        case .participant:
            self.init(
                from: "participant pa", rowKey: "pa.id", objectID: "pa.uuid", zone: "pa.share_id",
                photoRowID: nil, tombstone: ["pa.share_id", "pa.email"])
        }
        precondition(tombstone.count == entity.tombstoneKeys.count, "one tombstone value per key of \(entity)")
    }

    private init(from: String, rowKey: String, objectID: String, zone: String, photoRowID: String?, tombstone: [String])
    {
        self.from = from
        self.rowKey = rowKey
        self.objectID = objectID
        self.zone = zone
        self.photoRowID = photoRowID
        self.tombstone = tombstone
    }

    /// The WHERE clause and its arguments for `selection`.
    func clause(_ selection: HistorySelection) -> (String, [SQLBindable]) {
        switch selection {
        case .rowID(let id): return ("\(rowKey) = ?", [id])
        case .shareID(let id): return ("\(rowKey) = ?", [id])
        case .photo(let id):
            // No row: `1 = 0` is false on both backends (PostgreSQL takes no integer as a
            // condition, SQLite before 3.23 no FALSE).
            guard let photoRowID else { return ("1 = 0", []) }
            return ("\(photoRowID) = ?", [id])
        case .zone(let zone): return ("\(self.zone) = ?", [zone])
        }
    }
}

/// The history's statements on any `SQLConnection`: a deleted row's tombstone read back, the
/// one-row check, and the set-wise delete changes. Each backend keeps
/// `appendHistoryTransaction` (SQLite's AUTOINCREMENT rowid; PostgreSQL's sequence under an
/// advisory lock, so that tokens become visible in commit order) and `appendHistoryChanges`
/// (SQLite's one cached INSERT a change; PostgreSQL's multi-row INSERTs, one round trip a
/// batch), both writing `HistorySQL.changeArguments`. `appendTagMergeChangesSetWise` is in
/// TagMerge+SQL.swift.
extension HistoryStore where Self: SQLConnection {
    /// Read in pages on PostgreSQL (`fetchPaged`): a zone's delete reads a row per photo.
    public func deleteChanges(_ entity: HistoryEntity, _ selection: HistorySelection) throws -> [HistoryChange] {
        let source = HistoryRowSource(entity)
        let (clause, args) = source.clause(selection)
        let columns = ([source.objectID, source.zone] + source.tombstone).joined(separator: ", ")
        let keys = entity.tombstoneKeys
        return try fetchPaged(
            sql: "SELECT \(columns) FROM \(source.from) WHERE \(clause) ORDER BY \(source.rowKey)", arguments: args
        ) { row in
            let tombstone = keys.enumerated().map { ($0.element, row.string(2 + $0.offset)) }
            return HistoryChange(
                entity: entity.rawValue, objectID: row.string(0), type: .delete, tombstone: tombstone,
                zone: row.string(1))
        }
    }

    public func hasRows(_ entity: HistoryEntity, _ selection: HistorySelection) throws -> Bool {
        let source = HistoryRowSource(entity)
        let (clause, args) = source.clause(selection)
        return try fetchInt(sql: "SELECT 1 FROM \(source.from) WHERE \(clause) LIMIT 1", arguments: args) != nil
    }

    /// The tombstones are the compact JSON the row-wise path writes (`SQLDialect.jsonObjectText`).
    public func appendDeleteChangesSetWise(_ entity: HistoryEntity, _ selection: HistorySelection, token: Int64) throws
    {
        let source = HistoryRowSource(entity)
        let (clause, args) = source.clause(selection)
        let object = dialect.jsonObjectText(
            zip(entity.tombstoneKeys, source.tombstone).map { (key: $0, value: $1) })
        try execute(
            sql: """
                INSERT INTO history_change (token, entity, object_id, type, tombstone, zone_id)
                SELECT ?, ?, \(source.objectID), 'delete', \(object), \(source.zone)
                FROM \(source.from) WHERE \(clause) ORDER BY \(source.rowKey)
                """, arguments: [token, entity.rawValue] + args)
    }
}

extension HistorySQL {
    /// The columns of `history_change` a change is inserted with, in the order of
    /// `changeArguments`.
    public static let changeInsertColumns = "token, entity, object_id, type, updated, tombstone, zone_id"

    /// The seven arguments of one change's row (`changeInsertColumns`): `updated` as a compact
    /// JSON array (NULL when empty), `tombstone` as a compact JSON object (NULL when none).
    public static func changeArguments(_ change: HistoryChange, token: Int64) -> [SQLBindable] {
        let updated: String? =
            change.updated.isEmpty ? nil : JSONValue.array(change.updated.map(JSONValue.string)).serialized()
        let tombstone: String? = change.tombstone.map {
            JSONValue.object($0.map { ($0.0, JSONValue.string($0.1)) }).serialized()
        }
        return [token, change.entity, change.objectID, change.type.rawValue, updated, tombstone, change.zone]
    }
}
