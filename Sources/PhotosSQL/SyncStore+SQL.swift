import PhotosModel

/// The columns and row decoding of `sync_entry` (migration 6) that both backends read.
public enum SyncSQL {
    /// The select list `entry(_:)` decodes.
    public static let entryColumns = "entity, object_id, attribute, value, stamp_time, stamp_library, zone_id"

    /// The `photo` row a synced photo is inserted as (each backend's photo writer inserts it).
    public static func photoRow(_ photo: SyncPhotoValues) -> PhotoRow {
        var row = PhotoRow(
            uniqueName: photo.uniqueName, displayName: photo.displayName, importedAt: photo.importedAt,
            captureDate: photo.captureDate, captureOffset: photo.captureOffset, captureSource: photo.captureSource,
            width: photo.width, height: photo.height, format: photo.format, orientation: photo.orientation,
            zoneID: photo.zone)
        (row.latitudeE7, row.longitudeE7, row.altitudeMM) = (photo.latitudeE7, photo.longitudeE7, photo.altitudeMM)
        (row.kind, row.durationMS, row.videoCodec) = (photo.kind, photo.durationMS, photo.videoCodec)
        (row.camera, row.cameraFormat) = (photo.camera, photo.cameraFormat)
        (row.title, row.description) = (photo.title, photo.description)
        row.placeName = photo.placeName
        return row
    }

    /// A row of `entryColumns`; nil for an entity this version does not know.
    public static func entry(_ row: some SQLRow) -> SyncEntry? {
        guard let entity = SyncEntity(rawValue: row.string(0)) else { return nil }
        return SyncEntry(
            entity: entity, objectID: row.string(1), attribute: row.string(2), value: row.optionalString(3),
            stamp: SyncStamp(time: row.string(4), library: row.string(5)), zone: row.optionalString(6))
    }
}

/// The SQL of sync (`SyncStore`) on any `SQLConnection`: the sync state (`sync_library`,
/// `sync_entry`, `sync_applied`, `sync_peer`, `sync_membership`, migration 6) and the catalog
/// read and written by identity, one statement text for both backends. Each backend keeps
/// `insertPhoto` (new row ids: SQLite's `last_insert_rowid`, PostgreSQL's `RETURNING`, in each
/// backend's photo writer) and `syncLinkEntries(ofPhotos:)` (below).
extension SyncStore where Self: SQLConnection {
    // MARK: state

    /// - Throws: the backend's error (`catalogInvariantError` when `sync_library` has no row:
    ///   migration 6 inserts it, so the catalog was changed by hand).
    public func syncState() throws -> SyncState {
        let sql = "SELECT id, change_token, reconciled_history_token FROM sync_library WHERE singleton = 1"
        let decoded = try fetchOne(sql: sql, arguments: []) {
            SyncState(libraryID: $0.string(0), changeToken: $0.int64(1), reconciledHistoryToken: $0.int64(2))
        }
        guard let state = decoded else {
            throw catalogInvariantError("sync_library has no row", sql: "SELECT … FROM sync_library")
        }
        return state
    }

    public func setLibraryID(_ id: String) throws {
        try execute(sql: "UPDATE sync_library SET id = ? WHERE singleton = 1", arguments: [id])
    }

    public func setSyncTokens(changeToken: Int64, reconciledHistoryToken: Int64) throws {
        try execute(
            sql: "UPDATE sync_library SET change_token = ?, reconciled_history_token = ? WHERE singleton = 1",
            arguments: [changeToken, reconciledHistoryToken])
    }

    public func syncEntries(_ entity: SyncEntity, _ objectID: String) throws -> [SyncEntry] {
        try fetchAll(
            sql: "SELECT \(SyncSQL.entryColumns) FROM sync_entry WHERE entity = ? AND object_id = ?",
            arguments: [entity.rawValue, objectID]
        ) { SyncSQL.entry($0) }.compactMap { $0 }
    }

    public func syncLinkEntries(ofPhoto uniqueName: String) throws -> [SyncEntry] {
        // A range on the primary key instead of LIKE: `/` sorts before `0` (on PostgreSQL the
        // column's collation is "C", byte order), so every `PHOTO/…` id lies in [PHOTO/, PHOTO0).
        try fetchPaged(
            sql:
                "SELECT \(SyncSQL.entryColumns) FROM sync_entry WHERE entity = 'PhotoTag' AND object_id >= ? AND object_id < ?",
            arguments: [uniqueName + "/", uniqueName + "0"]
        ) { SyncSQL.entry($0) }.compactMap { $0 }
    }

    public func putSyncEntry(_ entry: SyncEntry, token: Int64) throws {
        try execute(
            sql: """
                INSERT INTO sync_entry (entity, object_id, attribute, value, stamp_time, stamp_library, token, zone_id)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (entity, object_id, attribute) DO UPDATE SET value = excluded.value,
                    stamp_time = excluded.stamp_time, stamp_library = excluded.stamp_library, token = excluded.token,
                    zone_id = excluded.zone_id
                """,
            arguments: [
                entry.entity.rawValue, entry.objectID, entry.attribute, entry.value, entry.stamp.time,
                entry.stamp.library, token, entry.zone
            ])
    }

    /// Through a scan of its own (`forEachRow`: a cursor on PostgreSQL), so that `body` may
    /// run statements.
    public func forEachSyncEntry(after token: Int64, zone: String?, _ body: (SyncEntry) throws -> Void) throws {
        var sql = "SELECT \(SyncSQL.entryColumns) FROM sync_entry WHERE token > ?"
        var args: [SQLBindable] = [token]
        if let zone {
            sql += " AND zone_id = ?"
            args.append(zone)
        }
        try forEachRow(sql: sql + " ORDER BY entity, object_id, attribute", arguments: args) { row in
            if let e = SyncSQL.entry(row) { try body(e) }
        }
    }

    public func liveSyncObjects(_ entity: SyncEntity) throws -> [String] {
        try fetchAll(
            sql: """
                SELECT DISTINCT object_id FROM sync_entry e WHERE entity = ? AND NOT EXISTS (
                    SELECT 1 FROM sync_entry d WHERE d.entity = e.entity AND d.object_id = e.object_id
                    AND d.attribute = 'deleted')
                """, arguments: [entity.rawValue]
        ) { $0.string(0) }
    }

    // MARK: history

    public func newestHistoryToken() throws -> Int64 {
        Int64(try fetchInt(sql: "SELECT COALESCE(max(token), 0) FROM history_transaction", arguments: []) ?? 0)
    }

    public func oldestHistoryToken() throws -> Int64? {
        try fetchInt(sql: "SELECT min(token) FROM history_transaction", arguments: []).map(Int64.init)
    }

    public func historyObjects(after token: Int64, excludingContext excludedContext: String) throws -> [(
        entity: String, objectID: String, timestamp: String
    )] {
        try fetchPaged(
            sql: """
                SELECT c.entity, c.object_id, max(t.timestamp) FROM history_change c
                JOIN history_transaction t ON t.token = c.token
                WHERE c.token > ? AND t.context <> ?
                GROUP BY c.entity, c.object_id ORDER BY c.entity, c.object_id
                """, arguments: [token, excludedContext]
        ) { ($0.string(0), $0.string(1), $0.string(2)) }
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
        case .photoData:
            sql = """
                SELECT p.unique_name || '/' || d.role FROM photo_data d JOIN photo p ON p.id = d.photo_id
                WHERE d.role <> 'primary' ORDER BY 1
                """
        }
        return try fetchAll(sql: sql, arguments: []) { $0.string(0) }
    }

    public func catalogObjects(_ entity: SyncEntity, inZone zone: String) throws -> [String] {
        let sql: String
        switch entity {
        case .photo: sql = "SELECT unique_name FROM photo WHERE zone_id = ? ORDER BY unique_name"
        case .tag: sql = "SELECT uuid FROM tag WHERE zone_id = ? ORDER BY uuid"
        case .participant: sql = "SELECT uuid FROM participant WHERE share_id = ? ORDER BY uuid"
        case .share, .rating, .photoTag, .photoData: return []
        }
        return try fetchAll(sql: sql, arguments: [zone]) { $0.string(0) }
    }

    /// Integers read as their decimal text on both backends (SQLite's `sqlite3_column_text`
    /// of an INTEGER; PostgreSQL's results in text format).
    public func catalogAttributes(_ entity: SyncEntity, _ objectID: String) throws -> [String: String]? {
        func row(_ sql: String, _ names: [String]) throws -> [String: String]? {
            try fetchOne(sql: sql, arguments: [objectID]) { r in
                var values: [String: String] = [:]
                for (i, name) in names.enumerated() where !r.isNull(i) { values[name] = r.string(i) }
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
            return try Self.checkedPhotoAttributes(
                row(
                    """
                    SELECT p.display_name, p.imported_at, p.capture_date, p.capture_offset, p.capture_source, p.width,
                       p.height, p.format, p.orientation, p.zone_id, d.sha256, d.byte_size, p.latitude_e7,
                       p.longitude_e7, p.altitude_mm, p.kind, p.duration_ms, p.video_codec, p.camera_make,
                       p.camera_model, p.lens_model, p.camera_format, p.title, p.description, p.place_name
                    FROM photo p LEFT JOIN photo_data d ON d.photo_id = p.id AND d.role = 'primary' WHERE p.unique_name = ?
                    """, SyncEntity.photo.attributes))
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
        case .photoData:
            return try row(
                """
                SELECT d.sha256, d.byte_size, d.format FROM photo_data d JOIN photo p ON p.id = d.photo_id
                WHERE p.unique_name || '/' || d.role = ? AND d.role <> 'primary'
                """, SyncEntity.photoData.attributes)
        }
    }

    /// A photo's attributes as read for a changeset, with `format` and `orientation` decoded
    /// as every other read does (`ImageFormat(stored:)`, `Orientation(stored:)`): a value the
    /// schema's CHECKs allow not (a database written by hand) is never sent to a peer.
    /// - Returns: `values` unchanged (nil stays nil).
    /// - Throws: `StoredValueError` (`.corrupt`, exit 65) for an unknown format or orientation.
    static func checkedPhotoAttributes(_ values: [String: String]?) throws -> [String: String]? {
        guard let values else { return nil }
        if let format = values["format"] { _ = try ImageFormat(stored: format) }
        if let text = values["orientation"] {
            guard let value = Int(text) else { throw StoredValueError(column: "photo.orientation", value: text) }
            _ = try Orientation(stored: value)
        }
        return values
    }

    // MARK: applied ranges and acknowledgements

    public func appliedToken(sender: String, scope: String) throws -> Int64? {
        try fetchInt(sql: "SELECT token FROM sync_applied WHERE sender = ? AND scope = ?", arguments: [sender, scope])
            .map(Int64.init)
    }

    public func setAppliedToken(sender: String, scope: String, token: Int64) throws {
        try execute(
            sql: """
                INSERT INTO sync_applied (sender, scope, token) VALUES (?, ?, ?)
                ON CONFLICT (sender, scope) DO UPDATE SET token = excluded.token
                """, arguments: [sender, scope, token])
    }

    public func appliedTokens() throws -> [(sender: String, scope: String, token: Int64)] {
        try fetchAll(sql: "SELECT sender, scope, token FROM sync_applied ORDER BY sender, scope", arguments: []) {
            ($0.string(0), $0.string(1), $0.int64(2))
        }
    }

    public func acknowledgedToken(peer: String, scope: String) throws -> Int64? {
        try fetchInt(
            sql: "SELECT acknowledged FROM sync_peer WHERE library_id = ? AND scope = ?", arguments: [peer, scope]
        ).map(Int64.init)
    }

    public func setAcknowledgedToken(peer: String, scope: String, token: Int64) throws {
        // The row kept is named by its table: PostgreSQL finds a bare column ambiguous next to
        // `excluded`'s; SQLite accepts either (sqlite.org/lang_upsert.html).
        let greater = dialect.greatest("sync_peer.acknowledged", "excluded.acknowledged")
        try execute(
            sql: """
                INSERT INTO sync_peer (library_id, scope, acknowledged) VALUES (?, ?, ?)
                ON CONFLICT (library_id, scope) DO UPDATE SET acknowledged = \(greater)
                """, arguments: [peer, scope, token])
    }

    public func acknowledgedTokens() throws -> [(peer: String, scope: String, token: Int64)] {
        try fetchAll(
            sql: "SELECT library_id, scope, acknowledged FROM sync_peer ORDER BY library_id, scope", arguments: []
        ) { ($0.string(0), $0.string(1), $0.int64(2)) }
    }

    public func syncTombstones(before stampTime: String) throws -> [SyncTombstone] {
        try fetchAll(
            sql: """
                SELECT entity, object_id, token, zone_id FROM sync_entry
                WHERE attribute = 'deleted' AND stamp_time < ? ORDER BY token, entity, object_id
                """, arguments: [stampTime]
        ) { row -> SyncTombstone? in
            guard let entity = SyncEntity(rawValue: row.string(0)) else { return nil }
            return SyncTombstone(
                entity: entity, objectID: row.string(1), token: row.int64(2), zone: row.optionalString(3))
        }.compactMap { $0 }
    }

    public func deleteSyncObject(_ entity: SyncEntity, _ objectID: String) throws -> Int {
        try fetchAll(
            sql: "DELETE FROM sync_entry WHERE entity = ? AND object_id = ? RETURNING 1",
            arguments: [entity.rawValue, objectID]
        ) { $0.int(0) }.count
    }

    // MARK: sharing

    public func membership(zone: String) throws -> SyncMembership? {
        try fetchOne(
            sql: "SELECT zone_id, email, owner, left_at FROM sync_membership WHERE zone_id = ?", arguments: [zone]
        ) { SyncMembership(zone: $0.string(0), email: $0.string(1), owner: $0.string(2), leftAt: $0.optionalString(3)) }
    }

    public func memberships() throws -> [SyncMembership] {
        try fetchAll(sql: "SELECT zone_id, email, owner, left_at FROM sync_membership ORDER BY zone_id", arguments: [])
        { SyncMembership(zone: $0.string(0), email: $0.string(1), owner: $0.string(2), leftAt: $0.optionalString(3)) }
    }

    public func setMembership(_ m: SyncMembership) throws {
        try execute(
            sql: """
                INSERT INTO sync_membership (zone_id, email, owner, left_at) VALUES (?, ?, ?, ?)
                ON CONFLICT (zone_id) DO UPDATE SET email = excluded.email, owner = excluded.owner, left_at = excluded.left_at
                """, arguments: [m.zone, m.email, m.owner, m.leftAt])
    }

    public func ownerAddress() throws -> String? {
        try fetchOne(sql: "SELECT email FROM library_owner WHERE singleton = 1", arguments: []) { $0.string(0) }
    }

    public func setOwnerAddress(_ email: String?) throws {
        guard let email else {
            try execute(sql: "DELETE FROM library_owner", arguments: [])
            return
        }
        try execute(
            sql: """
                INSERT INTO library_owner (singleton, email) VALUES (1, ?)
                ON CONFLICT (singleton) DO UPDATE SET email = excluded.email
                """, arguments: [email])
    }

    // MARK: materializing

    public func putZone(_ id: String, scope: String) throws {
        try execute(
            sql:
                "INSERT INTO zone (id, name, scope) VALUES (?, ?, ?) ON CONFLICT (id) DO UPDATE SET scope = excluded.scope",
            arguments: [id, id, scope])
    }

    public func putShare(id: String, title: String, created: String, publicPermission: String) throws {
        try execute(
            sql: """
                INSERT INTO share (id, title, created, public_permission) VALUES (?, ?, ?, ?)
                ON CONFLICT (id) DO UPDATE SET title = excluded.title, public_permission = excluded.public_permission
                """, arguments: [id, title, created, publicPermission])
    }

    public func deleteZoneContents(_ id: String) throws -> [String] {
        let refs = try fetchPaged(
            sql: "SELECT DISTINCT d.file_ref FROM photo_data d JOIN photo p ON p.id = d.photo_id WHERE p.zone_id = ?",
            arguments: [id]
        ) { $0.string(0) }
        try execute(sql: "DELETE FROM photo WHERE zone_id = ?", arguments: [id])
        try execute(sql: "DELETE FROM tag WHERE zone_id = ?", arguments: [id])
        try execute(sql: "DELETE FROM share WHERE id = ?", arguments: [id])
        try execute(sql: "DELETE FROM zone WHERE id = ? AND id <> 'default'", arguments: [id])
        return refs
    }

    public func putParticipant(
        uuid: String, share: String, email: String, role: String, permission: String, acceptance: String
    ) throws {
        // One participant per (share, e-mail): of two uuids for the same address the smaller
        // stays, on every peer alike.
        if let other = try fetchString(
            sql: "SELECT uuid FROM participant WHERE share_id = ? AND email = ? AND uuid <> ?",
            arguments: [share, email, uuid])
        {
            guard uuid < other else { return }
            try execute(sql: "DELETE FROM participant WHERE uuid = ?", arguments: [other])
        }
        try execute(
            sql: """
                INSERT INTO participant (uuid, share_id, email, role, permission, acceptance) VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (uuid) DO UPDATE SET role = excluded.role, permission = excluded.permission,
                    acceptance = excluded.acceptance
                """, arguments: [uuid, share, email, role, permission, acceptance])
    }

    public func deleteParticipant(uuid: String) throws {
        try execute(sql: "DELETE FROM participant WHERE uuid = ?", arguments: [uuid])
    }

    public func setPhotoPosition(_ uniqueName: String, latitudeE7: Int?, longitudeE7: Int?, altitudeMM: Int?) throws {
        try execute(
            sql: "UPDATE photo SET latitude_e7 = ?, longitude_e7 = ?, altitude_mm = ? WHERE unique_name = ?",
            arguments: [latitudeE7, longitudeE7, altitudeMM, uniqueName])
    }

    public func setPhotoCaptureTime(
        _ uniqueName: String, captureDate: String?, captureOffset: Int?, captureSource: String?
    ) throws {
        try execute(
            sql: "UPDATE photo SET capture_date = ?, capture_offset = ?, capture_source = ? WHERE unique_name = ?",
            arguments: [captureDate, captureOffset, captureSource, uniqueName])
    }

    public func setPhotoKind(_ uniqueName: String, kind: String, durationMS: Int?, videoCodec: String?) throws {
        try execute(
            sql: "UPDATE photo SET kind = ?, duration_ms = ?, video_codec = ? WHERE unique_name = ?",
            arguments: [kind, durationMS, videoCodec, uniqueName])
    }

    public func setPhotoCamera(_ uniqueName: String, camera: CameraIdentity?, cameraFormat: String?) throws {
        try execute(
            sql:
                "UPDATE photo SET camera_make = ?, camera_model = ?, lens_model = ?, camera_format = ? WHERE unique_name = ?",
            arguments: [camera?.make, camera?.model, camera?.lens, cameraFormat, uniqueName])
    }

    public func setPhotoPlaceName(_ uniqueName: String, _ placeName: String?) throws {
        try execute(sql: "UPDATE photo SET place_name = ? WHERE unique_name = ?", arguments: [placeName, uniqueName])
    }

    public func setPhotoText(_ uniqueName: String, title: String?, description: String?) throws {
        try execute(
            sql: "UPDATE photo SET title = ?, description = ? WHERE unique_name = ?",
            arguments: [title, description, uniqueName])
    }

    public func setPhotoZone(_ uniqueName: String, zone: String) throws {
        try execute(sql: "UPDATE photo SET zone_id = ? WHERE unique_name = ?", arguments: [zone, uniqueName])
    }

    public func putTag(uuid: String, name: String, zone: String) throws {
        try execute(
            sql: """
                INSERT INTO tag (uuid, name, zone_id) VALUES (?, ?, ?)
                ON CONFLICT (uuid) DO UPDATE SET name = excluded.name, zone_id = excluded.zone_id
                """, arguments: [uuid, name, zone])
    }

    public func putRating(uuid: String, photo: String, value: Int, author: String?) throws {
        // The casts type the parameters of the SELECT list, which PostgreSQL cannot infer there
        // (a NULL author); on SQLite they leave a TEXT, an INTEGER and a NULL as they are
        // (sqlite.org/lang_expr.html#castexpr).
        try execute(
            sql: """
                INSERT INTO rating (uuid, photo_id, value, author)
                SELECT CAST(? AS TEXT), id, CAST(? AS INTEGER), CAST(? AS TEXT) FROM photo WHERE unique_name = ?
                ON CONFLICT (uuid) DO UPDATE SET value = excluded.value
                """, arguments: [uuid, value, author, photo])
    }

    public func rating(ofPhoto photo: String, author: String) throws -> String? {
        try fetchString(
            sql:
                "SELECT r.uuid FROM rating r JOIN photo p ON p.id = r.photo_id WHERE p.unique_name = ? AND r.author = ?",
            arguments: [photo, author])
    }

    public func setLink(photo: String, tag: String, present: Bool) throws -> Bool {
        if present {
            try execute(
                sql: """
                    INSERT INTO photo_tag (photo_id, tag_id)
                    SELECT p.id, t.id FROM photo p, tag t WHERE p.unique_name = ? AND t.uuid = ?
                    ON CONFLICT (photo_id, tag_id) DO NOTHING
                    """, arguments: [photo, tag])
        } else {
            try execute(
                sql: """
                    DELETE FROM photo_tag WHERE photo_id = (SELECT id FROM photo WHERE unique_name = ?)
                    AND tag_id = (SELECT id FROM tag WHERE uuid = ?)
                    """, arguments: [photo, tag])
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
        case .share, .photoTag, .photoData: return nil
        }
        return try fetchInt(sql: sql, arguments: [objectID]).map(Int64.init)
    }

    public func deleteObject(_ entity: SyncEntity, _ objectID: String) throws {
        let sql: String
        switch entity {
        case .photo: sql = "DELETE FROM photo WHERE unique_name = ?"
        case .tag: sql = "DELETE FROM tag WHERE uuid = ?"
        case .rating: sql = "DELETE FROM rating WHERE uuid = ?"
        case .participant: sql = "DELETE FROM participant WHERE uuid = ?"
        case .photoData:
            guard let slash = objectID.lastIndex(of: "/") else { return }
            _ = try deleteExtraOriginal(
                photo: String(objectID[..<slash]), role: String(objectID[objectID.index(after: slash)...]))
            return
        case .share, .photoTag: return
        }
        try execute(sql: sql, arguments: [objectID])
    }

    // MARK: originals other than the primary (issue 24 item 2, schema 16)

    public func putExtraOriginal(_ o: SyncOriginal, fileReference: String) throws {
        try execute(
            sql: """
                INSERT INTO photo_data (photo_id, sha256, byte_size, file_ref, role, format)
                SELECT id, ?, ?, ?, ?, ? FROM photo WHERE unique_name = ?
                ON CONFLICT (photo_id, role) DO UPDATE SET sha256 = excluded.sha256, byte_size = excluded.byte_size,
                    file_ref = excluded.file_ref, format = excluded.format
                """, arguments: [o.sha256, o.byteSize, fileReference, o.role, o.format, o.photo])
    }

    public func deleteExtraOriginal(photo uniqueName: String, role: String) throws -> String? {
        guard role != "primary" else { return nil }
        let condition = "photo_id = (SELECT id FROM photo WHERE unique_name = ?) AND role = ?"
        let reference = try fetchOne(
            sql: "SELECT file_ref FROM photo_data WHERE \(condition)", arguments: [uniqueName, role]
        ) { $0.string(0) }
        guard let reference else { return nil }
        try execute(sql: "DELETE FROM photo_data WHERE \(condition)", arguments: [uniqueName, role])
        return reference
    }

    public func originalFiles() throws -> [(reference: String, sha256: String, byteSize: Int)] {
        var seen = Set<String>()
        return try fetchAll(
            sql: "SELECT file_ref, sha256, byte_size FROM photo_data ORDER BY file_ref, id", arguments: []
        ) { (reference: $0.string(0), sha256: $0.string(1), byteSize: $0.int(2)) }.filter {
            seen.insert($0.reference).inserted
        }
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
                       p.width, p.height, p.format, p.orientation, p.zone_id, d.sha256, d.byte_size, p.latitude_e7,
                       p.longitude_e7, p.altitude_mm, p.kind, p.duration_ms, p.video_codec, p.camera_make,
                       p.camera_model, p.lens_model, p.camera_format, p.title, p.description, p.place_name
                FROM photo p LEFT JOIN photo_data d ON d.photo_id = p.id AND d.role = 'primary' WHERE p.unique_name IN ({keys})
                """)
            for values in result.values { _ = try Self.checkedPhotoAttributes(values) }
        case .tag:
            // In NFC: a name another program stored decomposed travels in the one form a
            // changeset may carry (#31 A9), and compares equal to what was sent before.
            try rows(["name", "zone"], "SELECT uuid, normalize(name), zone_id FROM tag WHERE uuid IN ({keys})")
        case .rating:
            try rows(
                ["photo", "value", "author"],
                "SELECT r.uuid, p.unique_name, r.value, r.author FROM rating r JOIN photo p ON p.id = r.photo_id WHERE r.uuid IN ({keys})"
            )
        case .photoTag, .photoData:
            for id in objectIDs { result[id] = try catalogAttributes(entity, id) }
        }
        return result
    }

    public func extraOriginals(ofPhotos uniqueNames: [String]) throws -> [String: [SyncOriginal]] {
        var result: [String: [SyncOriginal]] = [:]
        try lookUp(
            uniqueNames,
            """
            SELECT p.unique_name, d.role, d.sha256, d.byte_size, d.format FROM photo_data d
            JOIN photo p ON p.id = d.photo_id WHERE p.unique_name IN ({keys}) AND d.role <> 'primary'
            ORDER BY p.unique_name, d.role
            """
        ) { r in
            result[r.string(0), default: []].append(
                SyncOriginal(
                    photo: r.string(0), role: r.string(1), sha256: r.string(2), byteSize: r.int(3),
                    format: r.optionalString(4)))
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
