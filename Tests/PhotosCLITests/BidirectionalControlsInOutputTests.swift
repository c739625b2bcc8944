import Foundation
import XCTest
import PhotosTestSupport

/// A name holding a Unicode bidirectional formatting character (UAX #9 §2: U+202E RIGHT-TO-LEFT
/// OVERRIDE and its kin) would reorder the rest of its table row on a terminal ("Trojan
/// Source", CVE-2021-42574) and takes no column, so it is shown as `?` in tables, like a C0
/// control, and as an escape (`\u{202E}`) in messages that name a path.
final class BidirectionalControlsInOutputTests: BinaryTestCase {
    override var label: String { "photos-bidi-output" }
    var lib: String { dir + "/lib" }

    /// One file per bidirectional control, named `b<scalar>x.jpg`.
    let controls: [UInt32] = [
        0x061C, 0x200E, 0x200F, 0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069
    ]

    func name(_ scalar: UInt32) -> String {
        "b" + String(Character(Unicode.Scalar(scalar) ?? "?")) + "x\(String(scalar, radix: 16)).jpg"
    }

    func testListShowsEachBidirectionalControlAsAQuestionMarkAndKeepsColumnsAligned() throws {
        let input = dir + "/in"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        let bytes = try XCTUnwrap(FileManager.default.contents(atPath: samplesDir + "/storm.jpg"))
        for (i, scalar) in controls.enumerated() {
            // Distinct bytes after EOI, so no file is a duplicate of another.
            XCTAssertTrue(
                FileManager.default.createFile(atPath: input + "/" + name(scalar), contents: bytes + Data([UInt8(i)])))
        }
        let imported = try run(["--library", lib, "import", "-q", input])
        XCTAssertEqual(imported.status, 0, imported.stderr)
        var environment = ProcessInfo.processInfo.environment
        environment["COLUMNS"] = "100"
        let listed = try runProcess(
            try binary(), ["--library", lib, "list", "--sort", "name"], environment: environment)
        XCTAssertEqual(listed.status, 0, listed.stderr)
        let rows = listed.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(rows.count, controls.count + 1)
        for scalar in controls {
            XCTAssertFalse(
                listed.stdout.unicodeScalars.contains { $0.value == scalar }, "U+\(String(scalar, radix: 16))")
            XCTAssertTrue(listed.stdout.contains("b?x\(String(scalar, radix: 16)).jpg"), listed.stdout)
        }
        // Every row has its SIZE column ("… kB") ending at the same offset as the header's SIZE.
        let header = try XCTUnwrap(rows.first)
        let sizeEnd = try XCTUnwrap(header.range(of: "SIZE")).upperBound
        let column = header.distance(from: header.startIndex, to: sizeEnd)
        for row in rows.dropFirst() {
            let end = try XCTUnwrap(row.range(of: " kB")).upperBound
            XCTAssertEqual(row.distance(from: row.startIndex, to: end), column, row)
        }
    }

    func testAnErrorNamingAPathWritesTheControlAsAnEscape() throws {
        let bad = dir + "/evil\u{202E}gpj.jpg"
        XCTAssertTrue(FileManager.default.createFile(atPath: bad, contents: Data("not a jpeg".utf8)))
        let imported = try run(["--library", lib, "import", bad])
        XCTAssertEqual(imported.status, 1, imported.stderr)
        XCTAssertFalse(imported.stderr.unicodeScalars.contains { $0.value == 0x202E }, imported.stderr)
        XCTAssertTrue(imported.stderr.contains("evil\\u{202E}gpj.jpg"), imported.stderr)
    }
}
