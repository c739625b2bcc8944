import Foundation
import PhotosTestSupport
import XCTest

/// Issue 32 item 3 (its first part): `rate PHOTO… N` and `rate - N` rate many photos in one
/// transaction with one history transaction (before, `rate - 5` with two ids on stdin failed and
/// `rate A B 5` was refused). Run with the binary, on the backend of the run.
final class RateManyPhotosTests: BinaryTestCase {
    override var label: String { "photos-rate-many" }
    var lib: String { dir + "/lib" }

    func db() throws -> TestCatalog { try TestCatalog(root: lib, readOnly: true) }

    /// The photos' uniqueNames by display name: storm, path, kite.
    func importThree() throws -> [String] {
        let files = ["storm.jpg", "path.jpg", "kite.png"]
        let imported = try run(["--library", lib, "import", "-q"] + files.map { samplesDir + "/" + $0 })
        XCTAssertEqual(imported.status, 0, imported.stderr)
        return try files.map {
            try XCTUnwrap(try db().scalarString("SELECT unique_name FROM photo WHERE display_name = ?", [$0]))
        }
    }

    /// `author|value|photo display name` of every rating, by display name.
    func ratings() throws -> [String] {
        try db().rows(
            "SELECT r.author, r.value, p.display_name FROM rating r JOIN photo p ON p.id = r.photo_id ORDER BY p.display_name"
        ).map { "\($0[0] ?? "-")|\($0[1] ?? "")|\($0[2] ?? "")" }
    }

    func rateTransactions() throws -> Int? {
        try db().scalarInt("SELECT count(*) FROM history_transaction WHERE context = 'rate'")
    }

    func testManyPhotosInOneHistoryTransaction() throws {
        let n = try importThree()
        let two = try run(["--library", lib, "--author", "ann", "rate", n[0], n[1], "4"])
        XCTAssertEqual(two.status, 0, two.stderr)
        XCTAssertEqual(two.stdout, "Rated 2 photos 4 by ann (2 added, 0 replaced, 0 unchanged)\n")
        XCTAssertEqual(try ratings(), ["ann|4|path.jpg", "ann|4|storm.jpg"])
        XCTAssertEqual(try rateTransactions(), 1)
        XCTAssertEqual(
            try db().scalarInt(
                "SELECT count(*) FROM history_change c JOIN history_transaction t ON t.token = c.token WHERE t.context = 'rate'"
            ), 4, "a Rating insert and a Photo update per photo")

        // `rate - 5` with the ids on stdin (the issue's example), one photo already rated.
        let shell = try runProcess(
            "/bin/sh",
            [
                "-c",
                "printf '%s\\n%s\\n' '\(n[1])' '\(n[2])' | '\(try binary())' --library '\(lib)' --author ann rate - 5"
            ], preparing: false)
        XCTAssertEqual(shell.status, 0, shell.stderr)
        XCTAssertEqual(shell.stdout, "Rated 2 photos 5 by ann (1 added, 1 replaced, 0 unchanged)\n")
        XCTAssertEqual(try ratings(), ["ann|5|kite.png", "ann|5|path.jpg", "ann|4|storm.jpg"])
        XCTAssertEqual(try rateTransactions(), 2)

        // An unknown photo among them: nothing changes.
        let unknown = try run(["--library", lib, "--author", "ann", "rate", n[0], "ZZZZZZZZ", "1"])
        XCTAssertEqual(unknown.status, 66, unknown.stderr)
        XCTAssertEqual(try ratings(), ["ann|5|kite.png", "ann|5|path.jpg", "ann|4|storm.jpg"])
        // A bad value is 64 before anything; --clear takes one photo and no value.
        XCTAssertEqual(try run(["--library", lib, "rate", n[0], n[1], "7"]).status, 64)
        XCTAssertEqual(try run(["--library", lib, "rate", n[0]]).status, 64)
        XCTAssertEqual(try run(["--library", lib, "rate", n[0], "--clear", "3"]).status, 64)
        XCTAssertEqual(try run(["--library", lib, "rate", n[0], n[1], "--clear"]).status, 64)
        XCTAssertEqual(try run(["--library", lib, "--author", "ann", "rate", n[0], "--clear", "-q"]).status, 0)
        XCTAssertEqual(try ratings(), ["ann|5|kite.png", "ann|5|path.jpg"])
    }

    /// `list --rated-by ann [--min-rating 4]` and `--unrated-by bob` (the same filters for
    /// `export`, any command taking the photo filter).
    func testRatedByAndUnratedBy() throws {
        let n = try importThree()
        for (author, photo, value) in [("ann", 0, "5"), ("ann", 1, "3"), ("bob", 1, "5"), ("bob", 2, "1")] {
            let r = try run(["--library", lib, "--author", author, "rate", n[photo], value])
            XCTAssertEqual(r.status, 0, r.stderr)
        }
        func listed(_ args: [String]) throws -> [String] {
            let r = try run(["--library", lib, "--json", "list"] + args)
            XCTAssertEqual(r.status, 0, "\(args): \(r.stderr)")
            return try r.stdout.split(separator: "\n").map {
                let object = try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
                return try XCTUnwrap(object?["uniqueName"] as? String)
            }.sorted()
        }
        XCTAssertEqual(try listed(["--rated-by", "ann"]), [n[0], n[1]].sorted())
        XCTAssertEqual(try listed(["--rated-by", " ann "]), [n[0], n[1]].sorted(), "the author normalized as rate does")
        XCTAssertEqual(try listed(["--rated-by", "ann", "--min-rating", "4"]), [n[0]], "ann's own rating")
        XCTAssertEqual(try listed(["--min-rating", "4"]), [n[0], n[1]].sorted(), "the mean: 3 and 5 give 4")
        XCTAssertEqual(try listed(["--unrated-by", "bob"]), [n[0]])
        XCTAssertEqual(try listed(["--rated-by", "bob", "--unrated-by", "ann"]), [n[2]])
        XCTAssertEqual(try listed(["--rated-by", "carol"]), [])
        XCTAssertEqual(try run(["--library", lib, "list", "--rated-by", "ann", "--unrated"]).status, 64)
    }
}
