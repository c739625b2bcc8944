import Foundation
import PhotosCore
import PhotosTestSupport
import XCTest

@testable import PhotosCLI

/// A bracket range whose end sorts before its start (`[c-a]`) is undefined in POSIX.1-2017
/// XBD §9.3.5 (fnmatch implementations differ), so `--name` refuses it as a usage error (64)
/// naming the pattern, in `list` and `export` alike, instead of guessing.
final class ReversedGlobRangeTests: BinaryTestCase {
    func testTheGlobReportsItsFirstReversedRange() {
        XCTAssertEqual(NameGlob("[c-a]*").reversedRange, "c-a")
        XCTAssertEqual(NameGlob("x[a-cz-y]?").reversedRange, "z-y")
        XCTAssertEqual(NameGlob("[!9-0]").reversedRange, "9-0")
        XCTAssertNil(NameGlob("[a-c]*").reversedRange)
        XCTAssertNil(NameGlob("[a-a]").reversedRange, "a one-character range is fine")
        XCTAssertNil(NameGlob("[c-]x").reversedRange, "a trailing - is a literal")
        XCTAssertNil(NameGlob("\\[c-a]").reversedRange, "an escaped [ opens no set")
        XCTAssertNil(NameGlob("[c-a").reversedRange, "an unclosed [ is a literal")
    }

    func testListAndExportRefuseAReversedRangeWith64() throws {
        let lib = dir + "/lib"
        XCTAssertEqual(try run(["--library", lib, "import", "-q", samplesDir + "/storm.jpg"]).status, 0)
        for command in [["list"], ["export", dir + "/out"]] {
            let result = try run(["--library", lib] + command + ["--name", "[c-a]*"])
            XCTAssertEqual(result.status, 64, result.stderr)
            XCTAssertEqual(result.stdout, "")
            XCTAssertTrue(
                result.stderr.hasPrefix("photos \(command[0]): error: --name '[c-a]*': the range 'c-a' is reversed"),
                result.stderr)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/out"))
        let fine = try run(["--library", lib, "list", "--name", "[r-t]*", "--json"])
        XCTAssertEqual(fine.status, 0, fine.stderr)
        XCTAssertEqual(fine.stdout.split(separator: "\n").count, 1, "storm.jpg matches [r-t]*")
    }
}
