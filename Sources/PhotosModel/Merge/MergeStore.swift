/// A photo of the library merged from, with its recorded original.
public struct MergeSourcePhoto: Sendable {
    public var uniqueName: String
    /// 64 lowercase hex digits.
    public var sha256: String
    /// Bytes, as recorded.
    public var byteSize: Int
    /// Where the original is in that library's external data.
    public var fileReference: String
    public var zone: String

    public init(uniqueName: String, sha256: String, byteSize: Int, fileReference: String, zone: String) {
        self.uniqueName = uniqueName
        self.sha256 = sha256
        self.byteSize = byteSize
        self.fileReference = fileReference
        self.zone = zone
    }
}

/// A record zone as stored (SPEC §4).
public struct ZoneRecord: Sendable {
    public var id: String
    public var name: String
    /// `private` or `shared` (`ZoneScope`), as stored.
    public var scope: String

    public init(id: String, name: String, scope: String) {
        self.id = id
        self.name = name
        self.scope = scope
    }
}

/// A share as stored.
public struct ShareRecord: Sendable {
    /// Its zone's id.
    public var id: String
    public var title: String
    /// ISO 8601 UTC.
    public var created: String
    /// `SharePermission`, as stored.
    public var publicPermission: String

    public init(id: String, title: String, created: String, publicPermission: String) {
        self.id = id
        self.title = title
        self.created = created
        self.publicPermission = publicPermission
    }
}

/// A participant as stored; the values are checked by Core (`ParticipantRole` …).
public struct ParticipantRecord: Sendable {
    /// Nil in a library of schema 1–2 (uuids came with schema 3).
    public var uuid: String?
    public var shareID: String
    public var email: String
    public var role: String
    public var permission: String
    public var acceptance: String

    public init(uuid: String?, shareID: String, email: String, role: String, permission: String, acceptance: String) {
        self.uuid = uuid
        self.shareID = shareID
        self.email = email
        self.role = role
        self.permission = permission
        self.acceptance = acceptance
    }
}

/// A photo's own columns as another library stores them, converted to the current schema.
public struct PhotoAttributes: Sendable {
    public var uniqueName: String
    public var displayName: String
    /// ISO 8601 UTC.
    public var importedAt: String
    /// Local wall-clock time `YYYY-MM-DDTHH:MM:SS[.fff]`.
    public var captureDate: String?
    /// Minutes east of UTC.
    public var captureOffset: Int?
    public var captureSource: String?
    /// Pixels as stored; nil when the stored value is not an integer.
    public var width: Int?
    public var height: Int?
    /// Decoded once by the store (`ImageFormat(stored:)`): an unknown format is a data error.
    public var format: ImageFormat
    /// EXIF Orientation 1…8, decoded once by the store (`Orientation(stored:)`).
    public var orientation: Orientation
    public var zone: ZoneID
    /// The position as stored (issue 26 item 1, schema `positionSchemaVersion` on): latitude and
    /// longitude in 1e-7 degrees, altitude in millimetres; nil in an older library or when none.
    /// Unchecked: Core keeps it only when it is a valid position (`GeoPosition`).
    public var latitudeE7: Int? = nil
    public var longitudeE7: Int? = nil
    public var altitudeMM: Int? = nil

    /// The first schema version whose `photo` rows carry a position (`latitude_e7`,
    /// `longitude_e7`, `altitude_mm`).
    public static let positionSchemaVersion = 13

    /// The kind (`still`, `video`, `motion`, `live`), duration in milliseconds and video codec as
    /// stored (issue 25, schema `kindSchemaVersion` on); `still` and nil in an older library.
    /// Unchecked: Core keeps a kind the schema allows and a duration the changeset reader would.
    public var kind: String = "still"
    public var durationMS: Int? = nil
    public var videoCodec: String? = nil

    /// The first schema version whose `photo` rows carry `kind`, `duration_ms`, `video_codec`.
    public static let kindSchemaVersion = 15

    /// The camera make, model and lens and the RAW container name as stored (issue 24 item 1,
    /// schema `cameraSchemaVersion` on; nil in an older library or when unknown). Unchecked:
    /// Core keeps what import would store (`CameraIdentity.isClean`, `isRawFormatName`).
    public var cameraMake: String? = nil
    public var cameraModel: String? = nil
    public var lensModel: String? = nil
    public var cameraFormat: String? = nil

    /// The first schema version whose `photo` rows carry the camera columns.
    public static let cameraSchemaVersion = 18

    /// The title and description as stored (issue 26 item 6, schema `textSchemaVersion` on; nil
    /// in an older library or when none). Unchecked: Core keeps what `PhotoText` would store.
    public var title: String? = nil
    /// The place name set by hand (schema 22), nil when none or older.
    public var placeName: String? = nil
    public var description: String? = nil

    /// The first schema version whose `photo` rows carry `title` and `description`.
    public static let textSchemaVersion = 20
    /// The schema version from which `photo` has `place_name` (migration 22, issue 26 item 3).
    public static let placeSchemaVersion = 22

    public init(
        uniqueName: String, displayName: String, importedAt: String, captureDate: String?, captureOffset: Int?,
        captureSource: String?, width: Int?, height: Int?, format: ImageFormat, orientation: Orientation,
        zone: ZoneID
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
    }
}

/// A rating as another library stores it.
public struct RatingRecord: Sendable {
    /// As stored (Core checks it with `RatingValue`).
    public var value: Int
    /// Nil in a library of schema 1–2.
    public var uuid: String?
    /// The author who set it; nil when anonymous (always in a library of schema 1–4).
    public var author: String?

    public init(value: Int, uuid: String?, author: String? = nil) {
        self.value = value
        self.uuid = uuid
        self.author = author
    }
}

/// Where `photos merge` reads the library merged from. That library is only read, never
/// migrated: a store of an older schema version gives its rows converted the way the
/// migrations would (schema 1: capture date kept as wall-clock time, offset unknown, source
/// `exif`; schema 1–2: no uuids on ratings and participants).
///
/// For PostgreSQL (libpq): every read runs in the caller's read transaction on that store
/// (SQLite: deferred, a WAL snapshot; PostgreSQL: REPEATABLE READ READ ONLY); photos are named
/// by uniqueName, never by row id, so the two libraries may well be on different backends.
/// `schemaVersion` is the store's schema version, read once by the caller (SQLite
/// `user_version`); a PostgreSQL store, always current, ignores it.
public protocol MergeSourceStore: AnyObject {
    /// Every photo with its primary original, in row order (a store of schema version below
    /// `PhotoOriginal.rolesSchemaVersion` has one original per photo, all primary).
    /// - Throws: the store's error.
    func mergeSourcePhotos(schemaVersion: Int) throws -> [MergeSourcePhoto]
    /// Every original of the other library besides its photos' primaries (issue 24 item 2, schema
    /// 16): `photo` is the uniqueName, `fileReference` the other library's; empty for a library of
    /// an older schema (one original per photo). Roles as stored (the caller skips unknown ones).
    /// - Throws: the store's error.
    func mergeSourceExtraOriginals(schemaVersion: Int) throws -> [(original: SyncOriginal, fileReference: String)]
    /// Every zone, by id.
    /// - Throws: the store's error.
    func mergeSourceZones() throws -> [ZoneRecord]
    /// Every share, by id.
    /// - Throws: the store's error.
    func mergeSourceShares() throws -> [ShareRecord]
    /// Every participant, by share and email.
    /// - Throws: the store's error.
    func mergeSourceParticipants(schemaVersion: Int) throws -> [ParticipantRecord]
    /// The photo `uniqueName`'s columns; nil when absent.
    /// - Throws: the store's error.
    func mergeSourcePhoto(_ uniqueName: String, schemaVersion: Int) throws -> PhotoAttributes?
    /// The thumbnail of photo `uniqueName` (JPEG bytes, pixels), nil when none.
    /// - Throws: the store's error.
    func mergeSourceThumbnail(of uniqueName: String) throws -> (data: [UInt8], width: Int, height: Int)?
    /// The ratings of photo `uniqueName`, in row order.
    /// - Throws: the store's error.
    func mergeSourceRatings(of uniqueName: String, schemaVersion: Int) throws -> [RatingRecord]
    /// Every tag, by uuid.
    /// - Throws: the store's error.
    func mergeSourceTags() throws -> [RecordedTag]
    /// Every tag link as (photo uniqueName, tag uuid), by photo row then tag uuid.
    /// - Throws: the store's error.
    func mergeSourceTagLinks() throws -> [(photo: String, tagUUID: String)]
}

/// A photo of this library as merge matches it: its row id (valid in the current write
/// transaction only), zone and uniqueName.
public struct LocalPhoto: Sendable {
    public var id: Int64
    public var zone: String
    public var name: String

    public init(id: Int64, zone: String, name: String) {
        self.id = id
        self.zone = zone
        self.name = name
    }
}

/// The reads and writes `photos merge` makes on this library, inside the caller's write
/// transaction (SQLite BEGIN IMMEDIATE; PostgreSQL a transaction-level advisory lock).
/// New photos, their data, thumbnails, ratings and tag links go through the insert path import
/// shares (`PhotoWriter`).
///
/// For PostgreSQL (libpq): the "add if absent" writes are `INSERT … ON CONFLICT DO NOTHING`
/// with the affected-row count telling whether a row came in (SQLite: `INSERT OR IGNORE` /
/// `changes()`).
public protocol MergeTargetStore: AnyObject {
    /// Adds `zone` unless a zone of its id exists. - Returns: true when added.
    /// - Throws: the store's error.
    func addZoneIfAbsent(_ zone: ZoneRecord) throws -> Bool
    /// Adds `share` unless a share of its id exists. - Returns: true when added.
    /// - Throws: the store's error.
    func addShareIfAbsent(_ share: ShareRecord) throws -> Bool
    /// The photo named `uniqueName`, else the first (by row) of `scope` whose original has
    /// `sha256`: the scope import uses for the photo's zone (`DuplicateScope.forPhotos`), so
    /// a photo of a zone shared with this library never matches, and never moves, a private
    /// photo of the same file (issue 31 A1), and one of the private store matches its file in
    /// any of this library's own zones, as import skips it there.
    /// - Throws: the store's error.
    func matchingPhoto(uniqueName: String, sha256: String, scope: DuplicateScope) throws -> LocalPhoto?
    /// True when a rating has `uuid`.
    /// - Throws: the store's error.
    func hasRating(uuid: String) throws -> Bool
    /// The tag of `uuid`: row id, zone and name.
    /// - Throws: the store's error.
    func tag(uuid: String) throws -> (id: Int64, zone: String, name: String)?
    /// The scope of zone `id` (`private`, `shared`), nil when absent.
    /// - Throws: the store's error.
    func zoneScope(_ id: String) throws -> String?
}
