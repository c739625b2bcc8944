import Foundation
import PhotosCore

/// Everything a command says: data on stdout, notes and diagnostics on stderr, and the
/// progress display. The diagnostics it counts decide exit status 1 (as swift-format's
/// `DiagnosticsEngine` decides its exit status from what it collected).
final class Console {
    /// The sinks and what is known about the terminal (read by `CommandContext.confirm`).
    let streams: OutputStreams
    /// `--quiet`: notes and the progress display are suppressed; diagnostics never are.
    var quiet: Bool
    /// The progress line on screen, which stderr messages are printed above.
    private var activeBar: ProgressBar?
    /// How many problems with single items were reported (files that failed, problems found).
    private(set) var diagnosticCount = 0

    init(streams: OutputStreams, quiet: Bool = false) {
        self.streams = streams
        self.quiet = quiet
    }

    /// The exit status of a command that finished without an error: 1 when it reported
    /// diagnostics, else 0.
    var status: ExitStatus { diagnosticCount > 0 ? .partial : .ok }

    // MARK: stdout

    /// Writes a line of data to stdout.
    func print(_ line: String) { streams.out(line + "\n") }
    /// Writes `text` to stdout as it is (help, which ends with its own newline).
    func printText(_ text: String) { streams.out(text) }
    /// Writes a JSON value as one line to stdout.
    func printJSON(_ value: JSONValue) { streams.out(value.serialized() + "\n") }
    /// `key:        value` lines, the values in column 14 (`show`, `share show`); `value`
    /// makes each value printable.
    func printFields(_ fields: [(String, String)], value: (String) -> String = { $0 }) {
        for (key, text) in fields { print(TerminalText.padRight(key + ":", 13) + value(text)) }
    }
    /// Writes raw bytes to stdout.
    func write(_ bytes: [UInt8]) { streams.outBytes(bytes) }

    // MARK: stderr

    /// A message on stderr (`photos: …`), unless `--quiet`.
    func note(_ line: String) { if !quiet { errLine("photos: " + TerminalText.escaped(line) + "\n") } }

    /// A warning from `command` on stderr, said even with `--quiet`.
    func warning(command: String, _ message: String) {
        errLine("photos \(command): warning: \(TerminalText.escaped(message))\n")
    }

    /// A problem with one item on stderr, always, on one line: `path: error: message` (control
    /// characters in a file name are escaped, so a name cannot split the line or drive the
    /// terminal). Counted: the command exits 1.
    func itemError(_ item: String, _ message: String) {
        diagnosticCount += 1
        errLine("\(TerminalText.escaped(item)): \(colored("error:", code: "31")) \(TerminalText.escaped(message))\n")
    }

    /// A problem found in the data that the command reports on stdout (verify's findings):
    /// `line` is printed as data when given (nil in JSON mode) and counted like `itemError`.
    func finding(_ line: String?) {
        diagnosticCount += 1
        if let line { print(line) }
    }

    /// The error that stopped `command`: `photos CMD: error: message`.
    func commandError(command: String, _ message: String) {
        streams.err("photos \(command): \(colored("error:", code: "31")) \(TerminalText.escaped(message))\n")
    }

    /// A usage error in the one prefix style every error uses (issue 32 item 8):
    /// `photos CMD: error: message` (`photos: error: message` before a command is known),
    /// then `usage` (the usage line and where to find help).
    func usageError(_ message: String, command: String?, usage: String) {
        let prefix = command.map { "photos \($0):" } ?? "photos:"
        streams.err("\(prefix) \(colored("error:", code: "31")) \(TerminalText.escaped(message))\n" + usage)
    }

    /// Text on stderr as it is (help after a usage error).
    func errorText(_ text: String) { streams.err(text) }

    /// A line on stderr, above the progress line when one shows.
    private func errLine(_ text: String) {
        activeBar?.suspend()
        streams.err(text)
        activeBar?.resume()
    }

    // MARK: progress

    /// True when progress is shown: stdout and stderr are both terminals (output piped or
    /// redirected gets nothing but the summary), `TERM` is not `dumb`, and not `--quiet`.
    var showsProgress: Bool {
        streams.stderrIsTerminal && streams.stdoutIsTerminal && streams.term != "dumb" && !quiet
    }

    /// A progress display labelled `label` ("importing"), drawn on stderr when `showsProgress`.
    func progress(_ label: String) -> ProgressBar {
        ProgressBar(label: label, enabled: showsProgress, draw: { [streams] in streams.err($0) })
    }

    /// Runs `body` with a progress display labelled `label`, erased when `body` returns or
    /// throws (before the summary or the error is printed); stderr messages printed meanwhile
    /// go above it.
    func withProgress<T>(_ label: String, _ body: (ProgressBar) throws -> T) rethrows -> T {
        let bar = progress(label)
        let outer = activeBar
        activeBar = bar.enabled ? bar : nil
        defer {
            bar.finish()
            activeBar = outer
        }
        return try body(bar)
    }

    private func colored(_ text: String, code: String) -> String {
        streams.color ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }
}
