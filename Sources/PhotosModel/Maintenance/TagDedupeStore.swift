/// A tag as `dedupe-tags` sees it: its row id (local to this library), uuid, name as stored and
/// zone.
public struct StoredTag: Equatable, Sendable {
    public var rowID: Int64
    public var uuid: String
    public var name: String
    public var zone: ZoneID

    public init(rowID: Int64, uuid: String, name: String, zone: ZoneID) {
        self.rowID = rowID
        self.uuid = uuid
        self.name = name
        self.zone = zone
    }
}

/// Where `dedupe-tags` finds duplicate tags (SPEC §5: same NFC name, same zone; the smallest
/// uuid wins). Core decides which tags are examined (all, or those history shows inserted since
/// the consumer's token), groups them by NFC name and picks winners; the merge of a loser into
/// its winner (relink the photos, delete the loser with its tombstone) is the catalog's shared
/// step (`share add` uses it too). A store only reads.
///
/// Designed for a PostgreSQL implementation (libpq) without changing Core: tag names are
/// compared exactly as stored (`name = $2`, a `text` column with the "C" collation, or
/// `COLLATE "C"`), never by a database collation that would fold case or normalization; the
/// history join reads `entity`, `type` and `object_id` as text there too.
public protocol TagDedupeStore: AnyObject {
    /// Calls `body` with the zone and the name as stored of every tag still present that
    /// history shows inserted after `token` (once per insert change).
    /// - Throws: the store's error, or what `body` throws.
    func forEachTagInserted(after token: Int64, _ body: (ZoneID, String) throws -> Void) throws

    /// Calls `body` with every tag of `zone` stored under exactly `name`.
    /// - Throws: the store's error, or what `body` throws.
    func forEachTag(zone: ZoneID, name: String, _ body: (StoredTag) throws -> Void) throws

    /// Calls `body` with every tag of the library, streaming.
    /// - Throws: the store's error, or what `body` throws.
    func forEachTag(_ body: (StoredTag) throws -> Void) throws

    /// The tag with `uuid`, or nil.
    /// - Throws: the store's error.
    func tag(uuid: String) throws -> StoredTag?

    /// Row ids of the photos linked to the tag `loser` (a uuid) and not to the tag with row id
    /// `winnerRowID`: the links a merge moves.
    /// - Throws: the store's error.
    func photosToRelink(from loser: String, to winnerRowID: Int64) throws -> [Int64]
}
