import PhotosModel
import PhotosSQL

/// Sync on SQLite: the statements are `PhotosSQL`'s (`SyncStore where Self: SQLConnection`,
/// SyncStore+SQL.swift); the backend keeps the photo insert (its row ids come from
/// `PhotoWriter`, `last_insert_rowid`) and the batched link-entry lookup below, whose range
/// join each planner needs spelled its own way.
extension Database: SyncStore {
    public func insertPhoto(
        _ photo: SyncPhotoValues, fileReference: String, thumbnail: (data: [UInt8], width: Int, height: Int)?
    ) throws -> Int64 {
        try PhotoWriter(self).insert(
            SyncSQL.photoRow(photo), sha256: photo.sha256, byteSize: photo.byteSize, fileReference: fileReference,
            thumbnail: thumbnail.map { ThumbnailRow(data: $0.data, width: $0.width, height: $0.height) })
    }
}

extension Database {
    /// SQLite's error for a broken catalog invariant: `SQLITE_ERROR` (1), as a failed
    /// statement gives.
    public func catalogInvariantError(_ message: String, sql: String) -> any Error {
        SQLiteError(extendedCode: 1, message: message, sql: sql)
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
