import Foundation
import PhotosModel

/// A tag as `photos tag list` presents it (SPEC §5a).
public struct TagInfo: Equatable, Sendable {
    /// Random UUID, lowercase canonical form.
    public var uuid: String
    /// NFC-normalized name.
    public var name: String
    /// The record zone the tag lives in.
    public var zone: String
    /// Number of photos linked to the tag, counted over `photo_tag` (derived, never stored).
    public var photoCount: Int

    /// The §5a tag object `{"uuid","name","zone","photoCount"}`.
    public var json: JSONValue {
        .object([
            ("uuid", .string(uuid)), ("name", .string(name)), ("zone", .string(zone)), ("photoCount", .int(photoCount))
        ])
    }
}

/// What `tag rename` did (or, in a dry run, would do).
public struct TagRenameReport: Equatable, Sendable {
    /// Tags renamed in place (no tag of the new name in their zone).
    public var renamed = 0
    /// Tags merged into an existing tag of the new name (and deleted with a tombstone).
    public var merged = 0
    /// Photos linked to the merged tags: each now has the existing tag instead.
    public var photosMerged = 0
    /// Of those, the tags beneath the renamed one that moved with it (`Places/France` when
    /// `Places` is renamed).
    public var beneath = 0
    /// Tags renamed or merged: `renameTag`'s count.
    public var tags: Int { renamed + merged }

    public init() {}
}

/// What `tag add` did: the photos that gained the tag, and the tags it used that are not spelled
/// as typed, which the CLI names on stderr.
public struct TagAddReport: Equatable, Sendable {
    /// Photos that gained the tag.
    public var added = 0
    /// Existing tags used for the name typed though spelled otherwise (`Café` for `cafe`).
    public var existing: [String] = []
    /// With `--new`: the existing tags the name matched, beside which a new tag was created.
    public var createdBeside: [String] = []

    public init() {}
}

extension TagName {
    /// True when `name` contains `text`, ignoring case and diacritics: the seed's
    /// `name CONTAINS[cd] text` predicate (NSPredicate string comparison options `c` and `d`),
    /// so `cafe` matches `Café` typed composed or decomposed. An empty `text` matches every name.
    /// - Parameters:
    ///   - name: a tag name.
    ///   - text: what `--match` was given (not normalized; the comparison is canonical).
    public static func matches(_ name: String, _ text: String) -> Bool {
        guard !text.isEmpty else { return true }
        return name.range(of: text, options: [.caseInsensitive, .diacriticInsensitive]) != nil
    }
}

/// A photo's row id, uniqueName and zone, read inside a write transaction.
struct PhotoKey {
    var rowID: Int64
    var uniqueName: String
    var zone: String
    var scope: ZoneScope
}

extension PhotoKey {
    /// A key with the scope as stored text (`merge` builds keys from its own rows); a text the
    /// schema's CHECK does not allow counts as `shared`, which nothing moves.
    init(rowID: Int64, uniqueName: String, zone: String, scope: String) {
        self.init(rowID: rowID, uniqueName: uniqueName, zone: zone, scope: ZoneScope(rawValue: scope) ?? .shared)
    }
}

extension Library {
    /// The current zone of each photo, read again inside the write (a `PhotoRecord` may be stale),
    /// without duplicates and without photos deleted meanwhile.
    func photoKeys(_ photos: [PhotoRecord]) throws -> [PhotoKey] {
        var seen = Set<Int64>()
        var keys: [PhotoKey] = []
        for photo in photos where seen.insert(photo.rowID).inserted {
            if let at = try catalogStore.photoLocation(photo.rowID) {
                keys.append(PhotoKey(rowID: photo.rowID, uniqueName: at.uniqueName, zone: at.zone, scope: at.scope))
            }
        }
        return keys
    }

    /// True when a record zone with this id exists.
    /// - Throws: the store's error.
    public func zoneExists(_ id: ZoneID) throws -> Bool {
        try catalogStore.zoneExists(id.rawValue)
    }

    /// The tags of one zone, or of every zone, with their photo counts, ordered by name, zone
    /// and uuid (`photos tag list`, SPEC §5).
    /// - Parameters:
    ///   - zone: a record zone id, or nil for every zone.
    ///   - match: keep only names containing this text, case- and diacritic-insensitively
    ///     (`TagName.matches`).
    /// - Throws: `LibraryError.notFound(.zone)` when `zone` does not exist; the store's error.
    public func tags(zone: ZoneID? = nil, matching match: String? = nil) throws -> [TagInfo] {
        if let zone {
            guard try zoneExists(zone) else { throw LibraryError.notFound(.zone(zone)) }
        }
        let all = try catalogStore.tagList(zone: zone?.rawValue).map {
            TagInfo(uuid: $0.tag.uuid, name: $0.tag.name, zone: $0.tag.zone.rawValue, photoCount: $0.photoCount)
        }
        guard let match else { return all }
        return all.filter { TagName.matches($0.name, match) }
    }

    /// Adds the tag `name` to each photo: the tag of the photo's zone that `name` finds by
    /// `TagName.sameTag` (case and accents ignored: `cafe` adds `Café` where it exists), created
    /// with a fresh random UUID when the zone has none (SPEC §5 `tag add`). A photo that already
    /// has that tag is left alone. One transaction; history context `tag add`, with the Tag
    /// inserts and a Photo update of `tags` per photo changed; nothing is recorded when nothing
    /// changed.
    /// - Parameters:
    ///   - name: the tag name.
    ///   - photos: the photos, resolved beforehand.
    ///   - author: the history author (`--author`).
    /// - Returns: the number of photos that gained the tag.
    /// - Throws: `LibraryError.ambiguous(.tag)` when `name` finds several tags of one zone,
    ///   `LibraryError.busy`; the store's error.
    @discardableResult
    public func addTag(_ name: TagName, to photos: [PhotoRecord], author: HistoryAuthor) throws -> Int {
        try addTagReporting(name, to: photos, author: author).added
    }

    /// `addTag`, saying which tags it used: with `createNew` (`tag add --new`) a zone whose tags
    /// only match `name` ignoring case or accents gets a new tag spelled as `name` instead (a
    /// tag spelled exactly so is still reused: no duplicate is made).
    /// - Throws: as `addTag` (never `.ambiguous` with `createNew`).
    public func addTagReporting(
        _ name: TagName, to photos: [PhotoRecord], author: HistoryAuthor, createNew: Bool = false
    ) throws -> TagAddReport {
        let name = name.rawValue
        return try write {
            var history = HistoryWriter(self, author: author, context: .tagAdd)
            var report = TagAddReport()
            var targets: [String: TagRef] = [:]
            for photo in try photoKeys(photos) {
                let tag: TagRef
                if let known = targets[photo.zone] {
                    tag = known
                } else {
                    let matching = try tags(matching: name, zone: photo.zone)
                    if let exact = matching.first(where: { $0.name == name }), createNew || matching.count == 1 {
                        tag = exact
                    } else if createNew {
                        tag = try createTag(named: name, zone: photo.zone, history: &history)
                        report.createdBeside += matching.map(\.name).filter { !report.createdBeside.contains($0) }
                    } else if matching.count > 1 {
                        throw LibraryError.ambiguousTag(name, matching)
                    } else if let found = matching.first {
                        tag = found
                        if !report.existing.contains(found.name) { report.existing.append(found.name) }
                    } else {
                        tag = try createTag(named: name, zone: photo.zone, history: &history)
                    }
                    targets[photo.zone] = tag
                }
                if try catalogStore.tags(ofPhoto: photo.rowID).contains(where: { $0.rowID == tag.rowID }) { continue }
                try catalogStore.link(photo: photo.rowID, tag: tag.rowID)
                history.update(.photo(uniqueName: photo.uniqueName), ["tags"], zone: photo.zone)
                report.added += 1
            }
            try history.commit()
            return report
        }
    }

    /// Removes the tag `name` (the tag of each photo's zone that `name` finds by
    /// `TagName.sameTag`) from each photo; the tag itself stays (SPEC §5 `tag remove`). History
    /// context `tag remove`, a Photo update of `tags` per photo changed; nothing is recorded
    /// when no photo had the tag.
    /// - Returns: the number of photos that lost the tag.
    /// - Throws: `LibraryError.notFound(.tagInPhotoZones)` when no tag of that name exists in any
    ///   of the photos' zones, `.ambiguous(.tag)` when the name finds several tags of one of
    ///   them (nothing changes), `LibraryError.busy`.
    @discardableResult
    public func removeTag(_ name: TagName, from photos: [PhotoRecord], author: HistoryAuthor) throws -> Int {
        let name = name.rawValue
        return try write {
            let keys = try photoKeys(photos)
            var targets: [String: TagRef?] = [:]
            for zone in Set(keys.map(\.zone)).sorted() { targets[zone] = try uniqueTag(matching: name, zone: zone) }
            let exists = targets.values.contains { $0 != nil }
            guard exists || keys.isEmpty else {
                throw LibraryError.notFound(.tagInPhotoZones(name, zoneCount: Set(keys.map(\.zone)).count))
            }
            var history = HistoryWriter(self, author: author, context: .tagRemove)
            var count = 0
            for photo in keys {
                guard let tag = targets[photo.zone] ?? nil,
                    try catalogStore.tags(ofPhoto: photo.rowID).contains(where: { $0.rowID == tag.rowID })
                else { continue }
                try catalogStore.unlink(photo: photo.rowID, tag: tag.rowID)
                history.update(.photo(uniqueName: photo.uniqueName), ["tags"], zone: photo.zone)
                count += 1
            }
            try history.commit()
            return count
        }
    }

    /// The tags `name` finds in `zone` (or every zone) by `TagName.sameTag`, and those beneath
    /// them (`Places/France` beneath `Places`, levels compared by the same rule): what `tag
    /// delete` asks about before deleting a branch.
    /// - Throws: `LibraryError.ambiguous(.tag)` when `name` finds several tags of one zone,
    ///   `.notFound(.zone)` for a zone that does not exist; the store's error.
    public func tagBranch(_ name: TagName, zone: ZoneID? = nil) throws -> (tags: [TagInfo], beneath: [TagInfo]) {
        let all = try tags(zone: zone)
        let found = all.filter { TagName.sameTag($0.name, name.rawValue) }
        for zone in Set(found.map(\.zone)) {
            let same = found.filter { $0.zone == zone }
            if same.count > 1 {
                throw LibraryError.ambiguousTag(
                    name.rawValue, same.map { TagRef(rowID: 0, uuid: $0.uuid, name: $0.name, zone: $0.zone) })
            }
        }
        return (found, all.filter { TagName.suffix(of: $0.name, below: name.rawValue) != nil })
    }

    /// Deletes the tag `name` finds (by `TagName.sameTag`) in `zone` (or in every zone), and
    /// with `recursive` every tag beneath it, nullifying their links: the photos stay (SPEC §3,
    /// delete rule nullify). History context `tag delete`: a Tag delete with the tombstone
    /// {name, uuid} per tag and a Photo update of `tags` per photo that had it.
    /// - Returns: the tags deleted, each with `photoCount` the photos it was removed from.
    /// - Throws: `LibraryError.notFound(.tag)` (or `.zone`) when no such tag (or zone) exists,
    ///   `.ambiguous(.tag)` when the name finds several tags of one zone, `LibraryError.busy`.
    @discardableResult
    public func deleteTag(
        _ name: TagName, zone: ZoneID? = nil, recursive: Bool = false, author: HistoryAuthor
    ) throws -> [TagInfo] {
        let name = name.rawValue
        return try write {
            if let zone, !(try zoneExists(zone)) { throw LibraryError.notFound(.zone(zone)) }
            var victims: [TagRef] = []
            for zone in try zonesWithTags(zone) {
                if let tag = try uniqueTag(matching: name, zone: zone) { victims.append(tag) }
                if recursive {
                    victims += try catalogStore.tags(inZone: zone).filter {
                        TagName.suffix(of: $0.name, below: name) != nil
                    }.map(TagRef.init)
                }
            }
            guard !victims.isEmpty else { throw LibraryError.notFound(.tag(name, zone: zone)) }
            var history = HistoryWriter(self, author: author, context: .tagDelete)
            var deleted: [TagInfo] = []
            for tag in victims {
                let photos = try logPhotosOfTag(tag.rowID, in: &history)
                try history.delete(.tag, .rowID(tag.rowID))
                try catalogStore.deleteTag(tag.rowID)
                deleted.append(TagInfo(uuid: tag.uuid, name: tag.name, zone: tag.zone, photoCount: photos))
            }
            try history.commit()
            return deleted
        }
    }

    /// Deletes every tag that no photo has, in `zone` or in every zone, in one history
    /// transaction (context `tag prune`: a Tag delete with the tombstone {name, uuid} per tag;
    /// no photo changes). Issue 32 item 8, as digiKam's "delete unused tags".
    /// - Returns: the tags deleted (`photoCount` 0), by zone then name; empty when none was
    ///   unused (no transaction is recorded then).
    /// - Throws: `LibraryError.notFound(.zone)` when `zone` does not exist, `LibraryError.busy`.
    @discardableResult
    public func pruneTags(zone: ZoneID? = nil, author: HistoryAuthor) throws -> [TagInfo] {
        try write {
            if let zone, !(try zoneExists(zone)) { throw LibraryError.notFound(.zone(zone)) }
            let unused = try catalogStore.tagList(zone: zone?.rawValue).filter { $0.photoCount == 0 }.map(\.tag)
                .sorted { ($0.zone.rawValue, $0.name) < ($1.zone.rawValue, $1.name) }
            guard !unused.isEmpty else { return [] }
            var history = HistoryWriter(self, author: author, context: .tagPrune)
            for tag in unused {
                try history.delete(.tag, .rowID(tag.rowID))
                try catalogStore.deleteTag(tag.rowID)
            }
            try history.commit()
            return unused.map { TagInfo(uuid: $0.uuid, name: $0.name, zone: $0.zone.rawValue, photoCount: 0) }
        }
    }

    /// `zone`, or every zone that has a tag, in order.
    private func zonesWithTags(_ zone: ZoneID?) throws -> [String] {
        if let zone { return [zone.rawValue] }
        return Set(try catalogStore.tagList(zone: nil).map(\.tag.zone.rawValue)).sorted()
    }

    /// Renames the tag `old` finds (by `TagName.sameTag`) in `zone` (or in every zone) to `new`,
    /// and moves the branch beneath it with it: `Places/France/Paris` becomes
    /// `Locations/France/Paris` when `Places` is renamed `Locations` (issue 32 item 1), whether
    /// or not a tag `Places` itself exists. Where the zone already has a tag of a new name (by
    /// the same rule), the moved tag is merged into it instead (its photos are re-pointed to
    /// the existing tag, without duplicate links, and it is deleted with a tombstone), so that
    /// rename never makes duplicates — the way digiKam and Lightroom merge a keyword renamed
    /// onto an existing one. History context `tag rename`.
    /// - Returns: the number of tags renamed or merged (0 when `old` and `new` are the same name).
    /// - Throws: `LibraryError.notFound(.tag)` (or `.zone`) when no tag `old` nor any tag beneath
    ///   it (or no zone) exists, `.ambiguous(.tag)` when `old` or a new name finds several tags of
    ///   one zone, `LibraryError.busy`.
    @discardableResult
    public func renameTag(_ old: TagName, to new: TagName, zone: ZoneID? = nil, author: HistoryAuthor) throws -> Int {
        try renameTagReporting(old, to: new, zone: zone, author: author).tags
    }

    /// `renameTag`, saying what it did per kind: the tags renamed in place, and those merged
    /// into an existing tag of the new name with the photos whose links moved (what the
    /// question of `tag rename` names: `Merge tag 'a' into the existing tag 'b' on 34 photos?`).
    /// `new` must not lie beneath `old` (the CLI refuses that, 64).
    /// - Throws: as `renameTag`.
    public func renameTagReporting(
        _ old: TagName, to new: TagName, zone: ZoneID? = nil, author: HistoryAuthor
    ) throws -> TagRenameReport {
        let old = old.rawValue
        let new = new.rawValue
        return try write {
            if let zone, !(try zoneExists(zone)) { throw LibraryError.notFound(.zone(zone)) }
            var moves: [(tag: TagRef, to: String)] = []
            for zone in try zonesWithTags(zone) {
                if let tag = try uniqueTag(matching: old, zone: zone) { moves.append((tag, new)) }
                for tag in try catalogStore.tags(inZone: zone).map(TagRef.init) {
                    if let rest = TagName.suffix(of: tag.name, below: old) { moves.append((tag, new + rest)) }
                }
            }
            guard !moves.isEmpty else { throw LibraryError.notFound(.tag(old, zone: zone)) }
            var report = TagRenameReport()
            guard old != new else { return report }
            var history = HistoryWriter(self, author: author, context: .tagRename)
            for (tag, name) in moves where tag.name != name {
                let targets = try tags(matching: name, zone: tag.zone).filter { $0.rowID != tag.rowID }
                if targets.count > 1 { throw LibraryError.ambiguousTag(name, targets) }
                if let target = targets.first {
                    report.photosMerged += try mergeTag(tag, into: target, history: &history)
                    report.merged += 1
                } else {
                    try catalogStore.renameTag(tag.rowID, to: name)
                    history.update(.tag(uuid: tag.uuid), ["name"], zone: tag.zone)
                    report.renamed += 1
                }
                if tag.name != old && TagName.suffix(of: tag.name, below: old) != nil { report.beneath += 1 }
            }
            try history.commit()
            return report
        }
    }

    /// Logs a Photo update of `tags` for every photo linked to the tag with row id `tagID`.
    /// - Returns: the number of those photos.
    @discardableResult
    private func logPhotosOfTag(_ tagID: Int64, in history: inout HistoryWriter) throws -> Int {
        let photos = try catalogStore.photos(ofTag: tagID)
        for (name, zone) in photos {
            history.update(.photo(uniqueName: name), ["tags"], zone: zone)
        }
        return photos.count
    }

    /// Re-points the photos of `loser` to `winner` (no photo ends up with the tag twice) and
    /// deletes `loser` with the Tag tombstone {name, uuid}: the merge step of SPEC §5 (`tag
    /// rename`, `share add`), logging a Photo update of `tags` per photo of the loser.
    /// `dedupe-tags` makes the same changes and records the same history set-wise
    /// (`TagDedupeStore.mergeTags`, `HistoryWriter.tagMergesSetWise`).
    /// - Returns: the number of photos the loser was linked to (their links moved to `winner`).
    @discardableResult
    func mergeTag(_ loser: TagRef, into winner: TagRef, history: inout HistoryWriter) throws -> Int {
        let photos = try logPhotosOfTag(loser.rowID, in: &history)
        try catalogStore.linkPhotos(ofTag: loser.rowID, toTag: winner.rowID)
        try history.delete(.tag, .rowID(loser.rowID))
        try catalogStore.deleteTag(loser.rowID)
        return photos
    }

    /// Merges the same-named tags of `zone`: per name, the tag with the smallest uuid wins (byte
    /// order of the 16 bytes, which is the order of the lowercase canonical strings), the others'
    /// photos are re-pointed to it and they are deleted (SPEC §5 `dedupe-tags`, the seed's rule).
    /// - Returns: the number of tags deleted.
    func mergeDuplicateTags(inZone zone: String, history: inout HistoryWriter) throws -> Int {
        // Grouped by the NFC name (a name stored decomposed sorts elsewhere, #31 A9).
        var groups: [String: [TagRef]] = [:]
        var order: [String] = []
        for tag in try catalogStore.tags(inZone: zone).map(TagRef.init) {
            let key = tag.name.precomposedStringWithCanonicalMapping
            if groups[key] == nil { order.append(key) }
            groups[key, default: []].append(tag)
        }
        var merged = 0
        for key in order {
            let tags = (groups[key] ?? []).sorted { uuidByteOrder($0.uuid, $1.uuid) }
            guard let winner = tags.first else { continue }
            for loser in tags.dropFirst() {
                try mergeTag(loser, into: winner, history: &history)
                merged += 1
            }
        }
        return merged
    }
}

/// One node of `photos tag list --tree`: a tag, or a level that only tags beneath it name
/// (`Places` when only `Places/France/Paris` exists).
public struct TagTreeNode: Equatable, Sendable {
    /// The zone of the tags.
    public var zone: String
    /// The whole name (`Places/France`).
    public var path: String
    /// The last level (`France`).
    public var name: String
    /// Levels above it: 0 for a top-level node.
    public var depth: Int
    /// Photos linked to the tag itself; nil when no tag has this name (a level only).
    public var photoCount: Int?
    /// Photos linked to it or to a tag beneath it, each photo once.
    public var totalCount: Int

    /// `{"zone","path","name","depth","photoCount","totalCount"}`, `photoCount` null for a level
    /// without a tag of its own.
    public var json: JSONValue {
        .object([
            ("zone", .string(zone)), ("path", .string(path)), ("name", .string(name)), ("depth", .int(depth)),
            ("photoCount", photoCount.map { .int($0) } ?? .null), ("totalCount", .int(totalCount))
        ])
    }
}

extension Library {
    /// The tags of one zone, or of every zone, as a tree split at `/` (issue 32 item 1), in
    /// depth-first order: by zone, then each node before the nodes beneath it, siblings by name.
    /// Each node counts its own photos and, each photo once, those of the tags beneath it.
    /// - Throws: `LibraryError.notFound(.zone)` when `zone` does not exist; the store's error.
    public func tagTree(zone: ZoneID? = nil) throws -> [TagTreeNode] {
        struct Key: Hashable {
            var zone: String
            var levels: [String]
        }
        if let zone, !(try zoneExists(zone)) { throw LibraryError.notFound(.zone(zone)) }
        var own: [Key: Int] = [:]
        var photos: [Key: Set<String>] = [:]
        for (tag, count) in try catalogStore.tagList(zone: zone?.rawValue) {
            let levels = TagName.levels(tag.name).map(String.init)
            let key = Key(zone: tag.zone.rawValue, levels: levels)
            own[key, default: 0] += count
            let linked = Set(try catalogStore.photos(ofTag: tag.rowID).map(\.uniqueName))
            for n in 1...levels.count {
                photos[Key(zone: key.zone, levels: Array(levels[0..<n])), default: []].formUnion(linked)
            }
        }
        return photos.keys.sorted { a, b in
            a.zone != b.zone ? a.zone < b.zone : a.levels.lexicographicallyPrecedes(b.levels)
        }.map { key in
            TagTreeNode(
                zone: key.zone, path: key.levels.joined(separator: "/"), name: key.levels.last ?? "",
                depth: key.levels.count - 1, photoCount: own[key], totalCount: photos[key]?.count ?? 0)
        }
    }
}
