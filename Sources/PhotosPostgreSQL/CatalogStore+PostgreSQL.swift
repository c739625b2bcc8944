import Foundation
import PhotosModel
import PhotosSQL

/// The catalog's PostgreSQL dialect (`CatalogStore`); the statements both backends share are
/// `PhotosSQL`'s `CatalogStore where Self: SQLConnection`.
extension PostgresDatabase: CatalogStore {
    // MARK: photos

    /// Columns 18 and 19 of `forEachPhoto`: the photo's tag names (`tagNames(ofPhoto:)`'s
    /// order), each as its length in bytes, a colon and the name (no separator a name could
    /// hold), and its rating values (`ratingValues(ofPhoto:)`'s order) joined by commas; NULL
    /// when there are none.
    private static let relationColumns = """
        , (SELECT string_agg(octet_length(tg.name)::text || ':' || tg.name, '' ORDER BY tg.name, tg.uuid)
             FROM photo_tag ptg JOIN tag tg ON tg.id = ptg.tag_id WHERE ptg.photo_id = p.id),
          (SELECT string_agg(r.value::text, ',' ORDER BY r.id) FROM rating r WHERE r.photo_id = p.id)

        """

    /// The tag names of column 18 of `forEachPhoto` (see `relationColumns`), or nil when the
    /// text is not in that form.
    static func decodeTagNames(_ text: String?) -> [String]? {
        guard let text else { return [] }
        var names: [String] = []
        var bytes = Substring(text).utf8[...]
        while !bytes.isEmpty {
            guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")),
                let length = Int(String(decoding: bytes[..<colon], as: UTF8.self)), length >= 0
            else { return nil }
            let start = bytes.index(after: colon)
            guard let end = bytes.index(start, offsetBy: length, limitedBy: bytes.endIndex) else { return nil }
            names.append(String(decoding: bytes[start..<end], as: UTF8.self))
            bytes = bytes[end...]
        }
        return names
    }

    /// Photos matching `query`, each with its tag names and rating values read in the same row
    /// (`StoredPhoto.tagNames`, `.ratingValues`): a list or export of the whole catalog makes one
    /// scan, not two more queries per photo; rows come through a cursor (`PGStatement.forEach`).
    public func forEachPhoto(matching query: PhotoQuery, _ body: (StoredPhoto) throws -> Void) throws {
        // Each photo's instant, a capture time of unknown offset read in the bound's zone; the
        // import time is UTC.
        let (sql, args) = CatalogSQL.photoQuery(
            query, extraColumns: PostgresDatabase.relationColumns,
            instant:
                "COALESCE(to_char(p.capture_date::timestamp - make_interval(mins => COALESCE(p.capture_offset, ?::int)), 'YYYY-MM-DD\"T\"HH24:MI:SS.MS'), to_char(p.imported_at::timestamptz AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS'))"
        )
        try forEachRow(sql: sql, arguments: args) { row in
            var photo = CatalogSQL.storedPhoto(row)
            if let names = PostgresDatabase.decodeTagNames(row.optionalString(18)) {
                photo.tagNames = names
                photo.ratingValues = row.isNull(19) ? [] : row.string(19).split(separator: ",").compactMap { Int($0) }
            }
            try body(photo)
        }
    }

    // MARK: keys

    public func exactKey(_ key: CatalogKey, _ text: String) throws -> String? {
        let (table, column) = CatalogSQL.table(key)
        return try scalarString(
            "SELECT \(column) FROM \(table) WHERE lower(\(column)) = lower(?) ORDER BY \(column) LIMIT 1", [text])
    }

    public func keys(_ key: CatalogKey, withPrefix prefix: String, limit: Int) throws -> [String] {
        let (table, column) = CatalogSQL.table(key)
        // ILIKE compares case-insensitively, as SQLite's LIKE does for ASCII.
        return try statement(
            "SELECT \(column) FROM \(table) WHERE \(column) ILIKE ? ESCAPE '\\' ORDER BY \(column) LIMIT \(limit)"
        )
        .map([CatalogSQL.prefixPattern(prefix)]) { $0.string(0) }
    }

    // MARK: inserts (new row ids with RETURNING, conflicts ignored with ON CONFLICT DO NOTHING)

    public func createPrivateZone(_ id: String) throws {
        try run(Inserts.zone, [id, id, ZoneScope.private.rawValue])
    }

    public func insertTag(uuid: String, name: String, zone: String) throws -> Int64 {
        try insertReturningID(Inserts.tag, [uuid, name, zone])
    }

    public func link(photo photoID: Int64, tag tagID: Int64) throws {
        try run(Inserts.link, [photoID, tagID])
    }

    public func linkPhotos(ofTag from: Int64, toTag to: Int64) throws {
        try run(
            "INSERT INTO photo_tag (photo_id, tag_id) SELECT photo_id, ? FROM photo_tag WHERE tag_id = ? ON CONFLICT DO NOTHING",
            [to, from])
    }

    public func insertRating(uuid: String, photo photoID: Int64, value: RatingValue, author: String?) throws -> Int64 {
        try insertReturningID(Inserts.rating, [uuid, photoID, value.rawValue, author])
    }

    public func insertShare(id: String, title: String, created: String) throws {
        try run(Inserts.share, [id, title, created, SharePermission.none.rawValue])
    }

    @discardableResult
    public func insertParticipant(
        uuid: String, share: String, email: Email, role: ParticipantRole, permission: SharePermission,
        acceptance: Acceptance, ignoringExisting: Bool
    ) throws -> Bool {
        try run(
            Inserts.participant(ignoringExisting: ignoringExisting),
            [uuid, share, email.rawValue, role.rawValue, permission.rawValue, acceptance.rawValue])
        return changes > 0
    }
}
