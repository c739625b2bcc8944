import PhotosModel

/// `VerifyStore`'s statements whose text is the same on SQLite and PostgreSQL.
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
}
