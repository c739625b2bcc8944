import Foundation
import PhotosPostgreSQL
import PhotosSQLite
import PhotosTestSupport
import XCTest

/// `photos catalog move --to CONNINFO|sqlite`: a library's catalog copied between SQLite and
/// PostgreSQL with every row (ids, uuids, history tokens, consumers, tombstones, sync state),
/// the folder switched over last, the old catalog kept; a target with rows, a busy library and
/// a running import are refused and leave the library on its catalog. Each test names the
/// backends it moves between, so the binary runs as given (`runAsGiven`): a new library is a
/// SQLite one in both runs of the suite.
final class CatalogMoveCLITests: BinaryTestCase {
    override var label: String { "photos-catalog-move" }

    private var drops: [@Sendable () -> Void] = []

    override func tearDown() {
        for drop in drops { drop() }
        drops = []
        super.tearDown()
    }

    /// A new empty schema on the test server (skips without `PHOTOS_TEST_DATABASE_URL`).
    private func newDatabase() throws -> String {
        let made = try TestDatabase.makeSchema()
        drops.append(made.drop)
        return made.connectionString
    }

    @discardableResult
    private func ok(_ args: [String], file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let r = try runAsGiven(args)
        XCTAssertEqual(r.status, 0, "\(args): \(r.stderr)", file: file, line: line)
        return r.stdout
    }

    private func object(_ text: String) throws -> [String: Any] {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], text)
    }

    private func uniqueNames(_ lib: String) throws -> [String] {
        try ok(["--library", lib, "list", "--json"]).split(separator: "\n")
            .map { try XCTUnwrap(try object(String($0))["uniqueName"] as? String) }
    }

    /// Files of `makeInput(copies: 1)`: distinct from the samples and from each other.
    private func freshFiles() throws -> [String] {
        let (input, _) = try makeInput(copies: 1)
        return try FileManager.default.contentsOfDirectory(atPath: input).sorted().map { input + "/" + $0 }
    }

    /// A library with photos, a tag, ratings by two authors, a share with an owner and an
    /// invited participant, a purged share and a deleted photo (tombstones), history by four
    /// authors, changes applied from another library by sync, and a consumer that has read
    /// everything. Returns the first photo's uniqueName.
    @discardableResult
    private func makeRichLibrary(_ lib: String, other: String, otherFile: String) throws -> String {
        try ok(["--library", lib, "--author", "ann", "import", "-q", samplesDir])
        let names = try uniqueNames(lib)
        XCTAssertEqual(names.count, 6)
        try ok(["--library", lib, "--author", "ann", "tag", "add", "Trip", names[0], names[1]])
        try ok(["--library", lib, "--author", "ann", "rate", names[0], "3"])
        try ok(["--library", lib, "--author", "bob", "rate", names[0], "5"])
        let share = try object(
            try ok([
                "--library", lib, "--author", "bob", "--json", "share", "create", "--title", "Trip", "--owner",
                "me@example.com", names[1]
            ]))
        let id = try XCTUnwrap(share["id"] as? String)
        try ok(["--library", lib, "--author", "bob", "share", "invite", id, "carol@example.com"])
        let gone = try object(try ok(["--library", lib, "--json", "share", "create", "--title", "Gone", names[2]]))
        try ok(["--library", lib, "purge", "-q", "--share", try XCTUnwrap(gone["id"] as? String)])
        try ok(["--library", lib, "--author", "carol", "delete", "-q", names[3]])
        try ok(["--library", other, "--author", "dan", "import", "-q", otherFile])
        try ok(["--library", lib, "sync", "-q", "--from", other])
        try ok(["--library", lib, "history", "--consumer", "backup", "--advance", "-q"])
        return names[0]
    }

    /// What the commands show of a library, backend-neutral.
    private func views(_ lib: String, photo: String) throws -> [String] {
        try [
            ["list", "--json"], ["history", "--json"], ["history", "consumers"], ["share", "list", "--json"],
            ["tag", "list", "--json"], ["rating", "list", photo, "--json"]
        ].map { try ok(["--library", lib] + $0) }
    }

    private func assertVerifyClean(_ lib: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let out = try ok(["--library", lib, "verify"], file: file, line: line)
        XCTAssertTrue(out.contains(": 0 problems"), out, file: file, line: line)
    }

    private func moved(_ lib: String, _ prefix: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: lib).filter { $0.hasPrefix(prefix + ".moved-") }
    }

    func testRoundTripThroughPostgreSQLGivesTheSameCatalogAndNoReplay() throws {
        let database = try newDatabase()
        let lib = dir + "/lib", other = dir + "/other"
        let photo = try makeRichLibrary(lib, other: other, otherFile: try freshFiles()[0])
        let before = try LibrarySnapshot.dumpDatabase(lib + "/photos.sqlite")
        // The library holds what the copy must keep (the comparison below is not vacuous).
        for table in [
            "participant", "rating", "photo_tag", "thumbnail", "history_change", "history_consumer", "sync_entry",
            "sync_applied", "sync_library", "sqlite_sequence"
        ] {
            XCTAssertTrue(before.contains { $0.hasPrefix("  \(table): ") }, "no rows in \(table)")
        }
        XCTAssertTrue(
            before.contains { $0.hasPrefix("  history_change: ") && $0.contains("\"delete\"") }, "no tombstones")
        let shown = try views(lib, photo: photo)
        try assertVerifyClean(lib)

        let out = try ok(["--library", lib, "catalog", "move", "--to", database])
        XCTAssertTrue(out.contains("Moved the catalog of library \(lib)"), out)
        XCTAssertTrue(FileManager.default.fileExists(atPath: lib + "/catalog.postgresql"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: lib + "/photos.sqlite"))
        let kept = try moved(lib, "photos.sqlite")
        XCTAssertEqual(kept.count, 1)
        XCTAssertEqual(try LibrarySnapshot.dumpDatabase(lib + "/" + (kept.first ?? "")), before, "old catalog kept")
        try assertVerifyClean(lib)
        XCTAssertEqual(try views(lib, photo: photo), shown)
        // The consumer read everything before the move: nothing to replay.
        XCTAssertEqual(try ok(["--library", lib, "history", "--consumer", "backup", "--advance", "--json"]), "")

        let back = try ok(["--library", lib, "--json", "catalog", "move", "--to", "sqlite"])
        XCTAssertEqual(try object(back)["to"] as? String, "sqlite")
        XCTAssertFalse(FileManager.default.fileExists(atPath: lib + "/catalog.postgresql"))
        XCTAssertEqual(try moved(lib, "catalog.postgresql").count, 1)
        // The same catalog, and what the PostgreSQL catalog recorded of its places (issue 31
        // item A3: the originals root and the library folder, which a SQLite library ignores).
        let after = try LibrarySnapshot.dumpDatabase(lib + "/photos.sqlite")
        let places = after.filter { $0.hasPrefix("  catalog_originals: ") || $0.hasPrefix("  catalog_folder: ") }
        XCTAssertEqual(after.filter { !places.contains($0) }, before)
        XCTAssertEqual(places.count, 2, places.joined(separator: "\n"))
        XCTAssertTrue(places.contains { $0.contains("text(\"\(lib)/ExternalData\")") }, places.joined(separator: "\n"))
        try assertVerifyClean(lib)
        XCTAssertEqual(try ok(["--library", lib, "history", "--consumer", "backup", "--advance", "--json"]), "")
    }

    /// After the move new rows get the ids after the copied ones and the next history token
    /// is the one after the last the SQLite catalog issued.
    func testIdsAndHistoryTokensContinueAfterTheCopiedOnes() throws {
        let database = try newDatabase()
        let lib = dir + "/lib", other = dir + "/other"
        let files = try freshFiles()
        try makeRichLibrary(lib, other: other, otherFile: files[0])
        let sqlite = try Database(path: lib + "/photos.sqlite", readOnly: true)
        let issued = try XCTUnwrap(
            try sqlite.scalarInt("SELECT seq FROM sqlite_sequence WHERE name = 'history_transaction'"))
        let maxPhoto = try XCTUnwrap(try sqlite.scalarInt("SELECT max(id) FROM photo"))
        sqlite.close()
        // Compaction removes every transaction: only the issued token says where to go on.
        try ok(["--library", lib, "history", "compact", "-q", "--before-token", "\(issued + 1)"])
        XCTAssertEqual(try ok(["--library", lib, "history", "--json"]), "")
        try ok(["--library", lib, "catalog", "move", "-q", "--to", database])

        try ok(["--library", lib, "--author", "eve", "import", "-q", files[1]])
        let pg = try PostgresDatabase(database)
        XCTAssertEqual(try pg.scalarInt("SELECT max(id) FROM photo"), maxPhoto + 1)
        XCTAssertEqual(try pg.scalarInt("SELECT min(token) FROM history_transaction"), issued + 1)
        XCTAssertEqual(try pg.scalarInt("SELECT max(token) FROM history_transaction"), issued + 1)
        XCTAssertEqual(
            try pg.scalarString("SELECT author FROM history_transaction WHERE token = ?", [issued + 1]), "eve")
        // The consumer sees exactly the one new transaction.
        let replay = try ok(["--library", lib, "history", "--consumer", "backup", "--advance", "--json"])
        XCTAssertEqual(replay.split(separator: "\n").count, 1, replay)
        let line = try XCTUnwrap(replay.split(separator: "\n").first)
        XCTAssertEqual(try object(String(line))["token"] as? Int, issued + 1)
    }

    /// #31 A8: the ids of rows deleted before a move are not given again after it, either way:
    /// each table's highest issued id travels with the copy (`sqlite_sequence`, the identity
    /// sequence), not only its largest remaining id.
    func testIdsOfRowsDeletedBeforeAMoveAreNotGivenAgain() throws {
        let database = try newDatabase()
        let lib = dir + "/lib"
        let files = try freshFiles()
        try ok(["--library", lib, "import", "-q", samplesDir + "/storm.jpg", samplesDir + "/path.jpg"])
        let names = try uniqueNames(lib)
        try ok(["--library", lib, "--author", "ann", "rate", "-q", names[0], "3"])
        try ok(["--library", lib, "--author", "bob", "rate", "-q", names[0], "4"])
        func ratingIDs() throws -> [Int] {
            try ok(["--library", lib, "rating", "list", "--json", names[0]]).split(separator: "\n")
                .map { try XCTUnwrap(try object(String($0))["id"] as? Int) }.sorted()
        }
        let bobs = try XCTUnwrap(try ratingIDs().last)
        try ok(["--library", lib, "rating", "delete", "-q", String(bobs)])
        let sqlite = try Database(path: lib + "/photos.sqlite", readOnly: true)
        let lastPhoto = try XCTUnwrap(try sqlite.scalarInt("SELECT max(id) FROM photo"))
        let lastName = try XCTUnwrap(try sqlite.scalarString("SELECT unique_name FROM photo WHERE id = ?", [lastPhoto]))
        sqlite.close()
        try ok(["--library", lib, "delete", "-q", lastName])
        try ok(["--library", lib, "catalog", "move", "-q", "--to", database])

        try ok(["--library", lib, "--author", "carol", "rate", "-q", names[0], "2"])
        let carols = try XCTUnwrap(try ratingIDs().last)
        XCTAssertGreaterThan(carols, bobs)
        XCTAssertEqual(try runAsGiven(["--library", lib, "rating", "delete", String(bobs)]).status, 66)
        try ok(["--library", lib, "import", "-q", files[0]])
        let pg = try PostgresDatabase(database)
        XCTAssertGreaterThan(try XCTUnwrap(try pg.scalarInt("SELECT max(id) FROM photo")), lastPhoto)

        // Back to SQLite after deleting the newest rating: its id is not given again either.
        try ok(["--library", lib, "rating", "delete", "-q", String(carols)])
        try ok(["--library", lib, "catalog", "move", "-q", "--to", "sqlite"])
        try ok(["--library", lib, "--author", "dan", "rate", "-q", names[0], "5"])
        XCTAssertGreaterThan(try XCTUnwrap(try ratingIDs().last), carols)
    }

    func testATargetWithRowsIsRefusedAndTheLibraryStaysOnItsCatalog() throws {
        let full = try newDatabase()
        let lib = dir + "/lib", neighbour = dir + "/neighbour"
        let files = try freshFiles()
        try ok(["init", "-q", "--database", full, neighbour])
        try ok(["--library", neighbour, "import", "-q", files[0]])
        try ok(["--library", lib, "import", "-q", samplesDir])
        let before = try LibrarySnapshot.dumpDatabase(lib + "/photos.sqlite")

        let refused = try runAsGiven(["--library", lib, "catalog", "move", "--to", full])
        XCTAssertEqual(refused.status, 73, refused.stderr)
        XCTAssertTrue(refused.stderr.contains("is not empty (table photo has rows)"), refused.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: lib + "/catalog.postgresql"))
        XCTAssertEqual(try moved(lib, "photos.sqlite"), [])
        XCTAssertEqual(try LibrarySnapshot.dumpDatabase(lib + "/photos.sqlite"), before)
        XCTAssertEqual(try uniqueNames(neighbour).count, 1, "the target is left as it was")

        // Back to SQLite over a photos.sqlite that still has rows: refused, nothing removed.
        try ok(["--library", lib, "catalog", "move", "-q", "--to", try newDatabase()])
        let kept = try XCTUnwrap(try moved(lib, "photos.sqlite").first)
        try FileManager.default.copyItem(atPath: lib + "/" + kept, toPath: lib + "/photos.sqlite")
        let stale = try LibrarySnapshot.dumpDatabase(lib + "/photos.sqlite")
        let again = try runAsGiven(["--library", lib, "catalog", "move", "--to", "sqlite"])
        XCTAssertEqual(again.status, 73, again.stderr)
        XCTAssertTrue(again.stderr.contains("photos.sqlite is not empty"), again.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: lib + "/catalog.postgresql"))
        XCTAssertEqual(try LibrarySnapshot.dumpDatabase(lib + "/photos.sqlite"), stale)
        try assertVerifyClean(lib)
    }

    /// Another writer holding the library's write lock past --wait, or a running import (its
    /// shared import lock): 75, nothing switched, the target left empty.
    func testABusyLibraryOrARunningImportIsRefusedWith75() throws {
        let database = try newDatabase()
        let lib = dir + "/lib"
        try ok(["--library", lib, "import", "-q", samplesDir])
        let before = try LibrarySnapshot.dumpDatabase(lib + "/photos.sqlite")

        let writer = try Database(path: lib + "/photos.sqlite")
        try writer.execute("BEGIN IMMEDIATE")
        let busy = try runAsGiven(["--library", lib, "--wait", "0", "catalog", "move", "--to", database])
        try writer.execute("ROLLBACK")
        writer.close()
        XCTAssertEqual(busy.status, 75, busy.stderr)

        let importLock = open(lib + "/import.lock", O_RDWR | O_CREAT, 0o666)
        XCTAssertGreaterThanOrEqual(importLock, 0)
        XCTAssertEqual(flock(importLock, LOCK_SH), 0)
        let importing = try runAsGiven(["--library", lib, "catalog", "move", "--to", database])
        close(importLock)
        XCTAssertEqual(importing.status, 75, importing.stderr)

        XCTAssertFalse(FileManager.default.fileExists(atPath: lib + "/catalog.postgresql"))
        XCTAssertEqual(try LibrarySnapshot.dumpDatabase(lib + "/photos.sqlite"), before)
        XCTAssertEqual(try PostgresDatabase(database).scalarInt("SELECT count(*) FROM photo"), 0)
        // Free again: the move goes through.
        try ok(["--library", lib, "catalog", "move", "-q", "--to", database])
        XCTAssertEqual(try PostgresDatabase(database).scalarInt("SELECT count(*) FROM photo"), 6)
    }

    /// No server needed: a target of the library's own backend, a string libpq cannot parse and
    /// a missing --to are 64; a server that cannot be reached fails without printing the
    /// password; the library is left on its catalog every time.
    func testBadTargetsAreRefusedWithoutSwitchingOrPrintingThePassword() throws {
        let lib = dir + "/lib"
        try ok(["--library", lib, "import", "-q", samplesDir])
        let before = try LibrarySnapshot.dumpDatabase(lib + "/photos.sqlite")
        let same = try runAsGiven(["--library", lib, "catalog", "move", "--to", "sqlite"])
        XCTAssertEqual(same.status, 64, same.stderr)
        XCTAssertTrue(same.stderr.contains("already keeps its catalog in SQLite"), same.stderr)
        XCTAssertEqual(try runAsGiven(["--library", lib, "catalog", "move", "--to", "not a connection"]).status, 64)
        XCTAssertEqual(try runAsGiven(["--library", lib, "catalog", "move"]).status, 64)
        let secret = "hunter2-\(UUID().uuidString.prefix(8))"
        let unreachable = try runAsGiven([
            "--library", lib, "catalog", "move", "--to",
            "postgresql://ann:\(secret)@127.0.0.1:1/photos?connect_timeout=2"
        ])
        XCTAssertEqual(unreachable.status, 74, unreachable.stderr)
        XCTAssertFalse((unreachable.stdout + unreachable.stderr).contains(secret), unreachable.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: lib + "/catalog.postgresql"))
        XCTAssertEqual(try LibrarySnapshot.dumpDatabase(lib + "/photos.sqlite"), before)
    }

    /// Moving out of SQLite twice within a second keeps both old SQLite catalogs, each whole:
    /// the second is kept under a `-2` name, not renamed over the first.
    func testTwoMovesOutOfSQLiteKeepBothOldCatalogs() throws {
        let lib = dir + "/lib"
        _ = try TestDatabase.requirePostgres()
        _ = try runAsGiven(["--library", lib, "import", "-q", samplesDir + "/storm.jpg"])
        try ok(["--library", lib, "catalog", "move", "-q", "--to", try newDatabase()])
        try ok(["--library", lib, "catalog", "move", "-q", "--to", "sqlite"])
        try ok(["--library", lib, "import", "-q", samplesDir + "/path.jpg"])
        let second = try LibrarySnapshot.dumpDatabase(lib + "/photos.sqlite")
        try ok(["--library", lib, "catalog", "move", "-q", "--to", try newDatabase()])
        let kept = try moved(lib, "photos.sqlite").filter { !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") }.sorted()
        XCTAssertEqual(kept.count, 2, "\(kept)")
        let dumps = try kept.map { try LibrarySnapshot.dumpDatabase(lib + "/" + $0) }
        XCTAssertEqual(Set(dumps.map { $0.filter { $0.hasPrefix("  photo:") }.count }), [1, 2])
        XCTAssertTrue(dumps.contains(second))
    }

    /// From one PostgreSQL database to another: the copy keeps every row, the old connection
    /// is kept beside the new one; another schema of the same database is another catalog
    /// (writer locks of its own) and takes the move; the library's own catalog is refused (64).
    func testMoveBetweenPostgreSQLDatabasesKeepsTheOldConnection() throws {
        let base = try TestDatabase.requirePostgres()
        let source = try newDatabase()
        let name = "photos_move_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try PostgresDatabase(base).execute("CREATE DATABASE \(name)")
        drops.append { try? PostgresDatabase(base).execute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)") }
        let target = try ConnectionInfo(base).setting("dbname", to: name).connectionString
        let lib = dir + "/lib"
        try ok(["init", "-q", "--database", source, lib])
        try ok(["--library", lib, "--author", "ann", "import", "-q", samplesDir])
        let names = try uniqueNames(lib)
        try ok(["--library", lib, "--author", "bob", "rate", names[0], "4"])
        let shown = try views(lib, photo: names[0])
        let recorded = try String(contentsOfFile: lib + "/catalog.postgresql", encoding: .utf8)

        XCTAssertEqual(try runAsGiven(["--library", lib, "catalog", "move", "--to", source]).status, 64)
        let otherSchema = try newDatabase()
        try ok(["--library", lib, "catalog", "move", "-q", "--to", otherSchema])
        XCTAssertEqual(try views(lib, photo: names[0]), shown)
        let own = try runAsGiven(["--library", lib, "catalog", "move", "--to", otherSchema])
        XCTAssertEqual(own.status, 64, own.stderr)

        // Two moves within one second keep both old connections (rename(2) replaces its target).
        try ok(["--library", lib, "catalog", "move", "-q", "--to", target])
        let kept = try moved(lib, "catalog.postgresql").sorted()
        XCTAssertEqual(kept.count, 2, "\(kept)")
        XCTAssertEqual(try String(contentsOfFile: lib + "/" + kept[0], encoding: .utf8), recorded)
        XCTAssertTrue(try String(contentsOfFile: lib + "/" + kept[1], encoding: .utf8).contains("search_path"))
        XCTAssertTrue(try String(contentsOfFile: lib + "/catalog.postgresql", encoding: .utf8).contains(name))
        XCTAssertEqual(try views(lib, photo: names[0]), shown)
        try assertVerifyClean(lib)
        XCTAssertEqual(try PostgresDatabase(source).scalarInt("SELECT count(*) FROM photo"), 6, "old catalog kept")
    }

    /// A copy that fails part-way — the target refusing a row after several tables went in,
    /// or a source value of the wrong type — rolls the target back and leaves the library on
    /// its old catalog, unchanged; a later move into the same target goes through.
    func testACopyThatFailsPartWayLeavesTheLibraryOnItsOldCatalog() throws {
        let database = try newDatabase()
        let lib = dir + "/lib"
        try ok(["--library", lib, "--author", "ann", "import", "-q", samplesDir])
        let names = try uniqueNames(lib)
        try ok(["--library", lib, "--author", "ann", "rate", names[0], "2"])
        let before = try LibrarySnapshot.dumpDatabase(lib + "/photos.sqlite")
        // An empty catalog whose rating table refuses every row (rating comes after photo,
        // photo_data, thumbnail and tag in the copy's order).
        try ok(["init", "-q", "--database", database, dir + "/empty"])
        let pg = try PostgresDatabase(database)
        try pg.execute(
            """
            CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN RAISE EXCEPTION 'refused by the test'; END $$;
            CREATE TRIGGER refuse BEFORE INSERT ON rating FOR EACH ROW EXECUTE FUNCTION refuse();
            """)
        let failed = try runAsGiven(["--library", lib, "catalog", "move", "--to", database])
        XCTAssertEqual(failed.status, 65, failed.stderr)
        XCTAssertTrue(failed.stderr.contains("refused rows of table rating: refused by the test"), failed.stderr)
        XCTAssertFalse(failed.stderr.contains("INSERT"), "the message names no statement: \(failed.stderr)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: lib + "/catalog.postgresql"))
        XCTAssertEqual(try moved(lib, "photos.sqlite"), [])
        XCTAssertEqual(try LibrarySnapshot.dumpDatabase(lib + "/photos.sqlite"), before)
        XCTAssertEqual(try pg.scalarInt("SELECT count(*) FROM photo"), 0, "the target's transaction rolled back")
        XCTAssertEqual(try pg.scalarString("SELECT id FROM zone"), "default")
        try assertVerifyClean(lib)

        // A value SQLite stored in a column of another type: 65, nothing switched.
        try pg.execute("DROP TRIGGER refuse ON rating")
        let sqlite = try Database(path: lib + "/photos.sqlite")
        try sqlite.run(
            "UPDATE photo_data SET byte_size = 'big' WHERE photo_id = (SELECT id FROM photo WHERE unique_name = ?)",
            [names[1]])
        sqlite.close()
        let damaged = try runAsGiven(["--library", lib, "catalog", "move", "--to", database])
        XCTAssertEqual(damaged.status, 65, damaged.stderr)
        XCTAssertTrue(damaged.stderr.contains("photo_data.byte_size holds"), damaged.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: lib + "/catalog.postgresql"))
        XCTAssertEqual(try pg.scalarInt("SELECT count(*) FROM photo"), 0)

        // (Two photos of one original in one zone were refused here by PostgreSQL's UNIQUE
        // sha256; since issue 31 A1 the rule holds per zone and is checked by the writers, not
        // by a constraint, and `verify` reports such a pair on either backend.)
        let twice = try Database(path: lib + "/photos.sqlite")
        try twice.run("UPDATE photo_data SET byte_size = 1 WHERE byte_size = 'big'")
        twice.close()
        try ok(["--library", lib, "catalog", "move", "-q", "--to", database])
        XCTAssertEqual(
            try pg.scalarInt("SELECT count(*) FROM rating"), before.filter { $0.hasPrefix("  rating: ") }.count)
    }
}
