import PhotosModel

/// `VerifyStore`'s statements whose text is the same on SQLite and PostgreSQL: every check and
/// repair but the backends' own (the snapshot readers, the storage check, dangling references,
/// impossible display names, the scans of originals and thumbnail heads), and the two checks
/// PostgreSQL asks a cheaper question before (`photosSharingOriginals`,
/// `photosWithUniqueNamesDifferingInCase`).
extension VerifyStore where Self: SQLConnection {
    public func ratingAndTagLinkCounts(ofPhotos uniqueNames: [String]) throws -> [String: (
        ratings: Int, tagLinks: Int
    )] {
        var counts: [String: (ratings: Int, tagLinks: Int)] = [:]
        // In chunks of 500 names, one placeholder each.
        for first in stride(from: 0, to: uniqueNames.count, by: 500) {
            let part = Array(uniqueNames[first..<min(first + 500, uniqueNames.count)])
            let placeholders = Array(repeating: "?", count: part.count).joined(separator: ", ")
            let rows = try fetchAll(
                sql: """
                    SELECT p.unique_name, (SELECT count(*) FROM rating r WHERE r.photo_id = p.id),
                           (SELECT count(*) FROM photo_tag pt WHERE pt.photo_id = p.id)
                    FROM photo p WHERE p.unique_name IN (\(placeholders))
                    """, arguments: part
            ) { ($0.string(0), (ratings: $0.int(1), tagLinks: $0.int(2))) }
            for (name, count) in rows { counts[name] = count }
        }
        return counts
    }

    public func forEachRecordedSHA256(inShard shard: String, _ body: (String) throws -> Void) throws {
        // The shard's successor as the upper bound: `ab` → `ac`, `af` → `ag` (both backends
        // compare the column bytewise: SQLite BINARY, PostgreSQL COLLATE "C").
        var upper = Array(shard.utf8)
        guard let last = upper.popLast() else { return }
        upper.append(last &+ 1)
        try forEachRow(
            sql: "SELECT sha256 FROM photo_data WHERE sha256 >= ? AND sha256 < ? ORDER BY sha256",
            arguments: [shard, String(decoding: upper, as: UTF8.self)]
        ) { try body($0.string(0)) }
    }

    public func thumbnailData(photo uniqueName: String) throws -> [UInt8]? {
        try fetchOne(
            sql:
                "SELECT t.data FROM thumbnail t JOIN photo p ON p.id = t.photo_id WHERE p.unique_name = ? ORDER BY t.id LIMIT 1",
            arguments: [uniqueName]
        ) { $0.bytes(0) }
    }

    // MARK: checks

    public func crossZoneTagLinks() throws -> [CrossZoneTagLink] {
        try fetchPaged(
            sql: """
                SELECT p.unique_name, p.display_name, p.zone_id, t.name, t.uuid, t.zone_id FROM photo_tag pt
                JOIN photo p ON p.id = pt.photo_id JOIN tag t ON t.id = pt.tag_id
                WHERE p.zone_id <> t.zone_id
                """, arguments: []
        ) {
            CrossZoneTagLink(
                photo: PhotoName(uniqueName: $0.string(0), displayName: $0.string(1)), photoZone: $0.string(2),
                tagName: $0.string(3), tagUUID: $0.string(4), tagZone: $0.string(5))
        }
    }

    /// Photos sharing an original within one zone, found by grouping every row
    /// (`photosSharingOriginalsByGrouping`); PostgreSQL first asks whether a unique index rules
    /// them out.
    public func photosSharingOriginals() throws -> [(sha256: String, photos: [PhotoName])] {
        try photosSharingOriginalsByGrouping()
    }

    /// The photos of each zone whose originals have one SHA-256, grouped from the rows of every
    /// SHA-256 had by more than one `photo_data` row: `photosSharingOriginals` on SQLite, and on
    /// PostgreSQL when no unique index enforces the rule.
    /// - Throws: the backend's error.
    public func photosSharingOriginalsByGrouping() throws -> [(sha256: String, photos: [PhotoName])] {
        let rows = try fetchPaged(
            sql: """
                SELECT d.sha256, p.zone_id, p.unique_name, p.display_name FROM photo_data d JOIN photo p ON p.id = d.photo_id
                WHERE d.sha256 IN (SELECT sha256 FROM photo_data GROUP BY sha256 HAVING count(*) > 1)
                ORDER BY d.sha256, p.zone_id, d.id
                """, arguments: []
        ) {
            (
                key: $0.string(0) + " " + $0.string(1),
                photo: PhotoName(uniqueName: $0.string(2), displayName: $0.string(3))
            )
        }
        // Per zone (issue 31 A1): photos of different zones may share an original.
        return groupConsecutive(rows).filter { $0.photos.count > 1 }.map {
            (sha256: String($0.key.prefix(64)), photos: $0.photos)
        }
    }

    /// The groups of photos whose unique names differ in case only
    /// (`photosWithUniqueNamesDifferingInCaseByGrouping`); PostgreSQL first asks whether any exist.
    public func photosWithUniqueNamesDifferingInCase() throws -> [[PhotoName]] {
        try photosWithUniqueNamesDifferingInCaseByGrouping()
    }

    /// The photos of every lowercased unique name had by more than one photo, grouped by it, each
    /// group in order of the photos' ids.
    /// - Throws: the backend's error.
    public func photosWithUniqueNamesDifferingInCaseByGrouping() throws -> [[PhotoName]] {
        let rows = try fetchPaged(
            sql: """
                SELECT lower(unique_name), unique_name, display_name FROM photo
                WHERE lower(unique_name) IN (SELECT lower(unique_name) FROM photo GROUP BY 1 HAVING count(*) > 1)
                ORDER BY 1, id
                """, arguments: []
        ) { (key: $0.string(0), photo: PhotoName(uniqueName: $0.string(1), displayName: $0.string(2))) }
        return groupConsecutive(rows).map(\.photos)
    }

    public func authoredRatingsOfPhotosRatedTwice() throws -> [AuthoredRating] {
        try fetchPaged(
            sql: """
                SELECT p.unique_name, p.display_name, r.id, r.author, r.value FROM rating r JOIN photo p ON p.id = r.photo_id
                WHERE r.author IS NOT NULL AND r.photo_id IN
                    (SELECT photo_id FROM rating WHERE author IS NOT NULL GROUP BY photo_id HAVING count(*) > 1)
                ORDER BY r.photo_id, r.id
                """, arguments: []
        ) {
            AuthoredRating(
                photo: PhotoName(uniqueName: $0.string(0), displayName: $0.string(1)), rowID: $0.int64(2),
                author: $0.string(3), value: Int($0.int64(4)))
        }
    }

    public func allTags() throws -> [RecordedTag] {
        try fetchAll(sql: "SELECT uuid, name, zone_id FROM tag ORDER BY zone_id, name, uuid", arguments: []) {
            RecordedTag(uuid: $0.string(0), name: $0.string(1), zone: $0.string(2))
        }
    }

    public func photoCount() throws -> Int { try fetchInt(sql: "SELECT count(*) FROM photo", arguments: []) ?? 0 }

    public func recordedOriginalCount() throws -> Int {
        try fetchInt(sql: "SELECT count(*) FROM photo_data", arguments: []) ?? 0
    }

    public func photosWithoutOriginal() throws -> [PhotoName] {
        try fetchPaged(
            sql:
                "SELECT p.unique_name, p.display_name FROM photo p WHERE NOT EXISTS (SELECT 1 FROM photo_data d WHERE d.photo_id = p.id AND d.role = 'primary')",
            arguments: []
        ) { PhotoName(uniqueName: $0.string(0), displayName: $0.string(1)) }
    }

    public func photosWithoutThumbnail() throws -> [PhotoName] {
        try fetchPaged(
            sql:
                "SELECT p.unique_name, p.display_name FROM photo p WHERE NOT EXISTS (SELECT 1 FROM thumbnail t WHERE t.photo_id = p.id)",
            arguments: []
        ) { PhotoName(uniqueName: $0.string(0), displayName: $0.string(1)) }
    }

    /// Thumbnails in order of their id, through `forEachRow` (PostgreSQL: a cursor read in
    /// pages, so that memory holds one page, not the catalog's every thumbnail).
    public func forEachThumbnail(_ body: (RecordedThumbnail) throws -> Void) throws {
        try forEachRow(
            sql:
                "SELECT p.unique_name, p.display_name, t.data, t.width, t.height, p.width, p.height FROM thumbnail t JOIN photo p ON p.id = t.photo_id ORDER BY t.id",
            arguments: []
        ) { row in
            try body(
                RecordedThumbnail(
                    photo: PhotoName(uniqueName: row.string(0), displayName: row.string(1)), data: row.bytes(2),
                    width: row.int(3), height: row.int(4), photoWidth: row.int(5), photoHeight: row.int(6)))
        }
    }

    // MARK: repairs

    public func relinkTag(
        photo uniqueName: String, zone: String, from tagUUID: String, toTagNamed name: String,
        newUUID: String
    ) throws -> (createdTag: Bool, uuid: String)? {
        guard
            let photoID = try fetchInt(
                sql: "SELECT id FROM photo WHERE unique_name = ? AND zone_id = ?", arguments: [uniqueName, zone]),
            let (oldID, oldZone) = try fetchOne(
                sql:
                    "SELECT t.id, t.zone_id FROM tag t JOIN photo_tag pt ON pt.tag_id = t.id WHERE t.uuid = ? AND pt.photo_id = ?",
                arguments: [tagUUID, photoID], { ($0.int64(0), $0.string(1)) }), oldZone != zone
        else { return nil }
        let target: (id: Int64, uuid: String, created: Bool)
        if let found = try fetchOne(
            sql: "SELECT id, uuid FROM tag WHERE zone_id = ? AND normalize(name) = ? ORDER BY uuid LIMIT 1",
            arguments: [zone, name], { ($0.int64(0), $0.string(1)) })
        {
            target = (found.0, found.1, false)
        } else {
            target = (
                try insertReturningID(sql: CatalogInserts.tag, arguments: [newUUID, name, zone]), newUUID, true
            )
        }
        try execute(sql: CatalogInserts.link, arguments: [Int64(photoID), target.id])
        try execute(sql: "DELETE FROM photo_tag WHERE photo_id = ? AND tag_id = ?", arguments: [photoID, oldID])
        return (target.created, target.uuid)
    }

    public func replaceFileReference(photo uniqueName: String, from: String, to: String) throws -> String? {
        guard
            let (dataID, zone) = try fetchOne(
                sql:
                    "SELECT d.id, p.zone_id FROM photo_data d JOIN photo p ON p.id = d.photo_id WHERE p.unique_name = ? AND d.file_ref = ?",
                arguments: [uniqueName, from], { ($0.int64(0), $0.string(1)) })
        else { return nil }
        try execute(sql: "UPDATE photo_data SET file_ref = ? WHERE id = ?", arguments: [to, dataID])
        return zone
    }

    public func storeThumbnail(photo uniqueName: String, data: [UInt8], width: Int, height: Int) throws -> (
        zone: String, inserted: Bool
    )? {
        guard
            let (photoID, zone) = try fetchOne(
                sql: "SELECT id, zone_id FROM photo WHERE unique_name = ?", arguments: [uniqueName],
                { ($0.int64(0), $0.string(1)) })
        else { return nil }
        if let thumbID = try fetchInt(sql: "SELECT id FROM thumbnail WHERE photo_id = ?", arguments: [photoID]) {
            try execute(
                sql: "UPDATE thumbnail SET data = ?, width = ?, height = ? WHERE id = ?",
                arguments: [data, width, height, thumbID])
            return (zone, false)
        }
        try execute(sql: CatalogInserts.thumbnail, arguments: [photoID, data, width, height])
        return (zone, true)
    }
}

/// The query of `VerifyStore.forEachThumbnailHead` and its row decoding; each backend names its
/// functions that cut a thumbnail's bytes out.
public enum VerifySQL {
    /// The thumbnail heads in order of their id; one parameter, the number of head bytes.
    /// - Parameters:
    ///   - head: the expression of `t.data`'s first `?` bytes.
    ///   - last: the expression of its last two bytes.
    ///   - length: the expression of its length in bytes.
    ///   - thumbnails: what `t` reads: the `thumbnail` table, or a subquery of its rows (`id`,
    ///     `photo_id`, `width`, `height` and what the three expressions use).
    ///   - order: the rows' order (`t.id`, or `t.photo_id` for a merge join with `photo`).
    public static func thumbnailHeads(
        head: String, last: String, length: String, thumbnails: String = "thumbnail", order: String = "t.id"
    ) -> String {
        """
        SELECT p.unique_name, p.display_name, \(head), \(last), \(length), t.width, t.height, p.width, p.height, t.id
        FROM \(thumbnails) t JOIN photo p ON p.id = t.photo_id ORDER BY \(order)
        """
    }

    /// A row of `thumbnailHeads`.
    public static func thumbnailHead<R: SQLRow>(_ row: R) -> ThumbnailHead {
        ThumbnailHead(
            photo: PhotoName(uniqueName: row.string(0), displayName: row.string(1)), head: row.bytes(2),
            last: row.bytes(3), byteCount: row.int(4), width: row.int(5), height: row.int(6),
            photoWidth: row.int(7), photoHeight: row.int(8), rowID: row.int64(9))
    }

    /// The recorded originals (each photo's `photo_data` row with its photo) in `order`
    /// (`d.id`, or `d.photo_id` for a merge join of the two unique indexes): the query of
    /// `VerifyStore.forEachRecordedOriginal`, rows decoded by `recordedOriginal`.
    public static func recordedOriginals(order: String) -> String {
        """
        SELECT p.unique_name, p.display_name, d.sha256, d.byte_size, d.file_ref, p.zone_id, d.id
        FROM photo_data d JOIN photo p ON p.id = d.photo_id ORDER BY \(order)
        """
    }

    /// A row of `recordedOriginals`.
    public static func recordedOriginal<R: SQLRow>(_ row: R) -> RecordedOriginal {
        RecordedOriginal(
            photo: PhotoName(uniqueName: row.string(0), displayName: row.string(1)), sha256: row.string(2),
            byteSize: row.int(3), fileReference: row.string(4), zone: row.string(5), rowID: row.int64(6))
    }
}
