import Foundation
import PhotosStorage

/// The kind of change a history entry records (Core Data's `NSPersistentHistoryChangeType`).
public enum ChangeType: String, Sendable {
    case insert, update, delete
}

/// One change of a persistent-history transaction (SPEC §4).
public struct HistoryChange: Equatable {
    /// Entity name as in the data model: `Photo`, `PhotoData`, `Thumbnail`, `Tag`, `Rating`,
    /// `Share`, `Participant`.
    public var entity: String
    /// The object's identifier: a photo's uniqueName, a tag's uuid, a row id for the others.
    public var objectID: String
    public var type: ChangeType
    /// Names of the attributes an update changed.
    public var updated: [String]
    /// For deletes, the identifying attributes of the deleted object.
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

extension Library {
    /// Records one history transaction with its changes. Call inside the write transaction whose
    /// changes it describes, so both commit or neither does.
    /// - Parameters:
    ///   - author: the transaction author (`--author`, or the maintenance command's own name).
    ///   - context: the command, e.g. `import`, `delete`.
    /// - Returns: the new token (monotonically increasing; AUTOINCREMENT keeps it so after
    ///   compaction).
    /// - Throws: `SQLiteError`.
    @discardableResult
    public func recordHistory(author: String, context: String, changes: [HistoryChange], at date: Date = Date()) throws -> Int64 {
        try db.run("INSERT INTO history_transaction (timestamp, author, context) VALUES (?, ?, ?)",
                   [ISODate.string(from: date), author, context])
        let token = db.lastInsertRowID
        let insert = try db.statement("INSERT INTO history_change (token, entity, object_id, type, updated, tombstone, zone_id) VALUES (?, ?, ?, ?, ?, ?, ?)")
        for change in changes {
            let updated: String? = change.updated.isEmpty ? nil : JSONValue.array(change.updated.map(JSONValue.string)).serialized()
            let tombstone: String? = change.tombstone.map { JSONValue.object($0.map { ($0.0, JSONValue.string($0.1)) }).serialized() }
            try insert.run([token, change.entity, change.objectID, change.type.rawValue, updated, tombstone, change.zone])
        }
        return token
    }
}
