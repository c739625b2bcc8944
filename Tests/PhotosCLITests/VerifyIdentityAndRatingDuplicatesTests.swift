import Foundation
import PhotosSQLite
import PhotosTestSupport
import XCTest

/// `verify` reports two photos whose uniqueNames differ only in case (one UUID, RFC 9562 §4)
/// and one author's several ratings of one photo (authors compared trimmed and NFC) as
/// problems, never repaired: rows inserted by hand past the schema's guards.
final class VerifyIdentityAndRatingDuplicatesTests: TemporaryFolderTestCase {
    override var label: String { "photos-verify-identity" }
    var lib: String { dir + "/lib" }
    override func setUpWithError() throws {
        try super.setUpWithError()
        XCTAssertEqual(run(["import", "-q", samplesDir + "/storm.jpg", samplesDir + "/path.jpg"]).status, 0)
        XCTAssertEqual(run(["verify"]).status, 0, "clean before")
    }
    func run(_ args: [String]) -> RunResult { photos(["--library", lib] + args) }
    func db() throws -> TestCatalog { try TestCatalog(root: lib) }
    func problems(_ args: [String] = []) throws -> [[String: Any]] {
        let v = run(["verify", "--json"] + args)
        XCTAssertEqual(v.status, 1, v.stderr)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(v.stdout.utf8)) as? [String: Any])
        return try XCTUnwrap(object["details"] as? [[String: Any]])
    }

    func testUniqueNamesDifferingOnlyInCaseAreReportedNotRepaired() throws {
        let d = try db()
        let storm = try XCTUnwrap(d.scalarString("SELECT unique_name FROM photo WHERE display_name = 'storm.jpg'"))
        try d.run("UPDATE photo SET unique_name = lower(?) WHERE display_name = 'path.jpg'", [storm])
        XCTAssertNotEqual(storm, storm.lowercased(), "uniqueNames are upper-case UUIDs")
        let found = try problems().filter { $0["kind"] as? String == "unique-name-case" }
        XCTAssertEqual(found.count, 1, "one problem for the pair")
        let detail = try XCTUnwrap(found.first?["detail"] as? String)
        // The pair is listed oldest row first; `import --jobs` commits the two files in
        // whichever order they finish, so the expected order comes from the rows' ids.
        let order = try d.rows("SELECT display_name FROM photo ORDER BY id").map { $0[0] ?? "" }
        XCTAssertEqual(Set(order), ["storm.jpg", "path.jpg"])
        let listed = order.map { $0 == "storm.jpg" ? "\(storm) (storm.jpg)" : "\(storm.lowercased()) (path.jpg)" }
        XCTAssertTrue(detail.contains(listed.joined(separator: ", ")), detail)
        let before = try LibrarySnapshot.dumpCatalog(lib)
        XCTAssertEqual(run(["verify", "--repair", "--yes"]).status, 1, "not repaired")
        XCTAssertEqual(try LibrarySnapshot.dumpCatalog(lib), before)
    }

    func testOneAuthorsSecondRatingOfAPhotoIsReportedNotRepaired() throws {
        let d = try db()
        try d.run("DROP INDEX rating_photo_author")
        let insert = """
            INSERT INTO rating (uuid, photo_id, value, author)
            SELECT ?, id, ?, ?
            FROM photo WHERE display_name = ?
            """
        func rate(_ value: Int, _ author: String, _ name: String) throws {
            try d.run(insert, [UUID().uuidString.lowercased(), value, author, name])
        }
        try rate(2, "ann", "storm.jpg")
        try rate(3, "bob", "storm.jpg")
        try rate(5, " ann", "storm.jpg") // the same author as `--author ' ann'` gives
        try rate(4, "ann", "path.jpg") // one per photo: fine
        try rate(1, "Ann", "path.jpg") // another author: names are case-sensitive
        let found = try problems().filter { $0["kind"] as? String == "duplicate-author-rating" }
        XCTAssertEqual(found.count, 1, "\(found)")
        let detail = try XCTUnwrap(found.first?["detail"] as? String)
        XCTAssertTrue(detail.contains("storm.jpg"), detail)
        XCTAssertTrue(detail.contains("has 2 ratings by author \"ann\": 2 (rating row "), detail)
        XCTAssertTrue(detail.contains(", 5 (rating row "), detail)
        XCTAssertEqual(run(["verify", "--repair", "--yes"]).status, 1, "not repaired")
        XCTAssertEqual(try db().scalarInt("SELECT count(*) FROM rating"), 5)
    }
}
