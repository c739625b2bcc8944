import Foundation

/// The changes of one write, collected in order, with the updates of one object merged into a
/// single entry: Core Data's persistent history records one change per object per transaction,
/// whose `updatedProperties` is the union of what changed (`NSPersistentHistoryChange`).
public struct ChangeLog {
    public private(set) var changes: [HistoryChange] = []
    private var index: [String: Int] = [:]

    public init() {}

    public var isEmpty: Bool { changes.isEmpty }

    private static func key(_ entity: String, _ id: String) -> String { entity + "\u{0}" + id }

    /// Appends an insert or delete; a delete replaces an earlier update or insert of the object.
    public mutating func append(_ change: HistoryChange) {
        let key = ChangeLog.key(change.entity, change.objectID)
        if let i = index[key] {
            if change.type == .delete && changes[i].type == .insert {
                // Created and deleted in the same transaction: nothing to report.
                changes.remove(at: i)
                reindex()
                return
            }
            if change.type == .delete || changes[i].type == .update {
                changes[i] = change
                return
            }
        }
        index[key] = changes.count
        changes.append(change)
    }

    /// Records an update of `attributes` on one object, merged with an earlier change of it (an
    /// insert in the same transaction already covers every attribute).
    public mutating func update(_ entity: String, _ id: String, _ attributes: [String], zone: String?) {
        let key = ChangeLog.key(entity, id)
        if let i = index[key] {
            guard changes[i].type == .update else { return }
            for a in attributes where !changes[i].updated.contains(a) { changes[i].updated.append(a) }
            if zone != nil { changes[i].zone = zone }
            return
        }
        index[key] = changes.count
        changes.append(HistoryChange(entity: entity, objectID: id, type: .update, updated: attributes, zone: zone))
    }

    /// Appends changes collected elsewhere (for example by `findOrCreateTag`).
    public mutating func append(contentsOf other: [HistoryChange]) {
        for change in other { append(change) }
    }

    private mutating func reindex() {
        index = [:]
        for (i, c) in changes.enumerated() { index[ChangeLog.key(c.entity, c.objectID)] = i }
    }
}
