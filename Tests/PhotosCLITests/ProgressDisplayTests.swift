import Foundation
import XCTest
import PhotosTestSupport
@testable import PhotosCLI

/// The progress line of long commands: count, rate, bytes and ETA; messages printed above it,
/// never onto it; nothing but the summary when stdout or stderr is not a terminal, with
/// `TERM=dumb` or `--quiet`; `import --verbose` names skipped and duplicate files.
final class ProgressDisplayTests: BinaryTestCase {
    override var label: String { "photos-progress" }
    var lib: String { dir + "/lib" }

    func testTheLineShowsCountRateBytesAndTimeLeft() {
        XCTAssertEqual(
            ProgressBar.render(label: "importing", done: 120, total: 400, bytes: 15_728_640, elapsed: 4),
            "importing [=======>                ] 120/400  30/s  15.7 MB  ETA 0:10")
        XCTAssertEqual(
            ProgressBar.render(label: "verifying", done: 3, total: 4, bytes: nil, elapsed: 2),
            "verifying [==================>     ] 3/4  1.5/s  ETA 0:01")
        XCTAssertEqual(
            ProgressBar.render(label: "exporting", done: 4, total: 4, bytes: nil, elapsed: 1),
            "exporting [========================] 4/4  4.0/s", "no ETA when done")
        XCTAssertEqual(ProgressBar.duration(3725), "1:02:05")
    }

    func testMessagesArePrintedAboveTheLineNeverOntoIt() {
        var err = ""
        let streams = OutputStreams(
            out: { _ in }, err: { err += $0 }, outBytes: { _ in }, stderrIsTerminal: true, color: false)
        streams.stdoutIsTerminal = true
        let console = Console(streams: streams)
        console.withProgress("importing") { bar in
            bar.update(done: 1, total: 2)
            err = ""
            console.itemError("b.jpg", "damaged")
        }
        let line = "importing [============>           ] 1/2"
        XCTAssertEqual(err, "\r\u{1B}[Kb.jpg: error: damaged\n\r\(line)\u{1B}[K\r\u{1B}[K")
    }

    /// A folder of the samples plus a file that claims to be a JPEG but is not (a failure) and
    /// a text file (skipped).
    private func makeInputWithProblems() throws -> String {
        let (input, _) = try makeInput(copies: 2)
        XCTAssertTrue(FileManager.default.createFile(atPath: input + "/broken.jpg", contents: Data("not a jpeg".utf8)))
        XCTAssertTrue(FileManager.default.createFile(atPath: input + "/notes.txt", contents: Data("text".utf8)))
        return input
    }

    func testOnATerminalTheBarIsDrawnErrorsGoAboveItAndOnlyTheSummaryStays() throws {
        let input = try makeInputWithProblems()
        var environment = ProcessInfo.processInfo.environment
        environment["TERM"] = "xterm"
        let run = try PseudoTerminal.run(
            try binary(), ["--library", lib, "import", input, "-j", "1"], environment: environment)
        XCTAssertEqual(run.status, 1, run.terminalText)
        let text = run.terminalText
        XCTAssertTrue(text.contains("\rimporting ["), "the bar was drawn: \(text.debugDescription)")
        // Every message line starts on a clean line: what is left of each line after its last
        // carriage return (what the terminal shows) is never a bar with text after it.
        let visible = text.split(separator: "\n", omittingEmptySubsequences: false).map {
            String($0.split(separator: "\r", omittingEmptySubsequences: false).last ?? "")
        }
        let errorLine = try XCTUnwrap(visible.first { $0.contains("broken.jpg") }, text.debugDescription)
        XCTAssertTrue(errorLine.hasPrefix("\u{1B}[K") || errorLine.hasPrefix(input), errorLine.debugDescription)
        XCTAssertFalse(errorLine.contains("importing ["), "an error never lands on the bar")
        XCTAssertTrue(
            visible.contains { $0.hasPrefix("\u{1B}[KImported 10 photos") || $0.hasPrefix("Imported 10 photos") },
            text.debugDescription)
        XCTAssertFalse(visible.last?.contains("importing [") == true, "the bar is erased at the end")
    }

    func testNoBarWhenStdoutIsNotATerminalWithTermDumbOrQuiet() throws {
        let input = try makeInputWithProblems()
        var environment = ProcessInfo.processInfo.environment
        environment["TERM"] = "xterm"
        let piped = try PseudoTerminal.run(
            try binary(), ["--library", lib + "1", "import", input], environment: environment,
            stdoutOnTerminal: false)
        XCTAssertFalse(piped.terminalText.contains("importing ["), piped.terminalText)
        XCTAssertTrue(piped.terminalText.contains("broken.jpg"), "errors still on stderr")
        XCTAssertTrue(piped.stdout.hasPrefix("Imported 10 photos"), piped.stdout)

        environment["TERM"] = "dumb"
        let dumb = try PseudoTerminal.run(
            try binary(), ["--library", lib + "2", "import", input], environment: environment)
        XCTAssertFalse(dumb.terminalText.contains("importing ["), dumb.terminalText)
        XCTAssertFalse(dumb.terminalText.contains("\u{1B}"), "no escape sequence at all on a dumb terminal")

        environment["TERM"] = "xterm"
        let quiet = try PseudoTerminal.run(
            try binary(), ["--library", lib + "3", "import", input, "--quiet"], environment: environment)
        XCTAssertFalse(quiet.terminalText.contains("importing ["), quiet.terminalText)
        let verify = try PseudoTerminal.run(try binary(), ["--library", lib + "3", "verify"], environment: environment)
        XCTAssertTrue(verify.terminalText.contains("\rverifying ["), "verify draws its bar on a terminal")
        XCTAssertTrue(verify.terminalText.contains("Checked 10 photos"), verify.terminalText)
        for target in [lib + "4", lib + "5"] { XCTAssertEqual(try run(["--library", target, "init", "-q"]).status, 0) }
        let merge = try PseudoTerminal.run(
            try binary(), ["--library", lib + "4", "merge", "--from", lib + "3"], environment: environment)
        XCTAssertTrue(merge.terminalText.contains("\rmerging [========================] 10/10"), merge.terminalText)
        XCTAssertTrue(merge.terminalText.contains("Merged 10 new photos"), merge.terminalText)
        let quietMerge = try PseudoTerminal.run(
            try binary(), ["--library", lib + "5", "merge", "--from", lib + "3", "-q"], environment: environment)
        XCTAssertEqual(quietMerge.terminalText, "", "--quiet: nothing")
    }

    func testVerboseNamesEverySkippedAndDuplicateFile() throws {
        let input = try makeInputWithProblems()
        XCTAssertEqual(try run(["--library", lib, "import", input, "--quiet"]).status, 1)
        let again = try run(["--library", lib, "import", input, "--verbose"])
        XCTAssertEqual(again.status, 1, again.stderr)
        let lines = again.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.filter { $0.hasPrefix("skipped: ") }, ["skipped: \(input)/notes.txt"])
        let jpegs = try FileManager.default.contentsOfDirectory(atPath: input).filter {
            $0.hasSuffix(".jpg") && $0 != "broken.jpg"
        }
        XCTAssertEqual(
            Set(lines.filter { $0.hasPrefix("duplicate: ") }), Set(jpegs.map { "duplicate: \(input)/\($0)" }))

        let json = try run(["--library", lib, "--json", "import", input, "--verbose"])
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(object["skippedFiles"] as? [String], ["\(input)/notes.txt"])
        XCTAssertEqual(Set(object["duplicateFiles"] as? [String] ?? []), Set(jpegs.map { "\(input)/\($0)" }))
        let plain = try run(["--library", lib, "--json", "import", input])
        XCTAssertFalse(plain.stdout.contains("skippedFiles"), "the lists only with --verbose")
    }
}
