import PhotosModel

/// The catalog's statements whose text is the same on SQLite and PostgreSQL, with their row
/// decoding: the one place that knows the columns `CatalogStore` reads.
public enum CatalogSQL {
    /// The columns of a `StoredPhoto` (0…`extraColumnIndex − 1`, `storedPhoto`).
    public static let photoSelectList = """
        SELECT p.id, p.unique_name, p.display_name, d.sha256, d.byte_size, d.file_ref, p.format, p.width, p.height,
               p.orientation, p.capture_date, p.imported_at, t.width, t.height, p.zone_id, z.scope,
               p.capture_offset, p.capture_source, p.latitude_e7, p.longitude_e7, p.altitude_mm,
               p.kind, p.duration_ms, p.video_codec, p.camera_make, p.camera_model, p.lens_model, p.camera_format,
               p.title, p.description, p.place_name
        """

    /// The index of the first of `photoQuery`'s `extraColumns`.
    public static let extraColumnIndex = 31

    /// The tables of a `StoredPhoto`: the photo, its zone, its photo data and thumbnail.
    public static let photoFrom = """
        FROM photo p
        JOIN zone z ON z.id = p.zone_id
        LEFT JOIN photo_data d ON d.photo_id = p.id AND d.role = 'primary'
        LEFT JOIN thumbnail t ON t.photo_id = p.id
        """

    /// `photoSelectList` from `photoFrom`.
    public static let photoColumns = photoSelectList + "\n" + photoFrom

    /// A photo's displayed rating: the mean rounded half up in integers, (2·sum + n) / 2n;
    /// NULL without ratings (so a comparison with it fails).
    public static let meanRatingSQL =
        "(SELECT (2 * sum(r.value) + count(*)) / (2 * count(*)) FROM rating r WHERE r.photo_id = p.id)"

    /// The time a photo sorts and filters by: its local capture time, else its import time.
    public static let localTimeSQL = "COALESCE(p.capture_date, substr(p.imported_at, 1, 19))"

    /// A row selected with `photoSelectList` (columns 0…30), decoded once.
    /// - Throws: `StoredValueError` (`.corrupt`, exit 65) for a format or orientation this
    ///   version does not know (the schema's CHECKs allow none: a database written by hand).
    public static func storedPhoto<R: SQLRow>(_ row: R) throws -> StoredPhoto {
        var photo = try StoredPhoto(
            rowID: row.int64(0), uniqueName: row.string(1), displayName: row.string(2), sha256: row.string(3),
            byteSize: row.int(4), fileReference: row.string(5),
            format: ImageFormat(stored: row.string(6)), width: row.int(7),
            height: row.int(8), orientation: Orientation(stored: row.int(9)), captureDate: row.optionalString(10),
            captureOffset: row.optionalInt(16), captureSource: row.optionalString(17), importedAt: row.string(11),
            thumbnailWidth: row.int(12), thumbnailHeight: row.int(13), zone: ZoneID(rawValue: row.string(14)),
            scope: ZoneScope(stored: row.string(15)))
        (photo.latitudeE7, photo.longitudeE7, photo.altitudeMM) = try checkedPosition(
            row.optionalInt(18), row.optionalInt(19), row.optionalInt(20))
        (photo.kind, photo.durationMS, photo.videoCodec) = (row.string(21), row.optionalInt(22), row.optionalString(23))
        photo.camera = CameraIdentity(
            make: row.optionalString(24), model: row.optionalString(25), lens: row.optionalString(26))
        photo.cameraFormat = row.optionalString(27)
        (photo.title, photo.description) = (row.optionalString(28), row.optionalString(29))
        photo.placeName = row.optionalString(30)
        return photo
    }

    /// The position columns as the schema's CHECKs allow them: `latitude_e7` within
    /// ±900,000,000 and `longitude_e7` within ±1,800,000,000 (1e-7 degrees), both or neither,
    /// `altitude_mm` within ±100,000,000,000 (±100,000 km, the reader's bound) and only with a
    /// position.
    /// - Throws: `StoredValueError` (`.corrupt`, exit 65) for any other combination (a database
    ///   written by hand): never shown as "no position" while `--with-location` selects it.
    public static func checkedPosition(_ latitudeE7: Int?, _ longitudeE7: Int?, _ altitudeMM: Int?) throws -> (
        Int?, Int?, Int?
    ) {
        if let latitudeE7, !(-900_000_000...900_000_000).contains(latitudeE7) || longitudeE7 == nil {
            throw StoredValueError(column: "photo.latitude_e7", value: String(latitudeE7))
        }
        if let longitudeE7, !(-1_800_000_000...1_800_000_000).contains(longitudeE7) || latitudeE7 == nil {
            throw StoredValueError(column: "photo.longitude_e7", value: String(longitudeE7))
        }
        if let altitudeMM, !(-100_000_000_000...100_000_000_000).contains(altitudeMM) || latitudeE7 == nil {
            throw StoredValueError(column: "photo.altitude_mm", value: String(altitudeMM))
        }
        return (latitudeE7, longitudeE7, altitudeMM)
    }

    /// The SELECT of `forEachPhoto(matching:)` and its arguments, in the backend's dialect where
    /// the two differ.
    /// - Parameters:
    ///   - query: the filters and the order.
    ///   - extraColumns: SQL after `photoSelectList` (columns `extraColumnIndex`…; "" for none).
    ///   - instant: the expression of a photo's UTC instant (`YYYY-MM-DDTHH:MM:SS.fff`) that is
    ///     compared with an `.instant` bound; it takes one parameter, the bound's offset in
    ///     minutes east, applied to a capture time of unknown offset.
    /// - Returns: the SQL (`?` placeholders) and its arguments in order.
    public static func photoQuery(_ query: PhotoQuery, extraColumns: String, instant: String) -> (
        sql: String, arguments: [SQLBindable]
    ) {
        var sql = photoSelectList + extraColumns + "\n" + photoFrom + " WHERE 1 = 1"
        var args: [SQLBindable] = []
        for name in query.tagNames {
            sql +=
                " AND EXISTS (SELECT 1 FROM photo_tag pt JOIN tag tg ON tg.id = pt.tag_id WHERE pt.photo_id = p.id AND normalize(tg.name) = ?)"
            args.append(name)
        }
        for (bound, op) in [(query.since, ">="), (query.until, "<")] {
            switch bound {
            case nil:
                continue
            case .instant(let utc, let offset):
                sql += " AND \(instant) \(op) ?"
                args.append(offset)
                args.append(utc)
            case .local(let local):
                sql += " AND \(localTimeSQL) \(op) ?"
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
            args += names.isEmpty ? [SQLValue.null] : names.map { $0 as SQLBindable }
        }
        if query.untagged { sql += " AND NOT EXISTS (SELECT 1 FROM photo_tag pt WHERE pt.photo_id = p.id)" }
        if let has = query.hasPosition { sql += has ? " AND p.latitude_e7 IS NOT NULL" : " AND p.latitude_e7 IS NULL" }
        for box in [query.box, query.nearBox].compactMap({ $0 }) {
            // A range on the index photo_position's first column; longitude read from the index.
            sql += " AND p.latitude_e7 BETWEEN ? AND ?"
            args += [box.south, box.north]
            sql +=
                box.west <= box.east
                ? " AND p.longitude_e7 BETWEEN ? AND ?" : " AND (p.longitude_e7 >= ? OR p.longitude_e7 <= ?)"
            args += [box.west, box.east]
        }
        if query.unrated { sql += " AND NOT EXISTS (SELECT 1 FROM rating r WHERE r.photo_id = p.id)" }
        if !query.formats.isEmpty {
            sql += " AND p.format IN (\(Array(repeating: "?", count: query.formats.count).joined(separator: ", ")))"
            args += query.formats.map { $0 as SQLBindable }
        }
        if !query.kinds.isEmpty {
            sql += " AND p.kind IN (\(Array(repeating: "?", count: query.kinds.count).joined(separator: ", ")))"
            args += query.kinds.map { $0 as SQLBindable }
        }
        if let camera = query.camera {
            // A substring, as a LIKE pattern whose wildcards are escaped (`prefixPattern`).
            let pattern = "%" + prefixPattern(camera)
            sql += " AND (lower(p.camera_make) LIKE ? ESCAPE '\\' OR lower(p.camera_model) LIKE ? ESCAPE '\\')"
            args += [pattern, pattern]
        }
        if let author = query.ratedBy {
            sql += " AND EXISTS (SELECT 1 FROM rating r WHERE r.photo_id = p.id AND r.author = ?"
            args.append(author)
            if let minRating = query.minRating {
                sql += " AND r.value >= ?"
                args.append(minRating)
            }
            sql += ")"
        } else if let minRating = query.minRating {
            sql += " AND \(meanRatingSQL) >= ?"
            args.append(minRating)
        }
        if let author = query.unratedBy {
            sql += " AND NOT EXISTS (SELECT 1 FROM rating r WHERE r.photo_id = p.id AND r.author = ?)"
            args.append(author)
        }
        let key: String
        switch query.sort {
        case .captured: key = localTimeSQL
        case .imported: key = "p.imported_at"
        case .name: key = "lower(p.display_name)"
        case .size: key = "COALESCE(d.byte_size, 0)"
        // Unrated photos (NULL) sort lowest: first ascending, last descending.
        case .rating: key = "COALESCE(\(meanRatingSQL), 0)"
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
        return (sql, args)
    }

    /// The table and column of a prefix key.
    public static func table(_ key: CatalogKey) -> (table: String, column: String) {
        switch key {
        case .photoUniqueName: return ("photo", "unique_name")
        case .shareID: return ("share", "id")
        case .zoneID: return ("zone", "id")
        }
    }

    /// `prefix` as a LIKE pattern with `\` as its escape: its wildcards escaped, then `%`.
    public static func prefixPattern(_ prefix: String) -> String {
        prefix.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
            .replacingOccurrences(of: "_", with: "\\_") + "%"
    }

    /// The columns of a `StoredTag` (`storedTag`).
    public static let tagColumns = "id, uuid, name, zone_id"

    /// A row selected with `tagColumns`, or with those four columns first.
    public static func storedTag<R: SQLRow>(_ row: R) -> StoredTag {
        StoredTag(rowID: row.int64(0), uuid: row.string(1), name: row.string(2), zone: ZoneID(rawValue: row.string(3)))
    }

    static let ratingColumns =
        "SELECT r.id, r.uuid, r.value, p.unique_name, p.zone_id, r.author FROM rating r JOIN photo p ON p.id = r.photo_id"

    static func storedRating<R: SQLRow>(_ row: R) -> StoredRating {
        StoredRating(
            id: row.int64(0), uuid: row.string(1), value: row.int(2), photo: row.string(3), zone: row.string(4),
            author: row.optionalString(5))
    }

    static let shareColumns = """
        SELECT s.id, s.title, s.created, z.scope, s.public_permission, (SELECT count(*) FROM photo p WHERE p.zone_id = s.id)
        FROM share s JOIN zone z ON z.id = s.id
        """

    static func storedShare<R: SQLRow>(_ row: R) -> StoredShare {
        StoredShare(
            id: row.string(0), title: row.string(1), created: row.string(2), scope: row.string(3),
            publicPermission: row.string(4), photoCount: row.int(5))
    }

    static let participantColumns = "SELECT id, uuid, email, role, permission, acceptance FROM participant"

    static func storedParticipant<R: SQLRow>(_ row: R) -> StoredParticipant {
        StoredParticipant(
            rowID: row.int64(0), uuid: row.string(1), email: row.string(2), role: row.string(3),
            permission: row.string(4), acceptance: row.string(5))
    }
}

/// `CatalogStore` on any `SQLConnection`; PostgreSQL's `forEachPhoto` reads more columns.
extension CatalogStore where Self: SQLConnection {
    // MARK: photos

    /// Photos matching `query`, through `forEachRow`; each photo's instant is the dialect's
    /// (`SQLDialect.photoInstant`).
    public func forEachPhoto(matching query: PhotoQuery, _ body: (StoredPhoto) throws -> Void) throws {
        let (sql, args) = CatalogSQL.photoQuery(query, extraColumns: "", instant: dialect.photoInstant)
        try forEachRow(sql: sql, arguments: args) { row in try body(try CatalogSQL.storedPhoto(row)) }
    }

    public func photo(uniqueName: String) throws -> StoredPhoto? {
        try fetchOne(sql: CatalogSQL.photoColumns + " WHERE p.unique_name = ?", arguments: [uniqueName]) {
            try CatalogSQL.storedPhoto($0)
        }
    }

    public func tagNames(ofPhoto photoID: Int64) throws -> [String] {
        try fetchAll(
            sql:
                "SELECT t.name FROM photo_tag pt JOIN tag t ON t.id = pt.tag_id WHERE pt.photo_id = ? ORDER BY t.name, t.uuid",
            arguments: [photoID]
        ) { $0.string(0) }
    }

    public func ratingValues(ofPhoto photoID: Int64) throws -> [Int] {
        try fetchAll(sql: "SELECT value FROM rating WHERE photo_id = ? ORDER BY id", arguments: [photoID]) {
            $0.int(0)
        }
    }

    public func photoLocation(_ photoID: Int64) throws -> (uniqueName: String, zone: String, scope: String)? {
        try fetchOne(
            sql: "SELECT p.unique_name, p.zone_id, z.scope FROM photo p JOIN zone z ON z.id = p.zone_id WHERE p.id = ?",
            arguments: [photoID]
        ) { (uniqueName: $0.string(0), zone: $0.string(1), scope: $0.string(2)) }
    }

    public func thumbnail(ofPhoto photoID: Int64) throws -> (data: [UInt8], width: Int, height: Int)? {
        try fetchOne(sql: "SELECT data, width, height FROM thumbnail WHERE photo_id = ?", arguments: [photoID]) {
            (data: $0.bytes(0), width: $0.int(1), height: $0.int(2))
        }
    }

    public func fileReferences(ofPhoto photoID: Int64) throws -> [(reference: String, sha256: String)] {
        try fetchAll(sql: "SELECT file_ref, sha256 FROM photo_data WHERE photo_id = ?", arguments: [photoID]) {
            (reference: $0.string(0), sha256: $0.string(1))
        }
    }

    public func originals(ofPhoto photoID: Int64) throws -> [PhotoOriginal] {
        try fetchAll(
            sql: "SELECT role, sha256, byte_size, file_ref, format FROM photo_data WHERE photo_id = ? ORDER BY id",
            arguments: [photoID]
        ) { try OriginalsSQL.original($0) }
        .sorted { $0.role < $1.role }
    }

    public func extraOriginals(ofPhotos photoIDs: [Int64]) throws -> [Int64: [PhotoOriginal]] {
        var result: [Int64: [PhotoOriginal]] = [:]
        for (range, size) in StatementBatches.lookups(photoIDs.count) {
            let slice: [SQLBindable] =
                Array(photoIDs[range]) + Array(repeating: photoIDs[range.lowerBound], count: size - range.count)
            _ = try fetchAll(
                sql: """
                    SELECT photo_id, role, sha256, byte_size, file_ref, format FROM photo_data
                    WHERE role <> 'primary' AND photo_id IN (\(StatementBatches.placeholders(size)))
                    """,
                arguments: slice
            ) { row in result[row.int64(0), default: []].append(try OriginalsSQL.original(row, offset: 1)) }
        }
        return result.mapValues { $0.sorted { $0.role < $1.role } }
    }

    public func photoExists(_ photoID: Int64) throws -> Bool {
        try fetchInt(sql: "SELECT 1 FROM photo WHERE id = ?", arguments: [photoID]) != nil
    }

    public func deletePhoto(_ photoID: Int64) throws {
        try execute(sql: "DELETE FROM photo WHERE id = ?", arguments: [photoID])
    }

    public func photoDataExists(sha256: String, fileReference: String?) throws -> Bool {
        if let fileReference {
            return try fetchInt(
                sql: "SELECT 1 FROM photo_data WHERE sha256 = ? AND file_ref = ? LIMIT 1",
                arguments: [sha256, fileReference]) != nil
        }
        return try fetchInt(sql: "SELECT 1 FROM photo_data WHERE sha256 = ? LIMIT 1", arguments: [sha256]) != nil
    }

    public func hasPhotoData(_ photoID: Int64) throws -> Bool {
        try fetchInt(sql: "SELECT id FROM photo_data WHERE photo_id = ?", arguments: [photoID]) != nil
    }

    public func hasThumbnail(_ photoID: Int64) throws -> Bool {
        try fetchInt(sql: "SELECT id FROM thumbnail WHERE photo_id = ?", arguments: [photoID]) != nil
    }

    public func setZone(ofPhoto photoID: Int64, to zone: String) throws {
        try execute(sql: "UPDATE photo SET zone_id = ? WHERE id = ?", arguments: [zone, photoID])
    }

    public func cameraIdentities() throws -> [Int64: CameraIdentity] {
        var cameras: [Int64: CameraIdentity] = [:]
        try forEachRow(
            sql: """
                SELECT id, camera_make, camera_model, lens_model FROM photo
                WHERE camera_make IS NOT NULL OR camera_model IS NOT NULL OR lens_model IS NOT NULL
                """,
            arguments: []
        ) { row in
            if let camera = CameraIdentity(
                make: row.optionalString(1), model: row.optionalString(2), lens: row.optionalString(3))
            {
                cameras[row.int64(0)] = camera
            }
        }
        return cameras
    }

    // MARK: zones and tags

    public func zoneExists(_ id: String) throws -> Bool {
        try fetchInt(sql: "SELECT 1 FROM zone WHERE id = ?", arguments: [id]) != nil
    }

    public func tag(named name: String, zone: String) throws -> StoredTag? {
        try fetchOne(
            sql:
                "SELECT id, uuid, name, zone_id FROM tag WHERE zone_id = ? AND normalize(name) = ? ORDER BY lower(uuid) LIMIT 1",
            arguments: [zone, name]
        ) { CatalogSQL.storedTag($0) }
    }

    public func tags(named name: String, zone: String?) throws -> [StoredTag] {
        if let zone {
            return try fetchAll(
                sql: "SELECT id, uuid, name, zone_id FROM tag WHERE normalize(name) = ? AND zone_id = ? ORDER BY uuid",
                arguments: [name, zone]
            ) { CatalogSQL.storedTag($0) }
        }
        return try fetchAll(
            sql: "SELECT id, uuid, name, zone_id FROM tag WHERE normalize(name) = ? ORDER BY zone_id, uuid",
            arguments: [name]
        ) { CatalogSQL.storedTag($0) }
    }

    public func tags(inZone zone: String) throws -> [StoredTag] {
        try fetchAll(
            sql: "SELECT id, uuid, name, zone_id FROM tag WHERE zone_id = ? ORDER BY name, lower(uuid)",
            arguments: [zone]
        ) { CatalogSQL.storedTag($0) }
    }

    public func tagList(zone: String?) throws -> [(tag: StoredTag, photoCount: Int)] {
        var sql =
            "SELECT t.id, t.uuid, t.name, t.zone_id, (SELECT count(*) FROM photo_tag pt WHERE pt.tag_id = t.id) FROM tag t"
        var args: [SQLBindable] = []
        if let zone {
            sql += " WHERE t.zone_id = ?"
            args.append(zone)
        }
        sql += " ORDER BY t.name, t.zone_id, t.uuid"
        return try fetchPaged(sql: sql, arguments: args) { (tag: CatalogSQL.storedTag($0), photoCount: $0.int(4)) }
    }

    public func tags(ofPhoto photoID: Int64) throws -> [StoredTag] {
        try fetchAll(
            sql:
                "SELECT t.id, t.uuid, t.name, t.zone_id FROM photo_tag pt JOIN tag t ON t.id = pt.tag_id WHERE pt.photo_id = ? ORDER BY t.name, t.uuid",
            arguments: [photoID]
        ) { CatalogSQL.storedTag($0) }
    }

    public func renameTag(_ tagID: Int64, to name: String) throws {
        try execute(sql: "UPDATE tag SET name = ? WHERE id = ?", arguments: [name, tagID])
    }

    public func deleteTag(_ tagID: Int64) throws {
        try execute(sql: "DELETE FROM tag WHERE id = ?", arguments: [tagID])
    }

    public func photo(_ photoID: Int64, hasTagNamed name: String) throws -> Bool {
        try fetchInt(
            sql:
                "SELECT 1 FROM photo_tag pt JOIN tag t ON t.id = pt.tag_id WHERE pt.photo_id = ? AND normalize(t.name) = ? LIMIT 1",
            arguments: [photoID, name]) != nil
    }

    public func unlink(photo photoID: Int64, tag tagID: Int64) throws {
        try execute(sql: "DELETE FROM photo_tag WHERE photo_id = ? AND tag_id = ?", arguments: [photoID, tagID])
    }

    public func unlink(photo photoID: Int64, tagsNamed name: String, zone: String) throws -> Bool {
        try execute(
            sql:
                "DELETE FROM photo_tag WHERE photo_id = ? AND tag_id IN (SELECT id FROM tag WHERE normalize(name) = ? AND zone_id = ?)",
            arguments: [photoID, name, zone])
        return changes > 0
    }

    public func photos(ofTag tagID: Int64) throws -> [(uniqueName: String, zone: String)] {
        try fetchPaged(
            sql:
                "SELECT p.unique_name, p.zone_id FROM photo_tag pt JOIN photo p ON p.id = pt.photo_id WHERE pt.tag_id = ? ORDER BY p.unique_name",
            arguments: [tagID]
        ) { (uniqueName: $0.string(0), zone: $0.string(1)) }
    }

    // MARK: ratings

    public func rating(ofPhoto photoID: Int64, author: String) throws -> StoredRating? {
        try fetchOne(
            sql: CatalogSQL.ratingColumns + " WHERE r.photo_id = ? AND r.author = ?", arguments: [photoID, author]
        ) { CatalogSQL.storedRating($0) }
    }

    public func setValue(ofRating id: Int64, to value: RatingValue) throws {
        try execute(sql: "UPDATE rating SET value = ? WHERE id = ?", arguments: [value.rawValue, id])
    }

    public func ratings(ofPhoto photoID: Int64) throws -> [StoredRating] {
        try fetchAll(sql: CatalogSQL.ratingColumns + " WHERE r.photo_id = ? ORDER BY r.id", arguments: [photoID]) {
            CatalogSQL.storedRating($0)
        }
    }

    public func rating(id: Int64) throws -> StoredRating? {
        try fetchOne(sql: CatalogSQL.ratingColumns + " WHERE r.id = ?", arguments: [id]) { CatalogSQL.storedRating($0) }
    }

    public func deleteRating(id: Int64) throws {
        try execute(sql: "DELETE FROM rating WHERE id = ?", arguments: [id])
    }

    // MARK: shares and participants

    public func shares() throws -> [StoredShare] {
        try fetchAll(sql: CatalogSQL.shareColumns + " ORDER BY s.created, s.id", arguments: []) {
            CatalogSQL.storedShare($0)
        }
    }

    public func share(id: String) throws -> StoredShare? {
        try fetchOne(sql: CatalogSQL.shareColumns + " WHERE s.id = ?", arguments: [id]) { CatalogSQL.storedShare($0) }
    }

    public func setTitle(ofShare id: String, to title: String) throws {
        try execute(sql: "UPDATE share SET title = ? WHERE id = ?", arguments: [title, id])
    }

    public func setPublicPermission(ofShare id: String, to permission: SharePermission) throws {
        try execute(sql: "UPDATE share SET public_permission = ? WHERE id = ?", arguments: [permission.rawValue, id])
    }

    public func participants(ofShare id: String) throws -> [StoredParticipant] {
        try fetchAll(
            sql: CatalogSQL.participantColumns + " WHERE share_id = ? ORDER BY role <> 'owner', email", arguments: [id]
        ) { CatalogSQL.storedParticipant($0) }
    }

    public func participant(ofShare id: String, email: Email) throws -> StoredParticipant? {
        try fetchOne(
            sql: CatalogSQL.participantColumns + " WHERE share_id = ? AND email = ?", arguments: [id, email.rawValue]
        ) { CatalogSQL.storedParticipant($0) }
    }

    public func setPermission(ofParticipant rowID: Int64, to permission: SharePermission) throws {
        try execute(sql: "UPDATE participant SET permission = ? WHERE id = ?", arguments: [permission.rawValue, rowID])
    }

    public func deleteParticipant(_ rowID: Int64) throws {
        try execute(sql: "DELETE FROM participant WHERE id = ?", arguments: [rowID])
    }

    // MARK: keys (case folded as the dialect folds it, `SQLDialect.equalsIgnoringCase`, `.caseInsensitiveLike`)

    /// The key's stored spelling; of two spellings differing in case, the first in byte order.
    public func exactKey(_ key: CatalogKey, _ text: String) throws -> String? {
        let (table, column) = CatalogSQL.table(key)
        return try fetchString(
            sql:
                "SELECT \(column) FROM \(table) WHERE \(dialect.equalsIgnoringCase(column)) ORDER BY \(column) LIMIT 1",
            arguments: [text])
    }

    public func keys(_ key: CatalogKey, withPrefix prefix: String, limit: Int) throws -> [String] {
        let (table, column) = CatalogSQL.table(key)
        return try fetchAll(
            sql:
                "SELECT \(column) FROM \(table) WHERE \(column) \(dialect.caseInsensitiveLike) ? ESCAPE '\\' ORDER BY \(column) LIMIT \(limit)",
            arguments: [CatalogSQL.prefixPattern(prefix)]
        ) { $0.string(0) }
    }

    // MARK: inserts (`CatalogInserts`: new row ids with RETURNING, conflicts ignored with ON CONFLICT DO NOTHING)

    public func createPrivateZone(_ id: String) throws {
        try execute(sql: CatalogInserts.zone, arguments: [id, id, ZoneScope.private.rawValue])
    }

    public func insertTag(uuid: String, name: String, zone: String) throws -> Int64 {
        try insertReturningID(sql: CatalogInserts.tag, arguments: [uuid, name, zone])
    }

    public func link(photo photoID: Int64, tag tagID: Int64) throws {
        try execute(sql: CatalogInserts.link, arguments: [photoID, tagID])
    }

    public func linkPhotos(ofTag from: Int64, toTag to: Int64) throws {
        try execute(sql: CatalogInserts.linkPhotos, arguments: [to, from])
    }

    public func insertRating(uuid: String, photo photoID: Int64, value: RatingValue, author: String?) throws -> Int64 {
        try insertReturningID(sql: CatalogInserts.rating, arguments: [uuid, photoID, value.rawValue, author])
    }

    public func insertShare(id: String, title: String, created: String) throws {
        try execute(sql: CatalogInserts.share, arguments: [id, title, created, SharePermission.none.rawValue])
    }

    @discardableResult
    public func insertParticipant(
        uuid: String, share: String, email: Email, role: ParticipantRole, permission: SharePermission,
        acceptance: Acceptance, ignoringExisting: Bool
    ) throws -> Bool {
        try execute(
            sql: CatalogInserts.participant(ignoringExisting: ignoringExisting),
            arguments: [uuid, share, email.rawValue, role.rawValue, permission.rawValue, acceptance.rawValue])
        return changes > 0
    }
}
