import PhotosModel
import PhotosSQL

/// Sync on PostgreSQL: the statements are `PhotosSQL`'s (`SyncStore where Self: SQLConnection`,
/// SyncStore+SQL.swift, the one spelling that differs asked of `SQLDialect.greatest`); the
/// backend keeps the photo insert (new row ids come back with `RETURNING`, in
/// `PostgresPhotoWriter`) and the batched link-entry lookup below, whose range join each
/// planner needs spelled its own way.
extension PostgresDatabase: SyncStore {
    /// Inserts through `PostgresPhotoWriter`; the apply has kept one photo per original in the
    /// photo's zone (issue 31 A1), a photo of another zone may have the same original.
    /// - Throws: `PostgresError` (`23505` for a uniqueName already in the catalog).
    public func insertPhoto(
        _ photo: SyncPhotoValues, fileReference: String, thumbnail: (data: [UInt8], width: Int, height: Int)?
    ) throws -> Int64 {
        try PostgresPhotoWriter(self).insert(
            SyncSQL.photoRow(photo), sha256: photo.sha256, byteSize: photo.byteSize, fileReference: fileReference,
            thumbnail: thumbnail)
    }
}

extension PostgresDatabase {
    /// PostgreSQL's error for a broken catalog invariant: `XX000` (internal_error).
    public func catalogInvariantError(_ message: String, sql: String) -> any Error {
        PostgresError(sqlState: "XX000", message: message, sql: sql)
    }
}

// MARK: a chunk of objects at a time

/// A photo's link entries, many photos per statement: per photo the primary-key range
/// [PHOTO/, PHOTO0) read by a LATERAL subquery, planned at every execution (a first reconcile
/// fills `sync_entry` from empty, and a generic plan made over the empty table scanned all of
/// it per slice: 0.3–3 s a slice at 20,000 photos). The rest of the reconciler's batched
/// statements are `PhotosSQL`'s (`SyncStore where Self: SQLConnection`).
extension PostgresDatabase {
    public func syncLinkEntries(ofPhotos uniqueNames: [String]) throws -> [SyncEntry] {
        // Per photo the primary-key range [PHOTO/, PHOTO0) of `syncLinkEntries(ofPhoto:)`; a
        // slice's surplus ranges are empty ('' to ''). Unlike SQLite's join (which reads each
        // range from the index), PostgreSQL's planner estimates a range join clause at a third of
        // the table and joined every PhotoTag entry with every range (5.3 s for 512 ranges over
        // 90,000 entries); a LATERAL subquery that cannot be pulled up (`OFFSET 0`) reads each
        // range from `sync_entry_pkey` (2 ms).
        var entries: [SyncEntry] = []
        for (range, size) in StatementBatches.lookups(uniqueNames.count) {
            var args: [PGBindable] = []
            for name in uniqueNames[range] { args += [name + "/", name + "0"] }
            for _ in range.count..<size { args += ["", ""] }
            _ = try planningEachExecution(
                """
                WITH r(lo, hi) AS (VALUES \(StatementBatches.placeholders(size, "(?, ?)")))
                SELECT e.entity, e.object_id, e.attribute, e.value, e.stamp_time, e.stamp_library, e.zone_id
                FROM r CROSS JOIN LATERAL (
                    SELECT * FROM sync_entry WHERE entity = 'PhotoTag' AND object_id >= r.lo AND object_id < r.hi
                    OFFSET 0) e
                """
            ).map(args) { row in if let e = SyncSQL.entry(row) { entries.append(e) } }
        }
        return entries
    }
}
