import PhotosModel

/// `tag` and `photo_tag`: the only place that knows their columns. Tag commands, sharing,
/// import's batch writer and merge create tags and links through it.
public enum TagRows {
    static let linkSQL = "INSERT OR IGNORE INTO photo_tag (photo_id, tag_id) VALUES (?, ?)"

    /// Inserts a tag.
    /// - Parameters:
    ///   - uuid: its stable identity (lowercase UUID).
    ///   - name: NFC, trimmed.
    ///   - zone: the record zone's id.
    /// - Returns: the new row id.
    /// - Throws: `SQLiteError`.
    public static func insert(uuid: String, name: String, zone: String, into db: Database) throws -> Int64 {
        try db.run("INSERT INTO tag (uuid, name, zone_id) VALUES (?, ?, ?)", [uuid, name, zone])
        return db.lastInsertRowID
    }

    /// Links a photo to a tag; nothing when the link exists.
    /// - Throws: `SQLiteError`.
    public static func link(photo: Int64, tag: Int64, in db: Database) throws {
        try db.run(linkSQL, [photo, tag])
    }

    /// Links every photo of tag `from` to tag `to` as well (a merge of duplicate tags).
    /// - Throws: `SQLiteError`.
    public static func linkPhotos(of from: Int64, to: Int64, in db: Database) throws {
        try db.run(
            "INSERT OR IGNORE INTO photo_tag (photo_id, tag_id) SELECT photo_id, ? FROM photo_tag WHERE tag_id = ?",
            [to, from])
    }
}
