import Foundation
import PhotosModel
import PhotosSQL

/// `VerifyStore` on PostgreSQL: `PhotosSQL`'s `VerifyStore where Self: SQLConnection`, but for
/// what the server does its own way: snapshot readers importing an exported snapshot, the
/// storage check over `pg_index`, foreign keys always enforced, display names through
/// `convert_to`, the two checks asked a cheaper question first, and the scans of originals and
/// thumbnail heads through prefetching cursors in an order chosen for their plans.
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
        return enforced ? [] : try photosSharingOriginalsByGrouping()
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
        return try photosWithUniqueNamesDifferingInCaseByGrouping()
    }

    /// Recorded originals through a cursor, each next page asked for before `body` sees the
    /// current one (`PGStatement.forEach(_:prefetching:_:)`): the server reads it while verify
    /// checks the files of this one. In order of the photos' ids: a cursor's plan is costed
    /// for its first rows (`cursor_tuple_fraction`), and `ORDER BY d.id` was a nested loop, a
    /// `photo_pkey` search per original; by `d.photo_id` it is a merge join of the two unique
    /// indexes read in order (server time on 1,000,000 photos 1.18 -> 0.39 s). Verify puts the
    /// problems back in row order (`RecordedOriginal.rowID`).
    public func forEachRecordedOriginal(_ body: (RecordedOriginal) throws -> Void) throws {
        try statement(VerifySQL.recordedOriginals(order: "d.photo_id")).forEach([], prefetching: true) {
            try body(VerifySQL.recordedOriginal($0))
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
}
