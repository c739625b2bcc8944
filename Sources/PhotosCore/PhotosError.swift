import Foundation
import PhotosFiles
import PhotosModel

/// Process exit statuses, from BSD `sysexits.h` (SPEC §5).
public enum ExitStatus: Int32, Sendable {
    /// Success.
    case ok = 0
    /// Done, but some items failed (each named on stderr).
    case partial = 1
    /// EX_USAGE: the command was used incorrectly.
    case usage = 64
    /// EX_DATAERR: the input data was incorrect.
    case dataError = 65
    /// EX_NOINPUT: an input file or the library did not exist or was not readable.
    case noInput = 66
    /// EX_SOFTWARE: an internal error.
    case software = 70
    /// EX_CANTCREAT: an output file or folder cannot be created.
    case cantCreate = 73
    /// EX_IOERR: an error while reading or writing.
    case ioError = 74
    /// EX_TEMPFAIL: the library is busy (locked by another process); try later.
    case tempFail = 75
    /// EX_NOPERM: permission denied (a library or file this user may not write, a read-only
    /// file system).
    case noPermission = 77
}

/// An error with a one-line message for the user and the exit status it maps to.
public struct PhotosError: Error, CustomStringConvertible, Equatable {
    /// The sysexits status this error exits with.
    public let status: ExitStatus
    /// One line, naming the file or argument at fault.
    public let message: String

    public init(_ status: ExitStatus, _ message: String) {
        self.status = status
        self.message = message
    }

    public var description: String { message }

    /// EX_USAGE (64): a bad argument or option.
    public static func usage(_ message: String) -> PhotosError { PhotosError(.usage, message) }
    /// EX_DATAERR (65): input that is well-formed as an argument but wrong as data.
    public static func dataError(_ message: String) -> PhotosError { PhotosError(.dataError, message) }
    /// EX_NOINPUT (66): a file, photo or library that does not exist.
    public static func noInput(_ message: String) -> PhotosError { PhotosError(.noInput, message) }

    /// The status of a failed file operation by its `errno`: EACCES, EPERM, EROFS → 77
    /// (permission); ENOSPC, EDQUOT, EIO → 74 (I/O, a full disk); anything else `otherwise`.
    /// Used where a file in the library cannot be written: such an error is the environment's,
    /// not one input file's, so a command stops with it instead of failing file after file.
    public static func status(forErrno code: Int32, otherwise: ExitStatus) -> ExitStatus {
        switch code {
        case EACCES, EPERM, EROFS: return .noPermission
        case ENOSPC, EDQUOT, EIO: return .ioError
        default: return otherwise
        }
    }

    /// True for a status that says the library's file system refused a write (77, 74): an
    /// environment error that stops a command rather than failing one item.
    public var isEnvironmental: Bool { status == .noPermission || status == .ioError }

    /// `error` as the environment error that stops a command, or nil when it fails only its
    /// item: a `PhotosError` of status 77 or 74, or a `FileError` the file system refused
    /// (`FileError.isEnvironmental`: 77 for permission, 74 for I/O, sysexits.h).
    static func environmental(_ error: Error) -> PhotosError? {
        if let e = error as? PhotosError { return e.isEnvironmental ? e : nil }
        if let e = error as? FileError, e.isEnvironmental {
            return PhotosError(e.kind == .notPermitted ? .noPermission : .ioError, e.message)
        }
        return nil
    }
}

/// A command that commits in batches stopped by an error after committing some of them: `report`
/// says what was committed (and stays committed), `error` why it stopped (75 when another
/// process held the lock). Running the same command again continues where it stopped. The
/// CLI prints the report, then the error, and exits with the error's status.
public struct Interrupted<Report: Sendable>: Error {
    /// What was done and committed before the error.
    public var report: Report
    /// Why the command stopped.
    public var error: Error

    public init(report: Report, error: Error) {
        self.report = report
        self.error = error
    }
}
