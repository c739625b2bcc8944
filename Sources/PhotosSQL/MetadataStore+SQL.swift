import PhotosModel

/// `MetadataStore` on any `SQLConnection`: the capture time of a photo, and its file state and
/// image data (schema 7, `photo_file_state`).
extension MetadataStore where Self: SQLConnection {
    public func setCaptureTime(ofPhoto photoID: Int64, local: String, offsetMinutes: Int?, source: String) throws {
        try execute(
            sql: "UPDATE photo SET capture_date = ?, capture_offset = ?, capture_source = ? WHERE id = ?",
            arguments: [local, offsetMinutes, source, photoID])
    }

    public func setCamera(ofPhoto photoID: Int64, _ camera: CameraIdentity?, cameraFormat: String?) throws {
        try execute(
            sql:
                "UPDATE photo SET camera_make = ?, camera_model = ?, lens_model = ?, camera_format = ? WHERE id = ?",
            arguments: [camera?.make, camera?.model, camera?.lens, cameraFormat, photoID])
    }

    public func setPlaceName(ofPhoto photoID: Int64, _ placeName: String?) throws {
        try execute(sql: "UPDATE photo SET place_name = ? WHERE id = ?", arguments: [placeName, photoID])
    }

    public func setText(ofPhoto photoID: Int64, title: String?, description: String?) throws {
        try execute(
            sql: "UPDATE photo SET title = ?, description = ? WHERE id = ?", arguments: [title, description, photoID])
    }

    public func setPosition(ofPhoto photoID: Int64, latitudeE7: Int, longitudeE7: Int, altitudeMM: Int?) throws {
        try execute(
            sql: "UPDATE photo SET latitude_e7 = ?, longitude_e7 = ?, altitude_mm = ? WHERE id = ?",
            arguments: [latitudeE7, longitudeE7, altitudeMM, photoID])
    }

    public func fileMetadataState(ofPhoto photoID: Int64) throws -> FileMetadataState? {
        try fetchOne(
            sql:
                "SELECT file_tags, file_rating, file_capture_date, file_capture_offset FROM photo_file_state WHERE photo_id = ? AND file_tags IS NOT NULL",
            arguments: [photoID]
        ) {
            FileMetadataState(
                tags: FileMetadataState.tags(stored: $0.string(0)), rating: $0.optionalInt(1),
                captureDate: $0.optionalString(2), captureOffset: $0.optionalInt(3))
        }
    }

    public func setFileMetadataState(_ state: FileMetadataState, imageSHA256: String?, ofPhoto photoID: Int64) throws {
        try execute(
            sql: """
                INSERT INTO photo_file_state (photo_id, image_sha256, file_tags, file_rating, file_capture_date,
                    file_capture_offset)
                VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (photo_id) DO UPDATE SET
                    image_sha256 = COALESCE(excluded.image_sha256, photo_file_state.image_sha256),
                    file_tags = excluded.file_tags, file_rating = excluded.file_rating,
                    file_capture_date = excluded.file_capture_date, file_capture_offset = excluded.file_capture_offset
                """,
            arguments: [photoID, imageSHA256, state.storedTags, state.rating, state.captureDate, state.captureOffset])
    }

    public func setImageSHA256(_ imageSHA256: String, ofPhoto photoID: Int64) throws {
        try execute(
            sql: """
                INSERT INTO photo_file_state (photo_id, image_sha256) VALUES (?, ?)
                ON CONFLICT (photo_id) DO UPDATE SET image_sha256 = excluded.image_sha256
                """,
            arguments: [photoID, imageSHA256])
    }

    public func setPerceptualSignature(_ signature: PerceptualSignature, ofPhoto photoID: Int64) throws {
        try execute(
            sql: """
                INSERT INTO photo_signature (photo_id, algorithm, phash, mean_cb, mean_cr, low_information)
                VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (photo_id) DO UPDATE SET
                    algorithm = excluded.algorithm, phash = excluded.phash, mean_cb = excluded.mean_cb,
                    mean_cr = excluded.mean_cr, low_information = excluded.low_information
                """,
            arguments: [
                photoID, PerceptualSignature.algorithm, Int64(bitPattern: signature.hash), Int(signature.meanCb),
                Int(signature.meanCr), signature.lowInformation ? 1 : 0
            ])
    }

    public func perceptualSignatures() throws -> [Int64: PerceptualSignature] {
        let sql = "SELECT photo_id, phash, mean_cb, mean_cr, low_information FROM photo_signature WHERE algorithm = ?"
        var result: [Int64: PerceptualSignature] = [:]
        try forEachRow(sql: sql, arguments: [PerceptualSignature.algorithm]) { row in
            guard let cb = UInt8(exactly: row.int64(2)), let cr = UInt8(exactly: row.int64(3)) else {
                throw catalogInvariantError("photo_signature of photo \(row.int64(0)): chroma outside 0-255", sql: sql)
            }
            result[row.int64(0)] = PerceptualSignature(
                hash: UInt64(bitPattern: row.int64(1)), meanCb: cb, meanCr: cr, lowInformation: row.int64(4) != 0)
        }
        return result
    }

    public func largestPhotoRowID() throws -> Int64 {
        Int64(try fetchInt(sql: "SELECT coalesce(max(id), 0) FROM photo", arguments: []) ?? 0)
    }

    public func photo(imageSHA256: String, zone: String, rowIDAtMost: Int64) throws -> ImageDataMatch? {
        try fetchOne(
            sql: """
                SELECT p.id, p.unique_name, p.display_name, d.sha256, d.file_ref, p.format, p.width, p.height, p.orientation,
                    s.replaced_sha256s
                FROM photo_file_state s JOIN photo p ON p.id = s.photo_id JOIN photo_data d ON d.photo_id = p.id AND d.role = 'primary'
                WHERE s.image_sha256 = ? AND p.zone_id = ? AND p.id <= ? ORDER BY p.id LIMIT 1
                """,
            arguments: [imageSHA256, zone, rowIDAtMost]
        ) {
            ImageDataMatch(
                rowID: $0.int64(0), uniqueName: $0.string(1), displayName: $0.string(2), sha256: $0.string(3),
                fileReference: $0.string(4), format: try ImageFormat(stored: $0.string(5)), width: $0.int(6),
                height: $0.int(7), orientation: try Orientation(stored: $0.int(8)),
                replacedSHA256s: ($0.optionalString(9) ?? "").split(separator: "\n").map(String.init))
        }
    }

    public func setReplacedSHA256s(_ sha256s: [String], ofPhoto photoID: Int64) throws {
        try execute(
            sql: """
                INSERT INTO photo_file_state (photo_id, replaced_sha256s) VALUES (?, ?)
                ON CONFLICT (photo_id) DO UPDATE SET replaced_sha256s = excluded.replaced_sha256s
                """,
            arguments: [photoID, sha256s.joined(separator: "\n")])
    }

    public func replaceOriginal(ofPhoto photoID: Int64, sha256: String, byteSize: Int, fileReference: String) throws {
        try execute(
            sql:
                "UPDATE photo_data SET sha256 = ?, byte_size = ?, file_ref = ? WHERE photo_id = ? AND role = 'primary'",
            arguments: [sha256, byteSize, fileReference, photoID])
    }

    /// `zone_id || ''` keeps SQLite (no ANALYZE statistics) from taking `photo_zone`, which
    /// scanned every photo of the zone per file (EXPLAIN QUERY PLAN: `SEARCH p USING INDEX
    /// photo_zone`); with it the range is searched in `photo_capture_date`.
    public func pairCandidates(zone: String, captureFrom: String, captureTo: String) throws -> [PairCandidate] {
        try fetchAll(
            sql: """
                SELECT \(Self.pairCandidateColumns)
                FROM photo p
                WHERE (p.zone_id || '') = ? AND p.capture_date >= ? AND p.capture_date <= ? AND p.kind IN ('still', 'video')
                ORDER BY p.capture_date, p.id LIMIT 32
                """,
            arguments: [zone, captureFrom, captureTo], Self.pairCandidate)
    }

    public func liveCandidates(zone: String, contentIdentifier: String) throws -> [PairCandidate] {
        try fetchAll(
            sql: """
                SELECT \(Self.pairCandidateColumns)
                FROM photo p
                WHERE p.content_identifier = ? AND p.zone_id = ? AND p.kind IN ('still', 'video')
                ORDER BY p.id LIMIT 8
                """,
            arguments: [contentIdentifier, zone], Self.pairCandidate)
    }

    /// The columns `pairCandidate` reads, of `photo p`.
    static var pairCandidateColumns: String {
        """
        p.id, p.unique_name, p.display_name, p.capture_date, p.capture_source, p.format,
               (SELECT count(*) FROM photo_data d WHERE d.photo_id = p.id), p.kind, p.capture_offset, p.content_identifier
        """
    }

    /// A `PairCandidate` of a row of `pairCandidateColumns`.
    static func pairCandidate(_ row: ResultRow) throws -> PairCandidate {
        PairCandidate(
            rowID: row.int64(0), uniqueName: row.string(1), displayName: row.string(2),
            captureDate: row.optionalString(3), captureSource: row.optionalString(4),
            format: try ImageFormat(stored: row.string(5)), originals: row.int(6), kind: row.string(7),
            captureOffset: row.optionalInt(8), contentIdentifier: row.optionalString(9))
    }

    public func setContentIdentifier(_ contentIdentifier: String?, ofPhoto photoID: Int64) throws {
        try execute(
            sql: "UPDATE photo SET content_identifier = ? WHERE id = ?", arguments: [contentIdentifier, photoID])
    }

    public func setDisplayName(ofPhoto photoID: Int64, _ displayName: String) throws {
        try execute(sql: "UPDATE photo SET display_name = ? WHERE id = ?", arguments: [displayName, photoID])
    }

    public func setKind(ofPhoto photoID: Int64, kind: String, durationMS: Int?, videoCodec: String?) throws {
        try execute(
            sql: "UPDATE photo SET kind = ?, duration_ms = ?, video_codec = ? WHERE id = ?",
            arguments: [kind, durationMS, videoCodec, photoID])
    }

    public func hasPhoto(format: ImageFormat, zone: String) throws -> Bool {
        try fetchInt(
            sql: "SELECT 1 FROM photo WHERE zone_id = ? AND format = ? LIMIT 1", arguments: [zone, format.rawValue])
            != nil
    }

    public func takeOverPrimary(
        ofPhoto photoID: Int64, by original: PhotoOriginal, formerPrimary: OriginalRole, width: Int, height: Int,
        orientation: Orientation, thumbnail: ThumbnailRow?
    ) throws {
        if formerPrimary == .raw {
            try execute(
                sql: "UPDATE photo_data SET role = 'raw', format = 'raw' WHERE photo_id = ? AND role = 'primary'",
                arguments: [photoID])
        } else {
            // A row from before schema 16 has no format of its own: it is the photo's, kept.
            try execute(
                sql: """
                    UPDATE photo_data SET role = ?, format = coalesce(format, (SELECT p.format FROM photo p WHERE p.id = ?))
                    WHERE photo_id = ? AND role = 'primary'
                    """,
                arguments: [formerPrimary.rawValue, photoID, photoID])
            try execute(sql: "UPDATE photo SET kind = 'live' WHERE id = ?", arguments: [photoID])
        }
        try execute(
            sql: CatalogInserts.photoData, arguments: CatalogInserts.photoDataValues(original, ofPhoto: photoID))
        try execute(
            sql: "UPDATE photo SET width = ?, height = ?, format = ?, orientation = ? WHERE id = ?",
            arguments: [width, height, (original.format ?? .jpeg).rawValue, orientation.rawValue, photoID])
        guard let thumbnail else { return }
        try execute(sql: "DELETE FROM thumbnail WHERE photo_id = ?", arguments: [photoID])
        try execute(
            sql: CatalogInserts.thumbnail, arguments: [photoID, thumbnail.data, thumbnail.width, thumbnail.height])
    }
}
