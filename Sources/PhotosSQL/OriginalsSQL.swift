import PhotosModel

/// The SQL of a photo's several originals (issue 24 item 2, schema migration 16), the same on
/// SQLite and PostgreSQL.
public enum OriginalsSQL {
    /// The history object id of a `photo_data` row `d` of photo `p`
    /// (`PhotoOriginal.historyObjectID`): `p.unique_name` for the primary, `UNIQUENAME/ROLE`
    /// otherwise (`||` concatenates on both backends).
    public static let objectID =
        "CASE WHEN d.role = 'primary' THEN p.unique_name ELSE p.unique_name || '/' || d.role END"

    /// A row of `role, sha256, byte_size, file_ref, format` (columns 0–4 from `offset`).
    /// - Throws: `StoredValueError` (`.corrupt`) for a role or format this version does not know.
    public static func original<R: SQLRow>(_ row: R, offset: Int = 0) throws -> PhotoOriginal {
        PhotoOriginal(
            role: try OriginalRole(stored: row.string(offset)), sha256: row.string(offset + 1),
            byteSize: row.int(offset + 2), fileReference: row.string(offset + 3),
            format: try row.optionalString(offset + 4).map { try ImageFormat(stored: $0, column: "photo_data.format") })
    }
}
