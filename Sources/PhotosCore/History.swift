import Foundation
import PhotosModel

extension Library {
    /// Where history transactions and changes are written.
    var historyStore: any HistoryStore { store }
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
    let store: any HistoryStore
    let author: String
    let context: HistoryContext
    private var log = ChangeLog()
    /// The transaction's token once its row is written.
    private(set) var token: Int64?

    /// Refuses changes to a zone this library may not write (`Library.checkSharedZoneWrites`):
    /// every write of every command is recorded here, so this is the one place the
    /// permission of a zone shared with this library is enforced (SYNC.md "Permissions").
    private let permission: (Set<String>, HistoryContext) throws -> Void

    init(_ library: Library, author: HistoryAuthor, context: HistoryContext) {
        self.store = library.historyStore
        self.author = author.name(for: context)
        self.context = context
        self.permission = { [unowned library] zones, context in
            try library.checkSharedZoneWrites(zones, context: context)
        }
    }

    /// True when nothing has been recorded.
    var isEmpty: Bool { token == nil && log.isEmpty }

    /// Records an insert of `object`, named by its stable identity.
    mutating func insert(_ object: HistoryObject, zone: String?) {
        log.append(HistoryChange(entity: object.entity.rawValue, objectID: object.objectID, type: .insert, zone: zone))
    }

    /// Records an update of `attributes` (names as in the data model) of `object`.
    mutating func update(_ object: HistoryObject, _ attributes: [String], zone: String?) {
        log.update(object.entity.rawValue, object.objectID, attributes, zone: zone)
    }

    /// Records the deletes of the rows `selection` names, each with its tombstone read from the
    /// row. Call before deleting them.
    /// - Returns: the number of rows recorded.
    /// - Throws: the store's error.
    @discardableResult
    mutating func delete(_ entity: HistoryEntity, _ selection: HistorySelection) throws -> Int {
        let rows = try store.deleteChanges(entity, selection)
        for change in rows { log.append(change) }
        return rows.count
    }

    /// Records the deletes of the rows `selection` names in one set-wise statement, with the same
    /// tombstones as `delete` (for large sets: `purge` of a 10,000-photo zone). Call before
    /// deleting them. Changes recorded earlier are written first, so the order holds.
    /// - Throws: the store's error.
    mutating func deleteSetWise(_ entity: HistoryEntity, _ selection: HistorySelection) throws {
        guard try store.hasRows(entity, selection) else { return }
        if case .zone(let zone) = selection { try permission([zone], context) }
        let token = try flush()
        try store.appendDeleteChangesSetWise(entity, selection, token: token)
    }

    /// Records the changes of merging `merges` (`dedupe-tags`) in one set-wise statement, with
    /// the same rows in the same order as `mergeTag(_:into:history:)` per loser would record
    /// (`HistoryStore.appendTagMergeChangesSetWise`). Call before the merge, and record nothing
    /// else of those photos and tags in this transaction: these rows are not merged with others.
    /// Changes recorded earlier are written first.
    /// - Throws: `LibraryError` when a zone may not be written here, the store's error.
    mutating func tagMergesSetWise(_ merges: [TagMerge]) throws {
        guard merges.contains(where: { !$0.losers.isEmpty }) else { return }
        try permission(Set(merges.flatMap { [$0.winner.zone.rawValue] + $0.losers.map(\.zone.rawValue) }), context)
        let token = try flush()
        try store.appendTagMergeChangesSetWise(merges, token: token)
    }

    /// Writes the transaction row (once) and the changes collected so far.
    private mutating func flush() throws -> Int64 {
        try permission(Set(log.changes.compactMap(\.zone)), context)
        let token: Int64
        if let existing = self.token {
            token = existing
        } else {
            token = try store.appendHistoryTransaction(
                timestamp: ISODate.millisecondString(from: Date()), author: author, context: context)
            self.token = token
        }
        try store.appendHistoryChanges(log.changes, token: token)
        log = ChangeLog()
        return token
    }

    /// Writes what was recorded as one history transaction, unless nothing was (SPEC §4).
    /// - Returns: the token (monotonically increasing; AUTOINCREMENT keeps it so after
    ///   compaction), or nil when nothing was recorded.
    /// - Throws: the store's error.
    @discardableResult
    mutating func commit() throws -> Int64? {
        guard !isEmpty else { return nil }
        return try flush()
    }
}
