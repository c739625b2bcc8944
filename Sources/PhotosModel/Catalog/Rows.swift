/// One row of `photo`: the values of a new photo. The backend's record code is the only
/// place that knows its columns; import and merge insert through `PhotoInserter`.
public struct PhotoRow: Sendable {
    public var uniqueName: String
    public var displayName: String
    /// ISO 8601 UTC.
    public var importedAt: String
    /// Local wall-clock time `YYYY-MM-DDTHH:MM:SS[.fff]`, no zone (schema 2).
    public var captureDate: String?
    /// UTC offset in minutes east, when known.
    public var captureOffset: Int?
    /// Where the capture time came from (`exif`, `xmp`, `file-mtime`, …).
    public var captureSource: String?
    /// Pixels, as stored (before orientation).
    public var width: Int
    public var height: Int
    /// The original's format (`photo.format` holds its raw value).
    public var format: ImageFormat
    /// EXIF Orientation (EXIF 2.32 §4.6.4 Table 4) as stored.
    public var orientation: Orientation
    /// The record zone the photo is in (`photo.zone_id`).
    public var zoneID: ZoneID
    /// The position (issue 26 item 1, WGS 84): latitude and longitude in 1e-7 degrees (south and
    /// west negative), altitude in millimetres above sea level; nil when none.
    public var latitudeE7: Int? = nil
    public var longitudeE7: Int? = nil
    public var altitudeMM: Int? = nil
    /// Issue 25 item 2: `still`, `video`, `motion` or `live`; the duration in milliseconds and
    /// the video codec (libavcodec's name) of a video or Motion Photo, nil for a still.
    public var kind: String = "still"
    public var durationMS: Int? = nil
    public var videoCodec: String? = nil
    /// Issue 24 items 1 and 7 (schema 18): the camera's make, model and lens
    /// (`photo.camera_make`, `camera_model`, `lens_model`), nil when unknown; and the RAW
    /// container's lower-case name (`camera_format`: "nef", "cr3"), nil for a photo not a RAW.
    public var camera: CameraIdentity? = nil
    public var cameraFormat: String? = nil
    /// Issue 26 item 6 (schema 20): the title and description (`photo.title`, `description`),
    /// nil when none (never empty), as `PhotoText.clean` bounds them.
    public var title: String? = nil
    public var description: String? = nil
    /// Issue 26 item 3 (schema 22): the place name set by hand (`photo.place_name`,
    /// `PhotoText.isPlaceName`), nil when none.
    public var placeName: String? = nil

    /// The kinds the schema's CHECK allows (`photo.kind`).
    public static let kinds: Set<String> = ["still", "video", "motion", "live"]

    /// A duration in seconds as stored: milliseconds, rounded; nil when it is not finite, negative
    /// or above `Int32.max` seconds (about 68 years, the bound the changeset reader holds for
    /// `durationMS`), so a container's claimed duration never makes a photo no peer accepts.
    public static func durationMilliseconds(seconds: Double) -> Int? {
        guard seconds.isFinite, seconds >= 0, seconds <= Double(Int32.max) else { return nil }
        return Int((seconds * 1000).rounded())
    }

    public init(
        uniqueName: String, displayName: String, importedAt: String, captureDate: String?, captureOffset: Int?,
        captureSource: String?, width: Int, height: Int, format: ImageFormat, orientation: Orientation,
        zoneID: ZoneID
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
        self.zoneID = zoneID
    }
}

/// A thumbnail as stored: JPEG bytes and their size in pixels.
public struct ThumbnailRow: Sendable {
    public var data: [UInt8]
    public var width: Int
    public var height: Int

    public init(data: [UInt8], width: Int, height: Int) {
        self.data = data
        self.width = width
        self.height = height
    }
}

/// One row of `rating`: the only place that knows its columns (Lighter's `SQLEntitySchema`).
/// Import, `rate` and merge insert through it, so a new column is added in one place.
public struct RatingRow: Sendable {
    /// The stable identity history and sync name the rating by (schema migration 3).
    public var uuid: String
    /// The photo's row id.
    public var photoRowID: Int64
    /// 1 to 5 stars.
    public var value: RatingValue
    /// The history author who set it (`photos rate`, schema migration 5); nil for an anonymous
    /// rating (one from before migration 5, or read from an XMP sidecar on import).
    public var author: String?

    public init(uuid: String = newObjectUUID(), photoRowID: Int64, value: RatingValue, author: String? = nil) {
        self.uuid = uuid
        self.photoRowID = photoRowID
        self.value = value
        self.author = author
    }
}

/// One row of `participant`: the only place that knows its columns. `share create`,
/// `share invite` and merge insert through it.
public struct ParticipantRow: Sendable {
    /// The stable identity history and sync name the participant by (schema migration 3).
    public var uuid: String
    /// The share (and zone) id.
    public var shareID: String
    public var email: Email
    public var role: ParticipantRole
    public var permission: SharePermission
    public var acceptance: Acceptance

    public init(
        uuid: String = newObjectUUID(), shareID: String, email: Email, role: ParticipantRole,
        permission: SharePermission, acceptance: Acceptance
    ) {
        self.uuid = uuid
        self.shareID = shareID
        self.email = email
        self.role = role
        self.permission = permission
        self.acceptance = acceptance
    }
}
