import Foundation
import PhotosSQLite

/// Counts and sizes of a library (`photos stats`).
public struct LibraryStats: Equatable {
    public var photos = 0
    /// Bytes of all originals as recorded (a file shared by several rows counts once).
    public var originalBytes: Int64 = 0
    public var thumbnailBytes: Int64 = 0
    public var tags = 0
    public var ratings = 0
    public var zones: [(id: String, scope: String, photos: Int)] = []
    public var shares = 0
    public var participants = 0
    public var historyTransactions = 0
    public var historyChanges = 0
    public var consumers = 0
    /// Bytes of `photos.sqlite` with its WAL.
    public var databaseBytes: Int64 = 0
    public var schemaVersion = 0

    public static func == (a: LibraryStats, b: LibraryStats) -> Bool { a.json == b.json }

    public var json: JSONValue {
        .object([
            ("photos", .int(photos)), ("originalBytes", .int(Int(originalBytes))), ("thumbnailBytes", .int(Int(thumbnailBytes))),
            ("tags", .int(tags)), ("ratings", .int(ratings)), ("shares", .int(shares)), ("participants", .int(participants)),
            ("zones", .array(zones.map { .object([("id", .string($0.id)), ("scope", .string($0.scope)), ("photos", .int($0.photos))]) })),
            ("historyTransactions", .int(historyTransactions)), ("historyChanges", .int(historyChanges)),
            ("consumers", .int(consumers)), ("databaseBytes", .int(Int(databaseBytes))), ("schemaVersion", .int(schemaVersion)),
        ])
    }
}

extension Library {
    /// Counts and sizes, read in one read transaction.
    /// - Throws: `SQLiteError`.
    public func stats() throws -> LibraryStats {
        var s = LibraryStats()
        try db.transaction(.deferred) {
            func count(_ sql: String) throws -> Int { try db.scalarInt(sql) ?? 0 }
            s.photos = try count("SELECT count(*) FROM photo")
            s.originalBytes = Int64(try count("SELECT COALESCE(sum(byte_size), 0) FROM (SELECT DISTINCT sha256, byte_size FROM photo_data)"))
            s.thumbnailBytes = Int64(try count("SELECT COALESCE(sum(length(data)), 0) FROM thumbnail"))
            s.tags = try count("SELECT count(*) FROM tag")
            s.ratings = try count("SELECT count(*) FROM rating")
            s.shares = try count("SELECT count(*) FROM share")
            s.participants = try count("SELECT count(*) FROM participant")
            s.historyTransactions = try count("SELECT count(*) FROM history_transaction")
            s.historyChanges = try count("SELECT count(*) FROM history_change")
            s.consumers = try count("SELECT count(*) FROM history_consumer")
            s.zones = try db.statement("SELECT z.id, z.scope, (SELECT count(*) FROM photo p WHERE p.zone_id = z.id) FROM zone z ORDER BY z.id <> 'default', z.id")
                .map { ($0.string(0), $0.string(1), $0.int(2)) }
            s.schemaVersion = try db.userVersion
        }
        for suffix in ["", "-wal"] {
            if let size = (try? FileManager.default.attributesOfItem(atPath: databasePath + suffix))?[.size] as? NSNumber {
                s.databaseBytes += size.int64Value
            }
        }
        return s
    }
}
