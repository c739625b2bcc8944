import Foundation
import PhotosCore
import PhotosModel
import PhotosSQLite
import PhotosTestSupport
import XCTest

/// A changeset's SQLite file is someone else's (issue 31 item 17): before anything is read its
/// schema must be exactly the changeset's plain tables (no view, trigger, virtual table, extra
/// index or column), and reading it is bounded (no value longer than a row may hold, work by
/// the file's size). Otherwise it is refused with 65 at once, naming the changeset, and nothing
/// is written.
final class ChangesetFileHardeningTests: SyncTestCase {
    /// Exports a one-photo changeset of a new library, changes its file with `sql`, applies it
    /// to another new library and asserts it is refused at once with `expected` in the message,
    /// the receiver's catalog and external data unchanged.
    private func assertRefused(
        _ name: String, _ sql: String, _ expected: String, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let a = try library("A-" + name), b = try library("B-" + name)
        try importPhotos(a, count: 1, tags: ["Trip"])
        let cs = try export(a)
        let db = try Database(path: cs + "/changeset.sqlite")
        try db.execute("PRAGMA journal_mode = DELETE")
        try db.execute(sql)
        db.close()
        let dump = try LibrarySnapshot.dumpCatalog(b.root)
        let started = Date()
        let (code, message) = status { _ = try b.applyChangeset(at: cs) }
        XCTAssertEqual(code, .refused, message, file: file, line: line)
        XCTAssertLessThan(Date().timeIntervalSince(started), 10, "refused at once", file: file, line: line)
        XCTAssertTrue(message.contains("changeset \(cs) refused"), message, file: file, line: line)
        XCTAssertTrue(message.contains(expected), message, file: file, line: line)
        XCTAssertEqual(try LibrarySnapshot.dumpCatalog(b.root), dump, file: file, line: line)
        XCTAssertEqual(filesUnder(b.root + "/ExternalData"), [], file: file, line: line)
    }

    /// The example: `entry` a recursive view that never ends (it filled the temp disk).
    func testAnEntryTableThatIsARecursiveViewIsRefused() throws {
        try assertRefused(
            "recursive",
            """
            ALTER TABLE entry RENAME TO entry_rows;
            CREATE VIEW entry AS WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n)
                SELECT 'Photo' AS entity, printf('%036d', i) AS object_id, 'displayName' AS attribute,
                       'x' AS value, '2026-01-01T00:00:00.000Z' AS stamp_time,
                       '00000000-0000-4000-8000-000000000000' AS stamp_library, NULL AS zone_id FROM n;
            """, "view \"entry\"")
    }

    /// A view producing a huge header value (900 MB in the issue).
    func testAHeaderThatIsAViewOfAHugeValueIsRefused() throws {
        try assertRefused(
            "header-view",
            """
            ALTER TABLE header RENAME TO header_rows;
            CREATE VIEW header AS SELECT key, CASE key WHEN 'created' THEN hex(zeroblob(450000000)) ELSE value END AS value
                FROM header_rows;
            """, "view \"header\"")
    }

    /// A thumbnail table that is a view of huge blobs (1.7 GB RSS in the issue).
    func testAThumbnailThatIsAViewIsRefused() throws {
        try assertRefused(
            "thumbnail-view",
            """
            ALTER TABLE thumbnail RENAME TO thumbnail_rows;
            CREATE VIEW thumbnail AS SELECT photo, zeroblob(900000000) AS data, width, height FROM thumbnail_rows;
            """, "view \"thumbnail\"")
    }

    func testATriggerIsRefused() throws {
        try assertRefused(
            "trigger", "CREATE TRIGGER t AFTER INSERT ON header BEGIN DELETE FROM entry; END;", "trigger \"t\"")
    }

    func testAnExtraIndexIsRefused() throws {
        try assertRefused("index", "CREATE INDEX entry_value ON entry(value);", "index \"entry_value\"")
    }

    func testAnExtraTableIsRefused() throws {
        try assertRefused("table", "CREATE TABLE extra (x);", "table \"extra\"")
    }

    func testAMissingTableIsRefused() throws {
        try assertRefused("missing", "DROP TABLE acknowledgement;", "lacks table \"acknowledgement\"")
    }

    /// A generated column computes on every read (another way to a huge value).
    func testAGeneratedColumnIsRefused() throws {
        try assertRefused(
            "generated",
            """
            DROP TABLE original;
            CREATE TABLE original (sha256 TEXT PRIMARY KEY NOT NULL, byte_size INTEGER NOT NULL, path TEXT NOT NULL,
                big BLOB GENERATED ALWAYS AS (zeroblob(900000000)) VIRTUAL);
            """, "its table original has the columns")
    }

    /// A table whose columns are not the changeset's (renamed, reordered).
    func testOtherColumnsAreRefused() throws {
        try assertRefused(
            "columns", "ALTER TABLE entry RENAME COLUMN value TO v;", "its table entry has the columns")
    }

    /// A plain row holding a header value longer than any row may (`maxRowBytes`): not read.
    func testAHeaderValueLongerThanARowMayHoldIsRefused() throws {
        try assertRefused(
            "long-header", "UPDATE header SET value = hex(zeroblob(2000000)) WHERE key = 'created';",
            "a value longer than \(ChangesetDatabase.maxRowBytes) bytes")
    }

    /// A stored 2 MiB thumbnail blob is never read: a new photo's thumbnail is made here from
    /// its original, which is checked as import checks a file (issue 31 item 18), so the
    /// changeset applies with a thumbnail of at most 120 pixels and a few kilobytes.
    func testAThumbnailLongerThanARowMayHoldIsNotRead() throws {
        let a = try library("A-long-thumbnail"), b = try library("B-long-thumbnail")
        try importPhotos(a, count: 1, tags: ["Trip"])
        let cs = try export(a)
        let db = try Database(path: cs + "/changeset.sqlite")
        try db.execute("PRAGMA journal_mode = DELETE")
        try db.execute("UPDATE thumbnail SET data = zeroblob(2000000);")
        db.close()
        _ = try b.applyChangeset(at: cs)
        XCTAssertEqual(try photos(b).count, 1)
        let catalog = try TestCatalog(root: b.root)
        let size = try XCTUnwrap(try catalog.scalarInt("SELECT max(length(data)) FROM thumbnail"))
        XCTAssertLessThan(size, 100_000)
        XCTAssertLessThanOrEqual(try XCTUnwrap(try catalog.scalarInt("SELECT max(width) FROM thumbnail")), 120)
        XCTAssertLessThanOrEqual(try XCTUnwrap(try catalog.scalarInt("SELECT max(height) FROM thumbnail")), 120)
        try assertVerifyClean(b)
    }

    /// The sound changeset the other tests change is applied (the checks refuse only what
    /// they should).
    func testAnUnchangedChangesetIsApplied() throws {
        let a = try library("A-sound"), b = try library("B-sound")
        try importPhotos(a, count: 2, tags: ["Trip"])
        let cs = try export(a)
        _ = try b.applyChangeset(at: cs)
        XCTAssertEqual(try photos(b).count, 2)
        XCTAssertEqual(try b.tags().map(\.name), ["Trip"])
        try assertVerifyClean(b)
    }
}

/// After a changeset whose tokens ran ahead (a far-future toToken, within the bound of
/// plausible tokens), the next real changeset of that sender still brings its changes, and
/// the report says so: "Nothing new" only when applying changed nothing (issue 31 item 21).
final class ChangesetAheadTokenTests: SyncTestCase {
    func testAChangesetAfterAFarFutureTokenIsNotNothingNew() throws {
        let a = try library("A"), b = try library("B")
        let names = try importPhotos(a, count: 1, tags: ["Trip"])
        let first = try export(a)
        let db = try Database(path: first + "/changeset.sqlite")
        try db.execute("PRAGMA journal_mode = DELETE")
        let ahead = Int64(Date().timeIntervalSince1970 * 1000) + 300 * 24 * 3600 * 1000
        try db.execute("UPDATE header SET value = '\(ahead)' WHERE key = 'toToken'")
        db.close()
        let before = Int64(Date().timeIntervalSince1970 * 1000)
        let applied = try b.applyChangeset(at: first)
        XCTAssertFalse(applied.alreadyApplied)
        // Recorded no later than B's clock, not the forged token (faults of issue 31: it was).
        let recorded = try b.appliedToken(sender: try a.libraryID())
        XCTAssertGreaterThanOrEqual(recorded, before)
        XCTAssertLessThan(recorded, ahead - 299 * 24 * 3600 * 1000)
        // A real change after it: its tokens are below the forged one.
        _ = try a.addTag(try TagName(parsing: "Later"), to: [try a.resolvePhoto(names[0])], author: .default)
        let second = try export(a, since: 0)
        let report = try b.applyChangeset(at: second)
        XCTAssertGreaterThan(report.accepted, 0)
        XCTAssertFalse(report.alreadyApplied, "it brought a change: not 'Nothing new'")
        XCTAssertTrue(try b.resolvePhoto(names[0]).tags.contains("Later"))
        // Applied again, it changes nothing: that one is "Nothing new".
        let again = try b.applyChangeset(at: second)
        XCTAssertEqual(again.accepted, 0)
        XCTAssertTrue(again.alreadyApplied)
    }

    /// `sync --from` asks for what was not applied after the token recorded: after a forged
    /// far-future changeset it must still bring the sender's next real change.
    func testSyncFromAfterAFarFutureTokenBringsTheNextChange() throws {
        let a = try library("A"), b = try library("B")
        let names = try importPhotos(a, count: 1, tags: ["Trip"])
        let first = try export(a)
        let db = try Database(path: first + "/changeset.sqlite")
        try db.execute("PRAGMA journal_mode = DELETE")
        let ahead = Int64(Date().timeIntervalSince1970 * 1000) + 300 * 24 * 3600 * 1000
        try db.execute("UPDATE header SET value = '\(ahead)' WHERE key = 'toToken'")
        db.close()
        _ = try b.applyChangeset(at: first)
        _ = try a.addTag(try TagName(parsing: "Later"), to: [try a.resolvePhoto(names[0])], author: .default)
        let report = try b.sync(from: a)
        XCTAssertGreaterThan(report.accepted, 0)
        XCTAssertFalse(report.alreadyApplied)
        XCTAssertEqual(try b.resolvePhoto(names[0]).tags.sorted(), ["Later", "Trip"])
    }

    /// An acknowledgement in a changeset names a token of the receiver: one after the last token
    /// the receiver issued is recorded as that last token, so the receiver's `--since-peer`
    /// exports still carry its later changes.
    func testAFarFutureAcknowledgementIsRecordedAsTheReceiversLastToken() throws {
        let a = try library("A"), b = try library("B")
        let names = try importPhotos(a, count: 1, tags: ["Trip"])
        _ = try b.applyChangeset(at: try export(a))
        _ = try b.addTag(try TagName(parsing: "FromB"), to: [try b.resolvePhoto(names[0])], author: .default)
        let fromB = try export(b)
        let db = try Database(path: fromB + "/changeset.sqlite")
        try db.execute("PRAGMA journal_mode = DELETE")
        let ahead = Int64(Date().timeIntervalSince1970 * 1000) + 300 * 24 * 3600 * 1000
        try db.execute("UPDATE acknowledgement SET token = \(ahead) WHERE library_id = '\(try a.libraryID())'")
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM acknowledgement WHERE token = \(ahead)"), 1)
        db.close()
        _ = try a.applyChangeset(at: fromB)
        let acknowledged = try a.acknowledgedToken(peer: try b.libraryID())
        XCTAssertLessThan(acknowledged, ahead - 299 * 24 * 3600 * 1000)
        // A's next change goes to B with --since-peer B.
        _ = try a.addTag(try TagName(parsing: "Later"), to: [try a.resolvePhoto(names[0])], author: .default)
        let next = try export(a, since: try a.acknowledgedToken(peer: try b.libraryID()))
        let report = try b.applyChangeset(at: next)
        XCTAssertGreaterThan(report.accepted, 0)
        XCTAssertEqual(try b.resolvePhoto(names[0]).tags.sorted(), ["FromB", "Later", "Trip"])
    }
}
