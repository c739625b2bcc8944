import PhotosModel

/// The columns and row decoding of `sync_entry` (migration 6) that both backends read.
public enum SyncSQL {
    /// The select list `entry(_:)` decodes.
    public static let entryColumns = "entity, object_id, attribute, value, stamp_time, stamp_library, zone_id"

    /// A row of `entryColumns`; nil for an entity this version does not know.
    public static func entry(_ row: some SQLRow) -> SyncEntry? {
        guard let entity = SyncEntity(rawValue: row.string(0)) else { return nil }
        return SyncEntry(
            entity: entity, objectID: row.string(1), attribute: row.string(2), value: row.optionalString(3),
            stamp: SyncStamp(time: row.string(4), library: row.string(5)), zone: row.optionalString(6))
    }
}

/// The reconciler's reads and writes of many objects per statement on any `SQLConnection`
/// (`StatementBatches`: key lists as `IN (…)` of a few fixed sizes, entries written as multi-row
/// `INSERT … ON CONFLICT … DO UPDATE`). Each backend keeps `syncLinkEntries(ofPhotos:)`, whose
/// range lookup each planner needs spelled its own way.
extension SyncStore where Self: SQLConnection {
    public func syncStateIsEmpty() throws -> Bool {
        try fetchInt(
            sql: """
                SELECT CASE WHEN EXISTS (SELECT 1 FROM sync_entry) OR EXISTS (SELECT 1 FROM sync_applied)
                    OR EXISTS (SELECT 1 FROM sync_peer) OR EXISTS (SELECT 1 FROM sync_membership) THEN 0 ELSE 1 END
                """, arguments: []) == 1
    }

    /// Runs `sql`, its `{keys}` replaced by an `IN` list's placeholders, once per slice of `keys`
    /// (`StatementBatches.lookups`; a slice's surplus placeholders repeat one of its keys),
    /// calling `body` with every row.
    /// - Parameter replan: plan each slice for its keys (`fetchAllPlanningEachExecution`).
    private func lookUp(
        _ keys: [String], _ sql: String, before: [SQLBindable] = [], after: [SQLBindable] = [],
        planningEachExecution replan: Bool = false, _ body: (ResultRow) throws -> Void
    ) throws {
        for (range, size) in StatementBatches.lookups(keys.count) {
            let slice: [SQLBindable] =
                Array(keys[range]) + Array(repeating: keys[range.lowerBound], count: size - range.count)
            let text = sql.replacing("{keys}", with: StatementBatches.placeholders(size))
            let arguments = before + slice + after
            _ =
                try replan
                ? fetchAllPlanningEachExecution(sql: text, arguments: arguments, body)
                : fetchAll(sql: text, arguments: arguments, body)
        }
    }

    public func syncEntries(_ entity: SyncEntity, _ objectIDs: [String]) throws -> [SyncEntry] {
        var entries: [SyncEntry] = []
        try lookUp(
            objectIDs, "SELECT \(SyncSQL.entryColumns) FROM sync_entry WHERE entity = ? AND object_id IN ({keys})",
            before: [entity.rawValue], planningEachExecution: true
        ) { row in if let e = SyncSQL.entry(row) { entries.append(e) } }
        return entries
    }

    public func putSyncEntries(_ entries: [SyncEntry], token: Int64) throws {
        for range in StatementBatches.writes(entries.count) {
            var args: [SQLBindable] = []
            args.reserveCapacity(range.count * 8)
            for e in entries[range] {
                args += [
                    e.entity.rawValue, e.objectID, e.attribute, e.value, e.stamp.time, e.stamp.library, token, e.zone
                ]
            }
            try execute(
                sql: """
                    INSERT INTO sync_entry (entity, object_id, attribute, value, stamp_time, stamp_library, token, zone_id)
                    VALUES \(StatementBatches.placeholders(range.count, "(?, ?, ?, ?, ?, ?, ?, ?)"))
                    ON CONFLICT (entity, object_id, attribute) DO UPDATE SET value = excluded.value,
                        stamp_time = excluded.stamp_time, stamp_library = excluded.stamp_library, token = excluded.token,
                        zone_id = excluded.zone_id
                    """, arguments: args)
        }
    }

    public func newestHistoryTimestamps(
        entity: String, objectIDs: [String], excludingContext excludedContext: String
    ) throws -> [String: String] {
        // `entity || ''` keeps the planner on the object index (`history_change_object`): on
        // `history_change_entity` SQLite read every change of the entity per slice; the
        // transaction is looked up per change by its key (a join's generic plan on PostgreSQL
        // scanned all of `history_transaction` per slice).
        var times: [String: String] = [:]
        try lookUp(
            objectIDs,
            """
            SELECT c.object_id, max((SELECT t.timestamp FROM history_transaction t WHERE t.token = c.token AND t.context <> ?))
            FROM history_change c WHERE c.object_id IN ({keys}) AND c.entity || '' = ? GROUP BY c.object_id
            """, before: [excludedContext], after: [entity]
        ) { row in if !row.isNull(1) { times[row.string(0)] = row.string(1) } }
        return times
    }

    public func catalogAttributes(_ entity: SyncEntity, _ objectIDs: [String]) throws -> [String: [String: String]] {
        var result: [String: [String: String]] = [:]
        // Integers read as their decimal text on both backends.
        func rows(_ names: [String], _ sql: String) throws {
            try lookUp(objectIDs, sql) { r in
                var values: [String: String] = [:]
                for (i, name) in names.enumerated() where !r.isNull(i + 1) { values[name] = r.string(i + 1) }
                result[r.string(0)] = values
            }
        }
        switch entity {
        case .share:
            try rows(
                ["title", "created", "publicPermission", "scope"],
                "SELECT s.id, s.title, s.created, s.public_permission, z.scope FROM share s JOIN zone z ON z.id = s.id WHERE s.id IN ({keys})"
            )
        case .participant:
            try rows(
                ["share", "email", "role", "permission", "acceptance"],
                "SELECT uuid, share_id, email, role, permission, acceptance FROM participant WHERE uuid IN ({keys})")
        case .photo:
            try rows(
                SyncEntity.photo.attributes,
                """
                SELECT p.unique_name, p.display_name, p.imported_at, p.capture_date, p.capture_offset, p.capture_source,
                       p.width, p.height, p.format, p.orientation, p.zone_id, d.sha256, d.byte_size
                FROM photo p LEFT JOIN photo_data d ON d.photo_id = p.id WHERE p.unique_name IN ({keys})
                """)
        case .tag:
            // In NFC: a name another program stored decomposed travels in the one form a
            // changeset may carry (#31 A9), and compares equal to what was sent before.
            try rows(["name", "zone"], "SELECT uuid, normalize(name), zone_id FROM tag WHERE uuid IN ({keys})")
        case .rating:
            try rows(
                ["photo", "value", "author"],
                "SELECT r.uuid, p.unique_name, r.value, r.author FROM rating r JOIN photo p ON p.id = r.photo_id WHERE r.uuid IN ({keys})"
            )
        case .photoTag:
            for id in objectIDs { result[id] = try catalogAttributes(.photoTag, id) }
        }
        return result
    }

    public func tagUUIDs(ofPhotos uniqueNames: [String]) throws -> [String: [String]] {
        var tags: [String: [String]] = [:]
        try lookUp(
            uniqueNames,
            """
            SELECT p.unique_name, t.uuid FROM photo_tag pt JOIN photo p ON p.id = pt.photo_id
            JOIN tag t ON t.id = pt.tag_id WHERE p.unique_name IN ({keys}) ORDER BY p.unique_name, t.uuid
            """
        ) { row in tags[row.string(0), default: []].append(row.string(1)) }
        return tags
    }
}
