import Foundation
import PhotosModel

/// A participant of a share (SPEC §3).
public struct ParticipantInfo: Equatable, Sendable {
    /// Lower-cased e-mail address.
    public var email: String
    /// `owner`, `private-user` or `public-user`.
    public var role: String
    /// `read-only` or `read-write`.
    public var permission: String
    /// `unknown`, `pending`, `accepted` or `removed`.
    public var acceptance: String

    /// `{"email","role","permission","acceptance"}` (SPEC §5a).
    public var json: JSONValue {
        .object([
            ("email", .string(email)), ("role", .string(role)), ("permission", .string(permission)),
            ("acceptance", .string(acceptance))
        ])
    }
}

/// A share: a record zone of its own with a title, a public permission and participants
/// (SPEC §3). Its id is its zone's id.
public struct ShareInfo: Equatable, Sendable {
    /// The share's id, which is its record zone's id (a lowercase UUID string for shares made here).
    public var id: String
    /// The title shown to participants.
    public var title: String
    /// ISO 8601 UTC.
    public var created: String
    /// The zone's scope: `private` (ours) or `shared` (shared with this library).
    public var scope: ZoneScope
    /// `none`, `read-only` or `read-write`.
    public var publicPermission: String
    /// Photos in the share's zone.
    public var photoCount: Int
    /// Owner first, then by e-mail.
    public var participants: [ParticipantInfo]

    /// The §5a share object `{"id","title","scope","publicPermission","photoCount","participants"}`.
    public var json: JSONValue {
        .object([
            ("id", .string(id)), ("title", .string(title)), ("scope", .string(scope.rawValue)),
            ("publicPermission", .string(publicPermission)), ("photoCount", .int(photoCount)),
            ("participants", .array(participants.map(\.json)))
        ])
    }
}

/// What `photos share add` did.
public struct ShareAddResult: Equatable, Sendable {
    /// Photos moved into the share's zone.
    public var moved: Int
    /// Duplicate tags of the zone merged into their winner (and deleted).
    public var mergedTags: Int
}

extension Library {
    private func shareInfo(_ s: StoredShare) -> ShareInfo {
        // The schema's CHECK (scope IN ('private', 'shared')) leaves no other value; `shared`
        // is the one nothing changes.
        ShareInfo(
            id: s.id, title: s.title, created: s.created, scope: ZoneScope(rawValue: s.scope) ?? .shared,
            publicPermission: s.publicPermission, photoCount: s.photoCount, participants: [])
    }

    private func fillParticipants(_ share: inout ShareInfo) throws {
        share.participants = try catalogStore.participants(ofShare: share.id).map {
            ParticipantInfo(email: $0.email, role: $0.role, permission: $0.permission, acceptance: $0.acceptance)
        }
    }

    /// Every share, ordered by creation date, then id.
    /// - Throws: the store's error.
    public func shares() throws -> [ShareInfo] {
        var all = try catalogStore.shares().map(shareInfo)
        for i in all.indices { try fillParticipants(&all[i]) }
        return all
    }

    /// The share whose id is `argument`, or whose title is `argument` exactly, or whose id starts
    /// with it (at least 4 characters, case-insensitively — the rule photo arguments follow,
    /// SPEC §5), or whose title starts with it ignoring case and accents (issue 32 item 4). An
    /// exact title that is also the unique id prefix of another share is ambiguous.
    /// - Throws: `LibraryError.notFound(.share)` when none matches, `.prefixTooShort(.share)`
    ///   for a prefix shorter than 4 characters, `.ambiguous(.share)` with the candidates
    ///   described as `id (title)`.
    public func resolveShare(_ argument: String) throws -> ShareInfo {
        let resolution = try resolveKey(.shareID, argument)
        // Issue 32 item 4: a title is accepted wherever a share id is. A whole id, then the exact
        // title, then a unique id prefix, then a unique title prefix (ignoring case and accents).
        let text = argument.trimmingCharacters(in: .whitespaces)
        var exactID = false
        if case .found(let id) = resolution { exactID = id.lowercased() == text.lowercased() }
        if !exactID, !text.isEmpty {
            let all = try catalogStore.shares().map(shareInfo)
            let exact = all.filter { $0.title == text }
            if exact.count == 1 {
                // A title that is another share's id prefix ('396267a8'): the two are ambiguous,
                // never the title's share silently (share remove, purge act on it).
                if case .found(let id) = resolution, id != exact[0].id {
                    throw Library.ambiguousShare(argument, [exact[0], try share(id: id)])
                }
                return try share(id: exact[0].id)
            }
            if exact.count > 1 { throw Library.ambiguousShare(argument, exact) }
            if case .found(let id) = resolution { return try share(id: id) }
            let folded = Library.foldedTitle(text)
            let prefixed = all.filter { Library.foldedTitle($0.title).hasPrefix(folded) }
            if prefixed.count == 1 { return try share(id: prefixed[0].id) }
            if prefixed.count > 1 { throw Library.ambiguousShare(argument, prefixed) }
        }
        switch resolution {
        case .found(let id):
            return try share(id: id)
        case .none:
            throw LibraryError.notFound(.share(argument))
        case .tooShort:
            throw LibraryError.prefixTooShort(.share, argument: argument, minimum: Library.minimumPrefixLength)
        case .ambiguous(let ids):
            let described = try ids.map { id in "\(id) (\(try share(id: id).title))" }
            throw LibraryError.ambiguous(.share, argument: argument, candidates: described)
        }
    }

    /// `title` compared as share titles are matched: case and diacritics ignored.
    static func foldedTitle(_ title: String) -> String {
        title.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
    }

    /// The error for `argument` matching several shares' titles: 65, candidates `id (title)`.
    static func ambiguousShare(_ argument: String, _ shares: [ShareInfo]) -> LibraryError {
        .ambiguous(.share, argument: argument, candidates: shares.map { "\($0.id) (\($0.title))" })
    }

    /// The share with exactly this id, read again (for example after a change).
    /// - Throws: `LibraryError.notFound(.share)` when it does not exist.
    public func share(id: String) throws -> ShareInfo {
        guard var share = try catalogStore.share(id: id).map(shareInfo) else {
            throw LibraryError.notFound(.share(id))
        }
        try fillParticipants(&share)
        return share
    }

    /// Creates a share — a new private record zone whose id is a fresh random UUID — and moves
    /// the photos into it with their photo data, thumbnails and ratings; each of their tags is
    /// replaced by the same-named tag of the new zone (created), while the old tag stays with the
    /// photos that remain (SPEC §5 `share create`). One transaction, history context
    /// `share create`.
    /// - Parameters:
    ///   - photos: the photos to share (at least one).
    ///   - title: the title, or nil for the seed's default `Share-YYYY-MM-DD HH:MM:SS` (UTC).
    ///   - owner: the owner's e-mail address, recorded as a participant with role `owner`,
    ///     permission `read-write` and acceptance `accepted`; nil for no owner row.
    ///   - allowMove: move photos that are already in another share (`--move`).
    ///   - author: the history author.
    ///   - now: the creation instant.
    /// - Returns: the new share.
    /// - Throws: `ShareError.noPhotos`, `.photoInAnotherShare` without `allowMove`,
    ///   `.photoInSharedZone` for a photo of a zone shared with this library, `.originalInZone`
    ///   for two photos of one original; `LibraryError.busy`.
    @discardableResult
    public func createShare(
        photos: [PhotoRecord], title: ShareTitle? = nil, owner: Email? = nil, allowMove: Bool = false,
        author: HistoryAuthor, now: Date = Date()
    ) throws -> ShareInfo {
        let title = (title ?? ShareTitle.defaultTitle(iso: ISODate.string(from: now))).rawValue
        guard !photos.isEmpty else { throw ShareError.noPhotos }
        let id = newObjectUUID()
        try write {
            var history = HistoryWriter(self, author: author, context: .shareCreate)
            try catalogStore.createPrivateZone(id)
            try catalogStore.insertShare(id: id, title: title, created: ISODate.string(from: now))
            history.insert(.share(id: id), zone: id)
            if let owner {
                let uuid = newObjectUUID()
                try catalogStore.insertParticipant(
                    uuid: uuid, share: id, email: owner, role: .owner, permission: .readWrite,
                    acceptance: .accepted, ignoringExisting: false)
                history.insert(.participant(uuid: uuid), zone: id)
            }
            for photo in try photoKeys(photos) {
                try checkMovable(photo, into: id, allowMove: allowMove)
                try movePhoto(photo, to: id, history: &history)
            }
            try history.commit()
        }
        return try share(id: id)
    }

    /// Moves photos into an existing share the way `createShare` does, then merges the
    /// same-named tags of the share's zone (smallest uuid wins; SPEC §5 `share add`). Photos
    /// already in the share are left alone. One transaction, history context `share add`.
    /// - Parameters:
    ///   - share: the target share (private scope).
    ///   - photos: the photos to move.
    ///   - allowMove: move photos that are in another share (`--move`).
    ///   - author: the history author.
    /// - Returns: how many photos moved and how many duplicate tags were merged.
    /// - Throws: `ShareError.photoInAnotherShare` without `allowMove`, `.photoInSharedZone`,
    ///   `.originalInZone` when a photo of its original is in the share already, `.notOwned`
    ///   for a share that is not ours; `LibraryError.busy`.
    @discardableResult
    public func addToShare(_ share: ShareInfo, photos: [PhotoRecord], allowMove: Bool = false, author: HistoryAuthor)
        throws -> ShareAddResult
    {
        try requireOwnShare(share)
        return try write {
            var history = HistoryWriter(self, author: author, context: .shareAdd)
            var moved = 0
            for photo in try photoKeys(photos) where photo.zone != share.id {
                try checkMovable(photo, into: share.id, allowMove: allowMove)
                try movePhoto(photo, to: share.id, history: &history)
                moved += 1
            }
            let merged = try mergeDuplicateTags(inZone: share.id, history: &history)
            try history.commit()
            return ShareAddResult(moved: moved, mergedTags: merged)
        }
    }

    /// `photos share remove ID PHOTO…` (issue 32 item 4): moves the photos out of `share`'s zone
    /// back to the private default zone, the inverse of `addToShare` with its tag rules (each tag
    /// replaced by the same-named tag of the default zone, created when absent; the default
    /// zone's same-named tags merged after). One transaction, history context `share remove`;
    /// a library opened for a dry run rolls it back (`--dry-run`).
    /// - Parameters:
    ///   - share: the share (private scope: ours).
    ///   - photos: the photos to move out; each must be in the share.
    ///   - author: the history author.
    /// - Returns: how many photos moved (or would move) and how many duplicate tags were merged.
    /// - Throws: `ShareError.photoNotInShare` for a photo of another zone, `.originalInZone`
    ///   when the default zone has a photo of the same original, `.notOwned` (or the shared
    ///   zone's permission error, 77) for a share that is not ours; `LibraryError.busy`.
    @discardableResult
    public func removeFromShare(_ share: ShareInfo, photos: [PhotoRecord], author: HistoryAuthor)
        throws -> ShareAddResult
    {
        try requireOwnShare(share)
        let target = ZoneID.default.rawValue
        let keys = try photoKeys(photos)
        for photo in keys where photo.zone != share.id {
            throw ShareError.photoNotInShare(photo: photo.uniqueName, share: share.id)
        }
        return try write {
            var history = HistoryWriter(self, author: author, context: .shareRemove)
            var moved = 0
            for photo in try photoKeys(photos) where photo.zone == share.id {
                try checkMovable(photo, into: target, allowMove: true)
                try movePhoto(photo, to: target, history: &history)
                moved += 1
            }
            let merged = try mergeDuplicateTags(inZone: target, history: &history)
            try history.commit()
            return ShareAddResult(moved: moved, mergedTags: merged)
        }
    }

    /// What `invite` did: whether anything changed and the participant's permission after it.
    public struct InviteResult: Equatable, Sendable {
        /// True when a participant was added or its permission updated (one history transaction).
        public var changed: Bool
        /// True when an existing participant's permission was updated.
        public var permissionUpdated: Bool
        /// The participant's permission after the call.
        public var permission: SharePermission

        /// A result with these fields.
        public init(changed: Bool, permissionUpdated: Bool, permission: SharePermission) {
            self.changed = changed
            self.permissionUpdated = permissionUpdated
            self.permission = permission
        }
    }

    /// Invites `email` to a share with role `private-user` and acceptance `pending`.
    /// `permission` nil means "not given": a new participant gets read-only, an existing one
    /// keeps its permission. Inviting an address again without a permission or with its
    /// current one changes nothing and records no history; with another permission it updates
    /// the permission. History context `share invite`.
    /// - Throws: `ShareError.ownerInvited` for the owner's address, `.participantPermissionNone`,
    ///   `.notOwned` for a share that is not ours; `LibraryError.busy`.
    public func inviteParticipant(
        _ email: Email, to share: ShareInfo, permission: SharePermission?,
        author: HistoryAuthor
    ) throws -> InviteResult {
        guard permission != SharePermission.none else { throw ShareError.participantPermissionNone }
        try requireOwnShare(share)
        return try write {
            var history = HistoryWriter(self, author: author, context: .shareInvite)
            if let current = try catalogStore.participant(ofShare: share.id, email: email) {
                guard current.role != ParticipantRole.owner.rawValue else {
                    throw ShareError.ownerInvited(email, share: share.id)
                }
                let existing = SharePermission(rawValue: current.permission)
                guard let permission, permission.rawValue != current.permission else {
                    return InviteResult(changed: false, permissionUpdated: false, permission: existing ?? .readOnly)
                }
                try catalogStore.setPermission(ofParticipant: current.rowID, to: permission)
                history.update(.participant(uuid: current.uuid), ["permission"], zone: share.id)
                try history.commit()
                return InviteResult(changed: true, permissionUpdated: true, permission: permission)
            } else {
                let uuid = newObjectUUID()
                let granted = permission ?? .readOnly
                try catalogStore.insertParticipant(
                    uuid: uuid, share: share.id, email: email, role: .privateUser, permission: granted,
                    acceptance: .pending, ignoringExisting: false)
                history.insert(.participant(uuid: uuid), zone: share.id)
                try history.commit()
                return InviteResult(changed: true, permissionUpdated: false, permission: granted)
            }
        }
    }

    /// `inviteParticipant`, telling only whether something changed; `permission` nil keeps an
    /// existing participant's permission (read-only for a new one).
    /// - Returns: true when something changed.
    /// - Throws: as `inviteParticipant`.
    @discardableResult
    public func invite(_ email: Email, to share: ShareInfo, permission: SharePermission? = nil, author: HistoryAuthor)
        throws -> Bool
    {
        try inviteParticipant(email, to: share, permission: permission, author: author).changed
    }

    /// Removes a participant from a share, with the Participant tombstone {share, email}.
    /// History context `share uninvite`.
    /// - Throws: `ShareError.ownerRemoved` for the owner, `.notOwned` for a share that is not
    ///   ours; `LibraryError.notFound(.participant)` when the address is not a participant;
    ///   `LibraryError.busy`.
    public func uninvite(_ email: Email, from share: ShareInfo, author: HistoryAuthor) throws {
        try requireOwnShare(share)
        try write {
            guard let participant = try catalogStore.participant(ofShare: share.id, email: email) else {
                throw LibraryError.notFound(.participant(email, share: share.id))
            }
            guard participant.role != ParticipantRole.owner.rawValue else {
                throw ShareError.ownerRemoved(email, share: share.id)
            }
            var history = HistoryWriter(self, author: author, context: .shareUninvite)
            try history.delete(.participant, .rowID(participant.rowID))
            try catalogStore.deleteParticipant(participant.rowID)
            try history.commit()
        }
    }

    /// Sets a share's title and/or public permission. Values equal to the current ones change
    /// nothing. History context `share set`, a Share update naming `title` and/or
    /// `publicPermission`.
    /// - Returns: true when something changed.
    /// - Throws: `ShareError.notOwned` for a share that is not ours, `LibraryError.notFound(.share)`
    ///   when it was purged meanwhile, `LibraryError.busy`.
    @discardableResult
    public func updateShare(
        _ share: ShareInfo, title: ShareTitle? = nil, publicPermission: SharePermission? = nil, author: HistoryAuthor
    ) throws -> Bool {
        let title = title?.rawValue
        try requireOwnShare(share)
        return try write {
            guard let current = try catalogStore.share(id: share.id) else {
                throw LibraryError.notFound(.share(share.id))
            }
            var history = HistoryWriter(self, author: author, context: .shareSet)
            if let title, title != current.title {
                try catalogStore.setTitle(ofShare: share.id, to: title)
                history.update(.share(id: share.id), ["title"], zone: share.id)
            }
            if let publicPermission, publicPermission.rawValue != current.publicPermission {
                try catalogStore.setPublicPermission(ofShare: share.id, to: publicPermission)
                history.update(.share(id: share.id), ["publicPermission"], zone: share.id)
            }
            let changed = !history.isEmpty
            try history.commit()
            return changed
        }
    }

    /// Only shares of the private scope (ours) are changed by these commands; a zone shared with
    /// this library belongs to someone else.
    private func requireOwnShare(_ share: ShareInfo) throws {
        guard share.scope == .private else {
            // A read-only participant hears about its permission (77); any participant, that
            // only the owner changes a share.
            try checkSharedZoneWrites([share.id], context: .shareSet)
            throw ShareError.notOwned(share: share.id)
        }
    }

    /// Refuses moving `photo` into `zone`: out of a zone shared with this library, out of
    /// another share without `allowMove`, or beside a photo of `zone` with its original.
    /// - Throws: `ShareError.photoInSharedZone`, `.photoInAnotherShare`, `.originalInZone`.
    func checkMovable(_ photo: PhotoKey, into zone: String, allowMove: Bool) throws {
        guard photo.scope == .private else {
            throw ShareError.photoInSharedZone(photo: photo.uniqueName, zone: photo.zone)
        }
        if photo.zone != ZoneID.default.rawValue && photo.zone != zone && !allowMove {
            throw ShareError.photoInAnotherShare(photo: photo.uniqueName, share: photo.zone)
        }
        // One photo per original within a zone (issue 31 A1): a photo of the same file there
        // already (a participant's, or one moved before it) is not joined by a second one.
        for (_, sha) in try catalogStore.fileReferences(ofPhoto: photo.rowID) {
            if let other = try store.importedOriginal(sha256: sha, in: .zone(zone)),
                other.uniqueName != photo.uniqueName
            {
                throw ShareError.originalInZone(photo: photo.uniqueName, other: other.uniqueName, zone: zone)
            }
        }
    }

    /// Moves one photo to `zone` with its photo data, thumbnail and ratings (keyed by photo, so
    /// the move is the photo's `zone_id`), and replaces each of its tags by the same-named tag of
    /// `zone`, created when absent: no relationship crosses zones (SPEC §2 invariant 4). Logs a
    /// Photo update of `zone` (and `tags`), and updates of `zone` for its PhotoData, Thumbnail
    /// and Ratings.
    func movePhoto(_ photo: PhotoKey, to zone: String, history: inout HistoryWriter) throws {
        try catalogStore.setZone(ofPhoto: photo.rowID, to: zone)
        history.update(.photo(uniqueName: photo.uniqueName), ["zone"], zone: zone)
        if try catalogStore.hasPhotoData(photo.rowID) {
            history.update(.photoData(photo: photo.uniqueName), ["zone"], zone: zone)
        }
        if try catalogStore.hasThumbnail(photo.rowID) {
            history.update(.thumbnail(photo: photo.uniqueName), ["zone"], zone: zone)
        }
        for rating in try catalogStore.ratings(ofPhoto: photo.rowID) {
            history.update(.rating(uuid: rating.uuid), ["zone"], zone: zone)
        }
        var changedTags = false
        for tag in try catalogStore.tags(ofPhoto: photo.rowID) where tag.zone.rawValue != zone {
            let target = try findOrCreateTag(named: tag.name, zone: zone, history: &history)
            try catalogStore.unlink(photo: photo.rowID, tag: tag.rowID)
            try catalogStore.link(photo: photo.rowID, tag: target.rowID)
            changedTags = true
        }
        if changedTags { history.update(.photo(uniqueName: photo.uniqueName), ["tags"], zone: zone) }
    }
}
