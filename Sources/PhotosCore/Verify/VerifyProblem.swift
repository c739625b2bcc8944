import Foundation
import PhotosFiles
import PhotosImaging
import PhotosModel

/// One problem `photos verify` found (SPEC §2 invariants, and SPEC §6 for thumbnails).
public struct VerifyProblem: Equatable, Sendable {
    /// What is wrong, as a matchable value (its raw value is the `kind` of `--json` and of the
    /// printed line).
    public struct Kind: RawRepresentable, Hashable, Comparable, Sendable, ExpressibleByStringLiteral,
        CustomStringConvertible
    {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(stringLiteral value: String) { rawValue = value }
        public var description: String { rawValue }
        public static func < (a: Kind, b: Kind) -> Bool { a.rawValue < b.rawValue }

        /// A PhotoData row's file is gone (invariant 1).
        public static let missingFile: Kind = "missing-file"
        /// A PhotoData row's file cannot be checked or read (a permission or I/O error, not
        /// ENOENT), or a folder of external data cannot be listed. Never repaired: the file
        /// may well be intact, so `--repair` must not take it for missing.
        public static let unreadableFile: Kind = "unreadable-file"
        /// A PhotoData row's file has another size than recorded.
        public static let sizeMismatch: Kind = "size-mismatch"
        /// A PhotoData row's file has another SHA-256 than recorded.
        public static let hashMismatch: Kind = "hash-mismatch"
        /// A file in external data that no row references (invariant 2).
        public static let orphanFile: Kind = "orphan-file"
        /// A leftover temporary file in external data.
        public static let temporaryFile: Kind = "temporary-file"
        /// A photo without its PhotoData row.
        public static let missingPhotoData: Kind = "missing-photo-data"
        /// A photo without its thumbnail.
        public static let missingThumbnail: Kind = "missing-thumbnail"
        /// A thumbnail that is not a sound JPEG of its recorded size (`ThumbnailCheck`).
        public static let damagedThumbnail: Kind = "damaged-thumbnail"
        /// The store's own integrity check (SQLite's `integrity_check` pragma; invariant 3).
        public static let integrity: Kind = "integrity"
        /// A foreign key pointing nowhere (SQLite's `foreign_key_check` pragma; invariant 3).
        public static let foreignKey: Kind = "foreign-key"
        /// A tag link across zones (invariant 4).
        public static let crossZone: Kind = "cross-zone"
        /// A PhotoData row whose file reference is not the content address of its SHA-256
        /// (`ab/abcdef…`), which orphan detection and re-import rely on (SPEC §2).
        public static let badFileReference: Kind = "bad-file-reference"
        /// A tag name that is not what `TagName.normalize` makes (trimmed, NFC, no control
        /// characters), which find-or-create and `dedupe-tags` rely on (SPEC §3).
        public static let badTagName: Kind = "bad-tag-name"
        /// A tag uuid that is not a lowercase canonical UUID, whose string order `dedupe-tags`
        /// takes for byte order (SPEC §5).
        public static let badTagUUID: Kind = "bad-tag-uuid"
        /// Several photos with the same SHA-256: import and merge rely on one photo per
        /// original's bytes ("same bytes = same photo", SPEC §5); a duplicate arrives only from
        /// outside writes. Never repaired: which photo's tags, ratings and zone to keep is the
        /// user's decision (`photos delete` the one not wanted).
        public static let duplicatePhoto: Kind = "duplicate-photo"
        /// A displayName no file can have (empty, a NUL byte, a `/`, `.` or `..`): import takes
        /// it from the file name, and export and `list` show it (a NUL cut it short). Never
        /// repaired: the original name is not known.
        public static let badDisplayName: Kind = "bad-display-name"
        /// Photos whose uniqueNames differ only in case: one UUID (RFC 9562 §4: hex digits
        /// are case-insensitive), so prefixes, sidecars and merges cannot tell them apart, and
        /// their sidecars collide on a case-insensitive file system. Never repaired: which
        /// photo keeps the identity is the user's decision (`photos delete` the other).
        public static let uniqueNameCase: Kind = "unique-name-case"
        /// One author with two or more ratings of one photo (authors compared trimmed and NFC,
        /// as `--author` is), where `rate` keeps one per author (SPEC, ratings): only outside
        /// writes make it. Never repaired: which value the author meant is theirs to say
        /// (`photos rating delete` the unwanted one, or `photos rate` again).
        public static let duplicateAuthorRating: Kind = "duplicate-author-rating"
    }

    public var kind: Kind
    /// What the problem is about, as a value: repairs and the notes on them are matched by it,
    /// never by the wording of `detail`.
    public var subject: VerifySubject
    /// One line naming the photo (uniqueName and displayName), file or row.
    public var detail: String
    /// What `--repair` does about it (and `--repair --dry-run` says it would do); nil when
    /// verify cannot repair it.
    public var repair: VerifyRepair?
    /// True when `--repair` fixed it.
    public var repaired: Bool = false

    public init(kind: Kind, subject: VerifySubject, detail: String, repair: VerifyRepair? = nil, repaired: Bool = false)
    {
        self.kind = kind
        self.subject = subject
        self.detail = detail
        self.repair = repair
        self.repaired = repaired
    }

    /// `{"kind":"…","detail":"…","repair":"…"|null,"repaired":B}`.
    public var json: JSONValue {
        .object([
            ("kind", .string(kind.rawValue)), ("detail", .string(detail)), ("repair", .optional(repair?.description)),
            ("repaired", .bool(repaired))
        ])
    }
}

/// What a `VerifyProblem` is about.
public enum VerifySubject: Hashable, Sendable {
    /// A photo, by uniqueName and displayName.
    case photo(PhotoName)
    /// A photo known by uniqueName only (its displayName is what is wrong).
    case photoNamed(String)
    /// Photos that share one original's SHA-256.
    case photos(sha256: String, [PhotoName])
    /// A file of external data (`ab/abcdef…`).
    case file(reference: String)
    /// A folder of (or the) external data folder, by path.
    case folder(String)
    /// A tag.
    case tag(uuid: String, name: String, zone: String)
    /// A row of a table, by its row id (a dangling foreign key).
    case row(table: String, rowID: Int64)
    /// The database as a whole (its own integrity check).
    case database

    /// The photo's uniqueName, for the subjects that are one photo.
    public var photoUniqueName: String? {
        switch self {
        case .photo(let photo): return photo.uniqueName
        case .photoNamed(let name): return name
        default: return nil
        }
    }
}

/// One change `photos verify --repair` makes, planned before anything is changed, so that
/// `--repair --dry-run` lists exactly what `--repair` would do.
public enum VerifyRepair: Hashable, Sendable, CustomStringConvertible {
    /// Remove a file of external data that no row references (`ab/abcdef…`).
    case removeFile(reference: String)
    /// Delete a photo whose original is gone, with what goes with it (counts when planned).
    case deletePhoto(uniqueName: String, displayName: String, ratings: Int, tags: Int, zone: String)
    /// Make the thumbnail again from the original, through the import's `Thumbnailer`.
    case regenerateThumbnail(uniqueName: String, displayName: String)
    /// Point a PhotoData row at the content address of its SHA-256, where its file is.
    case fixFileReference(uniqueName: String, displayName: String, from: String, to: String)
    /// Move a tag link that crosses zones to the same-named tag of the photo's zone (created
    /// when absent; the smallest uuid when several), as `share add` and `merge` relink tags.
    case relinkTag(uniqueName: String, displayName: String, tagUUID: String, tagName: String, zone: String)
    /// Store a tag's name in its normalized form (trimmed, NFC: `TagName.normalize`), merged as
    /// `dedupe-tags` merges with every tag of its zone of that name: the smallest uuid stays, the
    /// others' photos are re-pointed to it and they are deleted (#31 A9).
    case normalizeTagName(uuid: String, name: String, normalized: String, zone: String)

    /// One line saying what the repair does.
    public var description: String {
        switch self {
        case .removeFile(let reference):
            return "remove \(Library.externalDataName)/\(reference)"
        case let .deletePhoto(name, display, ratings, tags, zone):
            let share = zone == ZoneID.default.rawValue ? "" : ", leaving share \(zone)"
            return
                "delete photo \(name) (\(display)) with its \(ratings) rating\(ratings == 1 ? "" : "s") and \(tags) tag link\(tags == 1 ? "" : "s")\(share); re-importing the intact original restores it instead"
        case let .regenerateThumbnail(name, display):
            return "regenerate the thumbnail of photo \(name) (\(display)) from its original"
        case let .fixFileReference(name, display, from, to):
            return "point photo \(name) (\(display)) at its original \(to) instead of \(from)"
        case let .relinkTag(name, display, uuid, tagName, zone):
            return
                "link photo \(name) (\(display)) to the tag \(JSONValue.string(tagName).serialized()) of its zone \(zone) instead of \(uuid)"
        case let .normalizeTagName(uuid, name, normalized, zone):
            let scalars = { (s: String) in
                s.unicodeScalars.map { String(format: "U+%04X", $0.value) }.joined(separator: " ")
            }
            return
                "rename tag \(JSONValue.string(name).serialized()) (\(uuid), \(scalars(name))) in zone \(zone) to its normalized form \(JSONValue.string(normalized).serialized()) (\(scalars(normalized))), merged with the tags of that name (the smallest uuid stays)"
        }
    }
}

/// What `photos verify` checked and found.
public struct VerifyReport: Sendable {
    public var photos = 0
    public var files = 0
    /// Thumbnails checked.
    public var thumbnails = 0
    public var problems: [VerifyProblem] = []
    /// True for `--repair --dry-run`: the repairs were listed, not made.
    public var dryRun = false
    /// Files of external data no row references that verify (without `--repair`) did not judge
    /// because an import or merge held `import.lock` (`Library.importLockName`): they may be
    /// its written but uncommitted originals. Not problems; 0 when no import or merge ran.
    public var filesNotChecked = 0
    /// True when no unrepaired problem remains.
    public var isClean: Bool { problems.allSatisfy(\.repaired) }
    /// The repairs planned (made unless `dryRun`), in order, without duplicates.
    public var repairs: [VerifyRepair] {
        var seen = Set<VerifyRepair>()
        return problems.compactMap(\.repair).filter { seen.insert($0).inserted }
    }

    public var json: JSONValue {
        .object([
            ("photos", .int(photos)), ("files", .int(files)), ("thumbnails", .int(thumbnails)),
            ("problems", .int(problems.filter { !$0.repaired }.count)),
            ("repaired", .int(problems.filter(\.repaired).count)), ("clean", .bool(isClean)), ("dryRun", .bool(dryRun)),
            ("notChecked", .int(filesNotChecked)),
            ("details", .array(problems.map(\.json)))
        ])
    }
}
