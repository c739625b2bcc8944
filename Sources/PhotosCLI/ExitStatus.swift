import Foundation
import PhotosCore

extension ExitStatus {
    /// The exit status for an error thrown below the CLI: the one mapping from Core's typed
    /// errors to sysexits codes (argument-parser keeps `ExitCode` in its CLI layer the same
    /// way). A malformed argument is 64, a well-formed but wrong value 65; file errors by kind
    /// (66 no input, 73 cannot create, 74 I/O); everything else through `PhotosError.wrap`.
    /// - Parameters:
    ///   - error: what was thrown.
    ///   - libraryPath: the library, named in database and lock messages.
    init(for error: Error, libraryPath: String = "") {
        self = CLIError(error, libraryPath: libraryPath).status
    }
}

/// An error as the CLI reports it: its exit status and the one line it prints. The one place
/// that words messages for Core's typed errors.
struct CLIError {
    var status: ExitStatus
    var message: String

    init(_ error: Error, libraryPath: String) {
        switch error {
        case let e as ValueError:
            status = e.isMalformed ? .usage : .dataError
            message = e.description
        default:
            let wrapped = PhotosError.wrap(error, libraryPath: libraryPath)
            status = wrapped.status
            message = wrapped.message
        }
    }
}

/// Parses the value of `option` with `parse`, naming the option in the message of a value it
/// refuses (`--permission takes read-only, read-write, not 'x'`).
/// - Throws: `PhotosError` with the status `ExitStatus(for:)` gives the refusal.
func parseOption<T>(_ option: String, _ text: String, _ parse: (String) throws -> T) throws -> T {
    do {
        return try parse(text)
    } catch let e as ValueError {
        throw PhotosError(ExitStatus(for: e), "\(option) \(e)")
    }
}
