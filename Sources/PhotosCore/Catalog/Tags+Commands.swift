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
    /// Tags renamed or merged: `renameTag`'s count.
    public var tags: Int { renamed + merged }

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

    /// Adds the tag `name` to each photo: the same-named tag of the photo's zone, created with a
    /// fresh random UUID when the zone has none (SPEC §5 `tag add`). A photo that already has a
    /// tag of that name is left alone. One transaction; history context `tag add`, with the Tag
    /// inserts and a Photo update of `tags` per photo changed; nothing is recorded when nothing
    /// changed.
    /// - Parameters:
    ///   - name: the tag name.
    ///   - photos: the photos, resolved beforehand.
    ///   - author: the history author (`--author`).
    /// - Returns: the number of photos that gained the tag.
    /// - Throws: `LibraryError.busy`; the store's error.
    @discardableResult
    public func addTag(_ name: TagName, to photos: [PhotoRecord], author: HistoryAuthor) throws -> Int {
        let name = name.rawValue
        return try write {
            var history = HistoryWriter(self, author: author, context: .tagAdd)
            var count = 0
            for photo in try photoKeys(photos) {
                if try hasTag(named: name, photo: photo) { continue }
                let tag = try findOrCreateTag(named: name, zone: photo.zone, history: &history)
                try catalogStore.link(photo: photo.rowID, tag: tag.rowID)
                history.update(.photo(uniqueName: photo.uniqueName), ["tags"], zone: photo.zone)
                count += 1
            }
            try history.commit()
            return count
        }
    }

    private func hasTag(named name: String, photo: PhotoKey) throws -> Bool {
        try catalogStore.photo(photo.rowID, hasTagNamed: name)
    }

    /// Removes the tag `name` (every same-named tag of the photo's zone) from each photo; the
    /// tag itself stays (SPEC §5 `tag remove`). History context `tag remove`, a Photo update of
    /// `tags` per photo changed; nothing is recorded when no photo had the tag.
    /// - Returns: the number of photos that lost the tag.
    /// - Throws: `LibraryError.notFound(.tagInPhotoZones)` when no tag of that name exists in any
    ///   of the photos' zones, `LibraryError.busy`.
    @discardableResult
    public func removeTag(_ name: TagName, from photos: [PhotoRecord], author: HistoryAuthor) throws -> Int {
        let name = name.rawValue
        return try write {
            let keys = try photoKeys(photos)
            let exists = try keys.contains { try findTag(named: name, zone: $0.zone) != nil }
            guard exists || keys.isEmpty else {
                throw LibraryError.notFound(.tagInPhotoZones(name, zoneCount: Set(keys.map(\.zone)).count))
            }
            var history = HistoryWriter(self, author: author, context: .tagRemove)
            var count = 0
            for photo in keys {
                if try catalogStore.unlink(photo: photo.rowID, tagsNamed: name, zone: photo.zone) {
                    history.update(.photo(uniqueName: photo.uniqueName), ["tags"], zone: photo.zone)
                    count += 1
                }
            }
            try history.commit()
            return count
        }
    }

    /// Deletes every tag named `name` in `zone` (or in every zone), nullifying its links: the
    /// photos stay (SPEC §3, delete rule nullify). History context `tag delete`: a Tag delete with
    /// the tombstone {name, uuid} per tag and a Photo update of `tags` per photo that had it.
    /// - Returns: the tags deleted, each with `photoCount` the photos it was removed from.
    /// - Throws: `LibraryError.notFound(.tag)` (or `.zone`) when no such tag (or zone) exists,
    ///   `LibraryError.busy`.
    @discardableResult
    public func deleteTag(_ name: TagName, zone: ZoneID? = nil, author: HistoryAuthor) throws -> [TagInfo] {
        let name = name.rawValue
        return try write {
            let victims = try tags(named: name, zone: zone)
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

    /// Renames every tag named `old` in `zone` (or in every zone) to `new`. Where the zone already
    /// has a tag named `new`, the old tag is merged into it instead (its photos are re-pointed to
    /// the existing tag, without duplicate links, and it is deleted with a tombstone), so that
    /// rename never makes duplicates — the way digiKam and Lightroom merge a keyword renamed onto
    /// an existing one. History context `tag rename`.
    /// - Returns: the number of tags renamed or merged (0 when `old` and `new` are the same name).
    /// - Throws: `LibraryError.notFound(.tag)` (or `.zone`) when no tag `old` (or no zone) exists,
    ///   `LibraryError.busy`.
    @discardableResult
    public func renameTag(_ old: TagName, to new: TagName, zone: ZoneID? = nil, author: HistoryAuthor) throws -> Int {
        try renameTagReporting(old, to: new, zone: zone, author: author).tags
    }

    /// `renameTag`, saying what it did per kind: the tags renamed in place, and those merged
    /// into an existing tag of the new name with the photos whose links moved (what the
    /// question of `tag rename` names: `Merge tag 'a' into the existing tag 'b' on 34 photos?`).
    /// - Throws: as `renameTag`.
    public func renameTagReporting(
        _ old: TagName, to new: TagName, zone: ZoneID? = nil, author: HistoryAuthor
    ) throws -> TagRenameReport {
        let old = old.rawValue
        let new = new.rawValue
        return try write {
            let sources = try tags(named: old, zone: zone)
            var report = TagRenameReport()
            guard old != new else { return report }
            var history = HistoryWriter(self, author: author, context: .tagRename)
            for tag in sources {
                if let target = try findTag(named: new, zone: tag.zone) {
                    report.photosMerged += try mergeTag(tag, into: target, history: &history)
                    report.merged += 1
                } else {
                    try catalogStore.renameTag(tag.rowID, to: new)
                    history.update(.tag(uuid: tag.uuid), ["name"], zone: tag.zone)
                    report.renamed += 1
                }
            }
            try history.commit()
            return report
        }
    }

    /// The tags named `name` (normalized) in `zone` or every zone, ordered by zone and uuid.
    /// - Throws: `LibraryError.notFound(.tag)` when there is none, `.notFound(.zone)` when `zone`
    ///   does not exist.
    func tags(named name: String, zone: ZoneID?) throws -> [TagRef] {
        if let zone, !(try zoneExists(zone)) { throw LibraryError.notFound(.zone(zone)) }
        let found = try catalogStore.tags(named: name, zone: zone?.rawValue).map(TagRef.init)
        guard !found.isEmpty else {
            throw LibraryError.notFound(.tag(name, zone: zone))
        }
        return found
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
