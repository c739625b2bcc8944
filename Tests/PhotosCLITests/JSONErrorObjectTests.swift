import Foundation
import XCTest
import PhotosTestSupport

/// Under --json a failing command writes one JSON error object on stderr,
/// `{"error":{"message":…,"exitStatus":…,"command":…}}`, and nothing on stdout; without
/// --json errors stay plain text. Run with the binary.
final class JSONErrorObjectTests: BinaryTestCase {
    override var label: String { "photos-json-errors" }
    var lib: String { dir + "/lib" }

    func error(_ args: [String]) throws -> (status: Int32, object: [String: Any]) {
        let result = try run(args)
        XCTAssertEqual(result.stdout, "", "\(args)")
        XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, "\(args): one line: \(result.stderr)")
        let top = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(result.stderr.utf8)) as? [String: Any], result.stderr)
        return (result.status, try XCTUnwrap(top["error"] as? [String: Any], result.stderr))
    }

    func testFailuresAreJSONObjectsOnStderr() throws {
        XCTAssertEqual(try run(["--library", lib, "import", "-q", samplesDir + "/storm.jpg"]).status, 0)
        let cases: [([String], Int32, String, String?)] = [
            (["--library", lib, "list", "--json", "--tag", "nope"], 66, "no tag 'nope' in the library", "list"),
            (
                ["--json", "--library", lib, "show", "ffff0000-nope"], 66, "no photo 'ffff0000-nope' in the library",
                "show"
            ),
            (
                ["--library", lib, "rate", "abcd", "9", "--json"], 64, "rating 9 is out of range; a rating is 1 to 5",
                "rate"
            ),
            (["--json", "imprt"], 64, "unknown command 'imprt'. Did you mean 'import'?", nil),
            (["--json", "--library", dir + "/none", "list"], 66, "no library at \(dir)/none", "list")
        ]
        for (args, status, message, command) in cases {
            let (exit, object) = try error(args)
            XCTAssertEqual(exit, status, "\(args)")
            XCTAssertEqual(object["exitStatus"] as? Int, Int(status), "\(args)")
            XCTAssertTrue((object["message"] as? String)?.hasPrefix(message) == true, "\(args): \(object)")
            XCTAssertEqual(object["command"] as? String, command, "\(args)")
        }
        let plain = try run(["--library", lib, "list", "--tag", "nope"])
        XCTAssertEqual(plain.stderr, "photos list: error: no tag 'nope' in the library\n")
        // '--json' after '--' is an argument, not the option.
        let operand = try run(["--library", lib, "tag", "add", "X", "--", "--json"])
        XCTAssertTrue(operand.stderr.hasPrefix("photos tag add: error: no photo '--json'"), operand.stderr)
    }
}
