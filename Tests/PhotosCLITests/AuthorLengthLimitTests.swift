import Foundation
import PhotosTestSupport
import XCTest

/// An author is at most 200 bytes of UTF-8 (`AuthorName.maximumBytes`), from `--author` and
/// from `$PHOTOS_AUTHOR` alike: the bound other libraries hold a changeset's rating authors to,
/// so a rating this library records is never refused by a peer. 64, nothing written.
final class AuthorLengthLimitTests: BinaryTestCase {
    override var label: String { "photos-author-length" }
    var lib: String { dir + "/lib" }

    func testAnAuthorOver200BytesIsAUsageErrorAndOneOf200IsRecorded() throws {
        XCTAssertEqual(try run(["--library", lib, "import", "-q", samplesDir + "/storm.jpg"]).status, 0)
        let listed = try run(["--library", lib, "--json", "list"]).stdout
        let photo = try JSONSerialization.jsonObject(with: Data(listed.utf8)) as? [String: Any]
        let storm = try XCTUnwrap(photo?["uniqueName"] as? String)
        let long = String(repeating: "é", count: 101)
        let given = try run(["--library", lib, "--author", long, "rate", storm, "2"])
        XCTAssertEqual(given.status, 64, given.stderr)
        XCTAssertTrue(given.stderr.contains("--author must be at most 200 bytes of UTF-8"), given.stderr)
        var environment = ProcessInfo.processInfo.environment
        environment["PHOTOS_AUTHOR"] = long
        let fromEnvironment = try runProcess(
            try binary(), ["--library", lib, "rate", storm, "2"], environment: environment)
        XCTAssertEqual(fromEnvironment.status, 64, fromEnvironment.stderr)
        XCTAssertTrue(
            fromEnvironment.stderr.contains("$PHOTOS_AUTHOR must be at most 200 bytes of UTF-8"), fromEnvironment.stderr
        )
        let ratings = try run(["--library", lib, "--json", "list"]).stdout
        XCTAssertFalse(ratings.contains("\"rating\":2"), ratings)

        let fits = String(repeating: "é", count: 100)
        let rated = try run(["--library", lib, "--author", fits, "rate", storm, "2"])
        XCTAssertEqual(rated.status, 0, rated.stderr)
        let history = try run(["--library", lib, "--json", "history"]).stdout
        XCTAssertTrue(history.contains("\"author\":\"\(fits)\""), history)
    }
}
