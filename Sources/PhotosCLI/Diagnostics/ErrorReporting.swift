import Foundation
import PhotosCore

/// A usage error the CLI itself finds (an unknown option, a bad value, a missing argument):
/// printed with the command's usage line, exit 64 (sysexits EX_USAGE). The CLI's counterpart of
/// swift-argument-parser's `ValidationError`.
struct UsageError: Error, Equatable {
    /// One line naming the option or argument at fault.
    var message: String

    init(_ message: String) { self.message = message }
}

/// An error the CLI words itself on top of another (an interrupted import's "run the same
/// command again"): its status and complete message.
struct CommandFailure: Error {
    var status: ExitStatus
    var message: String
}

/// The one place where an error becomes an exit status and the message the user reads.
enum ErrorReporting {
    /// What the user is told about `error`, and the exit status.
    struct Report {
        /// The sysexits status (SPEC §5).
        var status: ExitStatus
        /// One line, unescaped (the console escapes control characters).
        var message: String
        /// True for a usage error: printed with the usage line (`Error: …`), not as
        /// `photos CMD: error: …`.
        var isUsage: Bool { status == .usage }
    }

    /// The report for `error`. Lock and database errors name `libraryPath`; what is not a known
    /// error of the environment or the input is 70 (a bug).
    static func report(for error: Error, libraryPath: String) -> Report {
        switch error {
        case let e as UsageError:
            return Report(status: .usage, message: e.message)
        case let e as CommandFailure:
            return Report(status: e.status, message: e.message)
        default:
            let e = PhotosError.wrap(error, libraryPath: libraryPath)
            return Report(status: e.status, message: e.message)
        }
    }

    /// `error` (the cause that stopped a batch part-way) with `addendum` appended to its
    /// message: "…; the 3 photos committed before stay imported: run the same command again".
    static func interrupted(_ error: Error, libraryPath: String, addendum: String) -> CommandFailure {
        let cause = report(for: error, libraryPath: libraryPath)
        return CommandFailure(status: cause.status, message: cause.message + addendum)
    }
}
