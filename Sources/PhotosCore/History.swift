import Foundation
import PhotosSQLite

/// The kind of change a history entry records (Core Data's `NSPersistentHistoryChangeType`).
public enum ChangeType: String, Sendable {
    case insert, update, delete
}

/// One change of a persistent-history transaction (SPEC §4), as `photos history` reads it back.
/// Changes are written only through `HistoryWriter`, which takes a typed `HistoryEntity`.
public struct HistoryChange: Equatable {
    /// Entity name as in the data model: a `HistoryEntity` raw value (`Photo`, `PhotoData`,
    /// `Thumbnail`, `Tag`, `Rating`, `Share`, `Participant`).
    public var entity: String
    /// The object's identifier, by `HistoryEntity.objectIDRule`.
    public var objectID: String
    public var type: ChangeType
    /// Names of the attributes an update changed.
    public var updated: [String]
    /// For deletes, the identifying attributes of the deleted object, in the order of
    /// `HistoryEntity.tombstoneKeys`.
    public var tombstone: [(String, String)]?
    /// The record zone the object is in (after the change).
    public var zone: String?

    public init(entity: String, objectID: String, type: ChangeType, updated: [String] = [],
                tombstone: [(String, String)]? = nil, zone: String? = nil) {
        self.entity = entity
        self.objectID = objectID
        self.type = type
        self.updated = updated
        self.tombstone = tombstone
        self.zone = zone
    }

    public static func == (a: HistoryChange, b: HistoryChange) -> Bool {
        a.entity == b.entity && a.objectID == b.objectID && a.type == b.type && a.updated == b.updated
            && a.zone == b.zone && a.tombstone?.map { $0.0 + "=" + $0.1 } == b.tombstone?.map { $0.0 + "=" + $0.1 }
    }
}

/// The entities persistent history records (SPEC §3, §4). Each declares, in this one place, its
/// object identifier and the one tombstone shape its deletes carry, whatever command deletes it
/// (`delete`, `purge`, `rating delete`, `tag delete`, `tag rename`, `dedupe-tags`, `share add`,
/// `share uninvite`, `verify --repair`): the tombstone is always read from the row itself, by
/// `HistoryWriter.delete` one object at a time or by `HistoryWriter.deleteSetWise` in one
/// INSERT … SELECT, both generated from `source`. A zone has no history entity of its own: a
/// share's id is its zone's id, and the Share change stands for both.
public enum HistoryEntity: String, CaseIterable, Sendable {
    case photo = "Photo"
    case photoData = "PhotoData"
    case thumbnail = "Thumbnail"
    case tag = "Tag"
    case rating = "Rating"
    case share = "Share"
    case participant = "Participant"

    /// The children that a photo's deletion cascades to (SPEC §3: photoData, thumbnail, ratings
    /// cascade), in the order their deletes are recorded, before the Photo's own.
    public static let photoChildren: [HistoryEntity] = [.rating, .thumbnail, .photoData]

    /// How one entity's rows are read: the FROM clause (table aliases `p` photo, `d` photo_data,
    /// `th` thumbnail, `t` tag, `r` rating, `s` share, `pa` participant) and the SQL expressions
    /// of its row key, object identifier, zone and tombstone values (all TEXT).
    struct RowSource {
        var from: String
        var rowKey: String
        var objectID: String
        var zone: String
        /// The photo row id, for the entities deleted with a photo.
        var photoRowID: String?
        var tombstone: [(key: String, value: String)]
    }

    var source: RowSource {
        switch self {
        case .photo:
            return RowSource(from: "photo p LEFT JOIN photo_data d ON d.photo_id = p.id", rowKey: "p.id",
                             objectID: "p.unique_name", zone: "p.zone_id", photoRowID: "p.id",
                             tombstone: [("uniqueName", "p.unique_name"), ("sha256", "COALESCE(d.sha256, '')")])
        case .photoData:
            return RowSource(from: "photo_data d JOIN photo p ON p.id = d.photo_id", rowKey: "d.id",
                             objectID: "CAST(d.id AS TEXT)", zone: "p.zone_id", photoRowID: "p.id",
                             tombstone: [("photo", "p.unique_name"), ("sha256", "d.sha256")])
        case .thumbnail:
            return RowSource(from: "thumbnail th JOIN photo p ON p.id = th.photo_id", rowKey: "th.id",
                             objectID: "CAST(th.id AS TEXT)", zone: "p.zone_id", photoRowID: "p.id",
                             tombstone: [("photo", "p.unique_name")])
        case .rating:
            return RowSource(from: "rating r JOIN photo p ON p.id = r.photo_id", rowKey: "r.id",
                             objectID: "CAST(r.id AS TEXT)", zone: "p.zone_id", photoRowID: "p.id",
                             tombstone: [("photo", "p.unique_name"), ("value", "CAST(r.value AS TEXT)")])
        case .tag:
            return RowSource(from: "tag t", rowKey: "t.id", objectID: "t.uuid", zone: "t.zone_id", photoRowID: nil,
                             tombstone: [("name", "t.name"), ("uuid", "t.uuid")])
        case .share:
            return RowSource(from: "share s", rowKey: "s.id", objectID: "s.id", zone: "s.id", photoRowID: nil,
                             tombstone: [("id", "s.id"), ("title", "s.title")])
        case .participant:
            return RowSource(from: "participant pa", rowKey: "pa.id", objectID: "CAST(pa.id AS TEXT)", zone: "pa.share_id",
                             photoRowID: nil, tombstone: [("share", "pa.share_id"), ("email", "pa.email")])
        }
    }

    /// The keys of this entity's delete tombstone, in the order they are written (SPEC §4: a
    /// deleted tag keeps its name and uuid, a deleted photo its uniqueName and SHA-256).
    public var tombstoneKeys: [String] { source.tombstone.map(\.key) }

    /// What the change's object identifier is, in words (the man page's HISTORY section).
    public var objectIDRule: String {
        switch self {
        case .photo: return "the photo's uniqueName"
        case .tag: return "the tag's uuid"
        case .share: return "the share's id (its zone's id)"
        case .photoData, .thumbnail, .rating, .participant: return "the row id (decimal)"
        }
    }
}

/// Which rows of an entity a delete names.
public enum HistorySelection: Sendable {
    /// One row, by its row id.
    case rowID(Int64)
    /// One share, by its id.
    case shareID(String)
    /// The rows belonging to one photo (by the photo's row id): the photo itself, its photo
    /// data, thumbnail and ratings. Selects nothing of other entities.
    case photo(Int64)
    /// Every row of the entity in one record zone.
    case zone(String)

    func clause(for source: HistoryEntity.RowSource) -> (String, [SQLBindable]) {
        switch self {
        case .rowID(let id): return ("\(source.rowKey) = ?", [id])
        case .shareID(let id): return ("\(source.rowKey) = ?", [id])
        case .photo(let id):
            guard let column = source.photoRowID else { return ("0", []) }
            return ("\(column) = ?", [id])
        case .zone(let zone): return ("\(source.zone) = ?", [zone])
        }
    }
}

/// The command a history transaction records as its context (SPEC §4), and whose author rule
/// applies.
public enum HistoryContext: String, CaseIterable, Sendable {
    case `import` = "import"
    case delete = "delete"
    case rate = "rate"
    case ratingDelete = "rating delete"
    case tagAdd = "tag add"
    case tagRemove = "tag remove"
    case tagDelete = "tag delete"
    case tagRename = "tag rename"
    case shareCreate = "share create"
    case shareAdd = "share add"
    case shareInvite = "share invite"
    case shareUninvite = "share uninvite"
    case shareSet = "share set"
    case purge = "purge"
    case dedupeTags = "dedupe-tags"
    case merge = "merge"
    case verifyRepair = "verify --repair"

    /// The author a maintenance command records unless `--author` is given (SPEC §4: "each
    /// maintenance command uses its own, e.g. `dedupe-tags`"); nil for the user's commands.
    public var maintenanceAuthor: String? {
        switch self {
        case .purge: return "purge"
        case .dedupeTags: return "dedupe-tags"
        case .merge: return "merge"
        case .verifyRepair: return "verify"
        default: return nil
        }
    }
}

/// Who a history transaction is by (SPEC §4). The one place of the author rule: `--author`
/// wins for every command; otherwise a maintenance command records its own name
/// (`HistoryContext.maintenanceAuthor`) and the user's commands record `user`
/// (`$PHOTOS_AUTHOR`, default `photos`).
public struct HistoryAuthor: Equatable, Sendable, ExpressibleByStringLiteral {
    /// `--author NAME`, when given.
    public var given: String?
    /// `$PHOTOS_AUTHOR`, else `photos`.
    public var user: String

    /// - Parameters:
    ///   - given: `--author`, or nil.
    ///   - user: the default author of the user's own commands.
    public init(given: String? = nil, user: String = "photos") {
        self.given = given
        self.user = user
    }

    /// An explicitly given author, as `--author` (used by every command).
    public init(stringLiteral value: String) { self.init(given: value, user: value) }

    /// No `--author`, no `$PHOTOS_AUTHOR`.
    public static let `default` = HistoryAuthor()

    /// The author recorded for `context`.
    public func name(for context: HistoryContext) -> String {
        given ?? context.maintenanceAuthor ?? user
    }
}

/// The one history writer (ARCHITECTURE principle 2). Create it inside the write transaction
/// whose changes it records, report every insert, update and delete through it, and call
/// `commit()` last, so that the rows and their history commit together or not at all. A
/// command that changes nothing records nothing.
///
/// Changes of one object are merged as Core Data's persistent history does: one change per
/// object per transaction, an update's `updatedProperties` the union of what changed, an insert
/// followed by a delete dropped.
struct HistoryWriter {
    let library: Library
    let author: String
    let context: HistoryContext
    private var log = ChangeLog()
    /// The transaction's token once its row is written.
    private(set) var token: Int64?

    init(_ library: Library, author: HistoryAuthor, context: HistoryContext) {
        self.library = library
        self.author = author.name(for: context)
        self.context = context
    }

    /// True when nothing has been recorded.
    var isEmpty: Bool { token == nil && log.isEmpty }

    /// Records an insert.
    mutating func insert(_ entity: HistoryEntity, _ id: String, zone: String?) {
        log.append(HistoryChange(entity: entity.rawValue, objectID: id, type: .insert, zone: zone))
    }

    /// Records an update of `attributes` (names as in the data model).
    mutating func update(_ entity: HistoryEntity, _ id: String, _ attributes: [String], zone: String?) {
        log.update(entity.rawValue, id, attributes, zone: zone)
    }

    /// Records the deletes of the rows `selection` names, each with its tombstone read from the
    /// row. Call before deleting them.
    /// - Returns: the number of rows recorded.
    /// - Throws: `SQLiteError`.
    @discardableResult
    mutating func delete(_ entity: HistoryEntity, _ selection: HistorySelection) throws -> Int {
        let source = entity.source
        let (clause, args) = selection.clause(for: source)
        let columns = ([source.objectID, source.zone] + source.tombstone.map(\.value)).joined(separator: ", ")
        let rows = try library.db.statement("SELECT \(columns) FROM \(source.from) WHERE \(clause) ORDER BY \(source.rowKey)")
            .map(args) { row in (0..<(2 + source.tombstone.count)).map { row.string($0) } }
        for values in rows {
            let tombstone = zip(source.tombstone.map(\.key), values.dropFirst(2)).map { ($0, $1) }
            log.append(HistoryChange(entity: entity.rawValue, objectID: values[0], type: .delete, tombstone: tombstone, zone: values[1]))
        }
        return rows.count
    }

    /// Records the deletes of the rows `selection` names in one INSERT … SELECT, with the same
    /// tombstones as `delete` (for large sets: `purge` of a 10,000-photo zone). Call before
    /// deleting them. Changes recorded earlier are written first, so the order holds.
    /// - Throws: `SQLiteError`.
    mutating func deleteSetWise(_ entity: HistoryEntity, _ selection: HistorySelection) throws {
        let source = entity.source
        let (clause, args) = selection.clause(for: source)
        guard try library.db.scalarInt("SELECT 1 FROM \(source.from) WHERE \(clause) LIMIT 1", args) != nil else { return }
        let token = try flush()
        let pairs = source.tombstone.map { "'\($0.key)', \($0.value)" }.joined(separator: ", ")
        try library.db.run("""
            INSERT INTO history_change (token, entity, object_id, type, tombstone, zone_id)
            SELECT ?, ?, \(source.objectID), 'delete', json_object(\(pairs)), \(source.zone)
            FROM \(source.from) WHERE \(clause) ORDER BY \(source.rowKey)
            """, [token, entity.rawValue] + args)
    }

    /// Writes the transaction row (once) and the changes collected so far.
    private mutating func flush() throws -> Int64 {
        let token: Int64
        if let existing = self.token {
            token = existing
        } else {
            try library.db.run("INSERT INTO history_transaction (timestamp, author, context) VALUES (?, ?, ?)",
                               [ISODate.string(from: Date()), author, context.rawValue])
            token = library.db.lastInsertRowID
            self.token = token
        }
        let insert = try library.db.statement("INSERT INTO history_change (token, entity, object_id, type, updated, tombstone, zone_id) VALUES (?, ?, ?, ?, ?, ?, ?)")
        for change in log.changes {
            let updated: String? = change.updated.isEmpty ? nil : JSONValue.array(change.updated.map(JSONValue.string)).serialized()
            let tombstone: String? = change.tombstone.map { JSONValue.object($0.map { ($0.0, JSONValue.string($0.1)) }).serialized() }
            try insert.run([token, change.entity, change.objectID, change.type.rawValue, updated, tombstone, change.zone])
        }
        log = ChangeLog()
        return token
    }

    /// Writes what was recorded as one history transaction, unless nothing was (SPEC §4).
    /// - Returns: the token (monotonically increasing; AUTOINCREMENT keeps it so after
    ///   compaction), or nil when nothing was recorded.
    /// - Throws: `SQLiteError`.
    @discardableResult
    mutating func commit() throws -> Int64? {
        guard !isEmpty else { return nil }
        return try flush()
    }
}
