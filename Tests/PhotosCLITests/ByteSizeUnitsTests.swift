import Foundation
import PhotosTestSupport
import XCTest

@testable import PhotosCLI

/// Every human-readable size uses one convention, `list`'s decimal units (`2.3 MB`, 1 kB =
/// 1000 B), through the one helper `TerminalText.bytes`: the import and export summaries,
/// `show`, `stats` and `list` agree.
final class ByteSizeUnitsTests: BinaryTestCase {
    func testSummariesShowAndListUseDecimalUnits() throws {
        let lib = dir + "/lib"
        let storm = samplesDir + "/storm.jpg"
        let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: storm)[.size] as? Int64)
        let expected = TerminalText.bytes(size)
        XCTAssertTrue(expected.hasSuffix(" kB") || expected.hasSuffix(" MB"), expected)

        let imported = try run(["--library", lib, "import", storm])
        XCTAssertEqual(imported.status, 0, imported.stderr)
        XCTAssertTrue(imported.stdout.contains("; \(expected) in "), imported.stdout)
        let exported = try run(["--library", lib, "export", dir + "/out"])
        XCTAssertEqual(exported.status, 0, exported.stderr)
        XCTAssertNotNil(
            exported.stdout.range(of: #"; [0-9]+\.[0-9] (kB|MB) in "#, options: .regularExpression), exported.stdout)
        let list = try run(["--library", lib, "list"])
        XCTAssertTrue(list.stdout.contains(expected), list.stdout)
        let json = try run(["--library", lib, "list", "--json"])
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let show = try run(["--library", lib, "show", try XCTUnwrap(object["uniqueName"] as? String)])
        XCTAssertTrue(show.stdout.contains("\(size) bytes (\(expected))"), show.stdout)
        for output in [imported.stdout, exported.stdout, list.stdout, show.stdout] {
            XCTAssertFalse(output.contains("iB"), "no binary prefixes: \(output)")
        }
    }
}
