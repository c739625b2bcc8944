import Foundation
import PhotosTestSupport
import XCTest

/// `purge` shows the progress line on a terminal, counting its phases (the count, one
/// set-wise delete per kind of object, the zone, the originals): the same rules as import's,
/// so piped, with `TERM=dumb` or `--quiet` nothing but the summary appears.
final class PurgeProgressTests: BinaryTestCase {
    override var label: String { "photos-purge-progress" }

    /// A library at `lib` with two photos moved into a new share; returns the share's id.
    func libraryWithShare(_ lib: String) throws -> String {
        let imported = try run(["--library", lib, "import", "-q", samplesDir + "/storm.jpg", samplesDir + "/kite.png"])
        XCTAssertEqual(imported.status, 0, imported.stderr)
        let names = try run(["--library", lib, "list", "--json"]).stdout.split(separator: "\n").map {
            try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])["uniqueName"] as? String
        }
        let created = try run(["--library", lib, "--json", "share", "create", "--move"] + names.compactMap { $0 })
        XCTAssertEqual(created.status, 0, created.stderr)
        let share = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(created.stdout.utf8)) as? [String: Any])
        return try XCTUnwrap((share["zone"] ?? share["id"]) as? String, created.stdout)
    }

    func testOnATerminalPurgeDrawsItsPhasesAndErasesTheLine() throws {
        let lib = dir + "/lib"
        let share = try libraryWithShare(lib)
        var environment = ProcessInfo.processInfo.environment
        environment["TERM"] = "xterm"
        let purge = try PseudoTerminal.run(
            try binary(), ["--library", lib, "purge", "--share", share, "--yes"], environment: environment)
        XCTAssertEqual(purge.status, 0, purge.terminalText)
        let text = purge.terminalText
        XCTAssertTrue(text.contains("\rpurging ["), text.debugDescription)
        XCTAssertTrue(
            text.contains("\rpurging [========================] 10/10"), "ten phases: \(text.debugDescription)")
        let visible = text.split(separator: "\n", omittingEmptySubsequences: false).map {
            String($0.split(separator: "\r", omittingEmptySubsequences: false).last ?? "")
        }
        XCTAssertTrue(visible.contains { $0.hasPrefix("\u{1B}[KPurged zone") || $0.hasPrefix("Purged zone") }, text)
        XCTAssertFalse(visible.last?.contains("purging [") == true, "the bar is erased at the end")
        XCTAssertEqual(try run(["--library", lib, "list", "--json"]).stdout, "", "the photos are gone")
    }

    func testPipedDumbOrQuietPurgePrintsOnlyTheSummary() throws {
        var environment = ProcessInfo.processInfo.environment
        environment["TERM"] = "xterm"
        let lib1 = dir + "/lib1"
        let share1 = try libraryWithShare(lib1)
        let piped = try PseudoTerminal.run(
            try binary(), ["--library", lib1, "purge", "--share", share1, "--yes"], environment: environment,
            stdoutOnTerminal: false)
        XCTAssertEqual(piped.status, 0, piped.terminalText)
        XCTAssertEqual(piped.terminalText, "", "nothing on stderr")
        XCTAssertTrue(piped.stdout.hasPrefix("Purged zone "), piped.stdout)
        XCTAssertEqual(piped.stdout.split(separator: "\n").count, 1, piped.stdout)

        environment["TERM"] = "dumb"
        let lib2 = dir + "/lib2"
        let share2 = try libraryWithShare(lib2)
        let dumb = try PseudoTerminal.run(
            try binary(), ["--library", lib2, "purge", "--share", share2, "--yes"], environment: environment)
        XCTAssertFalse(dumb.terminalText.contains("purging ["), dumb.terminalText)
        XCTAssertFalse(dumb.terminalText.contains("\u{1B}"), dumb.terminalText)

        environment["TERM"] = "xterm"
        let lib3 = dir + "/lib3"
        let share3 = try libraryWithShare(lib3)
        let quiet = try PseudoTerminal.run(
            try binary(), ["--library", lib3, "purge", "--share", share3, "--yes", "--quiet"], environment: environment)
        XCTAssertEqual(quiet.status, 0, quiet.terminalText)
        XCTAssertEqual(quiet.terminalText, "", "--quiet: nothing at all")
    }
}
