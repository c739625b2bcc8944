import Foundation
import PhotosTestSupport
import XCTest

/// `sync --export`, `sync --apply` and `sync --from` show the progress line on a terminal:
/// exporting counts the changeset's objects, applying counts the originals it copies (with
/// their bytes); piped, nothing but the summary appears (the same rules as import's).
final class SyncProgressTests: BinaryTestCase {
    override var label: String { "photos-sync-progress" }

    private var terminal: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["TERM"] = "xterm"
        return environment
    }

    func testOnATerminalExportAndApplyDrawTheirCountsAndPipedTheyPrintOnlyTheSummary() throws {
        let source = dir + "/source", target = dir + "/target", changeset = dir + "/changes"
        let imported = try run([
            "--library", source, "import", "-q", samplesDir + "/storm.jpg", samplesDir + "/kite.png"
        ])
        XCTAssertEqual(imported.status, 0, imported.stderr)
        XCTAssertEqual(try run(["--library", target, "init"]).status, 0)

        let export = try PseudoTerminal.run(
            try binary(), ["--library", source, "sync", "--export", changeset], environment: terminal)
        XCTAssertEqual(export.status, 0, export.terminalText)
        // Two photos and the default zone's objects: the last update names the whole count.
        XCTAssertTrue(export.terminalText.contains("\rexporting ["), export.terminalText.debugDescription)

        let apply = try PseudoTerminal.run(
            try binary(), ["--library", target, "sync", "--apply", changeset], environment: terminal)
        XCTAssertEqual(apply.status, 0, apply.terminalText)
        XCTAssertTrue(
            apply.terminalText.contains("\rapplying [========================] 2/2"),
            "two originals copied: \(apply.terminalText.debugDescription)")
        XCTAssertEqual(try run(["--library", target, "list", "--json"]).stdout.split(separator: "\n").count, 2)

        // Piped: one summary line on stdout, nothing on the terminal.
        let again = dir + "/again"
        XCTAssertEqual(try run(["--library", again, "init"]).status, 0)
        let piped = try PseudoTerminal.run(
            try binary(), ["--library", again, "sync", "--apply", changeset], environment: terminal,
            stdoutOnTerminal: false)
        XCTAssertEqual(piped.status, 0, piped.terminalText)
        XCTAssertEqual(piped.terminalText, "", "nothing on stderr")
        XCTAssertTrue(piped.stdout.hasPrefix("Applied tokens "), piped.stdout)
        XCTAssertEqual(piped.stdout.split(separator: "\n").count, 1, piped.stdout)
    }
}
