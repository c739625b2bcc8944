import Foundation

/// The process's stdout and stderr as sinks, replaceable in tests.
final class OutputStreams {
    var out: (String) -> Void
    var err: (String) -> Void
    var outBytes: ([UInt8]) -> Void
    var stderrIsTerminal: Bool
    var color: Bool
    /// True when stdin is a terminal: only then is a question asked (`CommandContext.confirm`).
    var stdinIsTerminal = false
    /// True when stdout is a terminal (progress is drawn only when both stdout and stderr are).
    var stdoutIsTerminal = false
    /// `$TERM`: progress is never drawn on a `dumb` terminal.
    var term: String?
    /// Reads one line of the user's answer from stdin (without its newline), nil at end of input.
    var readAnswer: () -> String? = { nil }

    init(
        out: @escaping (String) -> Void, err: @escaping (String) -> Void, outBytes: @escaping ([UInt8]) -> Void,
        stderrIsTerminal: Bool, color: Bool
    ) {
        self.out = out
        self.err = err
        self.outBytes = outBytes
        self.stderrIsTerminal = stderrIsTerminal
        self.color = color
    }

    /// stdout and stderr of this process. Colour only on a terminal and never with `NO_COLOR`
    /// (https://no-color.org) or `TERM=dumb`.
    static func standard(environment: [String: String]) -> OutputStreams {
        let tty = isatty(2) == 1
        let streams = OutputStreams(
            out: { s in writeAll(1, Array(s.utf8)) },
            err: { s in writeAll(2, Array(s.utf8)) },
            outBytes: { b in writeAll(1, b) },
            stderrIsTerminal: tty,
            color: tty && environment["NO_COLOR"] == nil && environment["TERM"] != "dumb")
        streams.stdinIsTerminal = isatty(0) == 1
        streams.stdoutIsTerminal = isatty(1) == 1
        streams.term = environment["TERM"]
        streams.readAnswer = { readLine(strippingNewline: true) }
        return streams
    }
}

/// Writes all of `bytes` to `fd`, again after EINTR; stops silently on any other error (a
/// closed pipe: there is no one left to tell).
private func writeAll(_ fd: Int32, _ bytes: [UInt8]) {
    bytes.withUnsafeBytes { buf in
        guard let base = buf.baseAddress else { return }
        var offset = 0
        while offset < buf.count {
            let n = write(fd, base + offset, buf.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                return
            }
            offset += n
        }
    }
}
