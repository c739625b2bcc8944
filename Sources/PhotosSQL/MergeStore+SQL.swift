import PhotosModel

/// `MergeSourceStore` on any `SQLConnection`: the reads of a library merged from, whose schema
/// may be older than this one (`schemaVersion`). The lists that grow with the catalog are read
/// in pages on PostgreSQL (`fetchPaged`).
extension MergeSourceStore where Self: SQLConnection {
    public func mergeSourcePhotos(schemaVersion: Int) throws -> [MergeSourcePhoto] {
        let primary = schemaVersion >= PhotoOriginal.rolesSchemaVersion ? " AND d.role = 'primary'" : ""
        return try fetchPaged(
            sql:
                "SELECT p.unique_name, d.sha256, d.byte_size, d.file_ref, p.zone_id FROM photo p JOIN photo_data d ON d.photo_id = p.id\(primary) ORDER BY p.id",
            arguments: []
        ) {
            MergeSourcePhoto(
                uniqueName: $0.string(0), sha256: $0.string(1), byteSize: $0.int(2), fileReference: $0.string(3),
                zone: $0.string(4))
        }
    }

    public func mergeSourceExtraOriginals(schemaVersion: Int) throws -> [(
        original: SyncOriginal, fileReference: String
    )] {
        guard schemaVersion >= 16 else { return [] }
        return try fetchPaged(
            sql: """
                SELECT p.unique_name, d.role, d.sha256, d.byte_size, d.format, d.file_ref FROM photo p
                JOIN photo_data d ON d.photo_id = p.id WHERE d.role <> 'primary' ORDER BY p.id, d.role
                """,
            arguments: []
        ) {
            (
                SyncOriginal(
                    photo: $0.string(0), role: $0.string(1), sha256: $0.string(2), byteSize: $0.int(3),
                    format: $0.optionalString(4)), $0.string(5)
            )
        }
    }

    public func mergeSourceZones() throws -> [ZoneRecord] {
        try fetchAll(sql: "SELECT id, name, scope FROM zone ORDER BY id", arguments: []) {
            ZoneRecord(id: $0.string(0), name: $0.string(1), scope: $0.string(2))
        }
    }

    public func mergeSourceShares() throws -> [ShareRecord] {
        try fetchAll(sql: "SELECT id, title, created, public_permission FROM share ORDER BY id", arguments: []) {
            ShareRecord(id: $0.string(0), title: $0.string(1), created: $0.string(2), publicPermission: $0.string(3))
        }
    }

    public func mergeSourceParticipants(schemaVersion: Int) throws -> [ParticipantRecord] {
        let uuid = schemaVersion >= 3 ? "uuid" : "NULL"
        return try fetchAll(
            sql:
                "SELECT share_id, email, role, permission, acceptance, \(uuid) FROM participant ORDER BY share_id, email",
            arguments: []
        ) {
            ParticipantRecord(
                uuid: $0.optionalString(5), shareID: $0.string(0), email: $0.string(1), role: $0.string(2),
                permission: $0.string(3), acceptance: $0.string(4))
        }
    }

    public func mergeSourcePhoto(_ uniqueName: String, schemaVersion: Int) throws -> PhotoAttributes? {
        let v2 = schemaVersion >= 2
        let capture = v2 ? "capture_date" : "substr(capture_date, 1, 19)"
        let offsetAndSource =
            v2 ? "capture_offset, capture_source" : "NULL, CASE WHEN capture_date IS NOT NULL THEN 'exif' END"
        let position =
            schemaVersion >= PhotoAttributes.positionSchemaVersion
            ? "latitude_e7, longitude_e7, altitude_mm" : "NULL, NULL, NULL"
        let kind =
            schemaVersion >= PhotoAttributes.kindSchemaVersion
            ? "kind, duration_ms, video_codec" : "'still', NULL, NULL"
        let camera =
            schemaVersion >= PhotoAttributes.cameraSchemaVersion
            ? "camera_make, camera_model, lens_model, camera_format" : "NULL, NULL, NULL, NULL"
        let text = schemaVersion >= PhotoAttributes.textSchemaVersion ? "title, description" : "NULL, NULL"
        let place = schemaVersion >= PhotoAttributes.placeSchemaVersion ? "place_name" : "NULL"
        return try fetchOne(
            sql:
                "SELECT unique_name, display_name, imported_at, \(capture), width, height, format, orientation, zone_id, \(offsetAndSource), \(position), \(kind), \(camera), \(text), \(place) FROM photo WHERE unique_name = ?",
            arguments: [uniqueName]
        ) { r in
            var attributes = PhotoAttributes(
                uniqueName: r.string(0), displayName: r.string(1), importedAt: r.string(2),
                captureDate: r.optionalString(3), captureOffset: r.optionalInt(9), captureSource: r.optionalString(10),
                width: r.storedInteger(4).map { Int($0) }, height: r.storedInteger(5).map { Int($0) },
                format: try ImageFormat(stored: r.string(6)), orientation: try Orientation(stored: r.int(7)),
                zone: r.optionalString(8).map(ZoneID.init(rawValue:)) ?? .default)
            (attributes.latitudeE7, attributes.longitudeE7, attributes.altitudeMM) = (
                r.storedInteger(11).map { Int($0) }, r.storedInteger(12).map { Int($0) },
                r.storedInteger(13).map { Int($0) }
            )
            (attributes.kind, attributes.durationMS, attributes.videoCodec) = (
                r.optionalString(14) ?? "still", r.storedInteger(15).map { Int($0) }, r.optionalString(16)
            )
            (attributes.cameraMake, attributes.cameraModel, attributes.lensModel, attributes.cameraFormat) = (
                r.optionalString(17), r.optionalString(18), r.optionalString(19), r.optionalString(20)
            )
            (attributes.title, attributes.description) = (r.optionalString(21), r.optionalString(22))
            attributes.placeName = r.optionalString(23)
            return attributes
        }
    }

    public func mergeSourceThumbnail(of uniqueName: String) throws -> (data: [UInt8], width: Int, height: Int)? {
        try fetchOne(
            sql:
                "SELECT t.data, t.width, t.height FROM thumbnail t JOIN photo p ON p.id = t.photo_id WHERE p.unique_name = ?",
            arguments: [uniqueName]
        ) { ($0.bytes(0), $0.int(1), $0.int(2)) }
    }

    public func mergeSourceRatings(of uniqueName: String, schemaVersion: Int) throws -> [RatingRecord] {
        let uuid = schemaVersion >= 3 ? "r.uuid" : "NULL"
        let author = schemaVersion >= 5 ? "r.author" : "NULL"
        return try fetchAll(
            sql:
                "SELECT r.value, \(uuid), \(author) FROM rating r JOIN photo p ON p.id = r.photo_id WHERE p.unique_name = ? ORDER BY r.id",
            arguments: [uniqueName]
        ) { RatingRecord(value: $0.int(0), uuid: $0.optionalString(1), author: $0.optionalString(2)) }
    }

    public func mergeSourceTags() throws -> [RecordedTag] {
        try fetchAll(sql: "SELECT uuid, name, zone_id FROM tag ORDER BY uuid", arguments: []) {
            RecordedTag(uuid: $0.string(0), name: $0.string(1), zone: $0.string(2))
        }
    }

    public func mergeSourceTagLinks() throws -> [(photo: String, tagUUID: String)] {
        try fetchPaged(
            sql:
                "SELECT p.unique_name, t.uuid FROM photo_tag pt JOIN tag t ON t.id = pt.tag_id JOIN photo p ON p.id = pt.photo_id ORDER BY pt.photo_id, t.uuid",
            arguments: []
        ) { ($0.string(0), $0.string(1)) }
    }
}

/// `MergeTargetStore` on any `SQLConnection`.
extension MergeTargetStore where Self: SQLConnection {
    public func addZoneIfAbsent(_ zone: ZoneRecord) throws -> Bool {
        guard try fetchInt(sql: "SELECT 1 FROM zone WHERE id = ?", arguments: [zone.id]) == nil else { return false }
        try execute(
            sql: "INSERT INTO zone (id, name, scope) VALUES (?, ?, ?)", arguments: [zone.id, zone.name, zone.scope])
        return true
    }

    public func addShareIfAbsent(_ share: ShareRecord) throws -> Bool {
        guard try fetchInt(sql: "SELECT 1 FROM share WHERE id = ?", arguments: [share.id]) == nil else { return false }
        try execute(
            sql: "INSERT INTO share (id, title, created, public_permission) VALUES (?, ?, ?, ?)",
            arguments: [share.id, share.title, share.created, share.publicPermission])
        return true
    }

    public func matchingPhoto(uniqueName: String, sha256: String, scope: DuplicateScope) throws -> LocalPhoto? {
        func local(_ r: ResultRow) -> LocalPhoto { LocalPhoto(id: r.int64(0), zone: r.string(1), name: r.string(2)) }
        let (condition, arguments) = scope.sqlCondition
        return try fetchOne(
            sql: "SELECT id, zone_id, unique_name FROM photo WHERE unique_name = ?", arguments: [uniqueName], local)
            ?? fetchOne(
                sql:
                    "SELECT p.id, p.zone_id, p.unique_name FROM photo_data d JOIN photo p ON p.id = d.photo_id WHERE d.sha256 = ? AND \(condition) ORDER BY p.id LIMIT 1",
                arguments: [sha256] + arguments, local)
    }

    public func hasRating(uuid: String) throws -> Bool {
        try fetchInt(sql: "SELECT 1 FROM rating WHERE uuid = ?", arguments: [uuid]) != nil
    }

    public func tag(uuid: String) throws -> (id: Int64, zone: String, name: String)? {
        try fetchOne(sql: "SELECT id, zone_id, name FROM tag WHERE uuid = ?", arguments: [uuid]) {
            ($0.int64(0), $0.string(1), $0.string(2))
        }
    }

    public func zoneScope(_ id: String) throws -> String? {
        try fetchString(sql: "SELECT scope FROM zone WHERE id = ?", arguments: [id])
    }
}
