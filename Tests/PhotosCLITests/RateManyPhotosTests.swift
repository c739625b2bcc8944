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
}
