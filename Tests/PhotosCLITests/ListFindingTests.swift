import Foundation
import XCTest
import PhotosTestSupport
@testable import PhotosCLI
import PhotosSQLite

/// `photos list` finds photos by name, text, format, tags and ratings, sorted and limited, in a
/// table that fits the terminal and stays aligned by display width (issue 14 item 1), run
/// with the binary.
final class ListFindingTests: BinaryTestCase {
    override var label: String { "photos-list-finding" }
    var lib: String { dir + "/lib" }
    static let cjk = "東京タワーの夜景とても長い名前のファイル.jpg"
    static let combining = "Cafe\u{301} au lait.jpg"

    /// A copy of sample `name` made distinct by bytes after EOI (a COM segment is metadata: the
    /// same image), named `as`.
    func distinctCopy(of name: String, as newName: String) throws -> String {
        let bytes = try XCTUnwrap(FileManager.default.contents(atPath: samplesDir + "/" + name))
        let path = dir + "/in/" + newName
        try FileManager.default.createDirectory(atPath: dir + "/in", withIntermediateDirectories: true)
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: bytes + Data("copy as \(newName)".utf8)))
        return path
    }

    override func setUpWithError() throws {
        try super.setUpWithError()
        let cjk = try distinctCopy(of: "storm.jpg", as: ListFindingTests.cjk)
        let cafe = try distinctCopy(of: "path.jpg", as: ListFindingTests.combining)
        let imported = try run(
            [
                "--library", lib, "import", "-q", samplesDir + "/storm.jpg", samplesDir + "/kite.png",
                samplesDir + "/ladybird.jpg", cjk, cafe
            ])
        XCTAssertEqual(imported.status, 0, imported.stderr)
    }

    func photos(_ args: [String], columns: Int? = nil) throws -> (status: Int32, stdout: String, stderr: String) {
        var environment = ProcessInfo.processInfo.environment
        environment["COLUMNS"] = columns.map(String.init)
        return try runProcess(try binary(), ["--library", lib] + args, environment: environment)
    }
    func names(_ args: [String]) throws -> [String] {
        let result = try photos(args + ["--json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        return try result.stdout.split(separator: "\n").map {
            try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])["displayName"] as? String
                ?? "?"
        }
    }

    func testTableFitsTheTerminalAndStaysAlignedByDisplayWidth() throws {
        for columns in [80, 120] {
            let list = try photos(["list"], columns: columns)
            XCTAssertEqual(list.status, 0, list.stderr)
            let lines = list.stdout.split(separator: "\n").map(String.init)
            XCTAssertEqual(lines.count, 6, list.stdout)
            XCTAssertTrue(lines[0].hasPrefix("UNIQUENAME "), lines[0])
            XCTAssertTrue(lines[0].contains("  CAPTURED  "), lines[0])
            // Every column starts at the same display column: the rows all end in the zone
            // "default", so they have one display width, the header 3 less ("ZONE").
            let widths = lines.map { TerminalText.width($0) }
            XCTAssertEqual(Set(widths.dropFirst()).count, 1, "\(columns): \(widths)\n\(list.stdout)")
            XCTAssertEqual(widths[0], widths[1] - 3, list.stdout)
            XCTAssertLessThanOrEqual(widths[1], columns, list.stdout)
            for label in ["NAME", "SIZE", "TAGS", "RATING", "CAPTURED", "ZONE"] {
                let header = lines[0].components(separatedBy: label)[0]
                XCTAssertFalse(header.isEmpty, label)
            }
            // The CJK name is cut with '…' by display width; the combining-mark name is whole
            // at 120 columns and counted as one column per letter.
            let cjkRow = try XCTUnwrap(lines.first { $0.contains("東京") })
            XCTAssertTrue(cjkRow.contains("…"), cjkRow)
            XCTAssertFalse(cjkRow.contains(ListFindingTests.cjk), cjkRow)
            if columns == 120 {
                XCTAssertTrue(list.stdout.contains(ListFindingTests.combining), list.stdout)
                XCTAssertTrue(lines[1].hasPrefix(String(lines[1].prefix(36))))
                XCTAssertEqual(lines[1].split(separator: " ").first?.count, 36, "the whole uniqueName")
            } else {
                XCTAssertEqual(lines[1].split(separator: " ").first?.count, 13, "a 13-character prefix")
            }
            // Sizes are decimal and human-readable; --bytes shows bytes; JSON keeps integers.
            XCTAssertTrue(list.stdout.contains(" 129.5 kB  "), list.stdout)
        }
        let bytes = try photos(["list", "--bytes", "--name", "storm.jpg"], columns: 80)
        XCTAssertTrue(bytes.stdout.contains(" 129522  "), bytes.stdout)
        let json = try photos(["list", "--json", "--name", "storm.jpg"])
        XCTAssertTrue(json.stdout.contains(#""byteSize":129522,"#), json.stdout)

        // The prefix shown at 80 columns names the photo in other commands.
        let row = try XCTUnwrap(try photos(["list", "--name", "kite*"], columns: 80).stdout.split(separator: "\n").last)
        let prefix = String(row.prefix(13))
        XCTAssertEqual(try photos(["show", prefix]).status, 0)
    }

    func testNameGlobAndSearchIgnoreCaseAndDiacritics() throws {
        XCTAssertEqual(try names(["list", "--name", "CAFÉ*"]), [ListFindingTests.combining])
        XCTAssertEqual(try names(["list", "--name", "cafe au lait.jpg"]), [ListFindingTests.combining])
        XCTAssertEqual(try names(["list", "--name", "*タワー*"]), [ListFindingTests.cjk])
        XCTAssertEqual(try names(["list", "--name", "[kl]*", "--sort", "name"]), ["kite.png", "ladybird.jpg"])
        XCTAssertEqual(try names(["list", "--name", "?ite.png"]), ["kite.png"])
        XCTAssertEqual(try names(["list", "--name", "*.JPG", "--sort", "name"]).count, 4)
        XCTAssertEqual(try names(["list", "--name", "storm"]), [], "a glob matches the whole name")

        // --search: the display name, tag names (ladybird's sidecar tags Insect, Nature) and the
        // title of the photo's share.
        XCTAssertEqual(try names(["list", "--search", "cafe"]), [ListFindingTests.combining])
        XCTAssertEqual(try names(["list", "--search", "NATUR"]), ["ladybird.jpg"])
        let kite = try XCTUnwrap(try db().scalarString("SELECT unique_name FROM photo WHERE display_name = 'kite.png'"))
        XCTAssertEqual(try photos(["share", "create", kite, "--title", "Été à Nice"]).status, 0)
        XCTAssertEqual(try names(["list", "--search", "ete a nice"]), ["kite.png"])
    }

    func db() throws -> TestCatalog { try TestCatalog(root: lib, readOnly: true) }

    func testSortReverseLimitAndFilters() throws {
        XCTAssertEqual(
            try names(["list", "--sort", "name"]),
            [ListFindingTests.combining, "kite.png", "ladybird.jpg", "storm.jpg", ListFindingTests.cjk])
        let sizes = try photos(["list", "--sort", "size", "--reverse", "--json"]).stdout.split(separator: "\n").map {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["byteSize"] as? Int ?? -1
        }
        XCTAssertEqual(sizes, sizes.sorted(by: >))
        XCTAssertEqual(sizes.count, 5)
        XCTAssertEqual(try names(["list", "--sort", "size", "-r", "--limit", "2"]).count, 2)
        XCTAssertEqual(try names(["list", "--sort", "size", "-r", "-n", "1"]), ["kite.png"])
        XCTAssertEqual(try names(["list", "--limit", "0"]), [])
        // captured: storm (2008) before the CJK copy of it; rating: unrated lowest.
        XCTAssertEqual(try names(["list", "--sort", "rating", "--reverse", "--limit", "1"]), ["ladybird.jpg"])
        XCTAssertEqual(try names(["list", "--format", "png"]), ["kite.png"])
        XCTAssertEqual(try names(["list", "--format", "PNG", "--format", "jpg"]).count, 5)
        XCTAssertEqual(try names(["list", "--unrated"]).count, 4)
        XCTAssertEqual(try names(["list", "--untagged"]).count, 4)
        XCTAssertEqual(try photos(["list", "--sort", "colour"]).status, 64)
        XCTAssertEqual(try photos(["list", "--format", "bmp"]).status, 64)
        XCTAssertEqual(try names(["list", "--format", "gif"]), [])
        XCTAssertEqual(try photos(["list", "--limit", "-1"]).status, 64)
        XCTAssertEqual(try photos(["list", "--untagged", "--tag", "x"]).status, 64)
        XCTAssertEqual(try photos(["list", "--unrated", "--min-rating", "2"]).status, 64)
    }

    /// `--tag` matches tag names as `tag list --match` compares them; an unknown tag, zone or
    /// share exits 66 naming it, with nothing on stdout.
    func testTagsMatchIgnoringCaseAndUnknownNamesAre66() throws {
        XCTAssertEqual(try names(["list", "--tag", "insect"]), ["ladybird.jpg"])
        XCTAssertEqual(try names(["list", "--tag", "INSECT", "--tag", "nature"]), ["ladybird.jpg"])
        for (args, message) in [
            (["list", "--tag", "nope"], "no tag 'nope' in the library"),
            (["list", "--zone", "nowhere"], "no zone 'nowhere' in the library"),
            (["list", "--share", "nosuchshare"], "no share 'nosuchshare' in the library")
        ] {
            let result = try photos(args)
            XCTAssertEqual(result.status, 66, "\(args): \(result.stderr)")
            XCTAssertEqual(result.stdout, "", "\(args)")
            XCTAssertEqual(result.stderr, "photos list: error: \(message)\n")
        }
    }
}
