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
/// The merges themselves are set-wise (`relinkCounts`, `mergeTags` and the history's
/// `appendTagMergeChangesSetWise`): a fixed number of statements for any number of groups, so a
/// server catalog is not one round trip per tag and photo away (issue 12: `dedupe-tags --all`
/// on 1,000,000 photos).
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

    /// Calls `body` with every tag of `zone` whose name in NFC is `name` (given in NFC; SQL
    /// `normalize(name)`, so that a name stored decomposed is found too, #31 A9).
    /// - Throws: the store's error, or what `body` throws.
    func forEachTag(zone: ZoneID, name: String, _ body: (StoredTag) throws -> Void) throws

    /// Calls `body` with every tag of the library, streaming.
    /// - Throws: the store's error, or what `body` throws.
    func forEachTag(_ body: (StoredTag) throws -> Void) throws

    /// Per merge (in the order given), the number of distinct photos linked to one of its
    /// losers and not to its winner: the links the merge moves. One statement for all merges.
    /// - Throws: the store's error.
    func relinkCounts(_ merges: [TagMerge]) throws -> [Int]

    /// Re-points the photos of every loser to its winner (no photo gets a tag twice) and deletes
    /// the losers with their links: the data side of the merge step (SPEC §5), for all merges in
    /// two statements. Record the history first (`HistoryStore.appendTagMergeChangesSetWise`).
    /// - Throws: the store's error.
    func mergeTags(_ merges: [TagMerge]) throws
}

/// One group's merge, as `dedupe-tags` hands it to the set-wise store calls: the winner keeps
/// its uuid, the losers' photos move to it and the losers are deleted (SPEC §5).
public struct TagMerge: Equatable, Sendable {
    /// The tag kept (the smallest uuid of the group).
    public var winner: StoredTag
    /// The tags merged into the winner, in merge order (uuid byte order).
    public var losers: [StoredTag]
    /// The links that move (`TagDedupeStore.relinkCounts`); when more than 0 the winner's update
    /// of `photos` is recorded.
    public var photosRelinked: Int

    public init(winner: StoredTag, losers: [StoredTag], photosRelinked: Int = 0) {
        self.winner = winner
        self.losers = losers
        self.photosRelinked = photosRelinked
    }

    /// The losers of `merges` as the JSON array a set-wise statement reads (PostgreSQL
    /// `json_to_recordset`, SQLite `json_each`; RFC 8259): one object per loser in merge order,
    /// `{"o":ordinal from 1,"g":index of its merge,"w":winner row id,"l":loser row id,
    /// "u":loser uuid,"t":its Tag tombstone,"z":its zone}`. The tombstone is the JSON text
    /// `{"name":…,"uuid":…}` (`HistoryEntity.tag.tombstoneKeys` order) exactly as
    /// `HistoryStore.appendHistoryChanges` serializes a tombstone.
    public static func loserRows(_ merges: [TagMerge]) -> String {
        var rows: [JSONValue] = []
        for (g, merge) in merges.enumerated() {
            for loser in merge.losers {
                let tombstone = JSONValue.object(
                    zip(HistoryEntity.tag.tombstoneKeys, [loser.name, loser.uuid]).map { ($0, .string($1)) })
                rows.append(
                    .object([
                        ("o", .int(rows.count + 1)), ("g", .int(g)), ("w", .int(Int(merge.winner.rowID))),
                        ("l", .int(Int(loser.rowID))), ("u", .string(loser.uuid)),
                        ("t", .string(tombstone.serialized())),
                        ("z", .string(loser.zone.rawValue))
                    ]))
            }
        }
        return JSONValue.array(rows).serialized()
    }

    /// The winners whose update of `photos` is recorded (`photosRelinked` > 0), as a JSON array
    /// of `{"o":ordinal of the merge's last loser in loserRows,"u":winner uuid,"z":its zone}`.
    public static func winnerUpdateRows(_ merges: [TagMerge]) -> String {
        var rows: [JSONValue] = []
        var ordinal = 0
        for merge in merges {
            ordinal += merge.losers.count
            guard merge.photosRelinked > 0, !merge.losers.isEmpty else { continue }
            rows.append(
                .object([
                    ("o", .int(ordinal)), ("u", .string(merge.winner.uuid)), ("z", .string(merge.winner.zone.rawValue))
                ]))
        }
        return JSONValue.array(rows).serialized()
    }
}
