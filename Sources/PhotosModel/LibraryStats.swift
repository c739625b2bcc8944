/// Counts and sizes of a library (`photos stats`).
public struct LibraryStats: Equatable, Sendable {
    public var photos = 0
    /// Bytes of all originals as recorded (a file shared by several rows counts once).
    public var originalBytes: Int64 = 0
    public var thumbnailBytes: Int64 = 0
    public var tags = 0
    public var ratings = 0
    public var zones: [(id: String, scope: String, photos: Int)] = []
    public var shares = 0
    public var participants = 0
    public var historyTransactions = 0
    public var historyChanges = 0
    public var consumers = 0
    /// Bytes of `photos.sqlite` with its WAL.
    public var databaseBytes: Int64 = 0
    public var schemaVersion = 0
    /// The library's stable id (lowercase UUID), the sender id of its changesets (issue 11).
    public var libraryID = ""
    /// Photos per kind (issue 25 item 2), in `kindNames` order.
    public var kinds: [(kind: String, photos: Int)] = []
    /// The total duration of the videos and Motion Photos, milliseconds.
    public var durationMS: Int64 = 0
    /// The kinds of photo (the catalog's `photo.kind` CHECK): still, video, motion, live.
    public static let kindNames = ["still", "video", "motion", "live"]
    /// Photos per format (`photo.format`, issue 24 item 7), in `ImageFormat.allCases` order,
    /// formats without photos left out.
    public var formats: [(format: String, photos: Int)] = []
    /// Camera RAW photos per container (`photo.camera_format`: "cr2", "nef"), by name; a RAW of
    /// an unknown container (imported before schema 18, not refreshed) is counted under "raw".
    public var cameraFormats: [(format: String, photos: Int)] = []

    public init() {}

    public static func == (a: LibraryStats, b: LibraryStats) -> Bool { a.json == b.json }

    public var json: JSONValue {
        .object([
            ("photos", .int(photos)), ("originalBytes", .int(Int(originalBytes))),
            ("thumbnailBytes", .int(Int(thumbnailBytes))),
            ("tags", .int(tags)), ("ratings", .int(ratings)), ("shares", .int(shares)),
            ("participants", .int(participants)),
            (
                "zones",
                .array(
                    zones.map {
                        .object([("id", .string($0.id)), ("scope", .string($0.scope)), ("photos", .int($0.photos))])
                    })
            ),
            ("historyTransactions", .int(historyTransactions)), ("historyChanges", .int(historyChanges)),
            ("consumers", .int(consumers)), ("databaseBytes", .int(Int(databaseBytes))),
            ("schemaVersion", .int(schemaVersion)), ("libraryId", .string(libraryID)),
            ("kinds", .object(kinds.map { ($0.kind, JSONValue.int($0.photos)) })),
            ("duration", .decimal(Double(durationMS) / 1000, decimals: 3)),
            ("formats", .object(formats.map { ($0.format, JSONValue.int($0.photos)) })),
            ("cameraFormats", .object(cameraFormats.map { ($0.format, JSONValue.int($0.photos)) }))
        ])
    }
}

/// Where `photos stats` reads its counts. One call, so that each backend reads them in one
/// consistent snapshot (SQLite: a deferred read transaction; PostgreSQL: REPEATABLE READ).
public protocol StatsStore: AnyObject {
    /// Every count of `LibraryStats` except `databaseBytes` (a file-system size the caller adds).
    /// - Throws: the store's error.
    func catalogStats() throws -> LibraryStats
}
