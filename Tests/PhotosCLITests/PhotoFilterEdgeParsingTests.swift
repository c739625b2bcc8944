import Foundation
import PhotosCore
import PhotosTestSupport
import XCTest

@testable import PhotosCLI

/// `list` and `export` select photos with typed values parsed once at the CLI edge: `--tag`
/// becomes a normalized `TagName` (trimmed, NFC) and `--zone` a `ZoneID` while the options are
/// decoded, so Core's `PhotoFilter` never sees a raw string.
final class PhotoFilterEdgeParsingTests: BinaryTestCase {
    private func decode<O: ParsableOptions>(_ type: O.Type, _ words: [String]) throws -> O {
        try O.decode(parseArguments(words, options: O.options.map(\.spec)))
    }

    func testTagAndZoneAreTypedWhenDecoded() throws {
        let list = try decode(PhotoFilterOptions.self, ["--tag", "  Cafe\u{301} ", "--tag=Beach", "--zone", "Z-1"])
        XCTAssertEqual(list.filter.tags, [TagName(rawValue: "Caf\u{E9}"), TagName(rawValue: "Beach")])
        XCTAssertEqual(list.filter.tags.first?.rawValue.unicodeScalars.count, 4, "NFC: é is one scalar")
        XCTAssertEqual(list.filter.zone, ZoneID(rawValue: "Z-1"), "a zone id is kept as typed")

        let export = try decode(ExportCommand.Options.self, ["dest", "--tag", "\tNature\n"])
        XCTAssertEqual(export.exportOptions.filter.tags, [TagName(rawValue: "Nature")])
    }

    func testAnInvalidTagIsRefusedWhileDecodingWithTheValueError() {
        XCTAssertThrowsError(try decode(PhotoFilterOptions.self, ["--tag", " \t "])) {
            XCTAssertEqual($0 as? ValueError, .tagNameEmpty)
        }
        XCTAssertThrowsError(try decode(ExportCommand.Options.self, ["dest", "--tag", "a\u{7}b"])) {
            XCTAssertEqual($0 as? ValueError, .tagNameControlCharacters(shown: #""a\u0007b""#))
        }
    }

    func testTheBinarySaysTheSameForAnEmptyTagOfListAndExport() throws {
        let lib = dir + "/lib"
        XCTAssertEqual(try run(["--library", lib, "--quiet", "init"]).status, 0)
        let list = try run(["--library", lib, "list", "--tag", " "])
        let export = try run(["--library", lib, "export", dir + "/out", "--tag", " "])
        // A bad command-line argument value is a usage error, 64, everywhere (issue 14).
        XCTAssertEqual(list.status, 64)
        XCTAssertEqual(export.status, 64)
        XCTAssertEqual(list.stdout, "")
        XCTAssertTrue(list.stderr.hasPrefix("photos list: error: tag name is empty\nUsage: photos list "), list.stderr)
        XCTAssertTrue(
            export.stderr.hasPrefix("photos export: error: tag name is empty\nUsage: photos export "),
            "one wording for the one ValueError: \(export.stderr)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/out"), "refused before anything is written")
    }
}
