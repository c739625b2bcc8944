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
///
/// Authors per zone (issue 29 item 1): each change is authored by whoever this library is in
/// its zone (`Library.historyAuthorName(_:context:zone:)`: the owner address in its own zones,
/// its participant in a zone shared with it). A run whose changes have one author writes one
/// transaction, as before; a run that touches zones of different authors (a photo of the
/// owner's and one of a share accepted here, rated in one `rate`) writes one transaction per
/// author, in the order each author's first change was recorded, each holding its changes in
/// the order they were recorded. They commit together, in the command's one database
/// transaction.
struct HistoryWriter {
    let store: any HistoryStore
    let context: HistoryContext
    private var log = ChangeLog()
    /// The transaction of the run's first author, once its row is written.
    private(set) var token: Int64?
    /// Every transaction written so far, by author.
    private var tokens: [String: Int64] = [:]
    /// The author of a change in a zone (nil: a change of no zone, authored as the default zone).
    private let authorOfZone: (String?) throws -> String
    /// `authorOfZone`'s answers.
    private var authors: [String: String] = [:]

    /// Refuses changes to a zone this library may not write (`Library.checkSharedZoneWrites`):
    /// every write of every command is recorded here, so this is the one place the
    /// permission of a zone shared with this library is enforced (SYNC.md "Permissions").
    private let permission: (Set<String>, HistoryContext) throws -> Void

    init(_ library: Library, author: HistoryAuthor, context: HistoryContext) {
        self.store = library.historyStore
        self.context = context
        self.authorOfZone = { [unowned library] zone in
            try library.historyAuthorName(author, context: context, zone: zone ?? ZoneID.default.rawValue)
        }
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
        var zone: String?
        if case .zone(let z) = selection {
            try permission([z], context)
            zone = z
        }
        try flush()
        let token = try transaction(of: try author(ofZone: zone))
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
        try flush()
        // dedupe-tags records its own author (or --author's) in every zone: one transaction.
        let token = try transaction(of: try author(ofZone: merges.first?.winner.zone.rawValue))
        try store.appendTagMergeChangesSetWise(merges, token: token)
    }

    /// The author of changes in `zone`, asked once per zone.
    private mutating func author(ofZone zone: String?) throws -> String {
        let key = zone ?? ZoneID.default.rawValue
        if let known = authors[key] { return known }
        let name = try authorOfZone(key)
        authors[key] = name
        return name
    }

    /// The transaction of `author`, written when it is the first change of that author.
    private mutating func transaction(of author: String) throws -> Int64 {
        if let existing = tokens[author] { return existing }
        let token = try store.appendHistoryTransaction(
            timestamp: ISODate.millisecondString(from: Date()), author: author, context: context)
        tokens[author] = token
        if self.token == nil { self.token = token }
        return token
    }

    /// Writes the transaction rows (once per author) and the changes collected so far, each in
    /// the transaction of its zone's author.
    private mutating func flush() throws {
        try permission(Set(log.changes.compactMap(\.zone)), context)
        var groups: [(author: String, changes: [HistoryChange])] = []
        for change in log.changes {
            let name = try author(ofZone: change.zone)
            if let index = groups.firstIndex(where: { $0.author == name }) {
                groups[index].changes.append(change)
            } else {
                groups.append((name, [change]))
            }
        }
        for group in groups {
            try store.appendHistoryChanges(group.changes, token: try transaction(of: group.author))
        }
        log = ChangeLog()
    }

    /// Writes what was recorded as one history transaction per author, unless nothing was
    /// (SPEC §4).
    /// - Returns: the first author's token (monotonically increasing; AUTOINCREMENT keeps it so after
    ///   compaction), or nil when nothing was recorded.
    /// - Throws: the store's error.
    @discardableResult
    mutating func commit() throws -> Int64? {
        guard !isEmpty else { return nil }
        try flush()
        return token
    }
}
