import PhotosModel
import PhotosSQL

extension Database: VerifyStore {
    /// Seconds `openSnapshotReaders` waits for another writer's lock before it gives up (and
    /// verify reads everything on this connection): verify itself writes nothing, and a writer
    /// commits its batch within this.
    static let snapshotLockWait = 1.0

    /// Read-only connections to this database whose WAL snapshots are this connection's: a
    /// third connection takes the write lock (`BEGIN IMMEDIATE`, waiting up to
    /// `snapshotLockWait`), this connection and then each reader begin their read transaction
    /// (the first read fixes a WAL snapshot, https://www.sqlite.org/wal.html), and the lock is
    /// let go — no commit can fall between those reads, so all see the last commit before it.
    /// Empty when the lock cannot be had (a read-only library, a long writer).
    /// - Throws: `SQLiteError` from this connection's first read.
    public func openSnapshotReaders(count: Int) throws -> [VerifySnapshotReader] {
        guard count > 0, let locker = try? Database(path: path, busyTimeout: Database.snapshotLockWait) else {
            return []
        }
        defer { locker.close() }
        guard (try? locker.execute("BEGIN IMMEDIATE")) != nil else { return [] }
        defer { try? locker.execute("ROLLBACK") }
        // This connection's snapshot, fixed by its first read.
        _ = try scalarInt("SELECT count(*) FROM sqlite_schema")
        return VerifySnapshotReader.open(
            count: count, connect: { try? Database(path: path, readOnly: true, busyTimeout: busyTimeout) },
            begin: {
                try $0.execute("BEGIN DEFERRED")
                _ = try $0.scalarInt("SELECT count(*) FROM sqlite_schema")
            },
            end: {
                if $0.isInTransaction { try? $0.execute("ROLLBACK") }
                $0.close()
            })
    }

    public func storageProblems(thorough: Bool) throws -> [String] {
        try statement(thorough ? "PRAGMA integrity_check" : "PRAGMA quick_check").map { $0.string(0) }.filter {
            $0 != "ok"
        }
    }

    public func danglingReferences() throws -> [DanglingReference] {
        try statement("PRAGMA foreign_key_check").map {
            DanglingReference(table: $0.string(0), rowID: $0.int64(1), parent: $0.string(2))
        }
    }

    public func crossZoneTagLinks() throws -> [CrossZoneTagLink] {
        try statement(
            """
            SELECT p.unique_name, p.display_name, p.zone_id, t.name, t.uuid, t.zone_id FROM photo_tag pt
            JOIN photo p ON p.id = pt.photo_id JOIN tag t ON t.id = pt.tag_id
            WHERE p.zone_id <> t.zone_id
            """
        ).map {
            CrossZoneTagLink(
                photo: PhotoName(uniqueName: $0.string(0), displayName: $0.string(1)), photoZone: $0.string(2),
                tagName: $0.string(3), tagUUID: $0.string(4), tagZone: $0.string(5))
        }
    }

    public func photosWithImpossibleDisplayName() throws -> [(uniqueName: String, displayName: [UInt8])] {
        try statement(
            """
            SELECT unique_name, CAST(display_name AS BLOB) FROM photo
            WHERE instr(CAST(display_name AS BLOB), x'00') > 0 OR instr(display_name, '/') > 0 OR display_name IN ('', '.', '..')
            ORDER BY unique_name
            """
        ).map { ($0.string(0), $0.blob(1)) }
    }

    public func photosSharingOriginals() throws -> [(sha256: String, photos: [PhotoName])] {
        let rows = try statement(
            """
            SELECT d.sha256, p.zone_id, p.unique_name, p.display_name FROM photo_data d JOIN photo p ON p.id = d.photo_id
            WHERE d.sha256 IN (SELECT sha256 FROM photo_data GROUP BY sha256 HAVING count(*) > 1)
            ORDER BY d.sha256, p.zone_id, d.id
            """
        ).map {
            (
                key: $0.string(0) + " " + $0.string(1),
                photo: PhotoName(uniqueName: $0.string(2), displayName: $0.string(3))
            )
        }
        // Per zone (issue 31 A1): photos of different zones may share an original.
        return groupConsecutive(rows).filter { $0.photos.count > 1 }.map {
            (sha256: String($0.key.prefix(64)), photos: $0.photos)
        }
    }

    public func photosWithUniqueNamesDifferingInCase() throws -> [[PhotoName]] {
        let rows = try statement(
            """
            SELECT lower(unique_name), unique_name, display_name FROM photo
            WHERE lower(unique_name) IN (SELECT lower(unique_name) FROM photo GROUP BY 1 HAVING count(*) > 1)
            ORDER BY 1, id
            """
        ).map { (key: $0.string(0), photo: PhotoName(uniqueName: $0.string(1), displayName: $0.string(2))) }
        return groupConsecutive(rows).map(\.photos)
    }

    public func authoredRatingsOfPhotosRatedTwice() throws -> [AuthoredRating] {
        try statement(
            """
            SELECT p.unique_name, p.display_name, r.id, r.author, r.value FROM rating r JOIN photo p ON p.id = r.photo_id
            WHERE r.author IS NOT NULL AND r.photo_id IN
                (SELECT photo_id FROM rating WHERE author IS NOT NULL GROUP BY photo_id HAVING count(*) > 1)
            ORDER BY r.photo_id, r.id
            """
        ).map {
            AuthoredRating(
                photo: PhotoName(uniqueName: $0.string(0), displayName: $0.string(1)), rowID: $0.int64(2),
                author: $0.string(3), value: Int($0.int64(4)))
        }
    }

    public func allTags() throws -> [RecordedTag] {
        try statement("SELECT uuid, name, zone_id FROM tag ORDER BY zone_id, name, uuid").map {
            RecordedTag(uuid: $0.string(0), name: $0.string(1), zone: $0.string(2))
        }
    }

    public func forEachRecordedOriginal(_ body: (RecordedOriginal) throws -> Void) throws {
        try statement(
            """
            SELECT p.unique_name, p.display_name, d.sha256, d.byte_size, d.file_ref, p.zone_id, d.id
            FROM photo_data d JOIN photo p ON p.id = d.photo_id ORDER BY d.id
            """
        ).forEach {
            try body(
                RecordedOriginal(
                    photo: PhotoName(uniqueName: $0.string(0), displayName: $0.string(1)), sha256: $0.string(2),
                    byteSize: $0.int(3),
                    fileReference: $0.string(4), zone: $0.string(5), rowID: $0.int64(6)))
        }
    }

    public func photoCount() throws -> Int { try scalarInt("SELECT count(*) FROM photo") ?? 0 }

    public func recordedOriginalCount() throws -> Int { try scalarInt("SELECT count(*) FROM photo_data") ?? 0 }

    public func photosWithoutOriginal() throws -> [PhotoName] {
        try statement(
            "SELECT p.unique_name, p.display_name FROM photo p WHERE NOT EXISTS (SELECT 1 FROM photo_data d WHERE d.photo_id = p.id)"
        )
        .map { PhotoName(uniqueName: $0.string(0), displayName: $0.string(1)) }
    }

    public func photosWithoutThumbnail() throws -> [PhotoName] {
        try statement(
            "SELECT p.unique_name, p.display_name FROM photo p WHERE NOT EXISTS (SELECT 1 FROM thumbnail t WHERE t.photo_id = p.id)"
        )
        .map { PhotoName(uniqueName: $0.string(0), displayName: $0.string(1)) }
    }

    public func forEachThumbnail(_ body: (RecordedThumbnail) throws -> Void) throws {
        try Statement.prepare(
            self,
            "SELECT p.unique_name, p.display_name, t.data, t.width, t.height, p.width, p.height FROM thumbnail t JOIN photo p ON p.id = t.photo_id ORDER BY t.id"
        ).forEach { row in
            try body(
                RecordedThumbnail(
                    photo: PhotoName(uniqueName: row.string(0), displayName: row.string(1)), data: row.blob(2),
                    width: row.int(3), height: row.int(4), photoWidth: row.int(5), photoHeight: row.int(6)))
        }
    }

    public func forEachThumbnailHead(headBytes: Int, _ body: (ThumbnailHead) throws -> Void) throws {
        // A BLOB as stored; a value stored as TEXT by an outside write is taken as its bytes.
        let sql = VerifySQL.thumbnailHeads(
            head: "substr(CAST(t.data AS BLOB), 1, ?)", last: "substr(CAST(t.data AS BLOB), -2)",
            length: "length(CAST(t.data AS BLOB))")
        try forEachRow(sql: sql, arguments: [max(1, headBytes)]) { try body(VerifySQL.thumbnailHead($0)) }
    }

    public func relinkTag(
        photo uniqueName: String, zone: String, from tagUUID: String, toTagNamed name: String,
        newUUID: String
    ) throws -> (createdTag: Bool, uuid: String)? {
        guard
            let photoID = try scalarInt(
                "SELECT id FROM photo WHERE unique_name = ? AND zone_id = ?", [uniqueName, zone]),
            let (oldID, oldZone) = try statement(
                "SELECT t.id, t.zone_id FROM tag t JOIN photo_tag pt ON pt.tag_id = t.id WHERE t.uuid = ? AND pt.photo_id = ?"
            )
            .first([tagUUID, photoID], { ($0.int64(0), $0.string(1)) }), oldZone != zone
        else { return nil }
        let target: (id: Int64, uuid: String, created: Bool)
        if let found = try statement(
            "SELECT id, uuid FROM tag WHERE zone_id = ? AND normalize(name) = ? ORDER BY uuid LIMIT 1"
        )
        .first([zone, name], { ($0.int64(0), $0.string(1)) }) {
            target = (found.0, found.1, false)
        } else {
            target = (try insertTag(uuid: newUUID, name: name, zone: zone), newUUID, true)
        }
        try link(photo: Int64(photoID), tag: target.id)
        try run("DELETE FROM photo_tag WHERE photo_id = ? AND tag_id = ?", [photoID, oldID])
        return (target.created, target.uuid)
    }

    public func replaceFileReference(photo uniqueName: String, from: String, to: String) throws -> String? {
        guard
            let (dataID, zone) = try statement(
                "SELECT d.id, p.zone_id FROM photo_data d JOIN photo p ON p.id = d.photo_id WHERE p.unique_name = ? AND d.file_ref = ?"
            )
            .first([uniqueName, from], { ($0.int64(0), $0.string(1)) })
        else { return nil }
        try run("UPDATE photo_data SET file_ref = ? WHERE id = ?", [to, dataID])
        return zone
    }

    public func storeThumbnail(photo uniqueName: String, data: [UInt8], width: Int, height: Int) throws -> (
        zone: String, inserted: Bool
    )? {
        guard
            let (photoID, zone) = try statement("SELECT id, zone_id FROM photo WHERE unique_name = ?")
                .first([uniqueName], { ($0.int64(0), $0.string(1)) })
        else { return nil }
        if let thumbID = try scalarInt("SELECT id FROM thumbnail WHERE photo_id = ?", [photoID]) {
            try run("UPDATE thumbnail SET data = ?, width = ?, height = ? WHERE id = ?", [data, width, height, thumbID])
            return (zone, false)
        }
        try run(CatalogInserts.thumbnail, [photoID, data, width, height])
        return (zone, true)
    }
}
