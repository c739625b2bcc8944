import PhotosModel

/// The set-wise merge of `dedupe-tags` (`TagDedupeStore.relinkCounts`, `mergeTags`) on any
/// `SQLConnection`: a fixed number of statements for any number of groups.
extension TagDedupeStore where Self: SQLConnection {
    public func relinkCounts(_ merges: [TagMerge]) throws -> [Int] {
        var counts = Array(repeating: 0, count: merges.count)
        guard merges.contains(where: { !$0.losers.isEmpty }) else { return counts }
        let losers = dialect.jsonRecordsSQL("l", ["g": "bigint", "w": "bigint", "l": "bigint"])
        try forEachRow(
            sql: """
                SELECT l.g, count(DISTINCT pt.photo_id) FROM \(losers)
                JOIN photo_tag pt ON pt.tag_id = l.l
                WHERE NOT EXISTS (SELECT 1 FROM photo_tag x WHERE x.photo_id = pt.photo_id AND x.tag_id = l.w)
                GROUP BY l.g
                """,
            arguments: [TagMerge.loserRows(merges)]
        ) { row in
            let g = row.int(0)
            if counts.indices.contains(g) { counts[g] = row.int(1) }
        }
        return counts
    }

    public func mergeTags(_ merges: [TagMerge]) throws {
        guard merges.contains(where: { !$0.losers.isEmpty }) else { return }
        let losers = TagMerge.loserRows(merges)
        // A photo of two losers of one group gets the winner once: DO NOTHING skips rows the
        // same statement inserted (PostgreSQL docs "INSERT … ON CONFLICT", sqlite.org/lang_upsert.html;
        // the WHERE clause keeps SQLite from reading ON as a join's).
        try execute(
            sql: """
                INSERT INTO photo_tag (photo_id, tag_id)
                SELECT pt.photo_id, l.w FROM \(dialect.jsonRecordsSQL("l", ["w": "bigint", "l": "bigint"])), photo_tag pt
                WHERE pt.tag_id = l.l ORDER BY 1, 2 ON CONFLICT DO NOTHING
                """,
            arguments: [losers])
        // The losers' links go with them (ON DELETE CASCADE).
        try execute(
            sql: "DELETE FROM tag WHERE id IN (SELECT l.l FROM \(dialect.jsonRecordsSQL("l", ["l": "bigint"])))",
            arguments: [losers])
    }
}

/// `HistoryStore.appendTagMergeChangesSetWise` on any `SQLConnection`.
extension HistoryStore where Self: SQLConnection {
    public func appendTagMergeChangesSetWise(_ merges: [TagMerge], token: Int64) throws {
        guard merges.contains(where: { !$0.losers.isEmpty }) else { return }
        let losers = TagMerge.loserRows(merges)
        let photo = HistoryEntity.photo.rawValue, tag = HistoryEntity.tag.rawValue
        // A photo's one change sits where the row-wise merge first records it: at its first
        // loser (smallest ordinal), among that loser's photos by unique name (on PostgreSQL in
        // the "C" collation of `photo.unique_name`). Rows get their ids in the order of the
        // ORDER BY (the sort runs below the INSERT that draws them).
        try execute(
            sql: """
                INSERT INTO history_change (token, entity, object_id, type, updated, tombstone, zone_id)
                SELECT ?, c.entity, c.object_id, c.type, c.updated, c.tombstone, c.zone_id FROM (
                    SELECT min(l.o) AS o, 0 AS step, CAST(? AS text) AS entity, p.unique_name AS object_id,
                        CAST('update' AS text) AS type, CAST(? AS text) AS updated, CAST(NULL AS text) AS tombstone,
                        p.zone_id AS zone_id
                    FROM \(dialect.jsonRecordsSQL("l", ["o": "bigint", "l": "bigint"]))
                    JOIN photo_tag pt ON pt.tag_id = l.l JOIN photo p ON p.id = pt.photo_id
                    GROUP BY p.id
                    UNION ALL
                    SELECT d.o, 1, ?, d.u, 'delete', NULL, d.t, d.z
                    FROM \(dialect.jsonRecordsSQL("d", ["o": "bigint", "u": "text", "t": "text", "z": "text"]))
                    UNION ALL
                    SELECT w.o, 2, ?, w.u, 'update', ?, NULL, w.z
                    FROM \(dialect.jsonRecordsSQL("w", ["o": "bigint", "u": "text", "z": "text"]))
                ) AS c ORDER BY c.o, c.step, c.object_id
                """,
            arguments: [
                token, photo, JSONValue.array([.string("tags")]).serialized(), losers, tag, losers, tag,
                JSONValue.array([.string("photos")]).serialized(), TagMerge.winnerUpdateRows(merges)
            ])
    }
}
