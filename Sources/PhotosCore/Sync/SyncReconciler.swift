import Foundation
import PhotosModel

extension Library {
    /// Where sync keeps its state and reads and writes the catalog by identity.
    var syncStore: any SyncStore { store }

    /// This library's stable id (lowercase UUID): the sender id its changesets carry, shown by
    /// `stats` (issue 11).
    /// - Throws: `LibraryError` for the store's failures.
    public func libraryID() throws -> String {
        do { return try syncStore.syncState().libraryID } catch { throw LibraryError.wrap(error, library: root) }
    }
}

/// Folds this library's own changes into the sync state (`sync_entry`): for every object that
/// history names after the last reconciled token (outside transactions of `sync` itself), the
/// catalog's current attributes are compared with the sync state's, and each that differs is
/// stamped with the newest history timestamp of the object and this library's id. An object
/// gone from the catalog gets its tombstone (`deleted`); a photo's tag links are compared as a
/// set (`PhotoTag` entries). When history does not reach back to the last reconciled token (a
/// new sync state, or history compacted with `--force`) every object is compared.
///
/// Runs inside the caller's write transaction, first thing in every export and apply, so that a
/// changeset and a conflict decision always see every local change.
struct SyncReconciler {
    let store: any SyncStore
    let state: SyncState
    /// The change token this run's entries take.
    let token: Int64
    private(set) var changed = 0
    private let now = ISODate.string(from: Date())

    init(store: any SyncStore) throws {
        self.store = store
        state = try store.syncState()
        token = SyncClock.nextToken(after: state.changeToken)
    }

    /// Compares and stamps; stores the tokens.
    /// - Returns: the state after the run.
    /// - Throws: the store's error.
    mutating func run() throws -> SyncState {
        let newest = try store.newestHistoryToken()
        let oldest = try store.oldestHistoryToken()
        // History reaches back to the last reconciled token only when its oldest transaction is
        // at most the next one; an empty history (all compacted) proves nothing.
        let complete =
            state.reconciledHistoryToken > 0 && (oldest.map { $0 <= state.reconciledHistoryToken + 1 } ?? false)
        if complete {
            let named = try store.historyObjects(
                after: state.reconciledHistoryToken, excludingContext: HistoryContext.sync.rawValue)
            var seen = Set<String>()
            for object in named {
                guard let entity = SyncReconciler.entity(ofHistory: object.entity) else { continue }
                let key = entity.rawValue + " " + object.objectID
                guard seen.insert(key).inserted else { continue }
                try reconcile(entity, object.objectID, time: object.timestamp)
            }
        } else {
            for entity in [SyncEntity.share, .participant, .photo, .tag, .rating] {
                var ids = Set(try store.catalogObjects(entity))
                ids.formUnion(try store.liveSyncObjects(entity))
                for id in ids.sorted() {
                    let time = try store.newestHistoryTimestamp(
                        entity: entity.rawValue, objectID: id, excludingContext: HistoryContext.sync.rawValue)
                    try reconcile(entity, id, time: time ?? now)
                }
            }
        }
        let after = SyncState(
            libraryID: state.libraryID, changeToken: changed > 0 ? token : state.changeToken,
            reconciledHistoryToken: max(newest, state.reconciledHistoryToken))
        if after != state {
            try store.setSyncTokens(
                changeToken: after.changeToken, reconciledHistoryToken: after.reconciledHistoryToken)
        }
        return after
    }

    /// The sync entity of a history entity (PhotoData and Thumbnail travel with their photo).
    static func entity(ofHistory name: String) -> SyncEntity? {
        switch HistoryEntity(rawValue: name) {
        case .photo, .photoData, .thumbnail: return .photo
        case .tag: return .tag
        case .rating: return .rating
        case .share: return .share
        case .participant: return .participant
        case nil: return nil
        }
    }

    /// Stamps a local change at `time`, never earlier than 1 ms after `previous` (`SyncClock`).
    private mutating func put(
        _ entity: SyncEntity, _ id: String, _ attribute: String, _ value: String?, zone: String?, time: String,
        after previous: String?
    ) throws {
        try store.putSyncEntry(
            SyncEntry(
                entity: entity, objectID: id, attribute: attribute, value: value,
                stamp: SyncStamp(time: SyncClock.stamp(time, after: previous), library: state.libraryID), zone: zone),
            token: token)
        changed += 1
    }

    /// Compares one object of the catalog with its sync state.
    private mutating func reconcile(_ entity: SyncEntity, _ id: String, time: String) throws {
        let synced = Dictionary(
            try store.syncEntries(entity, id).map { ($0.attribute, $0) }, uniquingKeysWith: { a, _ in a })
        if synced[SyncEntity.deleted] != nil { return }
        guard let live = try store.catalogAttributes(entity, id) else {
            if !synced.isEmpty {
                try put(
                    entity, id, SyncEntity.deleted, "1", zone: synced.values.first?.zone, time: time,
                    after: synced.values.map(\.stamp.time).max())
            }
            return
        }
        let zone = try self.zone(of: entity, live, id: id)
        for attribute in entity.attributes {
            // The scope of a zone shared with this library is ours to show, not to send.
            if entity == .share && attribute == "scope" && live[attribute] == ZoneScope.shared.rawValue { continue }
            let old = synced[attribute]
            if old == nil || old?.value != live[attribute] {
                try put(entity, id, attribute, live[attribute], zone: zone, time: time, after: old?.stamp.time)
            } else if let old, old.zone != zone {
                // Moved with its photo: same value and stamp, new zone (and a new token, so that
                // the zone's next changeset carries it).
                var moved = old
                moved.zone = zone
                try store.putSyncEntry(moved, token: token)
                changed += 1
            }
        }
        if entity == .photo { try reconcileLinks(ofPhoto: id, zone: zone, time: time) }
    }

    /// A photo's links as a set: new ones `present = 1`, gone ones `present = 0`.
    private mutating func reconcileLinks(ofPhoto photo: String, zone: String?, time: String) throws {
        let live = Set(try store.tagUUIDs(ofPhoto: photo))
        var synced: [String: SyncEntry] = [:]
        for e in try store.syncLinkEntries(ofPhoto: photo) where e.attribute == "present" {
            synced[String(e.objectID.dropFirst(photo.count + 1))] = e
        }
        for tag in live.union(synced.keys).sorted() {
            let value = live.contains(tag) ? "1" : "0"
            if let old = synced[tag], old.value == value {
                if old.zone != zone {
                    var moved = old
                    moved.zone = zone
                    try store.putSyncEntry(moved, token: token)
                    changed += 1
                }
                continue
            }
            try put(
                .photoTag, photo + "/" + tag, "present", value, zone: zone, time: time, after: synced[tag]?.stamp.time)
        }
    }

    /// The record zone of an object: its own (photo, tag), its photo's (rating), its share's.
    private func zone(of entity: SyncEntity, _ live: [String: String], id: String) throws -> String? {
        switch entity {
        case .photo, .tag: return live["zone"]
        case .share: return id
        case .participant: return live["share"]
        case .rating: return try live["photo"].flatMap { try store.catalogAttributes(.photo, $0)?["zone"] }
        case .photoTag: return nil
        }
    }
}
