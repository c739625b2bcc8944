import PhotosModel

/// `purge-zone`'s reads and deletes (`ZonePurgeStore`) on any `SQLConnection`: the same
/// statements on both backends.
extension ZonePurgeStore where Self: SQLConnection {
    public func zoneContents(_ zone: ZoneID) throws -> ZoneContents {
        let z: [SQLBindable] = [zone.rawValue]
        func count(_ sql: String) throws -> Int { try fetchInt(sql: sql, arguments: z) ?? 0 }
        var c = ZoneContents()
        c.photos = try count("SELECT count(*) FROM photo WHERE zone_id = ?")
        c.photoData = try count(
            "SELECT count(*) FROM photo_data d JOIN photo p ON p.id = d.photo_id WHERE p.zone_id = ?")
        c.thumbnails = try count(
            "SELECT count(*) FROM thumbnail t JOIN photo p ON p.id = t.photo_id WHERE p.zone_id = ?")
        c.ratings = try count("SELECT count(*) FROM rating r JOIN photo p ON p.id = r.photo_id WHERE p.zone_id = ?")
        c.tags = try count("SELECT count(*) FROM tag WHERE zone_id = ?")
        c.participants = try count("SELECT count(*) FROM participant WHERE share_id = ?")
        c.shares = try count("SELECT count(*) FROM share WHERE id = ?")
        return c
    }

    /// Read in pages on PostgreSQL (`fetchPaged`): a zone may hold most of the catalog.
    public func fileReferences(inZone zone: ZoneID) throws -> [StoredFileReference] {
        try fetchPaged(
            sql:
                "SELECT DISTINCT d.file_ref, d.sha256 FROM photo_data d JOIN photo p ON p.id = d.photo_id WHERE p.zone_id = ?",
            arguments: [zone.rawValue]
        ) { StoredFileReference(fileReference: $0.string(0), sha256: $0.string(1)) }
    }

    public func deleteZone(_ zone: ZoneID) throws {
        let z: [SQLBindable] = [zone.rawValue]
        // Cascades remove photo data, thumbnails, ratings, tag links and participants.
        try execute(sql: "DELETE FROM photo WHERE zone_id = ?", arguments: z)
        try execute(sql: "DELETE FROM tag WHERE zone_id = ?", arguments: z)
        try execute(sql: "DELETE FROM share WHERE id = ?", arguments: z)
        try execute(sql: "DELETE FROM zone WHERE id = ?", arguments: z)
    }
}

/// The columns of `tag` as `dedupe-tags` reads them: id, uuid, name, zone.
enum StoredTagSQL {
    static let columns = "id, uuid, name, zone_id"

    /// A tag row selected with `columns`.
    static func decode(_ row: some SQLRow) -> StoredTag {
        StoredTag(rowID: row.int64(0), uuid: row.string(1), name: row.string(2), zone: ZoneID(rawValue: row.string(3)))
    }
}

/// `dedupe-tags`' scans (`TagDedupeStore`) on any `SQLConnection`; `relinkCounts` and
/// `mergeTags` are in TagMerge+SQL.swift.
extension TagDedupeStore where Self: SQLConnection {
    /// Through a scan of its own (`forEachRow`: a cursor on PostgreSQL): the rows grow with
    /// the history.
    public func forEachTagInserted(after token: Int64, _ body: (ZoneID, String) throws -> Void) throws {
        try forEachRow(
            sql: """
                SELECT t.zone_id, t.name FROM history_change c JOIN tag t ON t.uuid = c.object_id
                WHERE c.entity = 'Tag' AND c.type = 'insert' AND c.token > ?
                """, arguments: [token]
        ) { try body(ZoneID(rawValue: $0.string(0)), $0.string(1)) }
    }

    /// The few tags of one (zone, NFC name), read whole by the cached statement (`fetchAll`: one
    /// round trip on PostgreSQL, where a cursor took three) before `body` sees them: the caller
    /// asks once per name.
    public func forEachTag(zone: ZoneID, name: String, _ body: (StoredTag) throws -> Void) throws {
        let tags = try fetchAll(
            sql: "SELECT \(StoredTagSQL.columns) FROM tag WHERE zone_id = ? AND normalize(name) = ?",
            arguments: [zone.rawValue, name]
        ) { StoredTagSQL.decode($0) }
        for tag in tags { try body(tag) }
    }

    /// Through a scan of its own (`forEachRow`: a cursor on PostgreSQL): every tag.
    public func forEachTag(_ body: (StoredTag) throws -> Void) throws {
        try forEachRow(sql: "SELECT \(StoredTagSQL.columns) FROM tag", arguments: []) {
            try body(StoredTagSQL.decode($0))
        }
    }
}
