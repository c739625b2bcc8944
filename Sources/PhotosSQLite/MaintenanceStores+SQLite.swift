import PhotosModel

extension Database: ZonePurgeStore {
    public func zoneContents(_ zone: ZoneID) throws -> ZoneContents {
        let z: [SQLBindable] = [zone.rawValue]
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
        try Statement.prepare(
            self,
            "SELECT DISTINCT d.file_ref, d.sha256 FROM photo_data d JOIN photo p ON p.id = d.photo_id WHERE p.zone_id = ?"
        )
        .map([zone.rawValue]) { StoredFileReference(fileReference: $0.string(0), sha256: $0.string(1)) }
    }

    public func deleteZone(_ zone: ZoneID) throws {
        let z: [SQLBindable] = [zone.rawValue]
        // Cascades remove photo data, thumbnails, ratings, tag links and participants.
        try run("DELETE FROM photo WHERE zone_id = ?", z)
        try run("DELETE FROM tag WHERE zone_id = ?", z)
        try run("DELETE FROM share WHERE id = ?", z)
        try run("DELETE FROM zone WHERE id = ?", z)
    }
}

extension Database: TagDedupeStore {
    public func forEachTagInserted(after token: Int64, _ body: (ZoneID, String) throws -> Void) throws {
        try statement(
            """
            SELECT t.zone_id, t.name FROM history_change c JOIN tag t ON t.uuid = c.object_id
            WHERE c.entity = 'Tag' AND c.type = 'insert' AND c.token > ?
            """
        ).forEach([token]) { try body(ZoneID(rawValue: $0.string(0)), $0.string(1)) }
    }

    public func forEachTag(zone: ZoneID, name: String, _ body: (StoredTag) throws -> Void) throws {
        try statement("SELECT \(StoredTagRow.columns) FROM tag WHERE zone_id = ? AND name = ?")
            .forEach([zone.rawValue, name]) { try body(StoredTagRow.decode($0)) }
    }

    public func forEachTag(_ body: (StoredTag) throws -> Void) throws {
        try Statement.prepare(self, "SELECT \(StoredTagRow.columns) FROM tag").forEach {
            try body(StoredTagRow.decode($0))
        }
    }

    public func relinkCounts(_ merges: [TagMerge]) throws -> [Int] {
        var counts = Array(repeating: 0, count: merges.count)
        guard merges.contains(where: { !$0.losers.isEmpty }) else { return counts }
        try statement(
            """
            SELECT l.g, count(DISTINCT pt.photo_id)
            FROM (SELECT json_extract(value, '$.g') AS g, json_extract(value, '$.w') AS w,
                         json_extract(value, '$.l') AS l FROM json_each(?)) AS l
            JOIN photo_tag pt ON pt.tag_id = l.l
            WHERE NOT EXISTS (SELECT 1 FROM photo_tag x WHERE x.photo_id = pt.photo_id AND x.tag_id = l.w)
            GROUP BY l.g
            """
        ).forEach([TagMerge.loserRows(merges)]) { row in
            let g = Int(row.int64(0))
            if counts.indices.contains(g) { counts[g] = Int(row.int64(1)) }
        }
        return counts
    }

    public func mergeTags(_ merges: [TagMerge]) throws {
        guard merges.contains(where: { !$0.losers.isEmpty }) else { return }
        let losers = TagMerge.loserRows(merges)
        try run(
            """
            INSERT OR IGNORE INTO photo_tag (photo_id, tag_id)
            SELECT pt.photo_id, l.w
            FROM (SELECT json_extract(value, '$.w') AS w, json_extract(value, '$.l') AS l FROM json_each(?)) AS l,
                 photo_tag pt
            WHERE pt.tag_id = l.l
            """, [losers])
        // The losers' links go with them (ON DELETE CASCADE).
        try run("DELETE FROM tag WHERE id IN (SELECT json_extract(value, '$.l') FROM json_each(?))", [losers])
    }
}
