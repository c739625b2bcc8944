import Foundation
import PhotosImaging
import PhotosModel

/// The catalog's SQL: photos with their filters, prefix keys, zones, tags and links, ratings,
/// shares and participants (`CatalogStore`).
extension PostgresDatabase: CatalogStore {
    // MARK: photos

    private static let photoColumns = photoSelectList + "\n" + photoFrom

    private static let photoSelectList = """
        SELECT p.id, p.unique_name, p.display_name, d.sha256, d.byte_size, d.file_ref, p.format, p.width, p.height,
               p.orientation, p.capture_date, p.imported_at, t.width, t.height, p.zone_id, z.scope,
               p.capture_offset, p.capture_source
        """

    /// Columns 18 and 19 of `forEachPhoto`: the photo's tag names (`tagNames(ofPhoto:)`'s
    /// order), each as its length in bytes, a colon and the name (no separator a name could
    /// hold), and its rating values (`ratingValues(ofPhoto:)`'s order) joined by commas; NULL
    /// when there are none.
    private static let relationColumns = """
        , (SELECT string_agg(octet_length(tg.name)::text || ':' || tg.name, '' ORDER BY tg.name, tg.uuid)
             FROM photo_tag ptg JOIN tag tg ON tg.id = ptg.tag_id WHERE ptg.photo_id = p.id),
          (SELECT string_agg(r.value::text, ',' ORDER BY r.id) FROM rating r WHERE r.photo_id = p.id)

        """

    private static let photoFrom = """
        FROM photo p
        JOIN zone z ON z.id = p.zone_id
        LEFT JOIN photo_data d ON d.photo_id = p.id
        LEFT JOIN thumbnail t ON t.photo_id = p.id
        """

    /// A photo's displayed rating: the mean rounded half up in integers, (2·sum + n) / 2n;
    /// NULL without ratings (so a comparison with it fails).
    private static let meanRatingSQL =
        "(SELECT (2 * sum(r.value) + count(*)) / (2 * count(*)) FROM rating r WHERE r.photo_id = p.id)"

    /// The time a photo sorts and filters by: its local capture time, else its import time.
    private static let localTimeSQL = "COALESCE(p.capture_date, substr(p.imported_at, 1, 19))"

    private static func storedPhoto(_ row: PGRow) -> StoredPhoto {
        StoredPhoto(
            rowID: row.int64(0), uniqueName: row.string(1), displayName: row.string(2), sha256: row.string(3),
            byteSize: row.int(4), fileReference: row.string(5),
            // The schema's CHECK (format IN ('jpeg', 'png', 'heif', 'avif', 'webp')) leaves no other value.
            format: ImageFormat(rawValue: row.string(6)) ?? .jpeg, width: row.int(7),
            height: row.int(8), orientation: row.int(9), captureDate: row.optionalString(10),
            captureOffset: row.optionalInt(16), captureSource: row.optionalString(17), importedAt: row.string(11),
            thumbnailWidth: row.int(12), thumbnailHeight: row.int(13), zone: row.string(14), scope: row.string(15))
    }

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
        var sql =
            PostgresDatabase.photoSelectList + PostgresDatabase.relationColumns + PostgresDatabase.photoFrom
            + " WHERE true"
        var args: [PGBindable] = []
        for name in query.tagNames {
            sql +=
                " AND EXISTS (SELECT 1 FROM photo_tag pt JOIN tag tg ON tg.id = pt.tag_id WHERE pt.photo_id = p.id AND tg.name = ?)"
            args.append(name)
        }
        for (bound, op) in [(query.since, ">="), (query.until, "<")] {
            switch bound {
            case nil:
                continue
            case .instant(let utc, let offset):
                // Each photo's instant, a capture time of unknown offset read in the bound's
                // zone; the import time is UTC.
                sql +=
                    " AND COALESCE(to_char(p.capture_date::timestamp - make_interval(mins => COALESCE(p.capture_offset, ?::int)), 'YYYY-MM-DD\"T\"HH24:MI:SS.MS'), to_char(p.imported_at::timestamptz AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS')) \(op) ?"
                args.append(offset)
                args.append(utc)
            case .local(let local):
                sql += " AND \(PostgresDatabase.localTimeSQL) \(op) ?"
                args.append(local)
            }
        }
        for zone in query.zones {
            sql += " AND p.zone_id = ?"
            args.append(zone)
        }
        for names in query.tagNameAlternatives {
            let marks = Array(repeating: "?", count: max(1, names.count)).joined(separator: ", ")
            sql +=
                " AND EXISTS (SELECT 1 FROM photo_tag pt JOIN tag tg ON tg.id = pt.tag_id WHERE pt.photo_id = p.id AND tg.name IN (\(marks)))"
            args += names.isEmpty ? [PGValue.null] : names.map { $0 as PGBindable }
        }
        if query.untagged { sql += " AND NOT EXISTS (SELECT 1 FROM photo_tag pt WHERE pt.photo_id = p.id)" }
        if query.unrated { sql += " AND NOT EXISTS (SELECT 1 FROM rating r WHERE r.photo_id = p.id)" }
        if !query.formats.isEmpty {
            sql += " AND p.format IN (\(Array(repeating: "?", count: query.formats.count).joined(separator: ", ")))"
            args += query.formats.map { $0 as PGBindable }
        }
        if let minRating = query.minRating {
            sql += " AND \(PostgresDatabase.meanRatingSQL) >= ?"
            args.append(minRating)
        }
        let key: String
        switch query.sort {
        case .captured: key = PostgresDatabase.localTimeSQL
        case .imported: key = "p.imported_at"
        case .name: key = "lower(p.display_name)"
        case .size: key = "COALESCE(d.byte_size, 0)"
        // Unrated photos (NULL) sort lowest: first ascending, last descending.
        case .rating: key = "COALESCE(\(PostgresDatabase.meanRatingSQL), 0)"
        }
        if let page = query.page {
            // Keyset paging on the UNIQUE index of unique_name (byte order).
            if let after = page.after {
                sql += " AND p.unique_name > ?"
                args.append(after)
            }
            sql += " ORDER BY p.unique_name LIMIT ?"
            args.append(page.limit)
        } else {
            let direction = query.descending ? " DESC" : ""
            sql += " ORDER BY \(key)\(direction), p.unique_name\(direction)"
        }
        // A separate statement (not the cached one) so that `body` may run other queries.
        let statement = try statement(sql)
        try statement.forEach(args) { row in
            var photo = PostgresDatabase.storedPhoto(row)
            if let names = PostgresDatabase.decodeTagNames(row.optionalString(18)) {
                photo.tagNames = names
                photo.ratingValues = row.isNull(19) ? [] : row.string(19).split(separator: ",").compactMap { Int($0) }
            }
            try body(photo)
        }
    }

    public func photo(uniqueName: String) throws -> StoredPhoto? {
        try statement(PostgresDatabase.photoColumns + " WHERE p.unique_name = ?").first(
            [uniqueName], PostgresDatabase.storedPhoto)
    }

    public func tagNames(ofPhoto photoID: Int64) throws -> [String] {
        try statement(
            "SELECT t.name FROM photo_tag pt JOIN tag t ON t.id = pt.tag_id WHERE pt.photo_id = ? ORDER BY t.name, t.uuid"
        )
        .map([photoID]) { $0.string(0) }
    }

    public func ratingValues(ofPhoto photoID: Int64) throws -> [Int] {
        try statement("SELECT value FROM rating WHERE photo_id = ? ORDER BY id").map([photoID]) { $0.int(0) }
    }

    public func photoLocation(_ photoID: Int64) throws -> (uniqueName: String, zone: String, scope: String)? {
        try statement(
            "SELECT p.unique_name, p.zone_id, z.scope FROM photo p JOIN zone z ON z.id = p.zone_id WHERE p.id = ?"
        )
        .first([photoID]) { (uniqueName: $0.string(0), zone: $0.string(1), scope: $0.string(2)) }
    }

    public func thumbnail(ofPhoto photoID: Int64) throws -> (data: [UInt8], width: Int, height: Int)? {
        try statement("SELECT data, width, height FROM thumbnail WHERE photo_id = ?")
            .first([photoID]) { (data: $0.bytes(0), width: $0.int(1), height: $0.int(2)) }
    }

    public func fileReferences(ofPhoto photoID: Int64) throws -> [(reference: String, sha256: String)] {
        try statement("SELECT file_ref, sha256 FROM photo_data WHERE photo_id = ?")
            .map([photoID]) { (reference: $0.string(0), sha256: $0.string(1)) }
    }

    public func photoExists(_ photoID: Int64) throws -> Bool {
        try scalarInt("SELECT 1 FROM photo WHERE id = ?", [photoID]) != nil
    }

    public func deletePhoto(_ photoID: Int64) throws {
        try run("DELETE FROM photo WHERE id = ?", [photoID])
    }

    public func photoDataExists(sha256: String, fileReference: String?) throws -> Bool {
        if let fileReference {
            return try scalarInt(
                "SELECT 1 FROM photo_data WHERE sha256 = ? AND file_ref = ? LIMIT 1", [sha256, fileReference]) != nil
        }
        return try scalarInt("SELECT 1 FROM photo_data WHERE sha256 = ? LIMIT 1", [sha256]) != nil
    }

    public func hasPhotoData(_ photoID: Int64) throws -> Bool {
        try scalarInt("SELECT id FROM photo_data WHERE photo_id = ?", [photoID]) != nil
    }

    public func hasThumbnail(_ photoID: Int64) throws -> Bool {
        try scalarInt("SELECT id FROM thumbnail WHERE photo_id = ?", [photoID]) != nil
    }

    public func setZone(ofPhoto photoID: Int64, to zone: String) throws {
        try run("UPDATE photo SET zone_id = ? WHERE id = ?", [zone, photoID])
    }

    // MARK: keys

    private static func table(_ key: CatalogKey) -> (table: String, column: String) {
        switch key {
        case .photoUniqueName: return ("photo", "unique_name")
        case .shareID: return ("share", "id")
        case .zoneID: return ("zone", "id")
        }
    }

    public func exactKey(_ key: CatalogKey, _ text: String) throws -> String? {
        let (table, column) = PostgresDatabase.table(key)
        return try scalarString(
            "SELECT \(column) FROM \(table) WHERE lower(\(column)) = lower(?) ORDER BY \(column) LIMIT 1", [text])
    }

    public func keys(_ key: CatalogKey, withPrefix prefix: String, limit: Int) throws -> [String] {
        let (table, column) = PostgresDatabase.table(key)
        // LIKE compares ASCII case-insensitively; escape its wildcards in the prefix.
        let pattern =
            prefix.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
            .replacingOccurrences(of: "_", with: "\\_") + "%"
        return try statement(
            "SELECT \(column) FROM \(table) WHERE \(column) ILIKE ? ESCAPE '\\' ORDER BY \(column) LIMIT \(limit)"
        )
        .map([pattern]) { $0.string(0) }
    }

    // MARK: zones and tags

    private static func storedTag(_ row: PGRow) -> StoredTag {
        StoredTag(rowID: row.int64(0), uuid: row.string(1), name: row.string(2), zone: ZoneID(rawValue: row.string(3)))
    }

    public func zoneExists(_ id: String) throws -> Bool {
        try scalarInt("SELECT 1 FROM zone WHERE id = ?", [id]) != nil
    }

    public func createPrivateZone(_ id: String) throws {
        try run(Inserts.zone, [id, id, ZoneScope.private.rawValue])
    }

    public func tag(named name: String, zone: String) throws -> StoredTag? {
        try statement(
            "SELECT id, uuid, name, zone_id FROM tag WHERE zone_id = ? AND name = ? ORDER BY lower(uuid) LIMIT 1"
        )
        .first([zone, name], PostgresDatabase.storedTag)
    }

    public func tags(named name: String, zone: String?) throws -> [StoredTag] {
        if let zone {
            return try statement("SELECT id, uuid, name, zone_id FROM tag WHERE name = ? AND zone_id = ? ORDER BY uuid")
                .map([name, zone], PostgresDatabase.storedTag)
        }
        return try statement("SELECT id, uuid, name, zone_id FROM tag WHERE name = ? ORDER BY zone_id, uuid")
            .map([name], PostgresDatabase.storedTag)
    }

    public func tags(inZone zone: String) throws -> [StoredTag] {
        try statement("SELECT id, uuid, name, zone_id FROM tag WHERE zone_id = ? ORDER BY name, lower(uuid)")
            .map([zone], PostgresDatabase.storedTag)
    }

    public func tagList(zone: String?) throws -> [(tag: StoredTag, photoCount: Int)] {
        var sql =
            "SELECT t.id, t.uuid, t.name, t.zone_id, (SELECT count(*) FROM photo_tag pt WHERE pt.tag_id = t.id) FROM tag t"
        var args: [PGBindable] = []
        if let zone {
            sql += " WHERE t.zone_id = ?"
            args.append(zone)
        }
        sql += " ORDER BY t.name, t.zone_id, t.uuid"
        return try statement(sql).streamedMap(args) { (tag: PostgresDatabase.storedTag($0), photoCount: $0.int(4)) }
    }

    public func tags(ofPhoto photoID: Int64) throws -> [StoredTag] {
        try statement(
            "SELECT t.id, t.uuid, t.name, t.zone_id FROM photo_tag pt JOIN tag t ON t.id = pt.tag_id WHERE pt.photo_id = ? ORDER BY t.name, t.uuid"
        )
        .map([photoID], PostgresDatabase.storedTag)
    }

    public func insertTag(uuid: String, name: String, zone: String) throws -> Int64 {
        try insertReturningID(Inserts.tag, [uuid, name, zone])
    }

    public func renameTag(_ tagID: Int64, to name: String) throws {
        try run("UPDATE tag SET name = ? WHERE id = ?", [name, tagID])
    }

    public func deleteTag(_ tagID: Int64) throws {
        try run("DELETE FROM tag WHERE id = ?", [tagID])
    }

    public func photo(_ photoID: Int64, hasTagNamed name: String) throws -> Bool {
        try scalarInt(
            "SELECT 1 FROM photo_tag pt JOIN tag t ON t.id = pt.tag_id WHERE pt.photo_id = ? AND t.name = ? LIMIT 1",
            [photoID, name]) != nil
    }

    public func link(photo photoID: Int64, tag tagID: Int64) throws {
        try run(Inserts.link, [photoID, tagID])
    }

    public func unlink(photo photoID: Int64, tag tagID: Int64) throws {
        try run("DELETE FROM photo_tag WHERE photo_id = ? AND tag_id = ?", [photoID, tagID])
    }

    public func unlink(photo photoID: Int64, tagsNamed name: String, zone: String) throws -> Bool {
        try run(
            "DELETE FROM photo_tag WHERE photo_id = ? AND tag_id IN (SELECT id FROM tag WHERE name = ? AND zone_id = ?)",
            [photoID, name, zone])
        return changes > 0
    }

    public func linkPhotos(ofTag from: Int64, toTag to: Int64) throws {
        try run(
            "INSERT INTO photo_tag (photo_id, tag_id) SELECT photo_id, ? FROM photo_tag WHERE tag_id = ? ON CONFLICT DO NOTHING",
            [to, from])
    }

    public func photos(ofTag tagID: Int64) throws -> [(uniqueName: String, zone: String)] {
        try statement(
            "SELECT p.unique_name, p.zone_id FROM photo_tag pt JOIN photo p ON p.id = pt.photo_id WHERE pt.tag_id = ? ORDER BY p.unique_name"
        )
        .streamedMap([tagID]) { (uniqueName: $0.string(0), zone: $0.string(1)) }
    }

    // MARK: ratings

    private static let ratingColumns =
        "SELECT r.id, r.uuid, r.value, p.unique_name, p.zone_id, r.author FROM rating r JOIN photo p ON p.id = r.photo_id"

    private static func storedRating(_ row: PGRow) -> StoredRating {
        StoredRating(
            id: row.int64(0), uuid: row.string(1), value: row.int(2), photo: row.string(3), zone: row.string(4),
            author: row.optionalString(5))
    }

    public func insertRating(uuid: String, photo photoID: Int64, value: RatingValue, author: String?) throws -> Int64 {
        try insertReturningID(Inserts.rating, [uuid, photoID, value.rawValue, author])
    }

    public func rating(ofPhoto photoID: Int64, author: String) throws -> StoredRating? {
        try statement(PostgresDatabase.ratingColumns + " WHERE r.photo_id = ? AND r.author = ?").first(
            [photoID, author], PostgresDatabase.storedRating)
    }

    public func setValue(ofRating id: Int64, to value: RatingValue) throws {
        try run("UPDATE rating SET value = ? WHERE id = ?", [value.rawValue, id])
    }

    public func ratings(ofPhoto photoID: Int64) throws -> [StoredRating] {
        try statement(PostgresDatabase.ratingColumns + " WHERE r.photo_id = ? ORDER BY r.id").map(
            [photoID], PostgresDatabase.storedRating)
    }

    public func rating(id: Int64) throws -> StoredRating? {
        try statement(PostgresDatabase.ratingColumns + " WHERE r.id = ?").first([id], PostgresDatabase.storedRating)
    }

    public func deleteRating(id: Int64) throws {
        try run("DELETE FROM rating WHERE id = ?", [id])
    }

    // MARK: shares and participants

    private static let shareColumns = """
        SELECT s.id, s.title, s.created, z.scope, s.public_permission, (SELECT count(*) FROM photo p WHERE p.zone_id = s.id)
        FROM share s JOIN zone z ON z.id = s.id
        """

    private static func storedShare(_ row: PGRow) -> StoredShare {
        StoredShare(
            id: row.string(0), title: row.string(1), created: row.string(2), scope: row.string(3),
            publicPermission: row.string(4), photoCount: row.int(5))
    }

    public func shares() throws -> [StoredShare] {
        try statement(PostgresDatabase.shareColumns + " ORDER BY s.created, s.id").map(PostgresDatabase.storedShare)
    }

    public func share(id: String) throws -> StoredShare? {
        try statement(PostgresDatabase.shareColumns + " WHERE s.id = ?").first([id], PostgresDatabase.storedShare)
    }

    public func insertShare(id: String, title: String, created: String) throws {
        try run(Inserts.share, [id, title, created, SharePermission.none.rawValue])
    }

    public func setTitle(ofShare id: String, to title: String) throws {
        try run("UPDATE share SET title = ? WHERE id = ?", [title, id])
    }

    public func setPublicPermission(ofShare id: String, to permission: SharePermission) throws {
        try run("UPDATE share SET public_permission = ? WHERE id = ?", [permission.rawValue, id])
    }

    private static let participantColumns = "SELECT id, uuid, email, role, permission, acceptance FROM participant"

    private static func storedParticipant(_ row: PGRow) -> StoredParticipant {
        StoredParticipant(
            rowID: row.int64(0), uuid: row.string(1), email: row.string(2), role: row.string(3),
            permission: row.string(4), acceptance: row.string(5))
    }

    public func participants(ofShare id: String) throws -> [StoredParticipant] {
        try statement(PostgresDatabase.participantColumns + " WHERE share_id = ? ORDER BY role <> 'owner', email")
            .map([id], PostgresDatabase.storedParticipant)
    }

    public func participant(ofShare id: String, email: Email) throws -> StoredParticipant? {
        try statement(PostgresDatabase.participantColumns + " WHERE share_id = ? AND email = ?")
            .first([id, email.rawValue], PostgresDatabase.storedParticipant)
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

    public func setPermission(ofParticipant rowID: Int64, to permission: SharePermission) throws {
        try run("UPDATE participant SET permission = ? WHERE id = ?", [permission.rawValue, rowID])
    }

    public func deleteParticipant(_ rowID: Int64) throws {
        try run("DELETE FROM participant WHERE id = ?", [rowID])
    }
}
