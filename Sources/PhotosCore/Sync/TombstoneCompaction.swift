import PhotosModel

/// Compaction of the sync state's tombstones (issue 29 item 4). A deleted object keeps its
/// entries in `sync_entry` with a `deleted` one (its tombstone) so that the deletion reaches
/// every peer and wins over their updates. Once every library that may still hold the object
/// has acknowledged the change token that recorded the deletion, the tombstone has done its
/// work: the object's entries go, and a library that syncs from here for the first time gets
/// the current state without the deleted objects.
///
/// The libraries that may hold an object of zone Z are the known ones: every peer of the whole
/// library (each `sync_peer` row of scope `library`, and each sender applied here of that scope
/// — a sender that never acknowledged anything counts as token 0), and for a share's zone every
/// participant of it not removed (its acknowledgements are kept per address) and, in a zone
/// shared with this library, the owner's library. A library this one has never heard from (a
/// changeset file carried to a stranger) cannot be waited for; the age limit `history compact`
/// passes (`--keep-days`, `--before`) is the margin for it, as git's `gc.pruneExpire` is for
/// unreachable objects. A share's own tombstone is always kept: it is what refuses a late
/// changeset into a stopped share's zone (`shareTombstone(zone:)`).
struct TombstoneCompaction {
    let sync: any SyncStore
    let catalog: any CatalogStore

    /// The lowest token every known library acknowledged for objects outside share zones, and
    /// per share zone. Zones without a participant or owner to wait for take the library's.
    func acknowledgedByAll() throws -> (library: Int64, zones: [String: Int64]) {
        let acks = try sync.acknowledgedTokens()
        var ackOf: [String: Int64] = [:]
        for a in acks { ackOf[a.peer + "\u{0}" + a.scope] = a.token }
        let whole = Library.wholeLibraryScope
        var peers = Set(acks.filter { $0.scope == whole }.map(\.peer))
        for applied in try sync.appliedTokens() where applied.scope == whole { peers.insert(applied.sender) }
        let library = peers.map { ackOf[$0 + "\u{0}" + whole] ?? 0 }.min() ?? Int64.max
        var zones: [String: Int64] = [:]
        for share in try catalog.shares() where share.scope == ZoneScope.private.rawValue {
            var lowest = library
            for p in try catalog.participants(ofShare: share.id)
            where p.role != ParticipantRole.owner.rawValue && p.acceptance != Acceptance.removed.rawValue {
                lowest = min(lowest, ackOf[Library.participantKey(p.email) + "\u{0}" + share.id] ?? 0)
            }
            zones[share.id] = lowest
        }
        for m in try sync.memberships() where m.leftAt == nil {
            zones[m.zone] = min(library, ackOf[m.owner + "\u{0}" + m.zone] ?? 0)
        }
        return (library, zones)
    }

    /// Deletes the entries of every object whose tombstone is stamped before `stampTime` and
    /// acknowledged by every known library. Returns the tombstones compacted and the entries
    /// deleted with them.
    /// - Throws: the store's error.
    func run(before stampTime: String) throws -> (tombstones: Int, entries: Int) {
        let candidates = try sync.syncTombstones(before: stampTime).filter { $0.entity != .share }
        guard !candidates.isEmpty else { return (0, 0) }
        let acknowledged = try acknowledgedByAll()
        var result = (tombstones: 0, entries: 0)
        for t in candidates {
            let limit = t.zone.flatMap { acknowledged.zones[$0] } ?? acknowledged.library
            guard t.token <= limit else { continue }
            result.entries += try sync.deleteSyncObject(t.entity, t.objectID)
            result.tombstones += 1
        }
        return result
    }
}
