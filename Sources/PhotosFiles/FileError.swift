import Foundation

/// An error of the POSIX file layer: what went wrong (a matchable `Kind`), and one line for the
/// user naming the file. It carries no exit status: the CLI's `ExitStatus(for:)` maps the kind
/// (sysexits.h: 66 no input, 73 cannot create, 74 I/O, 70 software).
public struct FileError: Error, CustomStringConvertible, Equatable, Sendable {
    /// What kind of failure this is.
    public enum Kind: Sendable, Equatable {
        /// A file that does not exist, cannot be opened for reading, or is not a regular file.
        case noInput
        /// A file or folder that cannot be created (or renamed into place).
        case cannotCreate
        /// A read, write or sync that failed part-way.
        case io
        /// libcrypto could not hash (an internal failure, not the file's).
        case crypto
        /// The file system refused for lack of permission (EACCES, EPERM, EROFS).
        case notPermitted
        /// A name that is not a file inside the folder it must be in (a `file_ref` that
        /// escapes ExternalData): wrong data, not the file system's fault.
        case invalidName
        /// A file that is not what it is read as, found before its bytes are read: larger than
        /// any image the reader accepts could be, or sparse (holes no image has). The data is
        /// wrong (65), not the file system.
        case unacceptable

        /// The kind of a failed file operation by its `errno`: EACCES, EPERM, EROFS →
        /// `.notPermitted`; ENOSPC, EDQUOT, EIO → `.io` (a full or failing disk); anything else
        /// `otherwise`.
        public static func forErrno(_ code: Int32, otherwise: Kind) -> Kind {
            switch code {
            case EACCES, EPERM, EROFS: return .notPermitted
            case ENOSPC, EDQUOT, EIO: return .io
            default: return otherwise
            }
        }
    }

    /// What kind of failure this is.
    public var kind: Kind
    /// The `errno` behind it, when there is one.
    public var errno: Int32?
    /// One line naming the file at fault.
    public var message: String
    /// `message` without the file's name, for a caller that names the file itself (the
    /// importer's failures, export's "cannot read the original X: …"); `message` when the
    /// error was not made with `init(_:path:reason:errno:)`.
    public var reason: String

    /// - Parameters:
    ///   - kind: what kind of failure.
    ///   - message: one line naming the file.
    ///   - errno: the POSIX error behind it, if any.
    public init(_ kind: Kind, _ message: String, errno: Int32? = nil) {
        self.kind = kind
        self.message = message
        self.reason = message
        self.errno = errno
    }

    /// An error whose message is `path: reason` (as cat(1) and ls(1) name a file).
    /// - Parameters:
    ///   - kind: what kind of failure.
    ///   - path: the file at fault.
    ///   - reason: what went wrong, without the file's name.
    ///   - errno: the POSIX error behind it, if any.
    public init(_ kind: Kind, path: String, reason: String, errno: Int32? = nil) {
        self.init(kind, "\(path): \(reason)", errno: errno)
        self.reason = reason
    }

    public var description: String { message }

    /// True when the file system refused (permission, a read-only or full or failing disk):
    /// an error of the environment that stops a command rather than failing one item.
    public var isEnvironmental: Bool { kind == .notPermitted || kind == .io }
}
