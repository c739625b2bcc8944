/// A photo row as the catalog stores it, joined with its zone, photo data and thumbnail: what
/// `list`, `show` and the commands that resolve a photo read. Core turns it into its
/// `PhotoRecord`.
public struct StoredPhoto: Sendable {
    public var rowID: Int64
    public var uniqueName: String
    public var displayName: String
    /// 64 lowercase hex digits; "" when the row has no photo data (a damaged library).
    public var sha256: String
    /// Bytes of the original; 0 without photo data.
    public var byteSize: Int
    public var fileReference: String
    /// The original's format.
    public var format: ImageFormat
    /// Pixels, as stored.
    public var width: Int
    public var height: Int
    /// EXIF Orientation (EXIF 2.32 §4.6.4 Table 4) as stored.
    public var orientation: Orientation
    /// Local wall-clock capture time without zone, when known.
    public var captureDate: String?
    /// UTC offset of the capture time in minutes east, when known.
    public var captureOffset: Int?
    public var captureSource: String?
    /// ISO 8601 UTC.
    public var importedAt: String
    /// Thumbnail pixels; 0 without a thumbnail.
    public var thumbnailWidth: Int
    public var thumbnailHeight: Int
    public var zone: ZoneID
    /// The zone's scope, decoded once by the store (`ZoneScope(stored:)`).
    public var scope: ZoneScope
    /// The photo's tag names (ordered as `CatalogStore.tagNames(ofPhoto:)` orders them) when
    /// the store read them with the row, else nil: then the caller asks `tagNames(ofPhoto:)`.
    /// A server-backed store fills it in `forEachPhoto`, saving a round trip per photo.
    public var tagNames: [String]? = nil
    /// The photo's rating values (ordered as `CatalogStore.ratingValues(ofPhoto:)`) when the
    /// store read them with the row, else nil.
    public var ratingValues: [Int]? = nil
    /// The authors of `ratingValues`, in their order (nil for an anonymous rating), when the
    /// store read them with the row, else nil.
    public var ratingAuthors: [String?]? = nil
    /// The position (issue 26 item 1): latitude and longitude in 1e-7 degrees, altitude in
    /// millimetres above sea level (the catalog's `latitude_e7`, `longitude_e7`, `altitude_mm`).
    public var latitudeE7: Int? = nil
    public var longitudeE7: Int? = nil
    public var altitudeMM: Int? = nil
    /// Issue 25 item 2: the catalog's `kind` (`still`, `video`, `motion`, `live`), `duration_ms`
    /// (milliseconds) and `video_codec`.
    public var kind: String = "still"
    public var durationMS: Int? = nil
    public var videoCodec: String? = nil
    /// Issue 24 items 1 and 7 (schema 18): the camera's make, model and lens, nil when none is
    /// known; the RAW container's lower-case name (`photo.camera_format`), nil for a non-RAW.
    public var camera: CameraIdentity? = nil
    public var cameraFormat: String? = nil
    /// Issue 26 item 6 (schema 20): the title and description (`photo.title`, `description`),
    /// nil when none.
    public var title: String? = nil
    public var description: String? = nil
    /// Issue 26 item 3 (schema 22): the place name set by hand (`photo.place_name`,
    /// `PhotoText.isPlaceName`), nil when none.
    public var placeName: String? = nil

    public init(
        rowID: Int64, uniqueName: String, displayName: String, sha256: String, byteSize: Int, fileReference: String,
        format: ImageFormat, width: Int, height: Int, orientation: Orientation, captureDate: String?,
        captureOffset: Int?, captureSource: String?, importedAt: String, thumbnailWidth: Int, thumbnailHeight: Int,
        zone: ZoneID, scope: ZoneScope
    ) {
        self.rowID = rowID
        self.uniqueName = uniqueName
        self.displayName = displayName
        self.sha256 = sha256
        self.byteSize = byteSize
        self.fileReference = fileReference
        self.format = format
        self.width = width
        self.height = height
        self.orientation = orientation
        self.captureDate = captureDate
        self.captureOffset = captureOffset
        self.captureSource = captureSource
        self.importedAt = importedAt
        self.thumbnailWidth = thumbnailWidth
        self.thumbnailHeight = thumbnailHeight
        self.zone = zone
        self.scope = scope
    }
}

/// Which photos `CatalogStore.forEachPhoto` selects: every condition must hold. Tag names are
/// normalized by the caller (`TagName`).
public struct PhotoQuery: Sendable {
    /// A bound on the time a photo sorts by (its capture time, else its import time).
    public enum TimeBound: Sendable {
        /// An instant, `YYYY-MM-DDTHH:MM:SS.fff` in UTC; a capture time of unknown offset is read
        /// at `assumedOffsetMinutes` (minutes east) — the bound's own zone.
        case instant(utc: String, assumedOffsetMinutes: Int)
        /// A wall-clock time compared with each photo's own local time (the import time, UTC,
        /// without its Z).
        case local(String)
    }

    /// The order of `forEachPhoto` (`photos list --sort`); ties are broken by uniqueName.
    public enum Sort: String, Sendable, CaseIterable {
        /// Local capture time, else import time (the default).
        case captured
        /// Import time (UTC).
        case imported
        /// Display name, ASCII case-insensitively.
        case name
        /// Bytes of the original.
        case size
        /// The displayed rating (the mean rounded half up); unrated photos sort lowest.
        case rating
    }

    /// Photos linked to a tag of each of these names.
    public var tagNames: [String] = []
    /// For each inner list, photos linked to a tag named one of its names (a `--tag` matched
    /// case- and diacritic-insensitively against the library's names by Core).
    public var tagNameAlternatives: [[String]] = []
    /// Photos linked to no tag at all.
    public var untagged = false
    /// Photos with a position (true), without one (false), or either (nil) (issue 26 item 2).
    public var hasPosition: Bool? = nil
    /// Photos inside this box, in 1e-7 degrees (`latitude_e7`, `longitude_e7`), bounds
    /// included: south ≤ latitude ≤ north, and west ≤ longitude ≤ east — or, when west > east
    /// (a box across the antimeridian), longitude ≥ west or ≤ east. Nil: anywhere.
    public var box: (south: Int, west: Int, north: Int, east: Int)? = nil
    /// A second box of the same form, all of whose conditions apply too: the bounding box of
    /// `--near` (Core checks the exact distance on the rows given). Nil: anywhere.
    public var nearBox: (south: Int, west: Int, north: Int, east: Int)? = nil
    /// Photos without any rating.
    public var unrated = false
    /// Photos whose original has one of these formats (`ImageFormat` raw values); empty: any.
    public var formats: [String] = []
    /// Photos of one of these kinds (`photo.kind`: still, video, motion, live); empty: any.
    public var kinds: [String] = []
    /// Photos whose camera make or model contains this text, its ASCII letters in lower case
    /// (`--camera`, issue 24 item 7): compared with `lower(camera_make)` and `lower(camera_model)`,
    /// which fold ASCII letters alike on both backends (SQLite's lower(); PostgreSQL's under
    /// `COLLATE "C"`). Nil: any photo, with or without a camera.
    public var camera: String? = nil
    /// The order.
    public var sort: Sort = .captured
    /// Reverses the order (the tie-break on uniqueName included).
    public var descending = false
    /// At or after this bound.
    public var since: TimeBound?
    /// Before this bound.
    public var until: TimeBound?
    /// Photos in every one of these zones (a zone and a share's zone both given select nothing
    /// unless they are the same).
    public var zones: [String] = []
    /// Displayed rating (mean of the ratings rounded half up, SPEC §3) at least this; photos
    /// without ratings fail. With `ratedBy`, that author's rating is compared instead.
    public var minRating: Int?
    /// Photos rated by this author (`rating.author`, normalized as stored: `AuthorName`).
    public var ratedBy: String?
    /// Photos without a rating by this author.
    public var unratedBy: String?
    /// Keyset paging by uniqueName (`photos export` reads its photos a page at a time, so its
    /// memory does not grow with the library): when set, `sort` and `descending` are ignored.
    public var page: PhotoPage?

    public init() {}
}

/// One page of photos in uniqueName order: those whose uniqueName sorts after `after` (byte
/// order of the UTF-8, which is Swift's order of the ASCII unique names; nil: from the first),
/// at most `limit` of them.
public struct PhotoPage: Sendable, Equatable {
    public var after: String?
    /// Photos per page, at least 1.
    public var limit: Int

    public init(after: String?, limit: Int) {
        self.after = after
        self.limit = max(1, limit)
    }
}

/// The text keys a command-line argument may name by prefix (SPEC §5).
public enum CatalogKey: Sendable {
    /// `photo.unique_name`.
    case photoUniqueName
    /// `share.id`.
    case shareID
    /// `zone.id`.
    case zoneID
}

/// A rating row with its photo's uniqueName and zone.
public struct StoredRating: Equatable, Sendable {
    public var id: Int64
    public var uuid: String
    public var value: Int
    public var photo: String
    public var zone: String
    /// The history author who set it (schema 5); nil for an anonymous rating (one from before
    /// schema 5, or read from an XMP sidecar on import).
    public var author: String?

    public init(id: Int64, uuid: String, value: Int, photo: String, zone: String, author: String? = nil) {
        self.id = id
        self.uuid = uuid
        self.value = value
        self.photo = photo
        self.zone = zone
        self.author = author
    }
}

/// A share row with its zone's scope and its photo count.
public struct StoredShare: Equatable, Sendable {
    public var id: String
    public var title: String
    /// ISO 8601 UTC.
    public var created: String
    public var scope: String
    public var publicPermission: String
    public var photoCount: Int

    public init(id: String, title: String, created: String, scope: String, publicPermission: String, photoCount: Int) {
        self.id = id
        self.title = title
        self.created = created
        self.scope = scope
        self.publicPermission = publicPermission
        self.photoCount = photoCount
    }
}

/// A participant row.
public struct StoredParticipant: Equatable, Sendable {
    public var rowID: Int64
    public var uuid: String
    public var email: String
    public var role: String
    public var permission: String
    public var acceptance: String

    public init(rowID: Int64, uuid: String, email: String, role: String, permission: String, acceptance: String) {
        self.rowID = rowID
        self.uuid = uuid
        self.email = email
        self.role = role
        self.permission = permission
        self.acceptance = acceptance
    }
}

/// Where the catalog commands (`list`, `show`, `delete`, `thumbnail`, `tag …`, `rate`,
/// `rating …`, `share …`) read and write photos, tags, ratings, shares, zones and
/// participants. Core decides what changes and records history (`HistoryWriter`); the store
/// only reads and writes rows. Writers call inside the caller's write transaction.
///
/// A PostgreSQL implementation (libpq, next issue): `$n` placeholders for `?`; inserts return
/// the identity column with `RETURNING id` instead of `last_insert_rowid()`; `INSERT OR
/// IGNORE` becomes `ON CONFLICT DO NOTHING`; case-insensitive key lookups use `lower(col) =
/// lower($1)` and `ILIKE … ESCAPE '\'` (or `col COLLATE "C" LIKE` on a lower() index); the
/// rating mean uses integer division as here; the write transaction takes the library's
/// advisory write lock before the first statement, as SQLite's `BEGIN IMMEDIATE` does.
public protocol CatalogStore: AnyObject {
    // MARK: photos

    /// Calls `body` with each photo matching `query`, in `query.sort` order (by default local
    /// capture, else import, time), then uniqueName, without holding them all; `body` may run
    /// other queries on the store.
    func forEachPhoto(matching query: PhotoQuery, _ body: (StoredPhoto) throws -> Void) throws
    /// The photo with exactly this uniqueName.
    func photo(uniqueName: String) throws -> StoredPhoto?
    /// The tag names of a photo, ordered by name, then uuid.
    func tagNames(ofPhoto photoID: Int64) throws -> [String]
    /// The rating values of a photo, oldest first.
    func ratingValues(ofPhoto photoID: Int64) throws -> [Int]
    /// The current uniqueName, zone and zone scope of a photo, nil when it was deleted.
    func photoLocation(_ photoID: Int64) throws -> (uniqueName: String, zone: String, scope: String)?
    /// The thumbnail of a photo: JPEG bytes and size in pixels.
    func thumbnail(ofPhoto photoID: Int64) throws -> (data: [UInt8], width: Int, height: Int)?
    /// The `file_ref` and SHA-256 of each photo data row of a photo (every original).
    func fileReferences(ofPhoto photoID: Int64) throws -> [(reference: String, sha256: String)]
    /// Every original of a photo (its `photo_data` rows), in `OriginalRole` order (primary first);
    /// empty for a photo without any.
    /// - Throws: the store's error; `StoredValueError` (`.corrupt`) for a role or format this
    ///   version does not know.
    func originals(ofPhoto photoID: Int64) throws -> [PhotoOriginal]
    /// The originals other than the primary (a RAW+JPEG pair's `raw`, a Live Photo's
    /// `pairedVideo`) of each of `photoIDs`, in `OriginalRole` order, keyed by photo row id; a
    /// photo with none is absent. A few `IN (…)` queries whatever the count (export reads one
    /// page of photos at a time).
    /// - Throws: the store's error; `StoredValueError` (`.corrupt`) for a role or format this
    ///   version does not know.
    func extraOriginals(ofPhotos photoIDs: [Int64]) throws -> [Int64: [PhotoOriginal]]
    /// True when a photo with this row id exists.
    func photoExists(_ photoID: Int64) throws -> Bool
    /// Deletes a photo; its photo data, thumbnail and ratings go with it (cascade), its tag links
    /// are dropped.
    func deletePhoto(_ photoID: Int64) throws
    /// True when a photo data row has this SHA-256 and, when given, this `file_ref`.
    func photoDataExists(sha256: String, fileReference: String?) throws -> Bool
    /// Whether the photo has a photo data row and a thumbnail row.
    func hasPhotoData(_ photoID: Int64) throws -> Bool
    /// Whether the photo has a thumbnail row.
    func hasThumbnail(_ photoID: Int64) throws -> Bool
    /// The camera of every photo whose make, model or lens is known (issue 24 item 1), by photo
    /// row id; photos without one are not in it. One query: a caller that needs cameras for many
    /// photos reads them at once, not a row at a time.
    /// - Throws: the store's error.
    func cameraIdentities() throws -> [Int64: CameraIdentity]
    /// Sets the zone of a photo (its photo data, thumbnail and ratings follow: they are keyed by
    /// photo).
    func setZone(ofPhoto photoID: Int64, to zone: String) throws

    // MARK: keys

    /// The key equal to `text`, ASCII case-insensitively.
    func exactKey(_ key: CatalogKey, _ text: String) throws -> String?
    /// Up to `limit` keys starting with `prefix` (ASCII case-insensitively; no wildcard in
    /// `prefix` is special), in key order.
    func keys(_ key: CatalogKey, withPrefix prefix: String, limit: Int) throws -> [String]

    // MARK: zones and tags

    /// True when a record zone with this id exists.
    func zoneExists(_ id: String) throws -> Bool
    /// Creates a record zone of scope `private`, named by its id.
    func createPrivateZone(_ id: String) throws
    /// Names are compared in NFC (SQL `normalize(name)`, #31 A9): `name` is given normalized; a
    /// tag another program stored decomposed is found under its NFC name.
    /// The tag named `name` in `zone` with the smallest uuid (the one `dedupe-tags` keeps).
    func tag(named name: String, zone: String) throws -> StoredTag?
    /// Every tag named `name` (compared in NFC), of `zone` or every zone, ordered by zone and uuid.
    func tags(named name: String, zone: String?) throws -> [StoredTag]
    /// Every tag of a zone ordered by name, then lowercase uuid.
    func tags(inZone zone: String) throws -> [StoredTag]
    /// Every tag of `zone` or every zone with its photo count, ordered by name, zone and uuid.
    func tagList(zone: String?) throws -> [(tag: StoredTag, photoCount: Int)]
    /// The tags a photo is linked to, ordered by name, then uuid.
    func tags(ofPhoto photoID: Int64) throws -> [StoredTag]
    /// Inserts a tag. - Returns: its row id.
    func insertTag(uuid: String, name: String, zone: String) throws -> Int64
    /// Sets a tag's name (normalized by the caller).
    func renameTag(_ tagID: Int64, to name: String) throws
    /// Deletes a tag, dropping its links (photo_tag cascades).
    func deleteTag(_ tagID: Int64) throws
    /// True when the photo is linked to a tag of this name (compared in NFC).
    func photo(_ photoID: Int64, hasTagNamed name: String) throws -> Bool
    /// Links a photo to a tag (nothing when linked already).
    func link(photo photoID: Int64, tag tagID: Int64) throws
    /// Unlinks a photo from one tag (nothing when not linked).
    func unlink(photo photoID: Int64, tag tagID: Int64) throws
    /// Unlinks a photo from the tags named `name` (compared in NFC) of `zone`. - Returns: true
    /// when a link went.
    func unlink(photo photoID: Int64, tagsNamed name: String, zone: String) throws -> Bool
    /// Links every photo of tag `from` to tag `to` as well.
    func linkPhotos(ofTag from: Int64, toTag to: Int64) throws
    /// The uniqueName and zone of each photo linked to a tag, ordered by uniqueName.
    func photos(ofTag tagID: Int64) throws -> [(uniqueName: String, zone: String)]

    // MARK: ratings

    /// Inserts a rating by `author` (nil: anonymous). At most one rating per author and photo
    /// (schema 5's unique index): the caller replaces an existing one with `setValue`.
    /// - Returns: its row id.
    func insertRating(uuid: String, photo photoID: Int64, value: RatingValue, author: String?) throws -> Int64
    /// The rating `author` gave a photo, when there is one (anonymous ratings never match).
    func rating(ofPhoto photoID: Int64, author: String) throws -> StoredRating?
    /// Sets the value of one rating (`photos rate` replacing its author's earlier rating).
    func setValue(ofRating id: Int64, to value: RatingValue) throws
    /// The ratings of a photo, oldest first.
    func ratings(ofPhoto photoID: Int64) throws -> [StoredRating]
    /// The rating with this row id.
    func rating(id: Int64) throws -> StoredRating?
    /// Deletes one rating.
    func deleteRating(id: Int64) throws

    // MARK: shares and participants

    /// Every share, ordered by creation time, then id.
    func shares() throws -> [StoredShare]
    /// The share with exactly this id.
    func share(id: String) throws -> StoredShare?
    /// Inserts a share of public permission `none` (its zone must exist).
    func insertShare(id: String, title: String, created: String) throws
    /// Sets a share's title (checked by the caller, `ShareTitle`).
    func setTitle(ofShare id: String, to title: String) throws
    /// Sets a share's public permission.
    func setPublicPermission(ofShare id: String, to permission: SharePermission) throws
    /// The participants of a share, owner first, then by e-mail.
    func participants(ofShare id: String) throws -> [StoredParticipant]
    /// The participant of a share with this (lower-cased) address.
    func participant(ofShare id: String, email: Email) throws -> StoredParticipant?
    /// Inserts a participant. - Returns: false when `ignoringExisting` and the e-mail was there.
    @discardableResult
    func insertParticipant(
        uuid: String, share: String, email: Email, role: ParticipantRole, permission: SharePermission,
        acceptance: Acceptance, ignoringExisting: Bool
    ) throws -> Bool
    /// Sets a participant's permission.
    func setPermission(ofParticipant rowID: Int64, to permission: SharePermission) throws
    /// Deletes a participant.
    func deleteParticipant(_ rowID: Int64) throws
}
