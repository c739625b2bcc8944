import Foundation
import XCTest
import PhotosTestSupport
import PhotosSQLite

/// One meaning per option name (issue 14 item 3): dates take dates everywhere (`history
/// --since DATE`, tokens are `--since-token N`), an unknown zone or share exits 66 in every
/// command, an unknown `--entity` 64; `history consumers` has a header. Run with the binary.
final class OptionMeaningTests: BinaryTestCase {
    override var label: String { "photos-option-meaning" }
    var lib: String { dir + "/lib" }

    func photos(_ args: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        try run(["--library", lib] + args)
    }
    func tokens(_ args: [String]) throws -> [Int] {
        let result = try photos(["history", "--json"] + args)
        XCTAssertEqual(result.status, 0, result.stderr)
        return result.stdout.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["token"] as? Int
        }
    }

    func testHistoryDatesAndTokens() throws {
        XCTAssertEqual(try photos(["import", "-q", samplesDir + "/storm.jpg"]).status, 0)
        let name = try XCTUnwrap(
            try TestCatalog(root: lib, readOnly: true).scalarString("SELECT unique_name FROM photo"))
        XCTAssertEqual(try photos(["tag", "add", "A", name]).status, 0)
        XCTAssertEqual(try photos(["tag", "add", "B", name]).status, 0)
        // Make the first two transactions older: 2020-01-01 and 2020-06-15.
        let db = try TestCatalog(root: lib)
        try db.run("UPDATE history_transaction SET timestamp = '2020-01-01T10:00:00Z' WHERE token = 1")
        try db.run("UPDATE history_transaction SET timestamp = '2020-06-15T23:59:59Z' WHERE token = 2")
        XCTAssertEqual(try tokens([]), [1, 2, 3])
        XCTAssertEqual(try tokens(["--since", "2020-06-15"]), [2, 3])
        XCTAssertEqual(try tokens(["--since", "2020-06-16"]), [3])
        XCTAssertEqual(try tokens(["--until", "2020-06-15"]), [1, 2], "a day-only --until includes the day")
        XCTAssertEqual(try tokens(["--since", "2020-01-01T10:00:01Z", "--until", "2021-01-01"]), [2])
        XCTAssertEqual(try tokens(["--since-token", "1"]), [2, 3])
        XCTAssertEqual(try tokens(["--since-token", "1", "--since", "2020-06-16"]), [3])

        let number = try photos(["history", "--since", "12"])
        XCTAssertEqual(number.status, 64)
        XCTAssertTrue(
            number.stderr.hasPrefix(
                "photos history: error: --since takes a date like 2024-05-01, 2024-05-01T12:00:00Z, yesterday or -7d, not '12'; for a token use --since-token 12\n"
            ),
            number.stderr)
        XCTAssertEqual(try photos(["history", "--since-token", "x"]).status, 64)
        let entity = try photos(["history", "--entity", "Photograph"])
        XCTAssertEqual(entity.status, 64)
        XCTAssertTrue(entity.stderr.contains("--entity takes one of Photo,"), entity.stderr)
        let zone = try photos(["history", "--zone", "nowhere"])
        XCTAssertEqual(zone.status, 66)
        XCTAssertEqual(zone.stdout, "")
        XCTAssertEqual(zone.stderr, "photos history: error: no zone 'nowhere' in the library\n")
        XCTAssertEqual(try photos(["history", "--zone", "default", "--json"]).status, 0)
    }

    func testUnknownZonesAndSharesAre66Everywhere() throws {
        XCTAssertEqual(try photos(["import", "-q", samplesDir + "/storm.jpg"]).status, 0)
        let cases: [[String]] = [
            ["list", "--zone", "nowhere"], ["list", "--share", "nosuchshare"],
            ["export", dir + "/o", "--zone", "nowhere"],
            ["export", dir + "/o", "--share", "nosuchshare"], ["history", "--zone", "nowhere"],
            ["tag", "list", "--zone", "nowhere"], ["tag", "delete", "x", "--zone", "nowhere"],
            ["share", "show", "nosuchshare"], ["purge", "--share", "nosuchshare"]
        ]
        for args in cases {
            let result = try photos(args)
            XCTAssertEqual(result.status, 66, "\(args): \(result.stderr)")
            XCTAssertEqual(result.stdout, "", "\(args)")
            XCTAssertTrue(result.stderr.contains("nowhere") || result.stderr.contains("nosuchshare"), result.stderr)
        }
    }

    func testHistoryConsumersHasAHeader() throws {
        XCTAssertEqual(try photos(["import", "-q", samplesDir + "/storm.jpg"]).status, 0)
        XCTAssertEqual(try photos(["history", "--consumer", "nightly-backup", "--advance", "-q"]).status, 0)
        XCTAssertEqual(try photos(["history", "consumers"]).stdout, "NAME            TOKEN\nnightly-backup  1\n")
        XCTAssertEqual(try photos(["history", "consumers", "-q"]).stdout, "nightly-backup  1\n")
        XCTAssertEqual(
            try photos(["history", "consumers", "--json"]).stdout, #"{"name":"nightly-backup","token":1}"# + "\n")
    }
}
