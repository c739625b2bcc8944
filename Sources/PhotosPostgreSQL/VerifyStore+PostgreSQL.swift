import Foundation
import PhotosModel
import PhotosSQL

extension PostgresDatabase: VerifyStore {
    /// The catalog's indexes the server marks invalid (a failed `CREATE INDEX CONCURRENTLY`,
    /// PostgreSQL docs §52.26 `pg_index.indisvalid`), one line per index. PostgreSQL has no
    /// `integrity_check` in SQL (page checksums and `amcheck` are the server administrator's),
    /// so `thorough` (`verify`) and quick (`verify --quick`) run the same catalog query: it
    /// reads `pg_index` only, O(number of indexes), whatever the catalog's size.
    /// - Throws: `PostgresError`.
    public func storageProblems(thorough: Bool) throws -> [String] {
        try statement(
            """
            SELECT 'index ' || c.relname || ' is invalid' FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
            JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = current_schema() AND NOT i.indisvalid
            ORDER BY c.relname
            """
        ).map { $0.string(0) }
    }

    /// Memory a sort or hash of verify's checks may take before it spills to temporary files
    /// (`work_mem`, PostgreSQL docs §20.4.1; the server's default is 4 MB): the cross-zone join
    /// hashes a million photos' ids and zones, about 60 MB. Set for the snapshot readers'
    /// transactions only (`SET LOCAL`).
    static let verifyWorkMemory = "128MB"

    /// What verify's transactions set for themselves (`SET LOCAL`, PostgreSQL docs §20.4.1,
    /// §20.7.4): `work_mem` (`verifyWorkMemory`), and no JIT compilation — each scan of a million
    /// rows was costed above `jit_above_cost`, and compiling with inlining and optimization
    /// took about a second of server time per statement, for expressions evaluated once a row.
    static let verifySettings = "SET LOCAL work_mem = '\(verifyWorkMemory)'; SET LOCAL jit = off"

    /// Connections that import the snapshot of this connection's read transaction
    /// (`pg_export_snapshot()`, then `BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY` and
    /// `SET TRANSACTION SNAPSHOT` on each, PostgreSQL docs §9.27.5). This transaction and
    /// theirs take `verifySettings`. A connection that cannot be opened is left out.
    /// - Throws: `PostgresError` when the snapshot cannot be exported (not in a transaction).
    public func openSnapshotReaders(count: Int) throws -> [VerifySnapshotReader] {
        try execute(PostgresDatabase.verifySettings)
        guard count > 0 else { return [] }
        guard let snapshot = try scalarString("SELECT pg_export_snapshot()") else { return [] }
        // A snapshot name is a server-made identifier (hex digits and dashes); quoted anyway.
        let quoted = "'" + snapshot.replacingOccurrences(of: "'", with: "''") + "'"
        return VerifySnapshotReader.open(
            count: count, connect: { try? PostgresDatabase(connectionString, busyTimeout: busyTimeout) },
            begin: {
                try $0.execute(
                    "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; SET TRANSACTION SNAPSHOT \(quoted); \(PostgresDatabase.verifySettings)"
                )
            },
            end: {
                if $0.isInTransaction { try? $0.execute("ROLLBACK") }
                $0.close()
            })
    }

    /// None: PostgreSQL enforces every foreign key at each statement, and no migration turns
    /// enforcement off.
    public func danglingReferences() throws -> [DanglingReference] { [] }

    public func crossZoneTagLinks() throws -> [CrossZoneTagLink] {
        try statement(
            """
            SELECT p.unique_name, p.display_name, p.zone_id, t.name, t.uuid, t.zone_id FROM photo_tag pt
            JOIN photo p ON p.id = pt.photo_id JOIN tag t ON t.id = pt.tag_id
            WHERE p.zone_id <> t.zone_id
            """
        ).streamedMap {
            CrossZoneTagLink(
                photo: PhotoName(uniqueName: $0.string(0), displayName: $0.string(1)), photoZone: $0.string(2),
                tagName: $0.string(3), tagUUID: $0.string(4), tagZone: $0.string(5))
        }
    }

    /// The photos found first (a `MATERIALIZED` common table expression, PostgreSQL docs
    /// §7.8.3), then sorted: a cursor's plan is costed for its first tenth of rows
    /// (`cursor_tuple_fraction`), and for `ORDER BY unique_name` over the whole table that was
    /// the uniqueName index, a million heap rows fetched in its order (1.5 s of server time on
    /// 1,000,000 photos) instead of a sequential scan and a sort of the few found (0.15 s).
    public func photosWithImpossibleDisplayName() throws -> [(uniqueName: String, displayName: [UInt8])] {
        try statement(
            """
            WITH found AS MATERIALIZED (
                SELECT unique_name, display_name FROM photo
                WHERE strpos(display_name, '/') > 0 OR display_name IN ('', '.', '..'))
            SELECT unique_name, convert_to(display_name, 'UTF8') FROM found ORDER BY unique_name
            """
        ).streamedMap { ($0.string(0), $0.bytes(1)) }
    }

    /// None while `photo_data.sha256` has a unique index of its own that the server enforces
    /// (`photo_data_sha256_key` before migration 7 dropped it, issue 31 A1; issue 12 item 3: valid, ready, on that one column,
    /// no predicate, no expression: PostgreSQL docs, `pg_index`): the server refuses every
    /// second row with a SHA-256, as it enforces the foreign keys (`danglingReferences`), and
    /// grouping a million SHA-256s to find none took 1.4 s of server time. Without such an index
    /// (dropped, invalid after a failed `CREATE INDEX CONCURRENTLY`, partial) the rows are
    /// grouped, as on SQLite, whose schema has no such constraint.
    public func photosSharingOriginals() throws -> [(sha256: String, photos: [PhotoName])] {
        let enforced =
            try scalarInt(
                """
                SELECT count(*) FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid
                JOIN pg_namespace n ON n.oid = c.relnamespace
                JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = i.indkey[0]
                WHERE n.nspname = current_schema() AND c.relname = 'photo_data' AND a.attname = 'sha256'
                  AND i.indisunique AND i.indisvalid AND i.indisready AND i.indislive AND i.indnatts = 1
                  AND i.indpred IS NULL AND i.indexprs IS NULL
                """) ?? 0 > 0
        if enforced { return [] }
        let rows = try statement(
            """
            SELECT d.sha256, p.zone_id, p.unique_name, p.display_name FROM photo_data d JOIN photo p ON p.id = d.photo_id
            WHERE d.sha256 IN (SELECT sha256 FROM photo_data GROUP BY sha256 HAVING count(*) > 1)
            ORDER BY d.sha256, p.zone_id, d.id
            """
        ).streamedMap {
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

    /// Asked in two steps: whether any lowercased uniqueName is had by two photos (one scan and
    /// a hash aggregate), and only then the photos of those (the catalog read again, sorted). A
    /// sound catalog has none, so it costs one scan instead of the aggregate, a join and a sort
    /// of every photo by the lowercased name (0.9 s instead of 2.2 s of server time on
    /// 1,000,000 photos).
    public func photosWithUniqueNamesDifferingInCase() throws -> [[PhotoName]] {
        guard
            try scalarInt(
                "SELECT count(*) FROM (SELECT 1 FROM photo GROUP BY lower(unique_name) HAVING count(*) > 1 LIMIT 1) d"
            ) ?? 0 > 0
        else { return [] }
        let rows = try statement(
            """
            SELECT lower(unique_name), unique_name, display_name FROM photo
            WHERE lower(unique_name) IN (SELECT lower(unique_name) FROM photo GROUP BY 1 HAVING count(*) > 1)
            ORDER BY 1, id
            """
        ).streamedMap { (key: $0.string(0), photo: PhotoName(uniqueName: $0.string(1), displayName: $0.string(2))) }
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
        ).streamedMap {
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

    /// Recorded originals through a cursor, each next page asked for before `body` sees the
    /// current one (`PGStatement.forEach(_:prefetching:_:)`): the server reads it while verify
    /// checks the files of this one. In order of the photos' ids: a cursor's plan is costed
    /// for its first rows (`cursor_tuple_fraction`), and `ORDER BY d.id` was a nested loop, a
    /// `photo_pkey` search per original; by `d.photo_id` it is a merge join of the two unique
    /// indexes read in order (server time on 1,000,000 photos 1.18 -> 0.39 s). Verify puts the
    /// problems back in row order (`RecordedOriginal.rowID`).
    public func forEachRecordedOriginal(_ body: (RecordedOriginal) throws -> Void) throws {
        try statement(
            """
            SELECT p.unique_name, p.display_name, d.sha256, d.byte_size, d.file_ref, p.zone_id, d.id
            FROM photo_data d JOIN photo p ON p.id = d.photo_id ORDER BY d.photo_id
            """
        ).forEach([], prefetching: true) {
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
        .streamedMap { PhotoName(uniqueName: $0.string(0), displayName: $0.string(1)) }
    }

    public func photosWithoutThumbnail() throws -> [PhotoName] {
        try statement(
            "SELECT p.unique_name, p.display_name FROM photo p WHERE NOT EXISTS (SELECT 1 FROM thumbnail t WHERE t.photo_id = p.id)"
        )
        .streamedMap { PhotoName(uniqueName: $0.string(0), displayName: $0.string(1)) }
    }

    /// Thumbnails in order of their id, read through a cursor in pages of
    /// `PostgresDatabase.pageRows` (`PGStatement.forEach`), so that memory holds one page, not
    /// the catalog's every thumbnail (libpq keeps a whole result in memory, libpq docs §34.3.2).
    public func forEachThumbnail(_ body: (RecordedThumbnail) throws -> Void) throws {
        try statement(
            "SELECT p.unique_name, p.display_name, t.data, t.width, t.height, p.width, p.height FROM thumbnail t JOIN photo p ON p.id = t.photo_id ORDER BY t.id"
        ).forEach { row in
            try body(
                RecordedThumbnail(
                    photo: PhotoName(uniqueName: row.string(0), displayName: row.string(1)), data: row.bytes(2),
                    width: row.int(3), height: row.int(4), photoWidth: row.int(5), photoHeight: row.int(6)))
        }
    }

    /// Thumbnail heads in order of their photos' ids, through a cursor as `forEachThumbnail`; the server
    /// cuts them out (`substring`, `octet_length`: on a TOASTed value only the slices asked
    /// for are read, PostgreSQL docs §73.2), so a page of 1,000 rows is about `headBytes` × 2
    /// × 1,000 bytes of hex text instead of whole thumbnails. Each next page is asked for
    /// before `body` sees the current one (`PGStatement.forEach(_:prefetching:_:)`): the
    /// server reads it meanwhile.
    public func forEachThumbnailHead(headBytes: Int, _ body: (ThumbnailHead) throws -> Void) throws {
        // Each value detoasted once (`data || ''` in a subquery kept apart by OFFSET 0, its rows
        // in photo_id order so that the join keeps that order without a sort), not once per
        // `substring`: a thumbnail stored out of line (a real JPEG's, which pglz does not
        // shrink) costs one TOAST index scan instead of two; server time of the cut on 100,000
        // such thumbnails 0.83–1.04 -> 0.51 s, on pglz-compressed ones 0.36 -> 0.33 s.
        // In order of the photos' ids, as `forEachRecordedOriginal`: a merge join with `photo`
        // instead of a `photo_pkey` search per thumbnail (server time on 1,000,000 photos
        // 4.1 -> 2.9 s); verify puts the problems back in row order (`ThumbnailHead.rowID`).
        let sql = VerifySQL.thumbnailHeads(
            head: "substring(t.whole FROM 1 FOR CAST(? AS integer))",
            last: "substring(t.whole FROM greatest(octet_length(t.whole) - 1, 1))", length: "octet_length(t.whole)",
            thumbnails:
                "(SELECT id, photo_id, width, height, data || ''::bytea AS whole FROM thumbnail ORDER BY photo_id OFFSET 0)",
            order: "t.photo_id")
        try statement(sql).forEach([max(1, headBytes)], prefetching: true) { try body(VerifySQL.thumbnailHead($0)) }
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
