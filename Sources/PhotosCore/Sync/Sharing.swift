import Foundation
import PhotosFiles
import PhotosModel

/// A share seen from this library, for `share export`, `leave` and `stop`.
public struct SharedZone: Equatable, Sendable {
    /// The share's (zone's) id.
    public var id: String
    /// This library's membership when the zone was shared with it, nil when this library owns it.
    public var membership: SyncMembership?
}

extension Library {
    /// The contexts that may write a zone shared with this library whatever the permission:
    /// applying the owner's changes, leaving (purge, `share leave`), accepting, local repairs
    /// and the tag dedupe that follows an apply.
    static let contextsBeyondPermission: Set<HistoryContext> = [
        .sync, .purge, .verifyRepair, .dedupeTags, .shareAccept, .shareLeave
    ]

    /// The one permission check of a zone shared with this library (SYNC.md "Permissions are
    /// checked in one place"; CloudKit's `canUpdateRecord`): called by the history writer
    /// before it records changes to `zones`, inside the command's transaction, so a refused
    /// write leaves nothing. A zone this library owns is always writable; a shared one only by
    /// a participant who has accepted with `read-write` permission.
    /// - Throws: `SyncError` `.notPermitted` naming the share, the participant and the permission.
    func checkSharedZoneWrites(_ zones: Set<String>, context: HistoryContext) throws {
        guard !Library.contextsBeyondPermission.contains(context) else { return }
        for zone in zones.sorted() where zone != ZoneID.default.rawValue {
            let stored = try catalogStore.share(id: zone)
            let title = stored?.title ?? zone
            guard let m = try syncStore.membership(zone: zone) else {
                // A zone of scope shared that no accepted changeset brought (set so by hand, or by
                // merge --from): whose it is and what this library may do are unknown.
                guard stored?.scope == ZoneScope.shared.rawValue else { continue }
                throw SyncError(
                    .notPermitted,
                    "share \"\(title)\" (\(zone)) is shared with this library but was never accepted here (no permission known): \(context.rawValue) may not change it; nothing was written"
                )
            }
            if m.leftAt != nil {
                throw SyncError(
                    .notPermitted, "share \"\(title)\" (\(zone)): this library left it; nothing was written")
            }
            let me = try catalogStore.participant(ofShare: zone, email: Email(rawValue: m.email))
            let permission = me?.permission ?? "none"
            guard permission == SharePermission.readWrite.rawValue, me?.acceptance != Acceptance.removed.rawValue else {
                throw SyncError(
                    .notPermitted,
                    "share \"\(title)\" (\(zone)) is shared with this library with permission \(permission) (participant \(m.email)): \(context.rawValue) may not change it; nothing was written"
                )
            }
        }
    }

    /// Checks that `command` may write the zone of `share` (`checkSharedZoneWrites`), before a
    /// command that writes files first (`import --share`).
    /// - Throws: `SyncError` `.notPermitted` for a read-only participant.
    public func checkWritable(share: String, by command: HistoryContext) throws {
        try store.readTransaction { try checkSharedZoneWrites([share], context: command) }
    }

    /// Resolves a share argument for `share export`, `leave` and `stop`: a share here (by id or
    /// prefix), or the exact id of one this library purged or left (its changes still travel).
    /// - Throws: `LibraryError.notFound` / `.ambiguous` as `resolveShare`.
    public func resolveSharedZone(_ argument: String) throws -> SharedZone {
        let id: String
        do {
            id = try resolveShare(argument).id
        } catch {
            let known = try store.readTransaction {
                try syncStore.syncEntries(.share, argument).isEmpty == false
                    || syncStore.membership(zone: argument) != nil
            }
            guard known else { throw error }
            id = argument
        }
        return SharedZone(id: id, membership: try store.readTransaction { try syncStore.membership(zone: id) })
    }

    /// `photos share export SHARE [--for EMAIL] -o FILE` (issue 11 item 3). The owner writes a
    /// changeset of the share's zone for participant `email` (the first holds the whole zone,
    /// later ones what changed after the participant's last acknowledged token); a participant
    /// writes the changeset back to the owner: only this library's own changes, and of those
    /// only what a participant may send — its acceptance (accept, leave) always, edits of
    /// photos, tags, ratings and links only with `read-write` permission. With
    /// `originalsInPlace`, the originals stay in the library (`exportChangeset`'s).
    /// - Throws: `SyncError` `.misuse` without `--for` on the owner's side or with `--for` another address
    ///   on a participant's, `.refused` when `email` is not a participant; what `exportChangeset` throws.
    public func exportShare(
        _ share: SharedZone, for email: Email?, to path: String, originalsInPlace: Bool = false,
        progress: ((_ done: Int, _ total: Int, _ bytes: Int64) -> Void)? = nil
    ) throws -> ChangesetReport {
        let me = try libraryID()
        guard let m = share.membership else {
            guard let email else {
                throw SyncError(.misuse, "share export of a share of this library needs --for EMAIL (the participant)")
            }
            guard try participantUUID(zone: share.id, email: email.rawValue) != nil else {
                throw SyncError(.refused, "\(email) is not a participant of share \(share.id); invite them first")
            }
            let since = try acknowledgedToken(peer: Library.participantKey(email.rawValue), scope: share.id)
            return try exportChangeset(
                to: path, since: since, zone: share.id, participant: email.rawValue,
                originalsInPlace: originalsInPlace, progress: progress)
        }
        // A participant's changeset goes to the owner and speaks for this library only.
        if let email, email.rawValue != m.email {
            throw SyncError(
                .misuse,
                "share \(share.id) was shared with this library as \(m.email): its changeset goes back to the owner; --for \(email) is the owner's option"
            )
        }
        let since = try acknowledgedToken(peer: m.owner, scope: share.id)
        let own = try participantUUID(zone: share.id, email: m.email)
        let mine = try catalogStore.participant(ofShare: share.id, email: Email(rawValue: m.email))
        let readWrite = m.leftAt == nil && mine?.permission == SharePermission.readWrite.rawValue
        let ownChanges: (SyncEntry) -> Bool = { entry in
            guard entry.stamp.library == me else { return false }
            switch entry.entity {
            case .participant: return entry.objectID == own && entry.attribute == "acceptance"
            case .share: return false
            case .photo, .tag, .rating, .photoTag, .photoData: return readWrite && entry.attribute != "scope"
            }
        }
        return try exportChangeset(
            to: path, since: since, zone: share.id, participant: m.email, including: ownChanges,
            originalsInPlace: originalsInPlace, progress: progress)
    }

    /// The key under which a participant's acknowledgements are kept (its library id is not
    /// known before its first changeset arrives; its e-mail address is).
    static func participantKey(_ email: String) -> String { "participant:" + email }

    /// The uuid of the participant `email` of `zone`, from the catalog or the sync state.
    func participantUUID(zone: String, email: String) throws -> String? {
        try store.readTransaction {
            if let p = try catalogStore.participant(ofShare: zone, email: Email(rawValue: email)) { return p.uuid }
            var found: String?
            try syncStore.forEachSyncEntry(after: 0, zone: zone) { e in
                if e.entity == .participant, e.attribute == "email", e.value == email { found = e.objectID }
            }
            return found
        }
    }

    /// `photos share accept FILE`: applies the owner's changeset of a share as a participant: the
    /// zone comes in with scope `shared` (owner, title, participants and permissions from the
    /// changeset), this library becomes the participant the changeset is for, and marks itself
    /// accepted (which its next changeset tells the owner).
    /// - Throws: `SyncError` `.refused` when the changeset is not a share's, is not for a participant
    ///   it invites, or names a zone this library owns; what `applyChangeset` throws.
    public func acceptShare(
        at path: String, author: HistoryAuthor = .default,
        progress: ((_ done: Int, _ total: Int, _ bytes: Int64) -> Void)? = nil
    ) throws -> ApplyReport {
        var report = try applyChangeset(at: path, author: author, accepting: true, progress: progress)
        let zone = report.changeset.scope
        try write {
            guard let m = try syncStore.membership(zone: zone),
                let p = try catalogStore.participant(ofShare: zone, email: Email(rawValue: m.email)),
                p.acceptance != Acceptance.accepted.rawValue
            else { return }
            var history = HistoryWriter(self, author: author, context: .shareAccept)
            try syncStore.putParticipant(
                uuid: p.uuid, share: zone, email: p.email, role: p.role, permission: p.permission,
                acceptance: Acceptance.accepted.rawValue)
            history.update(.participant(uuid: p.uuid), ["acceptance"], zone: zone)
            try history.commit()
            report.updated += 1
        }
        return report
    }

    /// `photos share leave SHARE` ("Remove me"): marks this library's participant removed (its
    /// next `share export` tells the owner), then deletes the zone locally as purge does.
    /// - Throws: `SyncError` `.refused` for a share this library owns; what `purge` throws.
    public func leaveShare(_ share: SharedZone, author: HistoryAuthor = .default) throws -> PurgeReport {
        guard var m = share.membership, m.leftAt == nil else {
            throw SyncError(
                .refused,
                "share \(share.id) was not shared with this library (or it left already); its owner ends it with 'share stop' or 'purge --share'"
            )
        }
        try write {
            if let p = try catalogStore.participant(ofShare: share.id, email: Email(rawValue: m.email)) {
                var history = HistoryWriter(self, author: author, context: .shareLeave)
                try syncStore.putParticipant(
                    uuid: p.uuid, share: share.id, email: p.email, role: p.role, permission: p.permission,
                    acceptance: Acceptance.removed.rawValue)
                history.update(.participant(uuid: p.uuid), ["acceptance"], zone: share.id)
                try history.commit()
            }
            // Stamped now, before the purge takes the row away.
            var reconciler = try SyncReconciler(store: syncStore)
            _ = try reconciler.run()
        }
        let report = try purge(zone: ZoneID(rawValue: share.id), author: author)
        m.leftAt = ISODate.string(from: Date())
        try write { try syncStore.setMembership(m) }
        return report
    }

    /// `photos share stop SHARE`: the owner ends a share as `purge --share` does, but first moves
    /// its photos (with their ratings and tags) back into the default zone. Participants' next
    /// apply removes the zone from their libraries.
    /// - Returns: the number of photos moved back and the purge's report.
    /// - Throws: `SyncError` `.refused` for a share shared with this library (leave it instead);
    ///   `ShareError.originalInZone` when a photo of the share has the original of a photo of
    ///   the default zone (nothing changed).
    public func stopShare(_ share: SharedZone, author: HistoryAuthor = .default) throws -> (
        moved: Int, purge: PurgeReport
    ) {
        guard share.membership == nil else {
            throw SyncError(
                .refused,
                "share \(share.id) was shared with this library by someone else; 'share leave' removes it here")
        }
        var moved = 0
        try write {
            var history = HistoryWriter(self, author: author, context: .shareStop)
            var filter = PhotoFilter()
            filter.zone = ZoneID(rawValue: share.id)
            var keys: [PhotoRecord] = []
            try forEachPhoto(matching: filter) { keys.append($0) }
            let photos = try photoKeys(keys)
            // One photo per original in a zone (issue 31 A1): a photo of the share whose
            // original a photo of the default zone has (a participant's, come in by sync) would
            // be a second one there; the stop is refused naming both, nothing moved or purged.
            for key in photos { try checkMovable(key, into: ZoneID.default.rawValue, allowMove: true) }
            for key in photos {
                try movePhoto(key, to: ZoneID.default.rawValue, history: &history)
                moved += 1
            }
            try history.commit()
        }
        return (moved, try purge(zone: ZoneID(rawValue: share.id), author: author))
    }
}
