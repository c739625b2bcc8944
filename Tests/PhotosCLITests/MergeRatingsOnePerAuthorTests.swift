import Foundation
import XCTest
import PhotosTestSupport
import PhotosSQLite

/// `photos merge --from OTHER` keeps one rating per author per photo (SPEC §3) even when the
/// other library, which is untrusted, holds several by one author (its unique index on
/// (photo, author) lost): the last of them comes in, as a later `rate` would have left it,
/// anonymous ratings all come in, and the merge exits 0 instead of 70 on the UNIQUE
/// constraint.
final class MergeRatingsOnePerAuthorTests: BinaryTestCase {
    override var label: String { "photos-merge-ratings-per-author" }
    var source: String { dir + "/source" }
    var target: String { dir + "/target" }

    func testSeveralRatingsByOneAuthorInTheOtherLibraryMergeAsTheLastOne() throws {
        XCTAssertEqual(try run(["--library", source, "import", "-q", samplesDir + "/storm.jpg"]).status, 0)
        let db = try TestCatalog(root: source)
        let storm = try XCTUnwrap(try db.scalarString("SELECT unique_name FROM photo"))
        XCTAssertEqual(try run(["--library", source, "--author", "alice", "rate", storm, "2"]).status, 0)
        XCTAssertEqual(try run(["--library", source, "--author", "bob", "rate", storm, "3"]).status, 0)
        try db.execute(
            """
            DROP INDEX rating_photo_author;
            INSERT INTO rating (uuid, photo_id, value, author)
                SELECT '11111111-1111-4111-8111-111111111111', id, 5, 'alice' FROM photo;
            INSERT INTO rating (uuid, photo_id, value, author)
                SELECT '22222222-2222-4222-8222-222222222222', id, 1, NULL FROM photo;
            INSERT INTO rating (uuid, photo_id, value, author)
                SELECT '33333333-3333-4333-8333-333333333333', id, 4, NULL FROM photo;
            """)
        XCTAssertEqual(try run(["--library", target, "init", "-q"]).status, 0)

        let merged = try run(["--library", target, "--json", "merge", "--from", source])
        XCTAssertEqual(merged.status, 0, merged.stderr)
        let report = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(merged.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(report["ratings"] as? Int, 4)
        let here = try TestCatalog(root: target, readOnly: true)
        let rows = try here.statement(
            "SELECT coalesce(r.author, '-') || '|' || r.value FROM rating r ORDER BY coalesce(r.author, '-'), r.value"
        ).map { $0.string(0) }
        XCTAssertEqual(rows, ["-|1", "-|4", "alice|5", "bob|3"])
        XCTAssertEqual(try run(["--library", target, "verify", "-q"]).status, 0)

        // Merging again changes nothing.
        let before = try LibrarySnapshot.dumpCatalog(target)
        XCTAssertEqual(try run(["--library", target, "merge", "--from", source]).status, 0)
        XCTAssertEqual(try LibrarySnapshot.dumpCatalog(target), before)
    }
}
