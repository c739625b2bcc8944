import PhotosModel
import PhotosSQL

/// The SQL of sync (`SyncStore`): the sync state (`sync_library`, `sync_entry`, `sync_applied`,
/// `sync_peer`, migration 6) and the catalog read and written by identity. Only standard SQL
/// (`INSERT … ON CONFLICT … DO UPDATE`, joins, `max`), so that the PostgreSQL store spells the
/// same statements with `$n` placeholders.
extension Database: SyncStore {
    // MARK: state

    public func syncState() throws -> SyncState {
        guard
            let state = try statement(
                "SELECT id, change_token, reconciled_history_token FROM sync_library WHERE singleton = 1"
            ).first({
                SyncState(libraryID: $0.string(0), changeToken: $0.int64(1), reconciledHistoryToken: $0.int64(2))
            })
        else {
            // Migration 6 inserts the row; a library without it was damaged by hand.
            throw SQLiteError(extendedCode: 1, message: "sync_library has no row", sql: "SELECT … FROM sync_library")
        }
        return state
    }

    public func setLibraryID(_ id: String) throws {
        try run("UPDATE sync_library SET id = ? WHERE singleton = 1", [id])
    }

    public func setSyncTokens(changeToken: Int64, reconciledHistoryToken: Int64) throws {
        try run(
            "UPDATE sync_library SET change_token = ?, reconciled_history_token = ? WHERE singleton = 1",
            [changeToken, reconciledHistoryToken])
    }

    public func syncEntries(_ entity: SyncEntity, _ objectID: String) throws -> [SyncEntry] {
        try statement("SELECT \(SyncSQL.entryColumns) FROM sync_entry WHERE entity = ? AND object_id = ?")
            .map([entity.rawValue, objectID], SyncSQL.entry).compactMap { $0 }
    }

    public func syncLinkEntries(ofPhoto uniqueName: String) throws -> [SyncEntry] {
        // A range on the primary key instead of LIKE: `/` sorts before `0`, so every
        // `PHOTO/…` id lies in [PHOTO/, PHOTO0).
        try statement(
            "SELECT \(SyncSQL.entryColumns) FROM sync_entry WHERE entity = 'PhotoTag' AND object_id >= ? AND object_id < ?"
        )
        .map([uniqueName + "/", uniqueName + "0"], SyncSQL.entry).compactMap { $0 }
    }

    public func putSyncEntry(_ entry: SyncEntry, token: Int64) throws {
        try run(
            """
            INSERT INTO sync_entry (entity, object_id, attribute, value, stamp_time, stamp_library, token, zone_id)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (entity, object_id, attribute) DO UPDATE SET value = excluded.value,
                stamp_time = excluded.stamp_time, stamp_library = excluded.stamp_library, token = excluded.token,
                zone_id = excluded.zone_id
            """,
            [
                entry.entity.rawValue, entry.objectID, entry.attribute, entry.value, entry.stamp.time,
                entry.stamp.library, token, entry.zone
            ])
    }

    public func forEachSyncEntry(after token: Int64, zone: String?, _ body: (SyncEntry) throws -> Void) throws {
        var sql = "SELECT \(SyncSQL.entryColumns) FROM sync_entry WHERE token > ?"
        var args: [SQLBindable] = [token]
        if let zone {
            sql += " AND zone_id = ?"
            args.append(zone)
        }
        try statement(sql + " ORDER BY entity, object_id, attribute").forEach(args) { row in
            if let e = SyncSQL.entry(row) { try body(e) }
        }
    }

    public func liveSyncObjects(_ entity: SyncEntity) throws -> [String] {
        try statement(
            """
            SELECT DISTINCT object_id FROM sync_entry e WHERE entity = ? AND NOT EXISTS (
                SELECT 1 FROM sync_entry d WHERE d.entity = e.entity AND d.object_id = e.object_id
                AND d.attribute = 'deleted')
            """
        ).map([entity.rawValue]) { $0.string(0) }
    }

    // MARK: history

    public func newestHistoryToken() throws -> Int64 {
        Int64(try scalarInt("SELECT COALESCE(max(token), 0) FROM history_transaction") ?? 0)
    }

    public func oldestHistoryToken() throws -> Int64? {
        try scalarInt("SELECT min(token) FROM history_transaction").map(Int64.init)
    }

    public func historyObjects(after token: Int64, excludingContext excludedContext: String) throws -> [(
        entity: String, objectID: String, timestamp: String
    )] {
        try statement(
            """
            SELECT c.entity, c.object_id, max(t.timestamp) FROM history_change c
            JOIN history_transaction t ON t.token = c.token
            WHERE c.token > ? AND t.context <> ?
            GROUP BY c.entity, c.object_id ORDER BY c.entity, c.object_id
            """
        ).map([token, excludedContext]) { ($0.string(0), $0.string(1), $0.string(2)) }
    }

    // MARK: catalog by identity

    public func catalogObjects(_ entity: SyncEntity) throws -> [String] {
        let sql: String
        switch entity {
        case .share: sql = "SELECT id FROM share ORDER BY id"
        case .participant: sql = "SELECT uuid FROM participant ORDER BY uuid"
        case .photo: sql = "SELECT unique_name FROM photo ORDER BY unique_name"
        case .tag: sql = "SELECT uuid FROM tag ORDER BY uuid"
        case .rating: sql = "SELECT uuid FROM rating ORDER BY uuid"
        case .photoTag:
            sql = """
                SELECT p.unique_name || '/' || t.uuid FROM photo_tag pt JOIN photo p ON p.id = pt.photo_id
                JOIN tag t ON t.id = pt.tag_id ORDER BY 1
                """
        }
        return try statement(sql).map { $0.string(0) }
    }

    public func catalogObjects(_ entity: SyncEntity, inZone zone: String) throws -> [String] {
        let sql: String
        switch entity {
        case .photo: sql = "SELECT unique_name FROM photo WHERE zone_id = ? ORDER BY unique_name"
        case .tag: sql = "SELECT uuid FROM tag WHERE zone_id = ? ORDER BY uuid"
        case .participant: sql = "SELECT uuid FROM participant WHERE share_id = ? ORDER BY uuid"
        case .share, .rating, .photoTag: return []
        }
        return try statement(sql).map([zone]) { $0.string(0) }
    }

    public func catalogAttributes(_ entity: SyncEntity, _ objectID: String) throws -> [String: String]? {
        func row(_ sql: String, _ names: [String]) throws -> [String: String]? {
            try statement(sql).first([objectID]) { r in
                var values: [String: String] = [:]
                for (i, name) in names.enumerated() where !r.isNull(i) {
                    switch r.value(i) {
                    case .integer(let v): values[name] = String(v)
                    default: values[name] = r.string(i)
                    }
                }
                return values
            }
        }
        switch entity {
        case .share:
            return try row(
                "SELECT s.title, s.created, s.public_permission, z.scope FROM share s JOIN zone z ON z.id = s.id WHERE s.id = ?",
                ["title", "created", "publicPermission", "scope"])
        case .participant:
            return try row(
                "SELECT share_id, email, role, permission, acceptance FROM participant WHERE uuid = ?",
                ["share", "email", "role", "permission", "acceptance"])
        case .photo:
            return try row(
                """
                SELECT p.display_name, p.imported_at, p.capture_date, p.capture_offset, p.capture_source, p.width,
                       p.height, p.format, p.orientation, p.zone_id, d.sha256, d.byte_size
                FROM photo p LEFT JOIN photo_data d ON d.photo_id = p.id WHERE p.unique_name = ?
                """, SyncEntity.photo.attributes)
        case .tag:
            return try row("SELECT normalize(name), zone_id FROM tag WHERE uuid = ?", ["name", "zone"])
        case .rating:
            return try row(
                "SELECT p.unique_name, r.value, r.author FROM rating r JOIN photo p ON p.id = r.photo_id WHERE r.uuid = ?",
                ["photo", "value", "author"])
        case .photoTag:
            return try row(
                """
                SELECT 1 FROM photo_tag pt JOIN photo p ON p.id = pt.photo_id JOIN tag t ON t.id = pt.tag_id
                WHERE p.unique_name || '/' || t.uuid = ?
                """, ["present"])
        }
    }

    // MARK: applied ranges and acknowledgements

    public func appliedToken(sender: String, scope: String) throws -> Int64? {
        try scalarInt("SELECT token FROM sync_applied WHERE sender = ? AND scope = ?", [sender, scope]).map(Int64.init)
    }

    public func setAppliedToken(sender: String, scope: String, token: Int64) throws {
        try run(
            """
            INSERT INTO sync_applied (sender, scope, token) VALUES (?, ?, ?)
            ON CONFLICT (sender, scope) DO UPDATE SET token = excluded.token
            """, [sender, scope, token])
    }

    public func appliedTokens() throws -> [(sender: String, scope: String, token: Int64)] {
        try statement("SELECT sender, scope, token FROM sync_applied ORDER BY sender, scope")
            .map { ($0.string(0), $0.string(1), $0.int64(2)) }
    }

    public func acknowledgedToken(peer: String, scope: String) throws -> Int64? {
        try scalarInt("SELECT acknowledged FROM sync_peer WHERE library_id = ? AND scope = ?", [peer, scope])
            .map(Int64.init)
    }

    public func setAcknowledgedToken(peer: String, scope: String, token: Int64) throws {
        try run(
            """
            INSERT INTO sync_peer (library_id, scope, acknowledged) VALUES (?, ?, ?)
            ON CONFLICT (library_id, scope) DO UPDATE SET acknowledged = max(acknowledged, excluded.acknowledged)
            """, [peer, scope, token])
    }

    // MARK: sharing

    public func membership(zone: String) throws -> SyncMembership? {
        try statement("SELECT zone_id, email, owner, left_at FROM sync_membership WHERE zone_id = ?").first([zone]) {
            SyncMembership(zone: $0.string(0), email: $0.string(1), owner: $0.string(2), leftAt: $0.optionalString(3))
        }
    }

    public func memberships() throws -> [SyncMembership] {
        try statement("SELECT zone_id, email, owner, left_at FROM sync_membership ORDER BY zone_id").map {
            SyncMembership(zone: $0.string(0), email: $0.string(1), owner: $0.string(2), leftAt: $0.optionalString(3))
        }
    }

    public func setMembership(_ m: SyncMembership) throws {
        try run(
            """
            INSERT INTO sync_membership (zone_id, email, owner, left_at) VALUES (?, ?, ?, ?)
            ON CONFLICT (zone_id) DO UPDATE SET email = excluded.email, owner = excluded.owner, left_at = excluded.left_at
            """, [m.zone, m.email, m.owner, m.leftAt])
    }

    // MARK: materializing

    public func putZone(_ id: String, scope: String) throws {
        try run(
            "INSERT INTO zone (id, name, scope) VALUES (?, ?, ?) ON CONFLICT (id) DO UPDATE SET scope = excluded.scope",
            [id, id, scope])
    }

    public func putShare(id: String, title: String, created: String, publicPermission: String) throws {
        try run(
            """
            INSERT INTO share (id, title, created, public_permission) VALUES (?, ?, ?, ?)
            ON CONFLICT (id) DO UPDATE SET title = excluded.title, public_permission = excluded.public_permission
            """, [id, title, created, publicPermission])
    }

    public func deleteZoneContents(_ id: String) throws -> [String] {
        let refs = try statement(
            "SELECT DISTINCT d.file_ref FROM photo_data d JOIN photo p ON p.id = d.photo_id WHERE p.zone_id = ?"
        ).map([id]) { $0.string(0) }
        try run("DELETE FROM photo WHERE zone_id = ?", [id])
        try run("DELETE FROM tag WHERE zone_id = ?", [id])
        try run("DELETE FROM share WHERE id = ?", [id])
        try run("DELETE FROM zone WHERE id = ? AND id <> 'default'", [id])
        return refs
    }

    public func putParticipant(
        uuid: String, share: String, email: String, role: String, permission: String, acceptance: String
    ) throws {
        // One participant per (share, e-mail): of two uuids for the same address the smaller
        // stays, on every peer alike.
        if let other = try scalarString(
            "SELECT uuid FROM participant WHERE share_id = ? AND email = ? AND uuid <> ?", [share, email, uuid])
        {
            guard uuid < other else { return }
            try run("DELETE FROM participant WHERE uuid = ?", [other])
        }
        try run(
            """
            INSERT INTO participant (uuid, share_id, email, role, permission, acceptance) VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT (uuid) DO UPDATE SET role = excluded.role, permission = excluded.permission,
                acceptance = excluded.acceptance
            """, [uuid, share, email, role, permission, acceptance])
    }

    public func deleteParticipant(uuid: String) throws {
        try run("DELETE FROM participant WHERE uuid = ?", [uuid])
    }

    public func insertPhoto(
        _ photo: SyncPhotoValues, fileReference: String, thumbnail: (data: [UInt8], width: Int, height: Int)?
    ) throws -> Int64 {
        let row = PhotoRow(
            uniqueName: photo.uniqueName, displayName: photo.displayName, importedAt: photo.importedAt,
            captureDate: photo.captureDate, captureOffset: photo.captureOffset, captureSource: photo.captureSource,
            width: photo.width, height: photo.height, format: photo.format, orientation: photo.orientation,
            zoneID: photo.zone)
        return try PhotoWriter(self).insert(
            row, sha256: photo.sha256, byteSize: photo.byteSize, fileReference: fileReference,
            thumbnail: thumbnail.map { ThumbnailRow(data: $0.data, width: $0.width, height: $0.height) })
    }

    public func setPhotoZone(_ uniqueName: String, zone: String) throws {
        try run("UPDATE photo SET zone_id = ? WHERE unique_name = ?", [zone, uniqueName])
    }

    public func putTag(uuid: String, name: String, zone: String) throws {
        try run(
            """
            INSERT INTO tag (uuid, name, zone_id) VALUES (?, ?, ?)
            ON CONFLICT (uuid) DO UPDATE SET name = excluded.name, zone_id = excluded.zone_id
            """, [uuid, name, zone])
    }

    public func putRating(uuid: String, photo: String, value: Int, author: String?) throws {
        try run(
            """
            INSERT INTO rating (uuid, photo_id, value, author) SELECT ?, id, ?, ? FROM photo WHERE unique_name = ?
            ON CONFLICT (uuid) DO UPDATE SET value = excluded.value
            """, [uuid, value, author, photo])
    }

    public func rating(ofPhoto photo: String, author: String) throws -> String? {
        try scalarString(
            "SELECT r.uuid FROM rating r JOIN photo p ON p.id = r.photo_id WHERE p.unique_name = ? AND r.author = ?",
            [photo, author])
    }

    public func setLink(photo: String, tag: String, present: Bool) throws -> Bool {
        if present {
            try run(
                """
                INSERT INTO photo_tag (photo_id, tag_id)
                SELECT p.id, t.id FROM photo p, tag t WHERE p.unique_name = ? AND t.uuid = ?
                ON CONFLICT (photo_id, tag_id) DO NOTHING
                """, [photo, tag])
        } else {
            try run(
                """
                DELETE FROM photo_tag WHERE photo_id = (SELECT id FROM photo WHERE unique_name = ?)
                AND tag_id = (SELECT id FROM tag WHERE uuid = ?)
                """, [photo, tag])
        }
        return changes > 0
    }

    public func rowID(_ entity: SyncEntity, _ objectID: String) throws -> Int64? {
        let sql: String
        switch entity {
        case .photo: sql = "SELECT id FROM photo WHERE unique_name = ?"
        case .tag: sql = "SELECT id FROM tag WHERE uuid = ?"
        case .rating: sql = "SELECT id FROM rating WHERE uuid = ?"
        case .participant: sql = "SELECT id FROM participant WHERE uuid = ?"
        case .share, .photoTag: return nil
        }
        return try scalarInt(sql, [objectID]).map(Int64.init)
    }

    public func deleteObject(_ entity: SyncEntity, _ objectID: String) throws {
        switch entity {
        case .photo: try run("DELETE FROM photo WHERE unique_name = ?", [objectID])
        case .tag: try run("DELETE FROM tag WHERE uuid = ?", [objectID])
        case .rating: try run("DELETE FROM rating WHERE uuid = ?", [objectID])
        case .participant: try run("DELETE FROM participant WHERE uuid = ?", [objectID])
        case .share, .photoTag: break
        }
    }
}

// MARK: a chunk of objects at a time

/// A photo's link entries, many photos per statement: per photo the primary-key range
/// [PHOTO/, PHOTO0) joined from a `VALUES` list, which SQLite reads range by range from the
/// index. The rest of the reconciler's batched statements are `PhotosSQL`'s
/// (`SyncStore where Self: SQLConnection`).
extension Database {
    public func syncLinkEntries(ofPhotos uniqueNames: [String]) throws -> [SyncEntry] {
        // Per photo the primary-key range [PHOTO/, PHOTO0) of `syncLinkEntries(ofPhoto:)`; a
        // slice's surplus ranges are empty ('' to '').
        var entries: [SyncEntry] = []
        for (range, size) in StatementBatches.lookups(uniqueNames.count) {
            var args: [SQLBindable] = []
            for name in uniqueNames[range] { args += [name + "/", name + "0"] }
            for _ in range.count..<size { args += ["", ""] }
            try statement(
                """
                WITH r(lo, hi) AS (VALUES \(StatementBatches.placeholders(size, "(?, ?)")))
                SELECT e.entity, e.object_id, e.attribute, e.value, e.stamp_time, e.stamp_library, e.zone_id
                FROM r JOIN sync_entry e ON e.entity = 'PhotoTag' AND e.object_id >= r.lo AND e.object_id < r.hi
                """
            ).forEach(args) { row in if let e = SyncSQL.entry(row) { entries.append(e) } }
        }
        return entries
    }
}
