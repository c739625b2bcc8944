import PhotosModel
import PhotosSQL

extension PostgresDatabase: ZonePurgeStore {
    public func zoneContents(_ zone: ZoneID) throws -> ZoneContents {
        let z: [PGBindable] = [zone.rawValue]
        var c = ZoneContents()
        c.photos = try scalarInt("SELECT count(*) FROM photo WHERE zone_id = ?", z) ?? 0
        c.photoData =
            try scalarInt("SELECT count(*) FROM photo_data d JOIN photo p ON p.id = d.photo_id WHERE p.zone_id = ?", z)
            ?? 0
        c.thumbnails =
            try scalarInt("SELECT count(*) FROM thumbnail t JOIN photo p ON p.id = t.photo_id WHERE p.zone_id = ?", z)
            ?? 0
        c.ratings =
            try scalarInt("SELECT count(*) FROM rating r JOIN photo p ON p.id = r.photo_id WHERE p.zone_id = ?", z) ?? 0
        c.tags = try scalarInt("SELECT count(*) FROM tag WHERE zone_id = ?", z) ?? 0
        c.participants = try scalarInt("SELECT count(*) FROM participant WHERE share_id = ?", z) ?? 0
        c.shares = try scalarInt("SELECT count(*) FROM share WHERE id = ?", z) ?? 0
        return c
    }

    public func fileReferences(inZone zone: ZoneID) throws -> [StoredFileReference] {
        try statement(
            "SELECT DISTINCT d.file_ref, d.sha256 FROM photo_data d JOIN photo p ON p.id = d.photo_id WHERE p.zone_id = ?"
        )
        .streamedMap([zone.rawValue]) { StoredFileReference(fileReference: $0.string(0), sha256: $0.string(1)) }
    }

    public func deleteZone(_ zone: ZoneID) throws {
        let z: [PGBindable] = [zone.rawValue]
        // Cascades remove photo data, thumbnails, ratings, tag links and participants.
        try run("DELETE FROM photo WHERE zone_id = ?", z)
        try run("DELETE FROM tag WHERE zone_id = ?", z)
        try run("DELETE FROM share WHERE id = ?", z)
        try run("DELETE FROM zone WHERE id = ?", z)
    }
}

/// `relinkCounts` and `mergeTags` are `PhotosSQL`'s `TagDedupeStore where Self: SQLConnection &
/// SQLJSONDialect` (TagMerge+SQL.swift).
extension PostgresDatabase: TagDedupeStore {
    public func forEachTagInserted(after token: Int64, _ body: (ZoneID, String) throws -> Void) throws {
        try statement(
            """
            SELECT t.zone_id, t.name FROM history_change c JOIN tag t ON t.uuid = c.object_id
            WHERE c.entity = 'Tag' AND c.type = 'insert' AND c.token > ?
            """
        ).forEach([token]) { try body(ZoneID(rawValue: $0.string(0)), $0.string(1)) }
    }

    public func forEachTag(zone: ZoneID, name: String, _ body: (StoredTag) throws -> Void) throws {
        try statement("SELECT \(StoredTagRow.columns) FROM tag WHERE zone_id = ? AND normalize(name) = ?")
            .forEach([zone.rawValue, name]) { try body(StoredTagRow.decode($0)) }
    }

    public func forEachTag(_ body: (StoredTag) throws -> Void) throws {
        try statement("SELECT \(StoredTagRow.columns) FROM tag").forEach {
            try body(StoredTagRow.decode($0))
        }
    }
}
