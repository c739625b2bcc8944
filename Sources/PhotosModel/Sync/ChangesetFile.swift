/// A changeset's header: who sent it, what it covers (man page, CHANGESETS).
public struct ChangesetHeader: Equatable, Sendable {
    /// `photos-changeset`.
    public static let formatName = "photos-changeset"
    /// The format version this build writes and reads.
    public static let currentVersion = 1

    /// The sender's library id (lowercase UUID).
    public var sender: String
    /// `library` for every zone, else the one zone's id.
    public var scope: String
    /// The changes after this change token of the sender…
    public var fromToken: Int64
    /// …up to and including this one.
    public var toToken: Int64
    /// ISO 8601 UTC.
    public var created: String
    /// For a share's changeset: the e-mail address of the participant it is for (owner → participant)
    /// or from (participant → owner); nil between peers.
    public var participant: String?

    public init(
        sender: String, scope: String, fromToken: Int64, toToken: Int64, created: String, participant: String? = nil
    ) {
        self.sender = sender
        self.scope = scope
        self.fromToken = fromToken
        self.toToken = toToken
        self.created = created
        self.participant = participant
    }
}

/// An original a changeset carries: `originals/SHA256` inside the changeset folder.
public struct ChangesetOriginal: Equatable, Sendable {
    /// 64 lowercase hex digits.
    public var sha256: String
    /// Bytes.
    public var byteSize: Int
    /// Relative to the changeset folder, as recorded (checked by the reader: exactly
    /// `originals/` + `sha256`).
    public var path: String

    public init(sha256: String, byteSize: Int, path: String) {
        self.sha256 = sha256
        self.byteSize = byteSize
        self.path = path
    }
}

/// One entry of a changeset as stored, unchecked (Core checks every field: the file comes from
/// someone else).
public struct RawChangesetEntry: Sendable {
    public var entity: String
    public var objectID: String
    public var attribute: String
    public var value: String?
    /// Stamp time and library, as stored.
    public var time: String
    public var library: String
    public var zone: String?

    public init(
        entity: String, objectID: String, attribute: String, value: String?, time: String, library: String,
        zone: String?
    ) {
        self.entity = entity
        self.objectID = objectID
        self.attribute = attribute
        self.value = value
        self.time = time
        self.library = library
        self.zone = zone
    }
}

/// Writes the database of a new changeset (`changeset.sqlite`), everything in one transaction
/// that `finish` commits.
public protocol ChangesetWriter: AnyObject {
    /// - Throws: the store's error.
    func write(_ header: ChangesetHeader) throws
    /// - Throws: the store's error.
    func writeAcknowledgement(library: String, scope: String, token: Int64) throws
    /// - Throws: the store's error.
    func write(_ entry: SyncEntry) throws
    /// A photo's thumbnail: JPEG bytes, pixels. - Throws: the store's error.
    func writeThumbnail(photo: String, data: [UInt8], width: Int, height: Int) throws
    /// - Throws: the store's error.
    func write(_ original: ChangesetOriginal) throws
    /// Commits. - Throws: the store's error.
    func finish() throws
}

/// Reads the database of a changeset, unchecked.
public protocol ChangesetReading: AnyObject {
    /// The header's pairs. - Throws: the store's error (a missing table too).
    func headerValues() throws -> [String: String]
    /// - Throws: the store's error.
    func acknowledgements() throws -> [(library: String, scope: String, token: Int64)]
    /// In key order (entity, object id, attribute). - Throws: the store's error.
    func rawEntries() throws -> [RawChangesetEntry]
    /// - Throws: the store's error.
    func thumbnail(photo: String) throws -> (data: [UInt8], width: Int, height: Int)?
    /// - Throws: the store's error.
    func originals() throws -> [ChangesetOriginal]
}

/// The file format of a changeset's database (always SQLite, whatever holds the catalog),
/// injected by the composition root like the export state databases.
public protocol ChangesetBackend: Sendable {
    /// The database's file name inside the changeset folder.
    var fileName: String { get }
    /// Creates a new changeset database at `path` (which must not exist).
    /// - Throws: the store's error.
    func create(path: String) throws -> any ChangesetWriter
    /// Opens one for reading only (after an integrity check).
    /// - Throws: the store's error when it is not a readable, sound database.
    func open(path: String) throws -> any ChangesetReading
}

/// The folder of originals inside a changeset folder.
public let changesetOriginalsFolder = "originals"
