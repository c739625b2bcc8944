import Foundation
import XCTest
import PhotosTestSupport
import PhotosSQLite

/// `rate PHOTO N` sets this author's rating (one row per author per photo, replacing the
/// earlier one), `rate PHOTO --clear` removes it, `rating list` names the author, and a library
/// whose ratings predate authors (schema 4) keeps them as anonymous ratings. Run with the binary.
final class RatingsPerAuthorTests: BinaryTestCase {
    override var label: String { "photos-ratings-per-author" }
    var lib: String { dir + "/lib" }
    var storm = ""

    override func setUpWithError() throws {
        try super.setUpWithError()
        let imported = try run(["--library", lib, "import", "-q", samplesDir + "/storm.jpg", samplesDir + "/path.jpg"])
        XCTAssertEqual(imported.status, 0, imported.stderr)
        storm = try XCTUnwrap(try db().scalarString("SELECT unique_name FROM photo WHERE display_name = 'storm.jpg'"))
    }

    func db() throws -> TestCatalog { try TestCatalog(root: lib, readOnly: true) }
    func photos(_ args: [String], author: String? = nil) throws -> (status: Int32, stdout: String, stderr: String) {
        try run(["--library", lib] + (author.map { ["--author", $0] } ?? []) + args)
    }
    /// The rating rows: `author|value`, anonymous as `-`, by row id.
    func ratingRows() throws -> [String] {
        try db().statement("SELECT coalesce(author, '-') || '|' || value FROM rating ORDER BY id").map { $0.string(0) }
    }
    /// Each history change of context `rate`: `entity|type|updated`.
    func rateHistory() throws -> [String] {
        try db().statement(
            """
            SELECT c.entity || '|' || c.type || '|' || coalesce(c.updated, '') FROM history_change c
            JOIN history_transaction t ON t.token = c.token WHERE t.context = 'rate' ORDER BY c.id
            """
        ).map { $0.string(0) }
    }

    func testRatingAgainReplacesThisAuthorsRatingAndKeepsOthers() throws {
        XCTAssertEqual(try photos(["rate", storm, "2"], author: "alice").status, 0)
        let bob = try photos(["rate", storm, "5"], author: "bob")
        XCTAssertEqual(bob.stdout, "Rated \(storm) 5 by bob (rating id 2; the photo's rating is now 4)\n", bob.stderr)
        XCTAssertEqual(try ratingRows(), ["alice|2", "bob|5"])
        let uuidBefore = try db().scalarString("SELECT uuid FROM rating WHERE author = 'alice'")

        // alice again: her row is replaced in place (same id and uuid), bob's stays.
        let again = try photos(["rate", String(storm.prefix(6)), "4"], author: "alice")
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual(
            again.stdout, "Rated \(storm) 4 (was 2) by alice (rating id 1; the photo's rating is now 5)\n")
        XCTAssertEqual(try ratingRows(), ["alice|4", "bob|5"])
        XCTAssertEqual(try db().scalarString("SELECT uuid FROM rating WHERE author = 'alice'"), uuidBefore)
        XCTAssertEqual(
            try rateHistory(),
            [
                "Rating|insert|", #"Photo|update|["ratings"]"#, "Rating|insert|", #"Photo|update|["ratings"]"#,
                #"Rating|update|["value"]"#, #"Photo|update|["ratings"]"#
            ])

        // The same value again writes nothing, not even history.
        let count = try db().scalarInt("SELECT count(*) FROM history_transaction")
        let same = try photos(["rate", storm, "4"], author: "alice")
        XCTAssertEqual(
            same.stdout, "\(storm) was already rated 4 by alice (rating id 1; the photo's rating is now 5)\n")
        XCTAssertEqual(try db().scalarInt("SELECT count(*) FROM history_transaction"), count)

        // $PHOTOS_AUTHOR names the author too; without either it is "photos".
        var environment = ProcessInfo.processInfo.environment
        environment["PHOTOS_AUTHOR"] = "carol"
        let carol = try runProcess(try binary(), ["--library", lib, "rate", storm, "1"], environment: environment)
        XCTAssertEqual(carol.status, 0, carol.stderr)
        environment["PHOTOS_AUTHOR"] = nil
        XCTAssertEqual(
            try runProcess(try binary(), ["--library", lib, "rate", storm, "3"], environment: environment).status, 0)
        XCTAssertEqual(try ratingRows(), ["alice|4", "bob|5", "carol|1", "photos|3"])

        // rating list shows each author; JSON has "author".
        let list = try photos(["rating", "list", storm])
        XCTAssertEqual(
            list.stdout,
            "ID      VALUE  AUTHOR\n1       4      alice\n2       5      bob\n3       1      carol\n4       3      photos\n"
        )
        let json = try photos(["rating", "list", storm, "--json"])
        XCTAssertEqual(
            json.stdout.split(separator: "\n").first, #"{"id":1,"value":4,"photo":"\#(storm)","author":"alice"}"#)
    }

    func testClearRemovesOnlyThisAuthorsRating() throws {
        XCTAssertEqual(try photos(["rate", storm, "2"], author: "alice").status, 0)
        XCTAssertEqual(try photos(["rate", storm, "5"], author: "bob").status, 0)
        let cleared = try photos(["rate", storm, "--clear"], author: "alice")
        XCTAssertEqual(cleared.status, 0, cleared.stderr)
        XCTAssertEqual(cleared.stdout, "Removed alice's rating 2 of \(storm) (the photo's rating is now 5)\n")
        XCTAssertEqual(try ratingRows(), ["bob|5"])
        XCTAssertEqual(try rateHistory().suffix(2), ["Rating|delete|", #"Photo|update|["ratings"]"#])
        XCTAssertEqual(
            try db().scalarString(
                "SELECT tombstone FROM history_change WHERE entity = 'Rating' AND type = 'delete'"),
            #"{"photo":"\#(storm)","value":"2"}"#)

        // Clearing again: nothing to remove, exit 0, nothing written.
        let count = try db().scalarInt("SELECT count(*) FROM history_transaction")
        let again = try photos(["rate", storm, "--clear", "--json"], author: "alice")
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual(again.stdout, #"{"cleared":false,"photo":"\#(storm)","rating":null}"# + "\n")
        XCTAssertEqual(try db().scalarInt("SELECT count(*) FROM history_transaction"), count)

        // A value and --clear, or neither: usage errors naming what is missing.
        let both = try photos(["rate", storm, "3", "--clear"])
        XCTAssertEqual(both.status, 64)
        XCTAssertTrue(both.stderr.hasPrefix("photos rate: error: give a value or --clear, not both\n"), both.stderr)
        let neither = try photos(["rate", storm])
        XCTAssertEqual(neither.status, 64)
        XCTAssertTrue(neither.stderr.hasPrefix("photos rate: error: missing <value>"), neither.stderr)
        XCTAssertEqual(try ratingRows(), ["bob|5"])
    }

    /// A bad rating on the command line is a usage error (64), out of range or not a number.
    func testBadRatingValuesAre64() throws {
        for bad in ["0", "6", "7", "x", "4.5", "99999999999999999999"] {
            let r = try photos(["rate", storm, bad])
            XCTAssertEqual(r.status, 64, "\(bad): \(r.stderr)")
            XCTAssertTrue(r.stderr.hasPrefix("photos rate: error: rating"), r.stderr)
        }
        XCTAssertEqual(try ratingRows(), [])
    }

    /// A schema-4 library's ratings have no author: migration 5 keeps them as anonymous ones,
    /// which stay in the mean, are listed with author -, and are never replaced by `rate`.
    func testAnonymousRatingsFromSchema4AreKept() throws {
        try TestDatabase.requireSQLite(
            because: "a SQLite file schema version 4 wrote (PostgreSQL catalogs start at the current schema)")
        XCTAssertEqual(try photos(["rate", storm, "1"], author: "x").status, 0)
        XCTAssertEqual(try photos(["rate", storm, "2"], author: "y").status, 0)
        do {
            // What schema 4 wrote: no author column, no unique index, user_version 4.
            let rw = try TestCatalog(root: lib)
            try rw.execute(
                """
                DROP INDEX rating_photo_author;
                ALTER TABLE rating DROP COLUMN author;
                \(dropTablesOfSchemaVersion6)
                PRAGMA user_version = 4;
                PRAGMA wal_checkpoint(TRUNCATE);
                """)
        }
        let migrated = try photos(["init"])
        XCTAssertEqual(
            migrated.stdout, "Migrated library at \(lib) from schema version 4 to \(Schema.currentVersion)\n")
        XCTAssertEqual(try ratingRows(), ["-|1", "-|2"], "the old ratings are kept, anonymous")

        XCTAssertEqual(try photos(["rate", storm, "5"], author: "x").status, 0)
        XCTAssertEqual(try photos(["rate", storm, "4"], author: "x").status, 0)
        XCTAssertEqual(try ratingRows(), ["-|1", "-|2", "x|4"], "x's new rating replaces only x's own")
        XCTAssertEqual(
            try photos(["rate", storm, "--clear"], author: "x").stdout.hasPrefix("Removed x's rating 4"), true)
        XCTAssertEqual(try ratingRows(), ["-|1", "-|2"])
        let list = try photos(["rating", "list", storm])
        XCTAssertEqual(list.stdout, "ID      VALUE  AUTHOR\n1       1      -\n2       2      -\n")
        let shown = try photos(["show", storm]).stdout
        XCTAssertTrue(shown.contains("rating:      2 (the mean of 2, rounded half up)\n"), shown)
        XCTAssertTrue(
            shown.contains("ratings:     (anonymous) 1, (anonymous) 2\n"), "ratings made before authors: \(shown)")
        XCTAssertEqual(try photos(["verify"]).status, 0)
    }
}
