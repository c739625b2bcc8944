import Foundation
import PhotosModel

/// What one file already in the library says about its photo now (`photos import
/// --refresh-metadata`): its XMP sidecar and embedded metadata, merged as import merges them
/// (`XMPSidecar.merged`), and its capture time (`Importer.captureTime`).
struct MetadataRefresh: Sendable {
    /// The file read.
    var path: String
    /// The photo whose original has the file's SHA-256.
    var uniqueName: String
    var metadata: XMPSidecar?
    /// Nil when only the file's modification time gave one: a copy's mtime says nothing about
    /// when the photo was taken, so it never replaces a stored time.
    var capture: CaptureTime?
    /// Embedded metadata not read (a packet the XMP Toolkit refused), each naming the file.
    var warnings: [String] = []
}

extension Library {
    /// Where `--refresh-metadata` writes capture times.
    var metadataStore: any MetadataStore { store }

    /// Applies what the files' metadata says now to their photos, like digiKam's "Read
    /// metadata from files" / "sync metadata to database": in one write transaction with one
    /// history transaction (context `import --refresh-metadata`, `HistoryWriter`).
    ///
    /// Per photo, only what differs is written:
    /// - tags, when the metadata lists keywords at all (`XMPSidecar.hasKeywords`; an empty
    ///   `dc:subject` counts): the photo's tags become exactly those keywords (hierarchical ones
    ///   as `A/B/C`), tags created as import creates them; a Photo update of `tags`;
    /// - rating, when the metadata has an `xmp:Rating` of 1…5 that is not the displayed rating
    ///   (the mean rounded half up): the photo's ratings are replaced by that one rating (Rating
    ///   deletes with tombstones, a Rating insert, a Photo update of `ratings`). A rating of 0
    ///   (none) or −1 (rejected) changes nothing: the library has no such rating;
    /// - capture time, when EXIF, the XMP or a JSON sidecar gives one (not the file's
    ///   modification time) that differs in wall-clock time or offset: a Photo update of
    ///   `captureDate`.
    /// A photo deleted meanwhile is passed over.
    /// - Returns: the uniqueNames of the photos that changed.
    /// - Throws: `LibraryError.busy`; the store's error.
    func refreshMetadata(_ items: [MetadataRefresh], author: HistoryAuthor) throws -> [String] {
        try write {
            var history = HistoryWriter(self, author: author, context: .refreshMetadata)
            var changed: [String] = []
            for item in items {
                guard let photo = try catalogStore.photo(uniqueName: item.uniqueName) else { continue }
                let object = HistoryObject.photo(uniqueName: photo.uniqueName)
                var attributes: [String] = []
                if let t = item.capture, t.local != photo.captureDate || t.offsetMinutes != photo.captureOffset {
                    try metadataStore.setCaptureTime(
                        ofPhoto: photo.rowID, local: t.local, offsetMinutes: t.offsetMinutes, source: t.source)
                    attributes.append("captureDate")
                }
                if let metadata = item.metadata, metadata.hasKeywords,
                    try replaceTags(of: photo, with: metadata.subjects, history: &history)
                {
                    attributes.append("tags")
                }
                if let value = item.metadata?.rating.flatMap(RatingValue.init(rawValue:)),
                    try replaceRatings(of: photo, with: value, history: &history)
                {
                    attributes.append("ratings")
                }
                guard !attributes.isEmpty else { continue }
                history.update(object, attributes, zone: photo.zone)
                changed.append(photo.uniqueName)
            }
            try history.commit()
            return changed
        }
    }

    /// Links `photo` to exactly the tags named by `keywords` (normalized as import does).
    /// - Returns: true when a link was added or removed.
    private func replaceTags(of photo: StoredPhoto, with keywords: [String], history: inout HistoryWriter) throws
        -> Bool
    {
        var wanted: [String] = []
        var wantedSet = Set<String>()
        for keyword in keywords {
            if let name = TagName.fromKeyword(keyword), wantedSet.insert(name).inserted { wanted.append(name) }
        }
        let current = try catalogStore.tags(ofPhoto: photo.rowID)
        let currentNames = Set(current.map(\.name))
        var changed = false
        for tag in current where !wantedSet.contains(tag.name) {
            try catalogStore.unlink(photo: photo.rowID, tag: tag.rowID)
            changed = true
        }
        for name in wanted where !currentNames.contains(name) {
            let tag = try findOrCreateTag(named: name, zone: photo.zone, history: &history)
            try catalogStore.link(photo: photo.rowID, tag: tag.rowID)
            changed = true
        }
        return changed
    }

    /// Replaces the ratings of `photo` by one rating `value` unless its displayed rating (the
    /// mean rounded half up, SPEC §3) is `value` already.
    /// - Returns: true when the ratings changed.
    private func replaceRatings(of photo: StoredPhoto, with value: RatingValue, history: inout HistoryWriter) throws
        -> Bool
    {
        let ratings = try catalogStore.ratings(ofPhoto: photo.rowID)
        if !ratings.isEmpty {
            let sum = ratings.reduce(0) { $0 + $1.value }
            if (2 * sum + ratings.count) / (2 * ratings.count) == value.rawValue { return false }
        }
        for rating in ratings {
            try history.delete(.rating, .rowID(rating.id))
            try catalogStore.deleteRating(id: rating.id)
        }
        let uuid = newObjectUUID()
        _ = try catalogStore.insertRating(uuid: uuid, photo: photo.rowID, value: value, author: nil)
        history.insert(.rating(uuid: uuid), zone: photo.zone)
        return true
    }
}
