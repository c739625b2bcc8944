import Foundation
import PhotosCore

/// What every command gets: the global options, the environment and the output streams.
public final class CommandContext {
    /// `--library`, or nil to resolve from the environment.
    public var libraryOption: String?
    /// `--json`: data as JSON on stdout.
    public var json = false
    /// `--quiet`: nothing on success.
    public var quiet = false
    /// `--author` or `$PHOTOS_AUTHOR` (default `photos`).
    public var author = "photos"
    /// True when `--author` was given on the command line; maintenance commands record their own
    /// name as author otherwise, even when `$PHOTOS_AUTHOR` is set (SPEC §4).
    public var authorGiven = false
    /// The history author as Core resolves it per command (`HistoryAuthor.name(for:)`, the one
    /// place of the rule that maintenance commands record their own name unless `--author`).
    public var historyAuthor: HistoryAuthor { HistoryAuthor(given: authorGiven ? author : nil, user: author) }
    /// `--wait`: seconds to wait for another process's lock.
    public var wait: Double = 30
    public let environment: [String: String]
    /// Where the library location comes from, read from the process once.
    public let libraryEnvironment: LibraryEnvironment
    let output: OutputStreams

    init(environment: [String: String], output: OutputStreams) {
        self.environment = environment
        self.libraryEnvironment = LibraryEnvironment(variables: environment, currentDirectory: FileManager.default.currentDirectoryPath,
                                                     fallbackHome: NSHomeDirectory())
        self.output = output
        if let a = environment["PHOTOS_AUTHOR"], !a.isEmpty { author = a }
    }

    /// The resolved library folder (SPEC §2).
    public var libraryPath: String { Library.resolvePath(explicit: libraryOption, in: libraryEnvironment) }

    /// Opens the library, which must exist.
    /// - Parameter dryRun: open it for a `--dry-run`: nothing is created or migrated, and every
    ///   write the command makes is rolled back (`Library.dryRun`).
    /// - Throws: `PhotosError` 66 when there is none, and what `Library.init` throws.
    public func openLibrary(dryRun: Bool = false) throws -> Library {
        try Library(root: libraryPath, create: false, busyTimeout: wait, dryRun: dryRun)
    }

    /// Opens the library, which must exist, for a command that only reads: as `openLibrary()`
    /// when this process may write it (so that it is migrated like any other), else read-only
    /// (`Library(readOnly:)`: a library on read-only media or of another user can be read).
    /// - Parameters:
    ///   - reading: false for a command that will write (then this is `openLibrary()`).
    ///   - dryRun: for the `--dry-run` of a command that only reads the library (export):
    ///     always opened read-only, so that a dry run never migrates it; one of an older schema
    ///     version is then refused with 65 ("run 'photos init'"), or 77 when this user may not
    ///     write it.
    /// - Throws: `PhotosError` 66 when there is none, 77 when it can be neither written nor
    ///   read, and what `Library.init` throws.
    public func openLibraryForReading(_ reading: Bool = true, dryRun: Bool = false) throws -> Library {
        if dryRun {
            return try Library(root: libraryPath, create: false, busyTimeout: wait, readOnly: true)
        }
        do {
            return try openLibrary()
        } catch let error where reading && ExitStatus(for: error, libraryPath: libraryPath) == .noPermission {
            return try Library(root: libraryPath, create: false, busyTimeout: wait, readOnly: true)
        }
    }

    /// Opens the library, creating it (and saying so on stderr) when absent.
    public func openOrCreateLibrary() throws -> Library {
        let path = libraryPath
        let existed = Library.exists(at: path)
        let library = try Library(root: path, create: true, busyTimeout: wait)
        if !existed { note("created library at \(path)") }
        return library
    }

    /// Writes a line of data to stdout.
    public func print(_ line: String) { output.out(line + "\n") }
    /// Writes a JSON value as one line to stdout.
    public func printJSON(_ value: JSONValue) { output.out(value.serialized() + "\n") }
    /// A message on stderr, unless `--quiet`.
    public func note(_ line: String) { if !quiet { output.err("photos: " + escapingControlCharacters(line) + "\n") } }
    /// A problem with one item on stderr, always, on one line: `path: error: message` (control
    /// characters in a file name are escaped, so a name cannot split the line or drive the terminal).
    public func itemError(_ item: String, _ message: String) {
        output.err("\(escapingControlCharacters(item)): \(output.colored("error:", code: "31")) \(escapingControlCharacters(message))\n")
    }
    /// True when stderr is a terminal (progress bars).
    public var stderrIsTerminal: Bool { output.stderrIsTerminal }
    /// Writes raw text to stderr (progress bars).
    public func rawError(_ text: String) { output.err(text) }
    /// Writes raw bytes to stdout.
    public func writeStdout(_ bytes: [UInt8]) { output.outBytes(bytes) }
}

/// The process's stdout and stderr, replaceable in tests.
final class OutputStreams {
    var out: (String) -> Void
    var err: (String) -> Void
    var outBytes: ([UInt8]) -> Void
    var stderrIsTerminal: Bool
    var color: Bool

    init(out: @escaping (String) -> Void, err: @escaping (String) -> Void, outBytes: @escaping ([UInt8]) -> Void,
         stderrIsTerminal: Bool, color: Bool) {
        self.out = out
        self.err = err
        self.outBytes = outBytes
        self.stderrIsTerminal = stderrIsTerminal
        self.color = color
    }

    func colored(_ text: String, code: String) -> String { color ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text }

    /// stdout and stderr of this process. Colour only on a terminal and never with `NO_COLOR`
    /// (https://no-color.org).
    static func standard(environment: [String: String]) -> OutputStreams {
        let tty = isatty(2) == 1
        return OutputStreams(
            out: { s in writeAll(1, Array(s.utf8)) },
            err: { s in writeAll(2, Array(s.utf8)) },
            outBytes: { b in writeAll(1, b) },
            stderrIsTerminal: tty,
            color: tty && environment["NO_COLOR"] == nil && environment["TERM"] != "dumb")
    }
}

private func writeAll(_ fd: Int32, _ bytes: [UInt8]) {
    bytes.withUnsafeBytes { buf in
        var offset = 0
        while offset < buf.count {
            let n = write(fd, buf.baseAddress! + offset, buf.count - offset)
            if n < 0 { if errno == EINTR { continue } else { return } }
            offset += n
        }
    }
}

/// A subcommand: its name, help, options and what it does.
struct CommandSpec {
    /// The words that name it: `["import"]`, `["tag", "add"]`.
    var path: [String]
    var abstract: String
    var discussion: String = ""
    var arguments: [ArgumentSpec] = []
    var options: [OptionSpec] = []
    /// Minimum and maximum number of positionals (nil: no maximum).
    var positionals: (min: Int, max: Int?) = (0, 0)
    var run: (ParsedArguments, CommandContext) throws -> ExitStatus

    var name: String { path.joined(separator: " ") }
}

/// True for characters a terminal acts on instead of showing: C0 controls, DEL, C1 controls
/// (U+0080–U+009F, e.g. U+009B CSI) and the Unicode line and paragraph separators.
func isControlCharacter(_ scalar: Unicode.Scalar) -> Bool {
    let v = scalar.value
    return v < 0x20 || (0x7F...0x9F).contains(v) || v == 0x2028 || v == 0x2029
}

/// `text` with control characters written as escapes (`\n`, `\t`, `\r`, `\u{1B}`), for one-line
/// messages that name user-supplied paths.
func escapingControlCharacters(_ text: String) -> String {
    guard text.unicodeScalars.contains(where: isControlCharacter) else { return text }
    var result = ""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\n": result += "\\n"
        case "\t": result += "\\t"
        case "\r": result += "\\r"
        case _ where isControlCharacter(scalar): result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
        default: result.unicodeScalars.append(scalar)
        }
    }
    return result
}
