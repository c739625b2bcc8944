/// What one original of a photo is to the photo (issue 24 item 2: a photo has one or more
/// originals; `photo_data.role`, schema migration 16). Exactly one original of a photo is
/// `primary`; the others have one role each (UNIQUE (photo_id, role)).
///
/// For a RAW+JPEG pair the camera's JPEG (or HEIF) is `primary` and the RAW is `raw`: the JPEG is
/// the rendering the photographer saw on the camera, with the camera's picture style and lens
/// corrections, which no RAW developer reproduces, and it decodes fast; the thumbnail, the
/// photo's width and height and `photo.format` come from it.
public enum OriginalRole: String, Sendable, CaseIterable, Comparable {
    /// The original the photo's thumbnail, size and format come from (every photo has one).
    case primary
    /// The camera RAW of a RAW+JPEG pair.
    case raw
    /// The movie of a Live Photo (issue 25 item 2: an iPhone's `IMG_1234.MOV` beside its
    /// `IMG_1234.HEIC`, `Pairing.live`); the still is the photo's `primary`.
    case pairedVideo

    /// Decodes `photo_data.role` as stored (the raw value).
    /// - Throws: `StoredValueError` (`.corrupt`, exit 65) for a value that is no `OriginalRole`.
    public init(stored text: String, column: String = "photo_data.role") throws {
        guard let role = OriginalRole(rawValue: text) else { throw StoredValueError(column: column, value: text) }
        self = role
    }

    /// The order originals are listed and written in: primary, raw, pairedVideo.
    public static func < (a: OriginalRole, b: OriginalRole) -> Bool {
        let order = OriginalRole.allCases
        return order.firstIndex(of: a) ?? 0 < order.firstIndex(of: b) ?? 0
    }
}

/// One original of a photo, as its `photo_data` row records it.
public struct PhotoOriginal: Sendable, Equatable {
    /// What the original is to its photo.
    public var role: OriginalRole
    /// SHA-256 of the file's bytes: 64 lowercase hex digits.
    public var sha256: String
    /// The file's size in bytes.
    public var byteSize: Int
    /// Where the original is in external data (`ab/abcdef…`, relative to the originals root).
    public var fileReference: String
    /// The original's own format; nil for a row written before schema version 16, which means
    /// "the photo's format" (`photo.format`; such rows are all `primary`).
    public var format: ImageFormat?

    /// The schema version from which `photo_data` has `role` and `format` (migration 16).
    public static let rolesSchemaVersion = 16

    public init(role: OriginalRole, sha256: String, byteSize: Int, fileReference: String, format: ImageFormat?) {
        self.role = role
        self.sha256 = sha256
        self.byteSize = byteSize
        self.fileReference = fileReference
        self.format = format
    }

    /// The original's format: its own, else (a row from before schema 16) the photo's.
    public func format(orPhoto photoFormat: ImageFormat) -> ImageFormat { format ?? photoFormat }

    /// The history object id of the original of role `role` of photo `uniqueName`: the photo's
    /// uniqueName for the primary (as before schema 16, so older history and changesets name it
    /// alike), `UNIQUENAME/ROLE` for another role (`IMG_0001/raw`), as a photo–tag link is
    /// `PHOTO/TAGUUID`.
    public static func historyObjectID(photo uniqueName: String, role: OriginalRole) -> String {
        role == .primary ? uniqueName : uniqueName + "/" + role.rawValue
    }
}

extension HistoryObject {
    /// The original of role `role` of photo `photo` (`PhotoOriginal.historyObjectID`).
    public static func photoData(photo: String, role: OriginalRole) -> HistoryObject {
        .photoData(photo: PhotoOriginal.historyObjectID(photo: photo, role: role))
    }
}
