import Foundation
import PhotosTestSupport
import XCTest

@testable import PhotosCLI

/// A short option that takes a value accepts it attached (`-n1`, `-j2`), as getopt and
/// swift-argument-parser do, in the one argument parser every command goes through.
final class AttachedShortOptionValueTests: BinaryTestCase {
    private let specs = [
        OptionSpec(["--limit", "-n"], value: "N", help: ""),
        OptionSpec(["--jobs", "-j"], value: "N", help: ""),
        OptionSpec(["--quiet", "-q"], help: "")
    ]

    func testAnAttachedValueIsTheSameAsASeparateOne() throws {
        let attached = try parseArguments(["-n1", "-j12", "a"], options: specs)
        let separate = try parseArguments(["-n", "1", "-j", "12", "a"], options: specs)
        XCTAssertEqual(attached.values, ["--limit": ["1"], "--jobs": ["12"]])
        XCTAssertEqual(attached.values, separate.values)
        XCTAssertEqual(attached.positionals, ["a"])
        XCTAssertEqual(
            try parseArguments(["-n=3"], options: specs).values["--limit"], ["=3"], "as getopt: all after -n")
        XCTAssertEqual(try parseArguments(["-n-1"], options: specs).values["--limit"], ["-1"])
    }

    func testAFlagOrUnknownShortOptionWithTrailingTextIsStillAnError() {
        XCTAssertThrowsError(try parseArguments(["-qx"], options: specs)) {
            XCTAssertEqual(($0 as? UsageError)?.message, "unknown option '-qx'")
        }
        XCTAssertThrowsError(try parseArguments(["-x1"], options: specs)) {
            XCTAssertEqual(($0 as? UsageError)?.message, "unknown option '-x1'")
        }
        XCTAssertThrowsError(try parseArguments(["-n1", "-n2"], options: specs)) {
            XCTAssertEqual(($0 as? UsageError)?.message, "option '-n' was given more than once")
        }
    }

    func testTheBinaryTakesAttachedValues() throws {
        let lib = dir + "/lib"
        let imported = try run([
            "--library", lib, "import", "-q", "-j2", samplesDir + "/storm.jpg", samplesDir + "/kite.png"
        ])
        XCTAssertEqual(imported.status, 0, imported.stderr)
        let one = try run(["--library", lib, "list", "-n1", "--json"])
        XCTAssertEqual(one.status, 0, one.stderr)
        XCTAssertEqual(one.stdout.split(separator: "\n").count, 1, one.stdout)
        let bad = try run(["--library", lib, "list", "-nx"])
        XCTAssertEqual(bad.status, 64, bad.stderr)
        XCTAssertTrue(bad.stderr.contains("--limit"), bad.stderr)
    }
}
