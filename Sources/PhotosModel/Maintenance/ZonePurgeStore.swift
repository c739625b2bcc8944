/// What a record zone holds, counted before `purge` deletes it.
public struct ZoneContents: Equatable, Sendable {
    public var photos = 0
    public var photoData = 0
    public var thumbnails = 0
    public var ratings = 0
    public var tags = 0
    public var participants = 0
    /// 1 when the zone is a share's, else 0.
    public var shares = 0

    public init() {}
}

/// An original as a PhotoData row records it: the reference (`ab/abcdef…`, relative to the
/// external data folder) and the SHA-256 (64 lowercase hex digits) it should be named by.
public struct StoredFileReference: Hashable, Sendable {
    public var fileReference: String
    public var sha256: String

    public init(fileReference: String, sha256: String) {
        self.fileReference = fileReference
        self.sha256 = sha256
    }
}

/// Where `purge --share` deletes a record zone (SPEC §5 purge). Core decides the order — count,
/// check the originals can be removed, record the tombstones (`HistoryStore`'s set-wise deletes,
/// generated from `HistoryEntity`), delete, then remove the files no row references — and a
/// store reads and deletes the rows, set-wise, whatever the zone's size.
///
/// Designed for a PostgreSQL implementation (libpq) without changing Core: every method runs
/// inside the caller's write transaction (`Library.write`; PostgreSQL a transaction-level
/// advisory lock), the deletes are one statement per table with the zone as the only
/// parameter (`$1`), and children go by the schema's `ON DELETE CASCADE` on both backends
/// (PostgreSQL could also return what it deleted with `DELETE … RETURNING`, which a SQLite store
/// has to count first).
public protocol ZonePurgeStore: AnyObject {
    /// What `zone` holds: its photos with their photo data, thumbnails and ratings, its tags,
    /// its share and that share's participants.
    /// - Throws: the store's error.
    func zoneContents(_ zone: ZoneID) throws -> ZoneContents

    /// The distinct originals the photo data of `zone`'s photos record.
    /// - Throws: the store's error.
    func fileReferences(inZone zone: ZoneID) throws -> [StoredFileReference]

    /// Deletes `zone`'s photos (their photo data, thumbnails, ratings and tag links cascade),
    /// its tags, its share (participants cascade) and the zone itself. Record the history first.
    /// - Throws: the store's error.
    func deleteZone(_ zone: ZoneID) throws
}
