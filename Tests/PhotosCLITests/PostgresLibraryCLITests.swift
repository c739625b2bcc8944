import Foundation
import PhotosPostgreSQL
import PhotosTestSupport
import XCTest

/// A library whose catalog is a PostgreSQL database (`photos init --database`): the folder
/// records the connection, later commands use it, and a password never shows.
final class PostgresLibraryCLITests: BinaryTestCase {
    private var connectionString = ""
    private var drop: (@Sendable () -> Void)?

    override func setUpWithError() throws {
        try super.setUpWithError()
        let made = try TestDatabase.makeSchema()
        connectionString = made.connectionString
        drop = made.drop
    }

    override func tearDown() {
        drop?()
        super.tearDown()
    }

    /// The connection string with a password added (the test server trusts its local users,
    /// so it is accepted and ignored).
    private func withPassword(_ password: String) throws -> String {
        try ConnectionInfo(connectionString).setting("password", to: password).connectionString
    }

    func testLaterCommandsUseTheRecordedCatalogAndNoPasswordShowsAnywhere() throws {
        let secret = "hunter2-\(UUID().uuidString.prefix(8))"
        let library = dir + "/lib"
        var outputs: [String] = []
        func photos(_ args: [String], expect: Int32 = 0) throws -> String {
            let r = try run(args)
            outputs += [r.stdout, r.stderr]
            XCTAssertEqual(r.status, expect, "\(args): \(r.stderr)")
            return r.stdout
        }
        let created = try photos(["init", "--database", try withPassword(secret), library])
        XCTAssertTrue(created.contains("Created library at \(library)"), created)
        XCTAssertTrue(created.contains("password was not recorded"), created)
        XCTAssertTrue(FileManager.default.fileExists(atPath: library + "/catalog.postgresql"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: library + "/photos.sqlite"))
        let imported = try photos(["import", "--library", library, "--author", "ann", samplesDir])
        XCTAssertTrue(imported.contains("Imported 6 photos"), imported)
        XCTAssertEqual(try photos(["list", "--library", library]).split(separator: "\n").count, 7)
        XCTAssertTrue(try photos(["verify", "--library", library]).contains("0 problems"))
        _ = try photos(["history", "--library", library, "--json"])
        _ = try photos(["stats", "--library", library, "--json"])
        _ = try photos(["schema", "--library", library])
        // Again with the same connection: up to date, nothing created.
        XCTAssertTrue(
            try photos(["init", "--database", try withPassword(secret), library]).contains("up to date"))

        // The catalog holds the photos, in this test's schema.
        let db = try PostgresDatabase(connectionString)
        XCTAssertEqual(try db.photoCount(), 6)
        XCTAssertEqual(try db.scalarString("SELECT DISTINCT author FROM history_transaction"), "ann")

        for output in outputs { XCTAssertFalse(output.contains(secret), output) }
        let history = try db.statement(
            "SELECT author || context || COALESCE(string_agg(c.tombstone, ''), '') FROM history_transaction t LEFT JOIN history_change c USING (token) GROUP BY t.token"
        ).map { $0.string(0) }
        XCTAssertFalse(history.joined().contains(secret))
        for path in try FileManager.default.subpathsOfDirectory(atPath: library) {
            let bytes = FileManager.default.contents(atPath: library + "/" + path) ?? Data()
            XCTAssertNil(bytes.range(of: Data(secret.utf8)), "\(path) holds the password")
        }
    }

    /// `photos backup` of a catalog on a server is not photos' job (pg_dump's): 69
    /// (EX_UNAVAILABLE, sysexits.h) naming pg_dump, and nothing is written at DEST.
    func testBackupOfAPostgreSQLCatalogIsUnavailableAndWritesNothing() throws {
        let library = dir + "/lib", dest = dir + "/backup"
        XCTAssertEqual(try run(["init", "--database", connectionString, library]).status, 0)
        let r = try run(["backup", "--library", library, dest])
        XCTAssertEqual(r.status, 69, r.stderr)
        XCTAssertTrue(r.stderr.contains("pg_dump"), r.stderr)
        let left = (try? FileManager.default.contentsOfDirectory(atPath: dest)) ?? []
        XCTAssertFalse(left.contains("photos.sqlite"), "\(left)")
    }

    func testAFolderWithASQLiteCatalogOrAnotherDatabaseIsRefused() throws {
        let library = dir + "/lib"
        // A SQLite library whatever the run's backend (`run` would make `init` a PostgreSQL one).
        XCTAssertEqual(try runAsGiven(["init", "--library", library]).status, 0)
        let sqlite = try run(["init", "--database", connectionString, library])
        XCTAssertEqual(sqlite.status, 64, sqlite.stderr)
        XCTAssertTrue(sqlite.stderr.contains("already has a SQLite catalog"), sqlite.stderr)

        let other = dir + "/other"
        XCTAssertEqual(try run(["init", "--database", connectionString, other]).status, 0)
        let elsewhere = try ConnectionInfo(connectionString).setting("dbname", to: "elsewhere").connectionString
        let moved = try run(["init", "--database", elsewhere, other])
        XCTAssertEqual(moved.status, 64, moved.stderr)
        XCTAssertTrue(moved.stderr.contains("already keeps its catalog in"), moved.stderr)
    }

    func testAnUnreachableServerFailsWithoutThePasswordAndCreatesNothing() throws {
        let library = dir + "/lib"
        let r = try run(["init", "--database", "postgresql://ann:hunter2@127.0.0.1:1/team?connect_timeout=2", library])
        XCTAssertEqual(r.status, 74, r.stderr)
        XCTAssertTrue(r.stderr.contains("cannot connect to postgresql://ann@127.0.0.1:1/team"), r.stderr)
        XCTAssertFalse(r.stderr.contains("hunter2") || r.stdout.contains("hunter2"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: library + "/catalog.postgresql"))
        let bad = try run(["init", "--database", "password=hunter2 nonsense", library])
        XCTAssertEqual(bad.status, 64, bad.stderr)
        XCTAssertFalse(bad.stderr.contains("hunter2"))
    }
}
