import Foundation
import PhotosModel
import PhotosSQL

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
                from: "photo p LEFT JOIN photo_data d ON d.photo_id = p.id", rowKey: "p.id",
                objectID: "p.unique_name", zone: "p.zone_id", photoRowID: "p.id",
                tombstone: ["p.unique_name", "COALESCE(d.sha256, '')"])
        case .photoData:
            self.init(
                from: "photo_data d JOIN photo p ON p.id = d.photo_id", rowKey: "d.id",
                objectID: "p.unique_name", zone: "p.zone_id", photoRowID: "p.id",
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
            guard let photoRowID else { return ("0", []) }
            return ("\(photoRowID) = ?", [id])
        case .zone(let zone): return ("\(self.zone) = ?", [zone])
        }
    }
}

/// The history's SQLite statements; `appendTagMergeChangesSetWise` is `PhotosSQL`'s
/// `HistoryStore where Self: SQLConnection & SQLJSONDialect` (TagMerge+SQL.swift).
extension Database: HistoryStore {
    public func appendHistoryTransaction(timestamp: String, author: String, context: HistoryContext) throws -> Int64 {
        try run(
            "INSERT INTO history_transaction (timestamp, author, context) VALUES (?, ?, ?)",
            [timestamp, author, context.rawValue])
        return lastInsertRowID
    }

    public func appendHistoryChanges(_ changes: [HistoryChange], token: Int64) throws {
        guard !changes.isEmpty else { return }
        let insert = try statement(
            "INSERT INTO history_change (token, entity, object_id, type, updated, tombstone, zone_id) VALUES (?, ?, ?, ?, ?, ?, ?)"
        )
        for change in changes {
            let updated: String? =
                change.updated.isEmpty ? nil : JSONValue.array(change.updated.map(JSONValue.string)).serialized()
            let tombstone: String? = change.tombstone.map {
                JSONValue.object($0.map { ($0.0, JSONValue.string($0.1)) }).serialized()
            }
            try insert.run([
                token, change.entity, change.objectID, change.type.rawValue, updated, tombstone, change.zone
            ])
        }
    }

    public func deleteChanges(_ entity: HistoryEntity, _ selection: HistorySelection) throws -> [HistoryChange] {
        let source = HistoryRowSource(entity)
        let (clause, args) = source.clause(selection)
        let columns = ([source.objectID, source.zone] + source.tombstone).joined(separator: ", ")
        let keys = entity.tombstoneKeys
        return try statement("SELECT \(columns) FROM \(source.from) WHERE \(clause) ORDER BY \(source.rowKey)")
            .map(args) { row in
                let tombstone = keys.enumerated().map { ($0.element, row.string(2 + $0.offset)) }
                return HistoryChange(
                    entity: entity.rawValue, objectID: row.string(0), type: .delete, tombstone: tombstone,
                    zone: row.string(1))
            }
    }

    public func hasRows(_ entity: HistoryEntity, _ selection: HistorySelection) throws -> Bool {
        let source = HistoryRowSource(entity)
        let (clause, args) = source.clause(selection)
        return try scalarInt("SELECT 1 FROM \(source.from) WHERE \(clause) LIMIT 1", args) != nil
    }

    public func appendDeleteChangesSetWise(_ entity: HistoryEntity, _ selection: HistorySelection, token: Int64) throws
    {
        let source = HistoryRowSource(entity)
        let (clause, args) = source.clause(selection)
        let pairs = zip(entity.tombstoneKeys, source.tombstone).map { "'\($0)', \($1)" }.joined(separator: ", ")
        try run(
            """
            INSERT INTO history_change (token, entity, object_id, type, tombstone, zone_id)
            SELECT ?, ?, \(source.objectID), 'delete', json_object(\(pairs)), \(source.zone)
            FROM \(source.from) WHERE \(clause) ORDER BY \(source.rowKey)
            """, [token, entity.rawValue] + args)
    }
}
