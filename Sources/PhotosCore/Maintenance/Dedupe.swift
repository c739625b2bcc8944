import Foundation
import PhotosModel

/// One group of same-named tags in one zone, and what happened to it.
public struct TagMergeGroup: Equatable {
    public var zone: ZoneID
    /// The NFC name the group shares.
    public var name: String
    /// The uuid kept: the smallest (SPEC §5).
    public var winner: String
    /// The uuids merged into the winner and deleted.
    public var losers: [String]
    /// Photo links moved to the winner (links a photo already had to the winner are not counted).
    public var photosRelinked: Int

    public var json: JSONValue {
        .object([
            ("zone", .string(zone.rawValue)), ("name", .string(name)), ("winner", .string(winner)),
            ("losers", .array(losers.map(JSONValue.string))), ("photosRelinked", .int(photosRelinked))
        ])
    }
}

/// What `photos dedupe-tags` merged.
public struct DedupeReport: Equatable {
    public var groups: [TagMergeGroup] = []
    /// Groups of duplicates found in zones shared with this library (scope `shared`, the
    /// shared store): left alone, since only the owner deduplicates a share's tags (SYNC.md
    /// "Duplicates"); the owner's merge arrives with its changesets.
    public var leftToOwners: [TagMergeGroup] = []
    public var dryRun = false
    /// Number of tags deleted.
    public var merged: Int { groups.reduce(0) { $0 + $1.losers.count } }
    public var photosRelinked: Int { groups.reduce(0) { $0 + $1.photosRelinked } }

    /// `{"groups":N,"merged":N,"photosRelinked":N,"dryRun":B,"details":[…],"leftToOwners":[…]}`.
    public var json: JSONValue {
        .object([
            ("groups", .int(groups.count)), ("merged", .int(merged)), ("photosRelinked", .int(photosRelinked)),
            ("dryRun", .bool(dryRun)), ("details", .array(groups.map(\.json))),
            ("leftToOwners", .array(leftToOwners.map(\.json)))
        ])
    }
}

/// Orders tag uuids by the 16 bytes they stand for (RFC 9562 §4), which is the order of their
/// lowercase canonical strings: the winner of a duplicate group is the first.
public func uuidByteOrder(_ a: String, _ b: String) -> Bool { a.lowercased() < b.lowercased() }

/// A (zone, NFC name) pair: the key two tags are duplicates under (SPEC §3).
struct TagKey: Hashable {
    var zone: ZoneID
    /// The name in NFC.
    var name: String

    /// The key of a tag named `name` as stored (normalized here: older data may hold another form).
    init(zone: ZoneID, storedName name: String) {
        self.zone = zone
        self.name = name.precomposedStringWithCanonicalMapping
    }
}

extension Library {
    /// Where duplicate tags are looked up.
    var tagDedupeStore: any TagDedupeStore { store }

    /// The history consumer `dedupe-tags` keeps its token under.
    public static let dedupeConsumer = "dedupe-tags"

    /// Merges duplicate tags: tags with the same NFC name in the same zone. The tag with the
    /// smallest uuid (byte order) wins; photos of the others are re-pointed to it (no photo gets
    /// the tag twice) and the others are deleted with the Tag tombstone `{name, uuid}`. One
    /// transaction, author `dedupe-tags` unless `--author` is given; deterministic on any copy of the data, in any order, any number of times
    /// (SPEC §5, the seed's "smallest UUID wins"). Zones of the shared store (shares accepted
    /// from another library) are left to their owner and reported in `leftToOwners`.
    ///
    /// Incremental unless `all`: only the (zone, name) pairs of tags that history shows inserted
    /// since the consumer `dedupe-tags`'s token are examined, and the token moves to the current
    /// one in the same transaction. A consumer that was never registered, or whose token history
    /// compaction has passed, examines every tag. A dry run runs the same code and rolls it back.
    /// - Throws: `LibraryError.busy` when another process holds the lock past the wait,
    ///   `LibraryError` for the store's failures.
    ///
    /// With `fold` (`dedupe-tags --fold`, issue 32 item 2), tags whose names differ only by case
    /// or accents (equal by `TagName.sameTag`, the rule every lookup by name uses) are
    /// duplicates too, and every tag is examined; the smallest uuid still wins and keeps its
    /// name.
    public func dedupeTags(
        all: Bool = false, dryRun: Bool = false, author: HistoryAuthor = .default, fold: Bool = false
    ) throws -> DedupeReport {
        try self.dryRun(dryRun) {
            var report = DedupeReport()
            report.dryRun = isDryRun
            try write { try self.dedupeTagsBody(all: all || fold, author: author, fold: fold, report: &report) }
            return report
        }
    }

    private func dedupeTagsBody(all: Bool, author: HistoryAuthor, fold: Bool, report: inout DedupeReport) throws {
        do {
            let current = try self.currentHistoryToken()
            var since = all ? nil : try self.consumerToken(Library.dedupeConsumer)
            // History compacted past the token (--force): what it lost is unknown; examine every tag.
            if let token = since, try self.historyExpired(after: token) { since = nil }
            var keys: Set<TagKey>? = nil
            if let since {
                // Zones and NFC names of tags inserted since the token (and still present).
                var set = Set<TagKey>()
                try tagDedupeStore.forEachTagInserted(after: since) { set.insert(TagKey(zone: $0, storedName: $1)) }
                keys = set
            }
            // Only the private store is deduplicated here (SYNC.md "Duplicates": participants may
            // not); the shared store's groups are reported, as apply leaves them too.
            var sharedZones: [ZoneID: Bool] = [:]
            var merges: [TagMerge] = []
            for (group, merge) in try self.duplicateGroups(restrictedTo: keys, fold: fold) {
                let shared = try sharedZones[group.zone] ?? isSharedStoreZone(group.zone.rawValue)
                sharedZones[group.zone] = shared
                if shared {
                    report.leftToOwners.append(group)
                } else {
                    report.groups.append(group)
                    merges.append(merge)
                }
            }
            // Set-wise: a fixed number of statements for any number of groups and photos.
            for (i, count) in try tagDedupeStore.relinkCounts(merges).enumerated() {
                report.groups[i].photosRelinked = count
                merges[i].photosRelinked = count
            }
            var history = HistoryWriter(self, author: author, context: .dedupeTags)
            try history.tagMergesSetWise(merges)
            try tagDedupeStore.mergeTags(merges)
            try history.commit()
            // A winner stored in another form than NFC (another program's, an older version's)
            // takes its group's NFC name (#31 A9): a transaction of its own, so that each tag
            // has one change per transaction.
            var renames = HistoryWriter(self, author: author, context: .dedupeTags)
            for merge in merges where !merge.losers.isEmpty {
                let nfc = merge.winner.name.precomposedStringWithCanonicalMapping
                guard !nfc.unicodeScalars.elementsEqual(merge.winner.name.unicodeScalars) else { continue }
                try catalogStore.renameTag(merge.winner.rowID, to: nfc)
                renames.update(.tag(uuid: merge.winner.uuid), ["name"], zone: merge.winner.zone.rawValue)
            }
            try renames.commit()
            // Everything up to now has been examined (our own transaction inserts no tags).
            try self.setConsumerToken(Library.dedupeConsumer, max(current, try self.currentHistoryToken()))
        }
    }

    /// Whether `zone` is in this library's shared store: the zone of a share another library
    /// owns, accepted here (scope `shared`), whose tags only its owner deduplicates.
    func isSharedStoreZone(_ zone: String) throws -> Bool {
        try catalogStore.share(id: zone)?.scope == ZoneScope.shared.rawValue
    }

    /// Which photos make one coming into `zone` a duplicate (`DuplicateScope.forPhotos`): what
    /// import and merge both ask.
    /// - Throws: the store's error.
    func duplicateScope(into zone: String) throws -> DuplicateScope {
        .forPhotos(into: zone, zoneScope: try catalogStore.share(id: zone)?.scope)
    }

    /// Groups of duplicate tags (≥ 2 with one zone and NFC name), winners first, ordered by
    /// zone and name, each with its merge (the rows of its tags). With `keys`, only those
    /// (zone, NFC name) pairs.
    /// With `fold`, names are keyed folded (case and diacritics removed, the classes of
    /// `TagName.sameTag`) and the group is named by its winner.
    func duplicateGroups(restrictedTo keys: Set<TagKey>?, fold: Bool = false) throws -> [(
        group: TagMergeGroup, merge: TagMerge
    )] {
        let store = tagDedupeStore
        var byKey: [TagKey: [StoredTag]] = [:]
        let visit: (StoredTag) -> Void = { tag in
            var key = TagKey(zone: tag.zone, storedName: tag.name)
            if fold { key.name = key.name.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil) }
            if keys == nil || keys?.contains(key) == true { byKey[key, default: []].append(tag) }
        }
        if let keys, keys.count < 500 {
            // Compared in NFC by the store: a name stored decomposed (another program, an older
            // version) is found under its key too (#31 A9).
            for key in keys { try store.forEachTag(zone: key.zone, name: key.name, visit) }
        } else {
            try store.forEachTag(visit)
        }
        return byKey.filter { $0.value.count > 1 }.sorted { ($0.key.zone, $0.key.name) < ($1.key.zone, $1.key.name) }
            .map { key, tags in
                let sorted = tags.sorted { uuidByteOrder($0.uuid, $1.uuid) }
                let group = TagMergeGroup(
                    zone: key.zone, name: fold ? sorted[0].name.precomposedStringWithCanonicalMapping : key.name,
                    winner: sorted[0].uuid, losers: sorted.dropFirst().map(\.uuid),
                    photosRelinked: 0)
                return (group, TagMerge(winner: sorted[0], losers: Array(sorted.dropFirst())))
            }
    }
}
