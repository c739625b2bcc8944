import CSystem
import Foundation
import XCTest

/// What a process run on a pseudo-terminal wrote: the bytes that reached the terminal (its
/// stderr, and its stdout when that was the terminal too), and stdout when it was a pipe.
public struct TerminalRun {
    public var status: Int32
    /// Every byte written to the terminal, as written (no echo, no newline translation).
    public var terminal: [UInt8]
    /// stdout when it was a pipe (empty when it was the terminal).
    public var stdout: String
    /// The terminal bytes as text.
    public var terminalText: String { String(decoding: terminal, as: UTF8.self) }
}

/// Runs programs with stdin, stderr and (optionally) stdout on a pseudo-terminal, as an
/// interactive shell would (posix_openpt(3)): isatty(3) is true for them. The terminal's echo
/// and output processing (ONLCR) are off, so `terminal` holds exactly the bytes the program wrote.
public enum PseudoTerminal {
    /// Runs `executable` to completion with `input` typed on the terminal.
    /// - Parameters:
    ///   - stdoutOnTerminal: stdout on the terminal too (else a pipe, read into `stdout`).
    ///   - stdinOnTerminal: stdin on the terminal (else /dev/null).
    /// - Throws: `XCTSkip` when no pseudo-terminal can be opened (a sandbox without /dev/ptmx),
    ///   the error of starting the program.
    public static func run(
        _ executable: String, _ args: [String], environment: [String: String]? = nil, input: String = "",
        stdoutOnTerminal: Bool = true, stdinOnTerminal: Bool = true
    ) throws -> TerminalRun {
        var name = [CChar](repeating: 0, count: 128)
        let master = photos_open_pty(&name, UInt(name.count))
        guard master >= 0 else {
            throw XCTSkip(
                "no pseudo-terminal can be opened here (\(String(cString: strerror(errno)))): the terminal paths are not tested"
            )
        }
        defer { close(master) }
        let slave = open(
            String(decoding: name.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self),
            O_RDWR | O_NOCTTY)
        guard slave >= 0 else { throw NSError(domain: NSPOSIXErrorDomain, code: Int(errno)) }
        var settings = termios()
        tcgetattr(slave, &settings)
        settings.c_lflag &= ~tcflag_t(ECHO)
        settings.c_oflag &= ~tcflag_t(OPOST)
        tcsetattr(slave, TCSANOW, &settings)
        let terminal = FileHandle(fileDescriptor: slave, closeOnDealloc: false)

        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = args
        if let environment { process.environment = environment }
        process.standardInput = stdinOnTerminal ? terminal : FileHandle.nullDevice
        process.standardError = terminal
        let pipe = Pipe()
        process.standardOutput = stdoutOnTerminal ? terminal : pipe
        try process.run()
        close(slave)
        if !input.isEmpty {
            let bytes = Array(input.utf8)
            _ = bytes.withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
        }
        // stdout's pipe is drained on another thread so that neither side blocks the other.
        let collected = PipeCollector(pipe.fileHandleForReading, active: !stdoutOnTerminal)
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(master, $0.baseAddress, $0.count) }
            if n > 0 {
                output += buffer[0..<n]
            } else if n < 0 && errno == EINTR {
                continue
            } else {
                break // EIO: every descriptor of the terminal is closed (the program ended)
            }
        }
        process.waitUntilExit()
        return TerminalRun(status: process.terminationStatus, terminal: output, stdout: collected.text())
    }
}

/// Reads a pipe to its end on a background thread.
private final class PipeCollector: @unchecked Sendable {
    private var data = Data()
    private let done = DispatchSemaphore(value: 0)

    init(_ handle: FileHandle, active: Bool) {
        guard active else {
            done.signal()
            return
        }
        Thread.detachNewThread { [self] in
            data = handle.readDataToEndOfFile()
            done.signal()
        }
    }

    func text() -> String {
        done.wait()
        return String(decoding: data, as: UTF8.self)
    }
}
