import Foundation
import PhotosPostgreSQL
import PhotosTestSupport
import XCTest

/// Every command family on a library whose catalog is a PostgreSQL database: each exits 0 and
/// leaves the rows it should, and `verify` stays clean (issue 12: the same commands on both
/// backends).
final class PostgresCommandsCLITests: BinaryTestCase {
    func testEveryCommandFamilyWorksOnAPostgreSQLLibrary() throws {
        let made = try TestDatabase.makeSchema()
        defer { made.drop() }
        let lib = dir + "/lib"
        func photos(_ args: [String], expect: Int32 = 0) throws -> String {
            let r = try run(["--library", lib] + args)
            XCTAssertEqual(r.status, expect, "\(args): \(r.stdout) \(r.stderr)")
            return r.stdout
        }
        XCTAssertEqual(try run(["init", "-q", "--database", made.connectionString, lib]).status, 0)
        _ = try photos(["import", "-q", samplesDir])
        let db = try PostgresDatabase(made.connectionString)
        // Unrated photos first, so that x has no rating of its own yet.
        let names = try db.statement(
            "SELECT unique_name FROM photo p ORDER BY EXISTS (SELECT 1 FROM rating r WHERE r.photo_id = p.id), id"
        ).map { $0.string(0) }
        XCTAssertEqual(names.count, 6)
        let (x, y, z) = (names[0], names[1], names[2])

        XCTAssertTrue(try photos(["show", x]).contains(x))
        _ = try photos(["thumbnail", x, "-o", dir + "/t.jpg"])
        XCTAssertEqual(FileManager.default.contents(atPath: dir + "/t.jpg")?.prefix(2), Data([0xFF, 0xD8]))
        _ = try photos(["tag", "add", "Beach", x, y])
        XCTAssertTrue(try photos(["tag", "list"]).contains("Beach"))
        _ = try photos(["tag", "rename", "Beach", "Sea"])
        _ = try photos(["tag", "remove", "Sea", y])
        XCTAssertEqual(try photos(["list", "--tag", "Sea", "--json"]).split(separator: "\n").count, 1)
        // The samples' sidecars rate some photos already.
        let ratings = try XCTUnwrap(try db.scalarInt("SELECT count(*) FROM rating"))
        let fives = try photos(["list", "--min-rating", "5", "--json"]).split(separator: "\n").count
        _ = try photos(["rate", "--author", "ann", x, "4"])
        _ = try photos(["rate", "--author", "bob", x, "5"])
        // x's mean 4.5 rounds half up to 5 (x had no rating: the samples' rated ones are others).
        let xID = try XCTUnwrap(db.photo(uniqueName: x)?.rowID)
        XCTAssertEqual(try db.ratingValues(ofPhoto: xID), [4, 5])
        XCTAssertEqual(try photos(["list", "--min-rating", "5", "--json"]).split(separator: "\n").count, fives + 1)
        // One rating per author (schema 5): ann's second rating replaces her first.
        _ = try photos(["rate", "--author", "ann", x, "3"])
        XCTAssertEqual(try db.ratingValues(ofPhoto: xID), [3, 5])
        XCTAssertTrue(try photos(["rating", "list", x]).contains("5"))
        let ratingID = try XCTUnwrap(try db.scalarInt("SELECT max(id) FROM rating"))
        _ = try photos(["rating", "delete", "\(ratingID)"])
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM rating"), ratings + 1)

        _ = try photos(["share", "create", "--title", "Trip", x])
        let share = try XCTUnwrap(try db.scalarString("SELECT id FROM share"))
        _ = try photos(["share", "add", share, y])
        _ = try photos(["share", "invite", share, "bob@example.com", "--permission", "read-write"])
        _ = try photos(["share", "set", share, "--title", "Trip 2", "--public-permission", "read-only"])
        XCTAssertTrue(try photos(["share", "show", share]).contains("Trip 2"))
        XCTAssertTrue(try photos(["share", "list"]).contains("Trip 2"))
        _ = try photos(["share", "uninvite", share, "bob@example.com"])
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM photo WHERE zone_id = ?", [share]), 2)
        XCTAssertEqual(try photos(["list", "--share", share, "--json"]).split(separator: "\n").count, 2)
        // Tags of the moved photos follow them into the share's zone: no cross-zone link.
        XCTAssertTrue(try db.crossZoneTagLinks().isEmpty)

        _ = try photos(["dedupe-tags", "--all"])
        _ = try photos(["history", "--consumer", "sync", "--advance"])
        XCTAssertTrue(try photos(["history", "consumers"]).contains("sync"))
        _ = try photos(["history", "compact", "--keep-days", "0"])
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM history_consumer WHERE name = 'sync'"), 1)
        _ = try photos(["export", dir + "/out"])
        let exported = try FileManager.default.contentsOfDirectory(atPath: dir + "/out")
        XCTAssertEqual(exported.filter { !$0.hasPrefix(".") && !$0.hasSuffix(".xmp") }.count, 6, "\(exported)")
        _ = try photos(["delete", z])
        XCTAssertEqual(try db.photoCount(), 5)

        // merge --from a SQLite library with one more photo and the ones already here.
        let other = dir + "/other"
        XCTAssertEqual(try run(["--library", other, "import", "-q", samplesDir]).status, 0)
        _ = try photos(["merge", "--from", other])
        // The deleted photo comes back; the others are matched by SHA-256 as import matches
        // them (`DuplicateScope.forPhotos`: any zone of this library's own), the two in the
        // share too: one photo per file.
        XCTAssertEqual(try db.photoCount(), 6, "the deleted photo comes back, the others are matched by SHA-256")

        _ = try photos(["purge", "--share", share])
        XCTAssertEqual(try db.photoCount(), 4)
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM share"), 0)
        let stats = try photos(["stats", "--json"])
        XCTAssertTrue(stats.contains("\"photos\":4"), stats)
        XCTAssertTrue(try photos(["verify"]).contains("0 problems"))
        let tokens = try db.statement("SELECT token FROM history_transaction ORDER BY token").map { $0.int64(0) }
        XCTAssertEqual(tokens, tokens.sorted())
        XCTAssertGreaterThan(try db.issuedHistoryToken(), 10)
    }
}
