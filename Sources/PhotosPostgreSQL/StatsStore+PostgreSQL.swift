import PhotosModel

extension PostgresDatabase: StatsStore {
    public func catalogStats() throws -> LibraryStats {
        var s = LibraryStats()
        try transaction(.read) {
            func count(_ sql: String) throws -> Int { try scalarInt(sql) ?? 0 }
            s.photos = try count("SELECT count(*) FROM photo")
            s.originalBytes = Int64(
                try count(
                    "SELECT COALESCE(sum(byte_size), 0) FROM (SELECT DISTINCT sha256, byte_size FROM photo_data) AS originals"
                )
            )
            s.thumbnailBytes = Int64(try count("SELECT COALESCE(sum(octet_length(data)), 0) FROM thumbnail"))
            s.tags = try count("SELECT count(*) FROM tag")
            s.ratings = try count("SELECT count(*) FROM rating")
            s.shares = try count("SELECT count(*) FROM share")
            s.participants = try count("SELECT count(*) FROM participant")
            s.historyTransactions = try count("SELECT count(*) FROM history_transaction")
            s.historyChanges = try count("SELECT count(*) FROM history_change")
            s.consumers = try count("SELECT count(*) FROM history_consumer")
            s.zones = try statement(
                "SELECT z.id, z.scope, (SELECT count(*) FROM photo p WHERE p.zone_id = z.id) FROM zone z ORDER BY z.id <> 'default', z.id"
            )
            .map { ($0.string(0), $0.string(1), $0.int(2)) }
            s.schemaVersion = try schemaVersion()
            s.libraryID = try syncState().libraryID
        }
        return s
    }
}
