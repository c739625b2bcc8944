import Foundation

/// The kind of change a history entry records (Core Data's `NSPersistentHistoryChangeType`).
public enum ChangeType: String, Sendable {
    case insert, update, delete
}

/// One change of a persistent-history transaction (SPEC §4), as `photos history` reads it back.
/// Changes are written only through `HistoryWriter`, which takes a typed `HistoryEntity`.
public struct HistoryChange: Equatable {
    /// Entity name as in the data model: a `HistoryEntity` raw value (`Photo`, `PhotoData`,
    /// `Thumbnail`, `Tag`, `Rating`, `Share`, `Participant`).
    public var entity: String
    /// The object's identifier, by `HistoryEntity.objectIDRule`.
    public var objectID: String
    public var type: ChangeType
    /// Names of the attributes an update changed.
    public var updated: [String]
    /// For deletes, the identifying attributes of the deleted object, in the order of
    /// `HistoryEntity.tombstoneKeys`.
    public var tombstone: [(String, String)]?
    /// The record zone the object is in (after the change).
    public var zone: String?

    public init(
        entity: String, objectID: String, type: ChangeType, updated: [String] = [],
        tombstone: [(String, String)]? = nil, zone: String? = nil
    ) {
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

/// The entities persistent history records (SPEC §3, §4). Each declares, in this one place, its
/// object identifier and the one tombstone shape its deletes carry, whatever command deletes it
/// (`delete`, `purge`, `rating delete`, `tag delete`, `tag rename`, `dedupe-tags`, `share add`,
/// `share uninvite`, `verify --repair`): the tombstone is always read from the row itself, by
/// `HistoryWriter.delete` one object at a time or by `HistoryWriter.deleteSetWise` in one
/// INSERT … SELECT, both generated from `source`. A zone has no history entity of its own: a
/// share's id is its zone's id, and the Share change stands for both.
public enum HistoryEntity: String, CaseIterable, Sendable {
    case photo = "Photo"
    case photoData = "PhotoData"
    case thumbnail = "Thumbnail"
    case tag = "Tag"
    case rating = "Rating"
    case share = "Share"
    case participant = "Participant"

    /// The children that a photo's deletion cascades to (SPEC §3: photoData, thumbnail, ratings
    /// cascade), in the order their deletes are recorded, before the Photo's own.
    public static let photoChildren: [HistoryEntity] = [.rating, .thumbnail, .photoData]

    /// The keys of this entity's delete tombstone, in the order they are written (SPEC §4: a
    /// deleted tag keeps its name and uuid, a deleted photo its uniqueName and SHA-256).
    public var tombstoneKeys: [String] {
        switch self {
        case .photo: return ["uniqueName", "sha256"]
        case .photoData: return ["photo", "sha256"]
        case .thumbnail: return ["photo"]
        case .rating: return ["photo", "value"]
        case .tag: return ["name", "uuid"]
        case .share: return ["id", "title"]
        case .participant: return ["share", "email"]
        }
    }

    /// What the change's object identifier is, in words (the man page's HISTORY section).
    public var objectIDRule: String {
        switch self {
        case .photo: return "the photo's uniqueName"
        case .tag: return "the tag's uuid"
        case .share: return "the share's id (its zone's id)"
        case .photoData, .thumbnail: return "the uniqueName of its photo (one per photo)"
        case .rating: return "the rating's uuid"
        case .participant: return "the participant's uuid"
        }
    }
}

/// Which rows of an entity a delete names.
public enum HistorySelection: Sendable {
    /// One row, by its row id.
    case rowID(Int64)
    /// One share, by its id.
    case shareID(String)
    /// The rows belonging to one photo (by the photo's row id): the photo itself, its photo
    /// data, thumbnail and ratings. Selects nothing of other entities.
    case photo(Int64)
    /// Every row of the entity in one record zone.
    case zone(String)
}

/// The command a history transaction records as its context (SPEC §4), and whose author rule
/// applies.
public enum HistoryContext: String, CaseIterable, Sendable {
    case `import` = "import"
    case delete = "delete"
    case rate = "rate"
    case ratingDelete = "rating delete"
    case tagAdd = "tag add"
    case tagRemove = "tag remove"
    case tagDelete = "tag delete"
    case tagRename = "tag rename"
    /// `photos tag prune`: the tags no photo has, deleted (issue 32 item 8).
    case tagPrune = "tag prune"
    case shareCreate = "share create"
    case shareAdd = "share add"
    case shareRemove = "share remove"
    case shareInvite = "share invite"
    case shareUninvite = "share uninvite"
    case shareSet = "share set"
    case purge = "purge"
    case dedupeTags = "dedupe-tags"
    case merge = "merge"
    case verifyRepair = "verify --repair"
    case thumbnailRebuild = "thumbnails --rebuild"
    /// `photos import --refresh-metadata`: what a photo's file metadata says now, applied.
    case refreshMetadata = "import --refresh-metadata"
    /// Applying a changeset of another library (`sync --apply`, `sync --from`; issue 11).
    case sync = "sync"
    /// A participant accepts a share (`share accept`) or leaves it (`share leave`).
    case shareAccept = "share accept"
    case shareLeave = "share leave"
    /// The owner ends a share, moving its photos back to the default zone (`share stop`).
    case shareStop = "share stop"
    /// `photos date set` and `photos date shift`: capture times fixed by hand (issue 26 item 5).
    case dateSet = "date set"
    case dateShift = "date shift"
    /// `photos geotag`: positions from a GPX track (issue 26 item 7).
    case geotag = "geotag"
    /// `photos duplicates --resolve`: each group's keeper takes the others' tags, ratings and
    /// capture time, and the others are deleted (issue 27 item 3).
    case duplicatesResolve = "duplicates --resolve"
    /// `photos describe`: titles and descriptions set by hand (issue 26 item 6).
    case describe = "describe"
    /// `photos place set` and `photos place clear`: place names set by hand (issue 26 item 3).
    case placeSet = "place set"
    case placeClear = "place clear"

    /// The author a maintenance command records unless `--author` is given (SPEC §4: "each
    /// maintenance command uses its own, e.g. `dedupe-tags`"); nil for the user's commands.
    public var maintenanceAuthor: String? {
        switch self {
        case .purge: return "purge"
        case .dedupeTags: return "dedupe-tags"
        case .merge: return "merge"
        case .verifyRepair: return "verify"
        case .thumbnailRebuild: return "thumbnails"
        case .sync: return "sync"
        case .duplicatesResolve: return "duplicates"
        default: return nil
        }
    }
}

/// Who a history transaction is by (SPEC §4). The one place of the author rule: `--author`
/// wins for every command; otherwise a maintenance command records its own name
/// (`HistoryContext.maintenanceAuthor`) and the user's commands record `user` when
/// `$PHOTOS_AUTHOR` names someone, else who this library is in the zone changed (issue #29
/// "Identity"): its participant in a zone shared with it, the owner address in its own zones,
/// else `photos`.
public struct HistoryAuthor: Equatable, Sendable, ExpressibleByStringLiteral {
    /// `--author NAME`, when given.
    public var given: String?
    /// `$PHOTOS_AUTHOR`, else `photos`.
    public var user: String
    /// The owner address for this run (`--owner`, else `$PHOTOS_OWNER`), nil to use the one the
    /// library records (`photos identity set`).
    public var owner: String?

    /// - Parameters:
    ///   - given: `--author`, or nil.
    ///   - user: the default author of the user's own commands.
    ///   - owner: the owner address given for this run, or nil.
    public init(given: String? = nil, user: String = "photos", owner: String? = nil) {
        self.given = given
        self.user = user
        self.owner = owner
    }

    /// An explicitly given author, as `--author` (used by every command).
    public init(stringLiteral value: String) { self.init(given: value, user: value) }

    /// No `--author`, no `$PHOTOS_AUTHOR`, no `--owner`.
    public static let `default` = HistoryAuthor()

    /// The author recorded for `context` in this library's own zones, with `owner` when no
    /// owner was given for the run.
    public func name(for context: HistoryContext, owner recorded: String? = nil) -> String {
        name(for: context, participant: nil, owner: recorded)
    }

    /// The author recorded for `context` in one zone (issue #29 "Identity"): `--author`, a
    /// maintenance context's own author, `$PHOTOS_AUTHOR` when it names someone other than
    /// `photos`, then `participant` (this library's participant e-mail in a zone of scope
    /// `shared`, from its accepted membership), then the owner address (this run's `owner`,
    /// else `recorded`), else `user` (`photos`).
    /// - Parameters:
    ///   - context: the command's history context.
    ///   - participant: this library's participant e-mail in the zone, or nil in its own zones.
    ///   - recorded: the owner address the library records, or nil.
    public func name(for context: HistoryContext, participant: String?, owner recorded: String? = nil) -> String {
        fixedName(for: context) ?? participant ?? owner ?? recorded ?? user
    }

    /// The author of `context` that no zone changes: `--author`, a maintenance context's own
    /// author, or `$PHOTOS_AUTHOR` when it names someone other than `photos`; nil when the
    /// zone's participant or the owner address decides (`name(for:participant:owner:)`).
    public func fixedName(for context: HistoryContext) -> String? {
        if let explicit = given ?? context.maintenanceAuthor { return explicit }
        return user != HistoryAuthor.default.user ? user : nil
    }
}

/// An object that history names, by its stable identity: never a local row id, because sync
/// replicates by identity and a row id differs between libraries (SYNC.md "Identity is the
/// uuid"). PhotoData and Thumbnail are named by their photo's uniqueName: each is 1:1 with its
/// photo (UNIQUE photo_id), is created and deleted with it and never moves alone, so the
/// photo's identity is theirs and needs no uuid column of its own; the entity name tells the
/// three apart.
public enum HistoryObject: Hashable, Sendable {
    case photo(uniqueName: String)
    case photoData(photo: String)
    case thumbnail(photo: String)
    case tag(uuid: String)
    case rating(uuid: String)
    case share(id: String)
    case participant(uuid: String)

    /// The entity this object is of.
    public var entity: HistoryEntity {
        switch self {
        case .photo: return .photo
        case .photoData: return .photoData
        case .thumbnail: return .thumbnail
        case .tag: return .tag
        case .rating: return .rating
        case .share: return .share
        case .participant: return .participant
        }
    }

    /// The identifier history records (`HistoryEntity.objectIDRule`).
    public var objectID: String {
        switch self {
        case .photo(let id), .photoData(let id), .thumbnail(let id), .tag(let id), .rating(let id),
            .share(let id), .participant(let id):
            return id
        }
    }
}

/// A new random identity for an object history names: a lowercase RFC 9562 version 4 UUID,
/// the form tags, shares, ratings and participants use.
public func newObjectUUID() -> String { RandomUUID.make().uuidString.lowercased() }
