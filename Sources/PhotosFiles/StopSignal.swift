import CSystem
import Foundation

/// SIGINT, SIGTERM and SIGHUP asking a long command to stop (issue 31 item 19). The CLI
/// installs one handler for the three (`install()`), which only records the first signal; long
/// commands (import, export, merge, sync and share accept, backup, thumbnails --rebuild,
/// verify --repair, purge) ask `check()` at each batch boundary, where nothing is half done,
/// clean up what they wrote for work not committed, and the CLI exits with 128 + the signal
/// number as rsync does (130 SIGINT, 143 SIGTERM, 129 SIGHUP). A second signal ends the
/// process at once (the default action).
public enum StopSignal {
    /// Installs the handler (sigaction(2) with SA_RESTART: system calls in progress go on).
    /// Call once, early, from the main thread.
    public static func install() {
        _ = photos_install_stop_handlers()
    }

    /// Runs `body` with the signals' default action (a question on the terminal: Ctrl-C ends
    /// the process at once, before anything was changed), then installs the handler again if
    /// it was installed.
    public static func withDefaultAction<T>(_ body: () throws -> T) rethrows -> T {
        let installed = photos_suspend_stop_handlers() == 1
        defer { if installed { install() } }
        return try body()
    }

    /// The signal received (SIGINT, SIGTERM or SIGHUP), or nil.
    public static var received: Int32? {
        let signal = photos_stop_signal()
        return signal == 0 ? nil : signal
    }

    /// Throws when a stop signal was received.
    /// - Throws: `StopRequested` with the signal's number.
    public static func check() throws {
        if let received { throw StopRequested(signal: received) }
    }

    /// Records `signal` as if it had been received (tests of the stop at a batch boundary).
    public static func simulate(_ signal: Int32) {
        photos_request_stop(signal)
    }
}

/// A command stopped at a batch boundary because the process received `signal` (SIGINT 2,
/// SIGTERM 15, SIGHUP 1): what was committed stays, what was not is cleaned up. The CLI exits
/// with `128 + signal` (130, 143, 129).
public struct StopRequested: Error, Equatable, CustomStringConvertible, Sendable {
    /// The signal's number.
    public var signal: Int32

    public init(signal: Int32) {
        self.signal = signal
    }

    /// The exit status: 128 + the signal's number.
    public var exitStatus: Int32 { 128 + signal }

    /// The signal's name (`SIGINT`, `SIGTERM`, `SIGHUP`, else `signal N`).
    public var signalName: String {
        switch signal {
        case SIGINT: return "SIGINT"
        case SIGTERM: return "SIGTERM"
        case SIGHUP: return "SIGHUP"
        default: return "signal \(signal)"
        }
    }

    /// "stopped by SIGTERM; what was committed stays, run the command again to continue".
    public var description: String {
        "stopped by \(signalName); what was committed stays, run the command again to continue"
    }
}
