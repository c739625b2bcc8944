import Foundation
import XCTest
import PhotosTestSupport
@testable import PhotosCLI
import PhotosCore

/// Issue 10 item 6: commands as types with option tables decoded once, `GlobalOptions` with the
/// shadowing rule, the `Console` whose diagnostics decide exit 1, one `TerminalText`, one
/// `ErrorReporting`.
final class TypedCommandsTests: XCTestCase {
    // MARK: TerminalText

    func testPaddingCountsDisplayColumnsNotCharacters() {
        XCTAssertEqual(TerminalText.width("abc"), 3)
        XCTAssertEqual(TerminalText.width("日本"), 4, "East Asian wide: two columns each")
        XCTAssertEqual(TerminalText.width("Cafe\u{301}"), 4, "a combining accent adds no column")
        XCTAssertEqual(TerminalText.width("🙂"), 2)
        XCTAssertEqual(TerminalText.padRight("日本", 6), "日本  ")
        XCTAssertEqual(TerminalText.padLeft("12", 5), "   12")
        XCTAssertEqual(TerminalText.padRight("toolong", 3), "toolong", "never cut")
        XCTAssertEqual(TerminalText.padRight("123456789", 8), "123456789", "a long rating id is not truncated")
    }

    func testControlCharactersAreEscapedInMessagesAndReplacedInTables() {
        XCTAssertEqual(TerminalText.escaped("a\nb\t\u{1B}[31m\u{9B}\u{2028}"), "a\\nb\\t\\u{1B}[31m\\u{9B}\\u{2028}")
        XCTAssertEqual(TerminalText.printable("a\u{1B}b\u{7F}c\u{85}d\u{2029}e"), "a?b?c?d?e")
        XCTAssertEqual(TerminalText.printable("Café 日本"), "Café 日本")
    }

    func testPluralsAndByteSizes() {
        XCTAssertEqual(TerminalText.plural(0, "photo"), "0 photos")
        XCTAssertEqual(TerminalText.plural(1, "photo"), "1 photo")
        XCTAssertEqual(TerminalText.plural(2, "duplicate tag"), "2 duplicate tags")
        XCTAssertEqual(TerminalText.bytes(512), "512 B")
        // Decimal units, as `list` has always shown them (issue 14: one convention everywhere).
        XCTAssertEqual(TerminalText.bytes(1536), "1.5 kB")
        XCTAssertEqual(TerminalText.bytes(3 * 1024 * 1024), "3.1 MB")
        XCTAssertEqual(TerminalText.bytes(999_949), "999.9 kB")
        XCTAssertEqual(TerminalText.bytes(999_950), "1.0 MB", "no '1000.0 kB'")
    }

    // MARK: option tables

    /// Decodes `words` with `O`'s table the way dispatch does.
    func decode<O: ParsableOptions>(_ type: O.Type, _ words: [String]) throws -> O {
        try O.decode(parseArguments(words, options: O.options.map(\.spec)))
    }

    func testOptionTablesDecodeTypedValuesOnce() throws {
        let imported = try decode(
            ImportCommand.Options.self, ["-j", "3", "--tag", "a", "a.jpg", "--tag=b", "--dry-run", "b.jpg"])
        XCTAssertEqual(imported.jobs, 3)
        XCTAssertEqual(imported.tags, ["a", "b"])
        XCTAssertEqual(imported.paths, ["a.jpg", "b.jpg"])
        XCTAssertTrue(imported.dryRun)
        XCTAssertNil(imported.batchSize)
        XCTAssertThrowsError(try decode(ImportCommand.Options.self, ["--jobs", "0", "x"])) { error in
            XCTAssertEqual(error as? UsageError, UsageError("--jobs takes a whole number from 1 to 256, not '0'"))
        }
        let compact = try decode(HistoryCompactCommand.Options.self, ["--before-token", "7"])
        guard case .token(7) = compact.cutoff else { return XCTFail("\(compact.cutoff)") }
        XCTAssertThrowsError(try decode(HistoryCompactCommand.Options.self, [])) { error in
            XCTAssertEqual(
                error as? UsageError, UsageError("give exactly one of --before DATE, --keep-days N, --before-token T"))
        }
        let history = try decode(HistoryCommand.Options.self, ["--entity", "tag", "--entity", "PHOTO", "--zone", "Z-1"])
        XCTAssertEqual(history.entityFilter, [.tag, .photo], "entity names parsed to typed entities")
        XCTAssertEqual(history.zone, ZoneID(rawValue: "Z-1"), "a zone id is kept as typed")
        let rate = try RateCommand.Options.decode(ParsedArguments(positionals: ["abcd", "4"]))
        XCTAssertEqual(rate.value?.rawValue, 4)
        let export = try decode(
            ExportCommand.Options.self, ["d", "--sidecar", "JSON", "--zone", "z", "--min-rating", "3"])
        XCTAssertEqual(export.exportOptions.sidecar, .json)
        XCTAssertEqual(export.exportOptions.filter.zone, ZoneID(rawValue: "z"))
        XCTAssertEqual(export.exportOptions.filter.minRating, 3)
        XCTAssertEqual(export.exportOptions.destination, "d")
    }

    func testEveryRegisteredCommandHasItsOwnPathAndHelp() {
        let names = Registry.commands.map(\.name)
        XCTAssertEqual(Set(names).count, names.count, "no two commands share a name")
        // issue 31 A3: catalog set-originals; issue 28: gallery; issue 32: share remove, tag prune;
        // issue 26 items 5 and 7: date set, date shift, geotag; issue 27: duplicates; issue 29: sync serve;
        // issue 29 item 1: identity set, show, clear
        XCTAssertEqual(names.count, 59)
        for command in Registry.commands {
            let result = photos(["help"] + command.path)
            XCTAssertEqual(result.status, 0, command.name)
            XCTAssertTrue(result.stdout.contains("USAGE: photos \(command.name)"), command.name)
            let optionNames = command.options.flatMap(\.names)
            XCTAssertEqual(Set(optionNames).count, optionNames.count, "\(command.name): an option spelled twice")
        }
    }

    // MARK: global options

    func testGlobalOptionsBeforeOrAfterTheCommandAndTheShadowingRule() throws {
        let dir = NSTemporaryDirectory() + "photos-typed-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let lib = dir + "/lib"
        XCTAssertEqual(photos(["init", "--library", lib, "-q"]).stdout, "")
        XCTAssertEqual(photos(["--library", lib, "--author", "alice", "init"]).status, 0)
        let tagged = photos(["--library=\(lib)", "--author", "alice", "import", samplesDir, "--tag", "t", "-q"])
        XCTAssertEqual(tagged.status, 0, tagged.stderr)
        // After `history`, --author is the command's filter; before it, the global author.
        let byAlice = photos(["--library", lib, "history", "--author", "alice", "--json"])
        XCTAssertEqual(byAlice.status, 0, byAlice.stderr)
        XCTAssertEqual(byAlice.stdout.split(separator: "\n").count, 1, byAlice.stdout)
        XCTAssertEqual(photos(["--library", lib, "history", "--author", "bob", "--json"]).stdout, "")
        XCTAssertEqual(
            photos(["--library", lib, "--author", "bob", "history", "--json"]).stdout.split(separator: "\n").count, 1,
            "the global --author before the name is not a filter")
        // A global option after the command name wins over the same one before it.
        XCTAssertEqual(photos(["--library", dir + "/none", "stats", "--library", lib, "--json"]).status, 0)
    }

    /// A usage error is found before the library is opened: `--consumer ""` is 64 whether or not
    /// there is a library (it was 66 without one when the check ran after opening it).
    func testValidationRunsBeforeTheLibraryIsOpened() {
        let result = photos([
            "--library", NSTemporaryDirectory() + "photos-none-\(UUID().uuidString)", "history", "--consumer", ""
        ])
        XCTAssertEqual(result.status, 64)
        XCTAssertEqual(
            result.stderr,
            "photos history: error: --consumer needs a name\nUsage: photos history [<options>]\n  See 'photos history --help' for more information.\n"
        )
    }

    // MARK: console and error reporting

    func testConsoleDiagnosticsDecideExitOne() {
        var err = ""
        let console = Console(
            streams: OutputStreams(
                out: { _ in }, err: { err += $0 }, outBytes: { _ in }, stderrIsTerminal: false, color: false))
        XCTAssertEqual(console.status, .ok)
        console.note("hello")
        XCTAssertEqual(console.status, .ok, "a note is not a diagnostic")
        console.itemError("a\nb.jpg", "bad")
        XCTAssertEqual(console.status, .partial)
        XCTAssertEqual(err, "photos: hello\na\\nb.jpg: error: bad\n")
        console.quiet = true
        console.note("hidden")
        console.finding(nil)
        XCTAssertEqual(console.diagnosticCount, 2)
        XCTAssertEqual(err, "photos: hello\na\\nb.jpg: error: bad\n", "--quiet hides notes, never diagnostics")
    }

    func testProgressIsDrawnOnATerminalAndErasedEvenWhenTheWorkThrows() {
        func run(terminal: Bool, quiet: Bool) -> String {
            var err = ""
            let streams = OutputStreams(
                out: { _ in }, err: { err += $0 }, outBytes: { _ in }, stderrIsTerminal: terminal, color: false)
            streams.stdoutIsTerminal = terminal
            let console = Console(streams: streams, quiet: quiet)
            XCTAssertThrowsError(
                try console.withProgress("importing") { bar in
                    bar.update(done: 4, total: 4)
                    throw UsageError("stop")
                })
            return err
        }
        let drawn = run(terminal: true, quiet: false)
        XCTAssertTrue(drawn.hasPrefix("\rimporting [========================] 4/4"), drawn)
        XCTAssertTrue(drawn.hasSuffix("\u{1B}[K\r\u{1B}[K"), "erased: \(drawn)")
        XCTAssertEqual(run(terminal: false, quiet: false), "", "no bar when stderr is not a terminal")
        XCTAssertEqual(run(terminal: true, quiet: true), "", "no bar with --quiet")
    }

    func testErrorReportingIsTheOneMapping() {
        let usage = ErrorReporting.report(for: UsageError("bad"), libraryPath: "/l")
        XCTAssertEqual([usage.status.rawValue], [64])
        XCTAssertTrue(usage.isUsage)
        let core = ErrorReporting.report(for: LibraryError.notFound(.photo("x")), libraryPath: "/l")
        XCTAssertEqual(core.status, .noInput)
        XCTAssertEqual(core.message, "no photo 'x' in the library")
        XCTAssertFalse(core.isUsage)
        let interrupted = ErrorReporting.interrupted(
            CommandFailure(.tempFail, "busy"), libraryPath: "/l", addendum: "; again")
        XCTAssertEqual(interrupted.status, .tempFail)
        XCTAssertEqual(interrupted.message, "busy; again")
        XCTAssertEqual(ErrorReporting.report(for: CocoaError(.featureUnsupported), libraryPath: "/l").status, .software)
    }
}
