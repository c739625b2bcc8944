import PhotosModel

/// The INSERTs of this backend, each the only place that spells its table's columns. New row
/// ids come back with `RETURNING id` (identity columns), not from a "last insert id".
enum Inserts {
    static let photo = """
        INSERT INTO photo (unique_name, display_name, imported_at, capture_date, capture_offset, capture_source, \
        width, height, format, orientation, zone_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id
        """
    static let photoData = "INSERT INTO photo_data (photo_id, sha256, byte_size, file_ref) VALUES (?, ?, ?, ?)"
    static let thumbnail = "INSERT INTO thumbnail (photo_id, data, width, height) VALUES (?, ?, ?, ?)"
    static let tag = "INSERT INTO tag (uuid, name, zone_id) VALUES (?, ?, ?) RETURNING id"
    static let link = "INSERT INTO photo_tag (photo_id, tag_id) VALUES (?, ?) ON CONFLICT DO NOTHING"
    static let rating = "INSERT INTO rating (uuid, photo_id, value, author) VALUES (?, ?, ?, ?) RETURNING id"
    static let zone = "INSERT INTO zone (id, name, scope) VALUES (?, ?, ?)"
    static let share = "INSERT INTO share (id, title, created, public_permission) VALUES (?, ?, ?, ?)"
    static func participant(ignoringExisting: Bool) -> String {
        "INSERT INTO participant (uuid, share_id, email, role, permission, acceptance) VALUES (?, ?, ?, ?, ?, ?)"
            + (ignoringExisting ? " ON CONFLICT (share_id, email) DO NOTHING" : "")
    }
}

extension PostgresDatabase {
    /// Runs an `INSERT … RETURNING id` and returns the id.
    /// - Throws: `PostgresError`.
    func insertReturningID(_ sql: String, _ values: [PGBindable]) throws -> Int64 {
        guard let id = try statement(sql).first(values, { $0.int64(0) }) else {
            throw PostgresError(sqlState: "XX000", message: "an INSERT … RETURNING returned no row", sql: sql)
        }
        return id
    }
}
