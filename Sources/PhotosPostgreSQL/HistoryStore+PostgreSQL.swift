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
    func clause(_ selection: HistorySelection) -> (String, [PGBindable]) {
        switch selection {
        case .rowID(let id): return ("\(rowKey) = ?", [id])
        case .shareID(let id): return ("\(rowKey) = ?", [id])
        case .photo(let id):
            guard let photoRowID else { return ("false", []) }
            return ("\(photoRowID) = ?", [id])
        case .zone(let zone): return ("\(self.zone) = ?", [zone])
        }
    }
}

/// The history's PostgreSQL statements; `appendTagMergeChangesSetWise` is `PhotosSQL`'s
/// `HistoryStore where Self: SQLConnection & SQLJSONDialect` (TagMerge+SQL.swift).
extension PostgresDatabase: HistoryStore {
    /// Draws the token from the sequence `history_token` while holding the transaction-level
    /// advisory lock `historyLock` of this catalog (PostgreSQL docs §9.27.10 `pg_advisory_xact_lock`), which
    /// is released only when the caller's transaction commits or rolls back. So a transaction
    /// that draws a token waits until every transaction that drew a smaller one has ended:
    /// tokens become visible in commit order, and a consumer that has read up to token N never
    /// later finds a transaction with a token ≤ N (issue 12 item 4). The lock is held from
    /// the history row to the commit only (`HistoryWriter` writes its row last), so writers
    /// still run their batches side by side. A sequence never goes back, so a token is greater
    /// than every token handed out before, also after compaction; a rolled-back transaction
    /// (a dry run) leaves a gap.
    public func appendHistoryTransaction(timestamp: String, author: String, context: HistoryContext) throws -> Int64 {
        try run("SELECT pg_advisory_xact_lock(\(historyLock))")
        return try insertReturningID(
            "INSERT INTO history_transaction (token, timestamp, author, context) VALUES (nextval('history_token'), ?, ?, ?) RETURNING token",
            [timestamp, author, context.rawValue])
    }

    /// Rows per multi-row INSERT of `appendHistoryChanges` (7 parameters a row, far below the
    /// protocol's 65,535).
    static let historyChangeBatch = 256

    /// Inserts `changes` in order with multi-row INSERTs of up to `historyChangeBatch` rows:
    /// one round trip per batch, not per change (a dedupe or tag command on a big catalog logs
    /// one change per photo it touches). Rows of one INSERT … VALUES get their ids in order.
    public func appendHistoryChanges(_ changes: [HistoryChange], token: Int64) throws {
        var start = changes.startIndex
        while start < changes.endIndex {
            let part = changes[start..<min(start + PostgresDatabase.historyChangeBatch, changes.endIndex)]
            var values: [PGBindable] = []
            values.reserveCapacity(part.count * 7)
            for change in part {
                let updated: String? =
                    change.updated.isEmpty ? nil : JSONValue.array(change.updated.map(JSONValue.string)).serialized()
                let tombstone: String? = change.tombstone.map {
                    JSONValue.object($0.map { ($0.0, JSONValue.string($0.1)) }).serialized()
                }
                values += [token, change.entity, change.objectID, change.type.rawValue, updated, tombstone, change.zone]
            }
            let rows = Array(repeating: "(?, ?, ?, ?, ?, ?, ?)", count: part.count).joined(separator: ", ")
            try run(
                "INSERT INTO history_change (token, entity, object_id, type, updated, tombstone, zone_id) VALUES \(rows)",
                values)
            start = part.endIndex
        }
    }

    public func deleteChanges(_ entity: HistoryEntity, _ selection: HistorySelection) throws -> [HistoryChange] {
        let source = HistoryRowSource(entity)
        let (clause, args) = source.clause(selection)
        let columns = ([source.objectID, source.zone] + source.tombstone).joined(separator: ", ")
        let keys = entity.tombstoneKeys
        return try statement("SELECT \(columns) FROM \(source.from) WHERE \(clause) ORDER BY \(source.rowKey)")
            .streamedMap(args) { row in
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
        // The compact JSON SQLite's json_object and the row-wise tombstones write
        // (`{"key":"value",…}`, keys in tombstoneKeys order): json_build_object's text has a
        // space around each colon. to_json escapes a string as JSON does (RFC 8259 §7).
        let members = zip(entity.tombstoneKeys, source.tombstone).map {
            "'\"\($0)\":' || COALESCE(to_json(\($1))::text, 'null')"
        }
        let object = "'{' || " + members.joined(separator: " || ',' || ") + " || '}'"
        try run(
            """
            INSERT INTO history_change (token, entity, object_id, type, tombstone, zone_id)
            SELECT ?, ?, \(source.objectID), 'delete', \(object), \(source.zone)
            FROM \(source.from) WHERE \(clause) ORDER BY \(source.rowKey)
            """, [token, entity.rawValue] + args)
    }
}
