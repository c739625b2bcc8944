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

    /// Gives this library a new random library id (`restore` without `--same-identity`: a
    /// restored copy is a library of its own, which can sync with the one it was copied from).
    /// - Returns: the new id.
    /// - Throws: `LibraryError` (`.busy` when another process holds the lock) for the store's failures.
    @discardableResult
    func renewLibraryID() throws -> String {
        let id = RandomUUID.make().uuidString.lowercased()
        try write { try syncStore.setLibraryID(id) }
        return id
    }

    /// The refusal of a changeset, or of `sync --from`, whose sender `source` (a changeset's
    /// path or another library's folder) has this library's own id `id`: one of the two is a
    /// copy of the other, made with `restore --same-identity` or by copying the library folder.
    func refusalOfOwnID(_ source: String, id: String) -> SyncError {
        SyncError(
            .refused,
            "\(source) refused: its library id \(id) is this library's own (\(root)), so its changes are taken for "
                + "this library's; one of the two is a copy of the other (restored with 'restore --same-identity', "
                + "or a copied library folder); make the copy with 'photos backup' and 'photos restore' (without "
                + "--same-identity), which gives it a library id of its own")
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
    /// The stamp time of an object that history no longer names (ISO 8601 UTC).
    private let now: String
    /// Objects compared per round of store calls (one call per chunk for entries, attributes,
    /// history timestamps and links, one bulk write of its entries).
    private let chunkSize: Int

    /// - Parameters:
    ///   - now: the stamp time of objects history does not name (default: the current time).
    ///   - chunkSize: objects per round of store calls (at least 1).
    init(store: any SyncStore, now: String = ISODate.millisecondString(from: Date()), chunkSize: Int = 512) throws {
        self.store = store
        state = try store.syncState()
        token = SyncClock.nextToken(after: state.changeToken)
        self.now = now
        self.chunkSize = max(1, chunkSize)
    }

    /// True when nothing has ever read this sync state: no reconcile ran (its tokens are 0) and
    /// no entry, applied range, acknowledgement or membership exists. No peer, participant or
    /// changeset then holds anything of this library, and the first reconcile to come finds
    /// history incomplete (its reconciled token is 0) and compares every object with the
    /// catalog; so history compaction need not reconcile first.
    /// - Throws: the store's error.
    static func isUnread(_ store: any SyncStore) throws -> Bool {
        let state = try store.syncState()
        guard state.changeToken == 0, state.reconciledHistoryToken == 0 else { return false }
        return try store.syncStateIsEmpty()
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
            // Per sync entity its objects in history's order, each with the time of its first
            // naming (history orders PhotoData and Thumbnail after Photo).
            var ids: [SyncEntity: [String]] = [:]
            var times: [SyncEntity: [String: String]] = [:]
            for object in named {
                guard let entity = SyncReconciler.entity(ofHistory: object.entity) else { continue }
                // An original other than the primary is named `PHOTO/ROLE` (schema 16): its photo's.
                let objectID =
                    object.entity == HistoryEntity.photoData.rawValue
                    ? String(object.objectID.prefix { $0 != "/" }) : object.objectID
                guard times[entity, default: [:]][objectID] == nil else { continue }
                times[entity, default: [:]][objectID] = object.timestamp
                ids[entity, default: []].append(objectID)
            }
            for entity in SyncReconciler.order {
                let entityTimes = times[entity] ?? [:]
                for chunk in SyncReconciler.chunks(ids[entity] ?? [], chunkSize) {
                    try reconcile(entity, chunk, times: entityTimes)
                }
            }
        } else {
            for entity in SyncReconciler.order {
                var ids = Set(try store.catalogObjects(entity))
                ids.formUnion(try store.liveSyncObjects(entity))
                for chunk in SyncReconciler.chunks(ids.sorted(), chunkSize) {
                    let times = try store.newestHistoryTimestamps(
                        entity: entity.rawValue, objectIDs: chunk, excludingContext: HistoryContext.sync.rawValue)
                    try reconcile(entity, chunk, times: times)
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

    /// The entities in the order they are compared.
    private static let order: [SyncEntity] = [.share, .participant, .photo, .tag, .rating]

    private static func chunks(_ ids: [String], _ size: Int) -> [[String]] {
        stride(from: 0, to: ids.count, by: size).map { Array(ids[$0..<min($0 + size, ids.count)]) }
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

    /// What one chunk of objects reads from the store, in one call per kind.
    private struct Chunk {
        /// Object id → attribute → entry.
        var synced: [String: [String: SyncEntry]] = [:]
        /// Object id → the catalog's attributes (absent: not in the catalog).
        var live: [String: [String: String]] = [:]
        /// Photo uniqueName → zone, for the ratings of the chunk.
        var photoZones: [String: String] = [:]
        /// Photo uniqueName → tag uuid → its `PhotoTag` entry.
        var syncedLinks: [String: [String: SyncEntry]] = [:]
        /// Photo uniqueName → linked tag uuids.
        var liveLinks: [String: [String]] = [:]
        /// `PhotoData` object id (`PHOTO/ROLE`) → attribute → entry.
        var syncedOriginals: [String: [String: SyncEntry]] = [:]
        /// Photo uniqueName → role → its original other than the primary.
        var liveOriginals: [String: [String: SyncOriginal]] = [:]
        /// Entries to write.
        var pending: [SyncEntry] = []
    }

    /// Compares a chunk of objects of one entity with their sync state and writes what changed.
    private mutating func reconcile(_ entity: SyncEntity, _ ids: [String], times: [String: String]) throws {
        var chunk = Chunk()
        for e in try store.syncEntries(entity, ids) where chunk.synced[e.objectID]?[e.attribute] == nil {
            chunk.synced[e.objectID, default: [:]][e.attribute] = e
        }
        let toCompare = ids.filter { chunk.synced[$0]?[SyncEntity.deleted] == nil }
        chunk.live = try store.catalogAttributes(entity, toCompare)
        if entity == .rating {
            let photos = Set(chunk.live.values.compactMap { $0["photo"] })
            chunk.photoZones = try store.catalogAttributes(.photo, photos.sorted()).compactMapValues { $0["zone"] }
        }
        if entity == .photo {
            let photos = toCompare.filter { chunk.live[$0] != nil }
            chunk.liveLinks = try store.tagUUIDs(ofPhotos: photos)
            let wanted = Set(photos)
            for e in try store.syncLinkEntries(ofPhotos: photos) where e.attribute == "present" {
                guard let slash = e.objectID.lastIndex(of: "/") else { continue }
                let photo = String(e.objectID[..<slash])
                guard wanted.contains(photo) else { continue }
                chunk.syncedLinks[photo, default: [:]][String(e.objectID[e.objectID.index(after: slash)...])] = e
            }
            // A photo's originals besides its primary (issue 24 item 2): compared as its links are.
            for (photo, originals) in try store.extraOriginals(ofPhotos: photos) {
                for o in originals { chunk.liveOriginals[photo, default: [:]][o.role] = o }
            }
            for e in try store.syncEntries(.photoData, photos.flatMap(SyncEntity.photoDataIDs(ofPhoto:))) {
                chunk.syncedOriginals[e.objectID, default: [:]][e.attribute] = e
            }
        }
        for id in toCompare { reconcile(entity, id, time: times[id] ?? now, &chunk) }
        try store.putSyncEntries(chunk.pending, token: token)
        changed += chunk.pending.count
    }

    /// Stamps a local change at `time`, never earlier than 1 ms after `previous` (`SyncClock`).
    private func put(
        _ entity: SyncEntity, _ id: String, _ attribute: String, _ value: String?, zone: String?, time: String,
        after previous: String?, _ chunk: inout Chunk
    ) {
        chunk.pending.append(
            SyncEntry(
                entity: entity, objectID: id, attribute: attribute, value: value,
                stamp: SyncStamp(time: SyncClock.stamp(time, after: previous), library: state.libraryID), zone: zone))
    }

    /// Compares one object (not marked deleted) of the catalog with its sync state.
    private func reconcile(_ entity: SyncEntity, _ id: String, time: String, _ chunk: inout Chunk) {
        let synced = chunk.synced[id] ?? [:]
        guard let live = chunk.live[id] else {
            if !synced.isEmpty {
                put(
                    entity, id, SyncEntity.deleted, "1", zone: synced.values.first?.zone, time: time,
                    after: synced.values.map(\.stamp.time).max(), &chunk)
            }
            return
        }
        let zone = self.zone(of: entity, live, id: id, chunk)
        for attribute in entity.attributes {
            // The scope of a zone shared with this library is ours to show, not to send.
            if entity == .share && attribute == "scope" && live[attribute] == ZoneScope.shared.rawValue { continue }
            let old = synced[attribute]
            if old == nil || old?.value != live[attribute] {
                put(entity, id, attribute, live[attribute], zone: zone, time: time, after: old?.stamp.time, &chunk)
            } else if let old, old.zone != zone {
                // Moved with its photo: same value and stamp, new zone (and a new token, so that
                // the zone's next changeset carries it).
                var moved = old
                moved.zone = zone
                chunk.pending.append(moved)
            }
        }
        if entity == .photo {
            reconcileLinks(ofPhoto: id, zone: zone, time: time, &chunk)
            reconcileOriginals(ofPhoto: id, zone: zone, time: time, &chunk)
        }
    }

    /// A photo's originals other than its primary, one `PhotoData` object per role
    /// (`PHOTO/ROLE`): each attribute that differs from the sync state is stamped; a role the
    /// photo has no original of any more gets `sha256` without a value (only when the sync
    /// state had one); unchanged ones that moved with their photo take its new zone.
    private func reconcileOriginals(ofPhoto photo: String, zone: String?, time: String, _ chunk: inout Chunk) {
        let live = chunk.liveOriginals[photo] ?? [:]
        for role in SyncEntity.extraOriginalRoles {
            let id = photo + "/" + role
            let synced = chunk.syncedOriginals[id] ?? [:]
            var values: [String: String?] = ["sha256": nil, "byteSize": nil, "format": nil]
            if let o = live[role] {
                values = ["sha256": o.sha256, "byteSize": String(o.byteSize), "format": o.format]
            } else if synced.isEmpty || (synced["sha256"]?.value == nil) {
                continue
            }
            for attribute in SyncEntity.photoData.attributes {
                let value = values[attribute] ?? nil
                let old = synced[attribute]
                if old == nil || old?.value != value {
                    // Gone: only `sha256` says so; the size and format stay as they were.
                    if live[role] == nil && attribute != "sha256" { continue }
                    put(.photoData, id, attribute, value, zone: zone, time: time, after: old?.stamp.time, &chunk)
                } else if let old, old.zone != zone {
                    var moved = old
                    moved.zone = zone
                    chunk.pending.append(moved)
                }
            }
        }
    }

    /// A photo's links as a set: new ones `present = 1`, gone ones `present = 0`.
    private func reconcileLinks(ofPhoto photo: String, zone: String?, time: String, _ chunk: inout Chunk) {
        let live = Set(chunk.liveLinks[photo] ?? [])
        let synced = chunk.syncedLinks[photo] ?? [:]
        for tag in live.union(synced.keys).sorted() {
            let value = live.contains(tag) ? "1" : "0"
            if let old = synced[tag], old.value == value {
                if old.zone != zone {
                    var moved = old
                    moved.zone = zone
                    chunk.pending.append(moved)
                }
                continue
            }
            put(
                .photoTag, photo + "/" + tag, "present", value, zone: zone, time: time, after: synced[tag]?.stamp.time,
                &chunk)
        }
    }

    /// The record zone of an object: its own (photo, tag), its photo's (rating), its share's.
    private func zone(of entity: SyncEntity, _ live: [String: String], id: String, _ chunk: Chunk) -> String? {
        switch entity {
        case .photo, .tag: return live["zone"]
        case .share: return id
        case .participant: return live["share"]
        case .rating: return live["photo"].flatMap { chunk.photoZones[$0] }
        case .photoTag, .photoData: return nil
        }
    }
}
