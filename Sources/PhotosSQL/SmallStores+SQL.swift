import PhotosModel

/// `ExportStore` on any `SQLConnection`.
extension ExportStore where Self: SQLConnection {
    public func photoExists(uniqueName: String) throws -> Bool {
        try fetchInt(sql: "SELECT 1 FROM photo WHERE unique_name = ?", arguments: [uniqueName]) != nil
    }
}

/// `ImportStore` on any `SQLConnection`.
extension ImportStore where Self: SQLConnection {
    public func importedOriginal(sha256: String, in scope: DuplicateScope) throws -> ImportedOriginal? {
        let (condition, arguments) = Self.duplicateCondition(scope)
        return try fetchOne(
            sql:
                "SELECT p.unique_name, p.display_name, d.file_ref, p.zone_id FROM photo_data d JOIN photo p ON p.id = d.photo_id WHERE d.sha256 = ? AND \(condition) ORDER BY d.id LIMIT 1",
            arguments: [sha256] + arguments
        ) {
            ImportedOriginal(
                uniqueName: $0.string(0), displayName: $0.string(1), fileReference: $0.string(2), zone: $0.string(3))
        }
    }

    /// `isRecordedOriginal`; PostgreSQL first takes the original's advisory lock.
    public func hasOriginal(sha256: String, in scope: DuplicateScope) throws -> Bool {
        try isRecordedOriginal(sha256: sha256, in: scope)
    }

    /// True when some photo of `scope` has an original of SHA-256 `sha256`.
    /// - Throws: the backend's error.
    public func isRecordedOriginal(sha256: String, in scope: DuplicateScope) throws -> Bool {
        let (condition, arguments) = Self.duplicateCondition(scope)
        return try fetchOne(
            sql:
                "SELECT 1 FROM photo_data d JOIN photo p ON p.id = d.photo_id WHERE d.sha256 = ? AND \(condition) LIMIT 1",
            arguments: [sha256] + arguments
        ) { _ in true } != nil
    }

    /// The condition on `p.zone_id` of `scope`, with its arguments.
    public static func duplicateCondition(_ scope: DuplicateScope) -> (String, [SQLBindable]) {
        scope.sqlCondition
    }
}

extension DuplicateScope {
    /// The condition on `p.zone_id` (a `photo p`) of this scope, with its arguments: one SQL
    /// for import's and merge's duplicate lookups.
    public var sqlCondition: (String, [SQLBindable]) {
        switch self {
        case .zone(let zone): return ("p.zone_id = ?", [zone])
        case .privateStore: return ("p.zone_id IN (SELECT id FROM zone WHERE scope = 'private')", [])
        }
    }
}

/// `StatsStore` on any catalog over an `SQLConnection`.
extension StatsStore where Self: LibraryStore & SQLConnection {
    /// The counts (`readCatalogCounts`) in one read transaction, with the schema version and
    /// the library id.
    /// - Throws: the backend's error.
    public func catalogStats() throws -> LibraryStats {
        var s = LibraryStats()
        try readTransaction {
            try readCatalogCounts(into: &s, byteLength: dialect.byteLength)
            s.schemaVersion = try schemaVersion()
            s.libraryID = try syncState().libraryID
        }
        return s
    }
}

extension SQLConnection {
    /// Fills the counts of `stats` (photos, original and thumbnail bytes, tags, ratings, shares,
    /// participants, history, consumers, zones with their photo counts); the caller reads them
    /// in one read transaction and adds the schema version and library id.
    /// - Parameters:
    ///   - stats: the statistics to fill.
    ///   - byteLength: the backend's function giving a blob's length in bytes
    ///     (`SQLDialect.byteLength`).
    /// - Throws: the backend's error.
    public func readCatalogCounts(into stats: inout LibraryStats, byteLength: String) throws {
        func count(_ sql: String) throws -> Int { try fetchInt(sql: sql, arguments: []) ?? 0 }
        stats.photos = try count("SELECT count(*) FROM photo")
        // Issue 25 item 2: photos per kind (every kind, 0 when none) and the total duration.
        var kinds: [String: Int] = [:]
        try forEachRow(sql: "SELECT kind, count(*) FROM photo GROUP BY kind", arguments: []) {
            kinds[$0.string(0)] = $0.int(1)
        }
        stats.kinds = LibraryStats.kindNames.map { ($0, kinds[$0] ?? 0) }
        stats.durationMS = Int64(try count("SELECT COALESCE(sum(duration_ms), 0) FROM photo"))
        // Issue 24 item 7: photos per format, and the RAWs per container.
        var formats: [String: Int] = [:]
        try forEachRow(sql: "SELECT format, count(*) FROM photo GROUP BY format", arguments: []) {
            formats[$0.string(0)] = $0.int(1)
        }
        stats.formats = ImageFormat.allCases.compactMap { f in formats[f.rawValue].map { (f.rawValue, $0) } }
        stats.cameraFormats = try fetchAll(
            sql: """
                SELECT COALESCE(camera_format, 'raw') AS name, count(*) FROM photo WHERE format = 'raw'
                GROUP BY COALESCE(camera_format, 'raw') ORDER BY name
                """,
            arguments: []
        ) { ($0.string(0), $0.int(1)) }
        stats.originalBytes = Int64(
            try count(
                "SELECT COALESCE(sum(byte_size), 0) FROM (SELECT DISTINCT sha256, byte_size FROM photo_data) AS originals"
            ))
        stats.thumbnailBytes = Int64(try count("SELECT COALESCE(sum(\(byteLength)(data)), 0) FROM thumbnail"))
        stats.tags = try count("SELECT count(*) FROM tag")
        stats.ratings = try count("SELECT count(*) FROM rating")
        stats.shares = try count("SELECT count(*) FROM share")
        stats.participants = try count("SELECT count(*) FROM participant")
        stats.historyTransactions = try count("SELECT count(*) FROM history_transaction")
        stats.historyChanges = try count("SELECT count(*) FROM history_change")
        stats.consumers = try count("SELECT count(*) FROM history_consumer")
        stats.zones = try fetchAll(
            sql:
                "SELECT z.id, z.scope, (SELECT count(*) FROM photo p WHERE p.zone_id = z.id) FROM zone z ORDER BY z.id <> 'default', z.id",
            arguments: []
        ) { ($0.string(0), $0.string(1), $0.int(2)) }
    }
}
