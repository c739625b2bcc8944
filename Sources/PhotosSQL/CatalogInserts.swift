import PhotosModel

/// The INSERTs of the catalog's rows, the same text on SQLite and PostgreSQL: the one place
/// that spells each table's columns for a new row (`CatalogStore`'s inserts, `VerifyStore`'s
/// repairs, each backend's photo writer of import and merge).
///
/// Conflicts are ignored with `ON CONFLICT … DO NOTHING`, which both accept (SQLite 3.24,
/// https://www.sqlite.org/lang_upsert.html; PostgreSQL docs "INSERT"); it ignores only the
/// uniqueness conflict it names, where SQLite's former `INSERT OR IGNORE` also skipped a row
/// failing NOT NULL or CHECK (none of which the callers' typed values can fail). New row ids
/// come back with `RETURNING id` (`SQLConnection.insertReturningID`).
public enum CatalogInserts {
    /// A photo: unique name, display name, imported at, capture date, capture offset, capture
    /// source, width, height, format, orientation, zone, latitude (1e-7°), longitude (1e-7°),
    /// altitude (mm), kind, duration (ms), video codec, camera make, model, lens, RAW container
    /// name, title, description, place name (`photoValues`).
    public static let photo = """
        INSERT INTO photo (unique_name, display_name, imported_at, capture_date, capture_offset, capture_source, \
        width, height, format, orientation, zone_id, latitude_e7, longitude_e7, altitude_mm, kind, duration_ms, \
        video_codec, camera_make, camera_model, lens_model, camera_format, title, description, place_name) \
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """

    /// The arguments of `photo` for `row`, in its column order.
    public static func photoValues(_ row: PhotoRow) -> [SQLBindable] {
        [
            row.uniqueName, row.displayName, row.importedAt, row.captureDate, row.captureOffset, row.captureSource,
            row.width, row.height, row.format.rawValue, row.orientation.rawValue, row.zoneID.rawValue,
            row.latitudeE7, row.longitudeE7, row.altitudeMM, row.kind, row.durationMS, row.videoCodec,
            row.camera?.make, row.camera?.model, row.camera?.lens, row.cameraFormat, row.title, row.description,
            row.placeName
        ]
    }

    /// An original of a photo (a photo data row): photo id, SHA-256, byte size, file reference,
    /// role (`OriginalRole` raw value), format (`ImageFormat` raw value or NULL) — `photoDataValues`.
    public static let photoData =
        "INSERT INTO photo_data (photo_id, sha256, byte_size, file_ref, role, format) VALUES (?, ?, ?, ?, ?, ?)"

    /// The arguments of `photoData` for `original` of photo `photoID`, in its column order.
    public static func photoDataValues(_ original: PhotoOriginal, ofPhoto photoID: Int64) -> [SQLBindable] {
        [
            photoID, original.sha256, original.byteSize, original.fileReference, original.role.rawValue,
            original.format?.rawValue
        ]
    }

    /// A thumbnail: photo id, JPEG bytes, width, height (pixels).
    public static let thumbnail = "INSERT INTO thumbnail (photo_id, data, width, height) VALUES (?, ?, ?, ?)"

    /// A tag: uuid, name (NFC, trimmed), zone.
    public static let tag = "INSERT INTO tag (uuid, name, zone_id) VALUES (?, ?, ?)"

    /// A photo's link to a tag (photo id, tag id); nothing when the link exists.
    public static let link = "INSERT INTO photo_tag (photo_id, tag_id) VALUES (?, ?) ON CONFLICT DO NOTHING"

    /// Every photo of one tag linked to another as well: the new tag's id, the old tag's id.
    public static let linkPhotos =
        "INSERT INTO photo_tag (photo_id, tag_id) SELECT photo_id, ? FROM photo_tag WHERE tag_id = ? ON CONFLICT DO NOTHING"

    /// A rating: uuid, photo id, value (1…5), author (nil: anonymous).
    public static let rating = "INSERT INTO rating (uuid, photo_id, value, author) VALUES (?, ?, ?, ?)"

    /// A record zone: id, name, scope.
    public static let zone = "INSERT INTO zone (id, name, scope) VALUES (?, ?, ?)"

    /// A share (its zone must exist): id, title, created (ISO 8601 UTC), public permission.
    public static let share = "INSERT INTO share (id, title, created, public_permission) VALUES (?, ?, ?, ?)"

    /// A participant of a share: uuid, share id, e-mail, role, permission, acceptance; with
    /// `ignoringExisting`, nothing when the share has a participant of that e-mail already.
    public static func participant(ignoringExisting: Bool) -> String {
        "INSERT INTO participant (uuid, share_id, email, role, permission, acceptance) VALUES (?, ?, ?, ?, ?, ?)"
            + (ignoringExisting ? " ON CONFLICT (share_id, email) DO NOTHING" : "")
    }
}

extension SQLConnection {
    /// Runs the INSERT `sql` (one of `CatalogInserts`) with `RETURNING id` appended and returns
    /// the new row's id: an identity column on PostgreSQL, the rowid on SQLite (RETURNING since
    /// SQLite 3.35, https://www.sqlite.org/lang_returning.html; its changes are made at the first
    /// step, which `fetchOne` takes).
    /// - Throws: the backend's error; `SQLStatementError.noRowReturned` when no row came back.
    public func insertReturningID(sql: String, arguments: [SQLBindable]) throws -> Int64 {
        let returning = sql + " RETURNING id"
        guard let id = try fetchOne(sql: returning, arguments: arguments, { $0.int64(0) }) else {
            throw SQLStatementError.noRowReturned(sql: returning)
        }
        return id
    }
}

/// A statement that did not do what its text promises: a bug of the statement or the schema
/// (`StoreError.Kind.other`, exit 70).
public enum SQLStatementError: Error, Equatable, CustomStringConvertible, StoreErrorConvertible {
    /// An `INSERT … RETURNING` returned no row.
    case noRowReturned(sql: String)

    public var description: String {
        switch self {
        case .noRowReturned(let sql): return "an INSERT … RETURNING returned no row: \(sql)"
        }
    }

    public var storeError: StoreError {
        StoreError(.other, message: "an INSERT … RETURNING returned no row", detail: description)
    }
}
