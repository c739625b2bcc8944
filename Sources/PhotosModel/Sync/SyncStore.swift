/// The objects sync replicates, each named by its stable identity (SYNC.md "Identity is the
/// uuid"): Photo by uniqueName, Tag, Rating and Participant by uuid, Share by its zone id, and a
/// photo–tag link (`PhotoTag`) by `PHOTO/TAGUUID`, and a photo's original of a role other than
/// `primary` (`PhotoData`, issue 24 item 2) by `PHOTO/ROLE`. The primary original and the
/// thumbnail travel with their photo (its `sha256`, `byteSize` and `format`), so that a changeset
/// of a library from before several originals per photo (schema 16) means "the primary only".
public enum SyncEntity: String, CaseIterable, Sendable {
    case share = "Share"
    case participant = "Participant"
    case photo = "Photo"
    case tag = "Tag"
    case rating = "Rating"
    case photoTag = "PhotoTag"
    case photoData = "PhotoData"

    /// The attributes sync keeps per object of this entity, besides `deleted` (the tombstone).
    /// Each is an attribute of the data model (SPEC §3) as text; `PhotoTag.present` is `1` for a
    /// link and `0` for a removed one.
    public var attributes: [String] {
        switch self {
        case .share: return ["title", "created", "publicPermission", "scope"]
        case .participant: return ["share", "email", "role", "permission", "acceptance"]
        case .photo:
            return [
                "displayName", "importedAt", "captureDate", "captureOffset", "captureSource", "width", "height",
                "format", "orientation", "zone", "sha256", "byteSize", "latitudeE7", "longitudeE7", "altitudeMM",
                // Issue 25 item 2 (a peer without them reads a still of no duration).
                "kind", "durationMS", "videoCodec"
            ] + SyncEntity.cameraAttributes + SyncEntity.textAttributes + ["placeName"]
        case .tag: return ["name", "zone"]
        case .rating: return ["photo", "value", "author"]
        case .photoTag: return ["present"]
        // `sha256` without a value: the photo has no original of this role (any more).
        case .photoData: return ["sha256", "byteSize", "format"]
        }
    }

    /// A photo's camera attributes (issue 24 item 1, schema 18): make, model, lens and the RAW
    /// container's name, each absent (null) when unknown; a peer without them reads no camera.
    public static let cameraAttributes = ["cameraMake", "cameraModel", "lensModel", "cameraFormat"]

    /// A photo's title and description (issue 26 item 6, schema 20), absent (null) when none; a
    /// peer without them reads none.
    public static let textAttributes = ["title", "description"]

    /// The roles whose originals travel as `PhotoData` objects (`PHOTO/ROLE`): every role this
    /// build knows but `primary`, in the order of `OriginalRole.allCases`.
    public static var extraOriginalRoles: [String] {
        OriginalRole.allCases.filter { $0 != .primary }.map(\.rawValue)
    }

    /// The `PhotoData` object ids of a photo's extra originals, one per role of
    /// `extraOriginalRoles`.
    public static func photoDataIDs(ofPhoto uniqueName: String) -> [String] {
        extraOriginalRoles.map { uniqueName + "/" + $0 }
    }

    /// The attribute name of a tombstone: value `1` once the object is deleted (a delete wins
    /// over every update, concurrent or later; identities are never reused).
    public static let deleted = "deleted"
}

/// Who wins an attribute (SYNC.md "Conflict rule"): the change with the later history timestamp,
/// ties broken by the larger library id. Compared as (time, library): ISO 8601 UTC strings of one
/// shape (`YYYY-MM-DDTHH:MM:SS.fffZ`) order as their instants.
public struct SyncStamp: Comparable, Hashable, Sendable {
    /// ISO 8601 UTC with milliseconds: the history transaction's timestamp.
    public var time: String
    /// The library that made the change (`sync_library.id`, lowercase UUID).
    public var library: String

    public init(time: String, library: String) {
        self.time = time
        self.library = library
    }

    public static func < (a: SyncStamp, b: SyncStamp) -> Bool { (a.time, a.library) < (b.time, b.library) }
}

/// One attribute of one object with its winning value and stamp: a row of the sync state and of
/// a changeset.
public struct SyncEntry: Equatable, Sendable {
    public var entity: SyncEntity
    /// The object's identity (`SyncEntity`).
    public var objectID: String
    /// One of `entity.attributes`, or `SyncEntity.deleted`.
    public var attribute: String
    /// The value as text; nil for an attribute without a value (a capture date not known).
    public var value: String?
    public var stamp: SyncStamp
    /// The record zone the object is in (for zone-scoped changesets).
    public var zone: String?

    public init(
        entity: SyncEntity, objectID: String, attribute: String, value: String?, stamp: SyncStamp, zone: String?
    ) {
        self.entity = entity
        self.objectID = objectID
        self.attribute = attribute
        self.value = value
        self.stamp = stamp
        self.zone = zone
    }
}

/// An original of a photo other than its primary (issue 24 item 2), as sync reads and writes it
/// by identity: `photo_data` row of role `role`.
public struct SyncOriginal: Equatable, Sendable {
    /// The photo's uniqueName.
    public var photo: String
    /// `OriginalRole` raw value (never `primary` here).
    public var role: String
    /// 64 lowercase hex digits.
    public var sha256: String
    /// Bytes.
    public var byteSize: Int
    /// The original's own `ImageFormat` raw value; nil when not recorded.
    public var format: String?

    public init(photo: String, role: String, sha256: String, byteSize: Int, format: String?) {
        self.photo = photo
        self.role = role
        self.sha256 = sha256
        self.byteSize = byteSize
        self.format = format
    }
}

/// This library's sync bookkeeping (`sync_library`).
public struct SyncState: Equatable, Sendable {
    /// The stable library id (lowercase UUID), the sender id of its changesets.
    public var libraryID: String
    /// The last change token: every change the sync state records takes the next one.
    public var changeToken: Int64
    /// The last history token whose changes are folded into the sync state.
    public var reconciledHistoryToken: Int64

    public init(libraryID: String, changeToken: Int64, reconciledHistoryToken: Int64) {
        self.libraryID = libraryID
        self.changeToken = changeToken
        self.reconciledHistoryToken = reconciledHistoryToken
    }
}

/// A photo as sync materializes it: the columns of `photo` plus its original's SHA-256 and size.
public struct SyncPhotoValues: Sendable {
    public var uniqueName: String
    public var displayName: String
    public var importedAt: String
    public var captureDate: String?
    public var captureOffset: Int?
    public var captureSource: String?
    /// Pixels.
    public var width: Int
    public var height: Int
    public var format: ImageFormat
    /// EXIF Orientation (EXIF 2.32 §4.6.4 Table 4).
    public var orientation: Orientation
    public var zone: ZoneID
    /// 64 lowercase hex digits.
    public var sha256: String
    /// Bytes.
    public var byteSize: Int
    /// The position (issue 26 item 1): 1e-7 degrees and millimetres; nil when none.
    public var latitudeE7: Int? = nil
    public var longitudeE7: Int? = nil
    public var altitudeMM: Int? = nil
    /// Issue 25 item 2: `still`, `video`, `motion` or `live`; milliseconds; libavcodec's name.
    public var kind = "still"
    public var durationMS: Int? = nil
    public var videoCodec: String? = nil
    /// Issue 24 item 1: the camera (nil when unknown) and a RAW's container name.
    public var camera: CameraIdentity? = nil
    public var cameraFormat: String? = nil
    /// Issue 26 item 6: the title and description, nil when none.
    public var title: String? = nil
    public var description: String? = nil
    /// Issue 26 item 3: the place name set by hand, nil when none.
    public var placeName: String? = nil

    public init(
        uniqueName: String, displayName: String, importedAt: String, captureDate: String?, captureOffset: Int?,
        captureSource: String?, width: Int, height: Int, format: ImageFormat, orientation: Orientation,
        zone: ZoneID, sha256: String, byteSize: Int
    ) {
        self.uniqueName = uniqueName
        self.displayName = displayName
        self.importedAt = importedAt
        self.captureDate = captureDate
        self.captureOffset = captureOffset
        self.captureSource = captureSource
        self.width = width
        self.height = height
        self.format = format
        self.orientation = orientation
        self.zone = zone
        self.sha256 = sha256
        self.byteSize = byteSize
    }
}

/// Where sync keeps its state and reads and writes the catalog by identity (issue 11). Every
/// method runs inside the caller's transaction (a write transaction for the writers: SQLite BEGIN
/// IMMEDIATE, PostgreSQL a transaction-level advisory lock).
///
/// Plain SQL on both backends: the sync state is an ordinary keyed table (`sync_entry`, primary
/// key entity + object id + attribute) written with `INSERT … ON CONFLICT (…) DO UPDATE`, which
/// SQLite ≥ 3.24 and PostgreSQL both accept; objects are addressed by uuid / uniqueName, never by
/// row id; no SQLite-only function is needed.
/// A tombstone of the sync state: the object, the change token of this library that recorded
/// its deletion, and its record zone.
public struct SyncTombstone: Equatable, Sendable {
    public var entity: SyncEntity
    public var objectID: String
    public var token: Int64
    public var zone: String?

    public init(entity: SyncEntity, objectID: String, token: Int64, zone: String?) {
        self.entity = entity
        self.objectID = objectID
        self.token = token
        self.zone = zone
    }
}

public protocol SyncStore: AnyObject {
    // MARK: state

    /// This library's id and tokens.
    /// - Throws: the store's error.
    func syncState() throws -> SyncState
    /// Gives this library the new id `id` (a lowercase UUID): a restored copy becomes a
    /// library of its own (issue 31 item 7). Tokens and the sync state are kept.
    /// - Throws: the store's error.
    func setLibraryID(_ id: String) throws
    /// Stores the tokens.
    /// - Throws: the store's error.
    func setSyncTokens(changeToken: Int64, reconciledHistoryToken: Int64) throws
    /// The sync entries of one object, by attribute.
    /// - Throws: the store's error.
    func syncEntries(_ entity: SyncEntity, _ objectID: String) throws -> [SyncEntry]
    /// The `PhotoTag` entries of one photo (object ids `PHOTO/…`).
    /// - Throws: the store's error.
    func syncLinkEntries(ofPhoto uniqueName: String) throws -> [SyncEntry]
    /// Sets one entry (insert or replace by entity, object id and attribute) with change `token`.
    /// - Throws: the store's error.
    func putSyncEntry(_ entry: SyncEntry, token: Int64) throws
    /// Calls `body` with every entry whose change token is above `token`, in `zone` when given,
    /// ordered by entity, object id and attribute.
    /// - Throws: the store's error.
    func forEachSyncEntry(after token: Int64, zone: String?, _ body: (SyncEntry) throws -> Void) throws
    /// The object ids of `entity` the sync state holds and has not marked deleted.
    /// - Throws: the store's error.
    func liveSyncObjects(_ entity: SyncEntity) throws -> [String]
    /// True when the sync state records nothing any consumer could have read: no entry, no
    /// applied range, no acknowledgement and no membership (the tokens are the caller's to check).
    /// - Throws: the store's error.
    func syncStateIsEmpty() throws -> Bool

    // MARK: state, a chunk of objects at a time (`SyncReconciler`)

    /// The sync entries of every object of `entity` named in `objectIDs` (any number; the store
    /// splits them into statements of its own size), in no particular order.
    /// - Throws: the store's error.
    func syncEntries(_ entity: SyncEntity, _ objectIDs: [String]) throws -> [SyncEntry]
    /// The `PhotoTag` entries of the photos named (object ids `PHOTO/TAGUUID`), in no particular
    /// order.
    /// - Throws: the store's error.
    func syncLinkEntries(ofPhotos uniqueNames: [String]) throws -> [SyncEntry]
    /// Sets every entry (insert or replace by entity, object id and attribute) with change
    /// `token`, as `putSyncEntry` one by one would. No two entries may share entity, object id
    /// and attribute.
    /// - Throws: the store's error.
    func putSyncEntries(_ entries: [SyncEntry], token: Int64) throws

    // MARK: history

    /// The newest history token (0 for none).
    /// - Throws: the store's error.
    func newestHistoryToken() throws -> Int64
    /// The oldest history token kept (nil when history is empty).
    /// - Throws: the store's error.
    func oldestHistoryToken() throws -> Int64?
    /// Every (entity, object id, newest timestamp) that history names after `token`, in
    /// transactions whose context is not `excludedContext`.
    /// - Throws: the store's error.
    func historyObjects(after token: Int64, excludingContext excludedContext: String) throws -> [(
        entity: String, objectID: String, timestamp: String
    )]
    /// The newest timestamp of a history transaction outside `excludedContext` naming each object
    /// id (any number): object id → timestamp, objects that history does not name left out.
    /// - Throws: the store's error.
    func newestHistoryTimestamps(entity: String, objectIDs: [String], excludingContext excludedContext: String)
        throws -> [String: String]

    // MARK: catalog by identity

    /// Every object id of `entity` in the catalog (PhotoTag: `PHOTO/TAGUUID`).
    /// - Throws: the store's error.
    func catalogObjects(_ entity: SyncEntity) throws -> [String]
    /// The object ids of `entity` (photo, tag or participant) in one record zone.
    /// - Throws: the store's error.
    func catalogObjects(_ entity: SyncEntity, inZone zone: String) throws -> [String]
    /// The attributes of an object as the catalog holds it (`SyncEntity.attributes`; an attribute
    /// without a value is left out), nil when the object is not there.
    /// - Throws: the store's error.
    func catalogAttributes(_ entity: SyncEntity, _ objectID: String) throws -> [String: String]?
    /// `catalogAttributes` for every object id of `entity` named (any number; not `PhotoTag`):
    /// object id → attributes, objects not in the catalog left out.
    /// - Throws: the store's error.
    func catalogAttributes(_ entity: SyncEntity, _ objectIDs: [String]) throws -> [String: [String: String]]
    /// The uuids of the tags each photo named is linked to (any number), in uuid order:
    /// uniqueName → tag uuids, photos without links left out.
    /// - Throws: the store's error.
    func tagUUIDs(ofPhotos uniqueNames: [String]) throws -> [String: [String]]

    // MARK: applied ranges and acknowledgements

    /// The last change token applied from `sender` for `scope` (`library` or a zone id).
    /// - Throws: the store's error.
    func appliedToken(sender: String, scope: String) throws -> Int64?
    /// Records it.
    /// - Throws: the store's error.
    func setAppliedToken(sender: String, scope: String, token: Int64) throws
    /// Every (sender, scope, token) applied here.
    /// - Throws: the store's error.
    func appliedTokens() throws -> [(sender: String, scope: String, token: Int64)]
    /// The last change token of ours that `peer` acknowledged for `scope`.
    /// - Throws: the store's error.
    func acknowledgedToken(peer: String, scope: String) throws -> Int64?
    /// Records it (kept when lower than the one stored).
    /// - Throws: the store's error.
    func setAcknowledgedToken(peer: String, scope: String, token: Int64) throws
    /// Every (peer, scope, acknowledged token) recorded here (`sync_peer`).
    /// - Throws: the store's error.
    func acknowledgedTokens() throws -> [(peer: String, scope: String, token: Int64)]
    /// The tombstones (`deleted` entries) stamped before `stampTime` (an ISO 8601 UTC text of
    /// `SyncStamp.time`'s form), with the change token that recorded each and its zone.
    /// - Throws: the store's error.
    func syncTombstones(before stampTime: String) throws -> [SyncTombstone]
    /// Deletes every entry of one object (its attributes and its tombstone). Returns the rows
    /// deleted.
    /// - Throws: the store's error.
    func deleteSyncObject(_ entity: SyncEntity, _ objectID: String) throws -> Int

    // MARK: sharing

    /// This library's membership of a zone shared with it (`share accept`), nil when none.
    /// - Throws: the store's error.
    func membership(zone: String) throws -> SyncMembership?
    /// Every zone shared with this library.
    /// - Throws: the store's error.
    func memberships() throws -> [SyncMembership]
    /// Records (or replaces) a membership.
    /// - Throws: the store's error.
    func setMembership(_ membership: SyncMembership) throws
    /// This library's owner address (`library_owner`, migration 19; `photos identity set`), nil
    /// when none is recorded.
    /// - Throws: the store's error.
    func ownerAddress() throws -> String?
    /// Records (or replaces) the owner address, or removes it with nil.
    /// - Parameter email: a normalized address (`Email.rawValue`, at most 254 bytes).
    /// - Throws: the store's error.
    func setOwnerAddress(_ email: String?) throws

    // MARK: materializing

    /// Creates the zone when absent, else sets its scope.
    /// - Throws: the store's error.
    func putZone(_ id: String, scope: String) throws
    /// Inserts the share (its zone must exist) or updates its title and public permission.
    /// - Throws: the store's error.
    func putShare(id: String, title: String, created: String, publicPermission: String) throws
    /// Deletes a share's zone with everything in it (photos, tags, ratings, links, participants,
    /// the share). - Returns: the file references of the photos that went.
    /// - Throws: the store's error.
    func deleteZoneContents(_ id: String) throws -> [String]
    /// Inserts or updates a participant by uuid (the share must exist).
    /// - Throws: the store's error.
    func putParticipant(
        uuid: String, share: String, email: String, role: String, permission: String, acceptance: String) throws
    /// Deletes a participant by uuid.
    /// - Throws: the store's error.
    func deleteParticipant(uuid: String) throws
    /// Inserts a photo with its photo data and thumbnail. - Returns: the row id.
    /// - Throws: the store's error.
    func insertPhoto(
        _ photo: SyncPhotoValues, fileReference: String, thumbnail: (data: [UInt8], width: Int, height: Int)?
    )
        throws -> Int64
    /// The originals of each photo named (any number) other than its primary: uniqueName →
    /// originals in role order, photos without any left out.
    /// - Throws: the store's error.
    func extraOriginals(ofPhotos uniqueNames: [String]) throws -> [String: [SyncOriginal]]
    /// Inserts the photo's original of `original.role` (not `primary`), or replaces its SHA-256,
    /// size, format and file reference; nothing when the photo is not here.
    /// - Throws: the store's error (the schema's CHECK on the role).
    func putExtraOriginal(_ original: SyncOriginal, fileReference: String) throws
    /// Deletes the photo's original of `role` (not `primary`).
    /// - Returns: its file reference, nil when there was none.
    /// - Throws: the store's error.
    func deleteExtraOriginal(photo uniqueName: String, role: String) throws -> String?
    /// Every original's file (all photos, all roles): file reference, SHA-256 and size, in file
    /// reference order, one per reference.
    /// - Throws: the store's error.
    func originalFiles() throws -> [(reference: String, sha256: String, byteSize: Int)]
    /// Sets a photo's zone. - Throws: the store's error.
    func setPhotoZone(_ uniqueName: String, zone: String) throws
    /// Sets a photo's position (issue 26 item 1): 1e-7 degrees and millimetres; all nil for none.
    /// - Throws: the store's error.
    func setPhotoPosition(_ uniqueName: String, latitudeE7: Int?, longitudeE7: Int?, altitudeMM: Int?) throws
    /// Sets a photo's capture time (issue 26 item 5: a time fixed by `date set`/`date shift` on a
    /// peer): `captureDate` `YYYY-MM-DDTHH:MM:SS[.fff]` (nil: none), its offset in minutes east
    /// (nil: unknown) and its source. - Throws: the store's error.
    func setPhotoCaptureTime(_ uniqueName: String, captureDate: String?, captureOffset: Int?, captureSource: String?)
        throws
    /// Sets a photo's kind (`still`, `video`, `motion`, `live`), duration in milliseconds and
    /// video codec (issue 25 item 2). - Throws: the store's error (the schema's CHECK on `kind`).
    func setPhotoKind(_ uniqueName: String, kind: String, durationMS: Int?, videoCodec: String?) throws
    /// Sets a photo's camera and RAW container name (issue 24 item 1; nil: NULL).
    /// - Throws: the store's error.
    func setPhotoCamera(_ uniqueName: String, camera: CameraIdentity?, cameraFormat: String?) throws
    /// Sets a photo's title and description (issue 26 item 6; nil: NULL).
    /// - Throws: the store's error.
    func setPhotoText(_ uniqueName: String, title: String?, description: String?) throws
    /// Sets a photo's place name set by hand (issue 26 item 3; nil: NULL, none).
    /// - Throws: the store's error.
    func setPhotoPlaceName(_ uniqueName: String, _ placeName: String?) throws
    /// Inserts a tag or updates its name and zone by uuid.
    /// - Throws: the store's error.
    func putTag(uuid: String, name: String, zone: String) throws
    /// Inserts a rating (its photo must exist), or sets the value of the one with this uuid.
    /// - Throws: the store's error.
    func putRating(uuid: String, photo: String, value: Int, author: String?) throws
    /// The uuid of `author`'s rating of a photo (one per author per photo, schema migration 5).
    /// - Throws: the store's error.
    func rating(ofPhoto photo: String, author: String) throws -> String?
    /// Links or unlinks a photo and a tag, both by identity; nothing when either is missing.
    /// - Returns: true when a row changed.
    /// - Throws: the store's error.
    func setLink(photo: String, tag: String, present: Bool) throws -> Bool
    /// The row id of an object in the catalog (for history's delete selections), nil when absent.
    /// - Throws: the store's error.
    func rowID(_ entity: SyncEntity, _ objectID: String) throws -> Int64?
    /// Deletes a photo (cascading to its data, thumbnail, ratings and links), tag, or rating by
    /// identity. - Throws: the store's error.
    func deleteObject(_ entity: SyncEntity, _ objectID: String) throws
}

/// A zone shared with this library: who this library is in it and who owns it.
public struct SyncMembership: Equatable, Sendable {
    /// The share's (zone's) id.
    public var zone: String
    /// This library's participant e-mail address in the share.
    public var email: String
    /// The owner's library id (the only sender whose changesets of the zone are accepted).
    public var owner: String
    /// ISO 8601 UTC of `share leave`, nil while a member.
    public var leftAt: String?

    public init(zone: String, email: String, owner: String, leftAt: String?) {
        self.zone = zone
        self.email = email
        self.owner = owner
        self.leftAt = leftAt
    }
}
