/// What a photo's file said about it when it was last read — at import or at the last
/// `photos import --refresh-metadata` (issue 31 item 4): the base a refresh compares the file
/// with, so that it applies only what changed in the file and never removes what the library
/// added.
public struct FileMetadataState: Equatable, Sendable {
    /// The tag names the file gave (normalized, `TagName.fromKeyword`), sorted, without
    /// repeats; none of them holds a line break (control characters are refused in tag names).
    public var tags: [String]
    /// Its `xmp:Rating` 1…5, nil when it gave none.
    public var rating: Int?
    /// Its capture time from EXIF or XMP (`YYYY-MM-DDTHH:MM:SS[.fff]`, no zone), nil when it
    /// gave none (the file's modification time is not the file's word).
    public var captureDate: String?
    /// The UTC offset of `captureDate` in minutes east, when known.
    public var captureOffset: Int?

    public init(tags: [String], rating: Int?, captureDate: String?, captureOffset: Int?) {
        self.tags = Array(Set(tags)).sorted()
        self.rating = rating
        self.captureDate = captureDate
        self.captureOffset = captureOffset
    }

    /// `tags` as stored: one name per line.
    public var storedTags: String { tags.joined(separator: "\n") }

    /// The tag names of a stored `file_tags` value ("" is no tag).
    public static func tags(stored: String) -> [String] {
        stored.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
    }
}

/// A photo found by the hash of its original's image data (`photo_file_state.image_sha256`).
public struct ImageDataMatch: Equatable, Sendable {
    public var rowID: Int64
    public var uniqueName: String
    public var displayName: String
    /// The SHA-256 of its original now (64 lowercase hex digits).
    public var sha256: String
    public var fileReference: String
    /// The original's format, pixels and EXIF Orientation (decoded once by the store).
    public var format: ImageFormat
    public var width: Int
    public var height: Int
    public var orientation: Orientation
    /// The SHA-256s of the originals that rewritten files replaced, newest first
    /// (`MetadataStore.setReplacedSHA256s`).
    public var replacedSHA256s: [String]

    public init(
        rowID: Int64, uniqueName: String, displayName: String, sha256: String, fileReference: String,
        format: ImageFormat, width: Int, height: Int, orientation: Orientation, replacedSHA256s: [String] = []
    ) {
        self.replacedSHA256s = replacedSHA256s
        self.rowID = rowID
        self.uniqueName = uniqueName
        self.displayName = displayName
        self.sha256 = sha256
        self.fileReference = fileReference
        self.format = format
        self.width = width
        self.height = height
        self.orientation = orientation
    }
}

/// The writes `photos import --refresh-metadata` needs beyond the catalog's tag and rating
/// writes: a photo's capture time as read again from its file's metadata, what its file said
/// (`FileMetadataState`), the hash of its image data, and a new original for a photo whose
/// file another tool rewrote. Called inside the library's write transaction, except the reads
/// import's workers make on their own read connections.
public protocol MetadataStore: AnyObject {
    /// Sets the capture time of photo row `photoID`.
    /// - Parameters:
    ///   - local: the wall-clock time `YYYY-MM-DDTHH:MM:SS[.fff]`, no zone.
    ///   - offsetMinutes: its UTC offset in minutes east (−1080…1080), nil when unknown.
    ///   - source: where it came from (`exif`, `exif-digitized`, `exif-datetime`, `xmp`, `json`).
    /// - Throws: the store's error.
    func setCaptureTime(ofPhoto photoID: Int64, local: String, offsetMinutes: Int?, source: String) throws

    /// Records photo row `photoID`'s position (issue 26 item 1): latitude and longitude in 1e-7
    /// degrees (−900000000…900000000, −1800000000…1800000000), altitude in millimetres (nil:
    /// unknown).
    /// - Throws: the store's error.
    func setPosition(ofPhoto photoID: Int64, latitudeE7: Int, longitudeE7: Int, altitudeMM: Int?) throws
    /// Records photo row `photoID`'s camera make, model and lens and its RAW container name
    /// (issue 24 item 1; nil: NULL). - Throws: the store's error.
    func setCamera(ofPhoto photoID: Int64, _ camera: CameraIdentity?, cameraFormat: String?) throws
    /// Records photo row `photoID`'s title and description (issue 26 item 6; nil: NULL), as
    /// `PhotoText` cleans them. - Throws: the store's error.
    func setText(ofPhoto photoID: Int64, title: String?, description: String?) throws
    /// Sets photo row `photoID`'s place name set by hand (nil: none; issue 26 item 3).
    /// - Throws: the store's error.
    func setPlaceName(ofPhoto photoID: Int64, _ placeName: String?) throws

    /// What photo row `photoID`'s file said when it was last read; nil when never recorded (a
    /// photo imported before schema 7, or one that came from another library).
    /// - Throws: the store's error.
    func fileMetadataState(ofPhoto photoID: Int64) throws -> FileMetadataState?

    /// Records what photo row `photoID`'s file says now, and the SHA-256 of its image data
    /// (`ImageDataHash`, 64 lowercase hex digits; nil keeps the one recorded): its
    /// `photo_file_state` row, made when missing. One statement.
    /// - Throws: the store's error.
    func setFileMetadataState(_ state: FileMetadataState, imageSHA256: String?, ofPhoto photoID: Int64) throws

    /// Records the SHA-256 of photo row `photoID`'s image data (`ImageDataHash`, 64 lowercase
    /// hex digits; its `photo_file_state` row made when missing, its file state kept).
    /// - Throws: the store's error.
    func setImageSHA256(_ imageSHA256: String, ofPhoto photoID: Int64) throws

    /// Records photo row `photoID`'s perceptual signature (issue 27 item 1) with
    /// `PerceptualSignature.algorithm`: its `photo_signature` row, made or replaced. One statement.
    /// - Throws: the store's error.
    func setPerceptualSignature(_ signature: PerceptualSignature, ofPhoto photoID: Int64) throws

    /// Every photo's perceptual signature of the current `PerceptualSignature.algorithm`, photo
    /// row id → signature (rows of another version are left out: not comparable).
    /// - Throws: the store's error; `.catalogInvariant` for a stored chroma outside 0…255.
    func perceptualSignatures() throws -> [Int64: PerceptualSignature]

    /// The first photo (by row) of zone `zone` whose image data has SHA-256 `imageSHA256` and
    /// whose row id is at most `rowIDAtMost`, or nil. One indexed lookup
    /// (`photo_file_state_image`). An import passes the largest photo row id at its start
    /// (`largestPhotoRowID`): photos it made itself are never a rewritten file's photo, so two
    /// files of one run with the same image data give two photos whichever batch commits first.
    /// - Throws: the store's error.
    func photo(imageSHA256: String, zone: String, rowIDAtMost: Int64) throws -> ImageDataMatch?

    /// The largest photo row id now (0 for none). Row ids only grow (SQLite AUTOINCREMENT,
    /// PostgreSQL sequences), so a photo with a larger id was made later.
    /// - Throws: the store's error.
    func largestPhotoRowID() throws -> Int64

    /// Points photo row `photoID`'s photo data at a new original: `sha256` (64 lowercase hex
    /// digits), `byteSize` bytes at `fileReference` in external data.
    /// - Throws: the store's error (a constraint error on PostgreSQL when another photo has that
    ///   original: `photo_data.sha256` is UNIQUE there).
    func replaceOriginal(ofPhoto photoID: Int64, sha256: String, byteSize: Int, fileReference: String) throws

    /// Records the SHA-256s of the originals rewritten files replaced for photo row `photoID`,
    /// newest first (at most 16 kept by the caller): a file with one of them is an older version
    /// of the photo, never taken back as its original.
    /// - Throws: the store's error.
    func setReplacedSHA256s(_ sha256s: [String], ofPhoto photoID: Int64) throws

    /// The still and video photos of zone `zone` whose capture time (`photo.capture_date`,
    /// local wall-clock text) lies between `captureFrom` and `captureTo` (inclusive, compared as
    /// text: the stored form `YYYY-MM-DDTHH:MM:SS[.fff]` sorts by time), at most 32, earliest
    /// capture time first: the photos the unpaired half of a RAW+JPEG pair or a Live Photo may
    /// join (`Importer`, issue 24 item 2, issue 25 item 2). One range scan of the
    /// `photo_capture_date` index.
    /// - Throws: the store's error.
    func pairCandidates(zone: String, captureFrom: String, captureTo: String) throws -> [PairCandidate]

    /// The still and video photos of zone `zone` whose content identifier
    /// (`photo.content_identifier`, schema 21) is `contentIdentifier`, at most 8, by row: the
    /// photos the other half of a Live Photo joins whatever its name and capture time (issue 25
    /// item 2). One lookup of the `photo_content_identifier` index.
    /// - Throws: the store's error.
    func liveCandidates(zone: String, contentIdentifier: String) throws -> [PairCandidate]

    /// Records photo row `photoID`'s Apple content identifier (issue 25 item 2; 1–64 ASCII
    /// letters, digits and '-', `ExifReader.isContentIdentifier`; nil: NULL), so that the other
    /// half of its Live Photo finds it without reading its original again.
    /// - Throws: the store's error.
    func setContentIdentifier(_ contentIdentifier: String?, ofPhoto photoID: Int64) throws

    /// Records photo row `photoID`'s kind (`PhotoRow.kinds`), duration (milliseconds, nil:
    /// none) and video codec (nil: none): a still whose Live Photo movie joined it becomes
    /// `live` (issue 25 item 2). One statement.
    /// - Throws: the store's error.
    func setKind(ofPhoto photoID: Int64, kind: String, durationMS: Int?, videoCodec: String?) throws
    /// Records photo row `photoID`'s display name (its original's file name, at most 1024
    /// bytes): a still taking over as primary from its RAW or Live Photo movie gives the photo
    /// its own name, so that export names the JPEG `IMG_1234.JPG`, not `IMG_1234.CR2`. One
    /// statement.
    /// - Throws: the store's error.
    func setDisplayName(ofPhoto photoID: Int64, _ displayName: String) throws

    /// True when zone `zone` has a photo of format `format`: import asks once per run whether a
    /// still could join a RAW's photo there at all (a library without RAWs then costs no
    /// lookup per file). One scan of the zone's photos at most.
    /// - Throws: the store's error.
    func hasPhoto(format: ImageFormat, zone: String) throws -> Bool

    /// Makes `original` (a still, role `primary`) the primary original of photo row `photoID`,
    /// whose former primary becomes its `formerPrimary` original: `raw` (format `raw`) for a
    /// camera RAW; `pairedVideo` (its format kept) for a Live Photo's movie, and the photo's
    /// kind becomes `live` (issue 25 item 2; duration and codec stay the movie's); the
    /// photo takes the new primary's `width`, `height` (pixels, upright), `format` and
    /// `orientation`, and `thumbnail`, when given, replaces its thumbnail: the JPEG of a RAW+JPEG
    /// pair imported after its RAW takes over (issue 24 item 2), here or on a peer that applies
    /// the change. Three statements and the thumbnail's.
    /// - Throws: the store's error (a constraint error when the photo has a `raw` original).
    func takeOverPrimary(
        ofPhoto photoID: Int64, by original: PhotoOriginal, formerPrimary: OriginalRole, width: Int, height: Int,
        orientation: Orientation, thumbnail: ThumbnailRow?) throws
}

extension MetadataStore {
    /// `takeOverPrimary` of a RAW+JPEG pair: the former primary becomes `raw`.
    /// - Throws: the store's error.
    public func takeOverPrimary(
        ofPhoto photoID: Int64, by original: PhotoOriginal, width: Int, height: Int, orientation: Orientation,
        thumbnail: ThumbnailRow?
    ) throws {
        try takeOverPrimary(
            ofPhoto: photoID, by: original, formerPrimary: .raw, width: width, height: height,
            orientation: orientation, thumbnail: thumbnail)
    }
}

/// A photo the unpaired half of a RAW+JPEG pair or a Live Photo may join
/// (`MetadataStore.pairCandidates`, `liveCandidates`).
public struct PairCandidate: Sendable, Equatable {
    public var rowID: Int64
    public var uniqueName: String
    /// The original file name it was imported from (`IMG_1234.CR2`).
    public var displayName: String
    /// `photo.capture_date` (local wall-clock time) and `capture_source`.
    public var captureDate: String?
    public var captureSource: String?
    /// `photo.format`: its primary original's format.
    public var format: ImageFormat
    /// How many originals it has (`photo_data` rows): only a photo of one original is joined.
    public var originals: Int
    /// `photo.kind` (`still` or `video`), `capture_offset` (minutes east, nil: unknown) and
    /// `content_identifier` (nil: none).
    public var kind: String
    public var captureOffset: Int?
    public var contentIdentifier: String?

    public init(
        rowID: Int64, uniqueName: String, displayName: String, captureDate: String?, captureSource: String?,
        format: ImageFormat, originals: Int, kind: String = "still", captureOffset: Int? = nil,
        contentIdentifier: String? = nil
    ) {
        self.kind = kind
        self.captureOffset = captureOffset
        self.contentIdentifier = contentIdentifier
        self.rowID = rowID
        self.uniqueName = uniqueName
        self.displayName = displayName
        self.captureDate = captureDate
        self.captureSource = captureSource
        self.format = format
        self.originals = originals
    }
}
