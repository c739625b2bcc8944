import Foundation
import PhotosModel

/// A photo's thumbnail cannot be given out (`Library.thumbnailData`): typed, with the photo as
/// its subject; the CLI's ErrorReporting gives it its exit status (66 missing, 65 damaged).
public enum ThumbnailError: Error, Equatable, CustomStringConvertible {
    /// The photo (as `Library.describePhoto` names it) has no thumbnail.
    case missing(photo: String)
    /// The photo's thumbnail fails `ThumbnailCheck`; `reason` says how (`Library.thumbnailProblem`).
    case damaged(photo: String, reason: String)

    /// The one line the user reads (also export's reason for the photo it skipped).
    public var description: String {
        switch self {
        case .missing(let photo):
            return "\(photo) has no thumbnail; 'photos verify --repair' makes it again from the original"
        case let .damaged(photo, reason):
            return "\(photo): thumbnail \(reason); 'photos verify --repair' makes it again from the original"
        }
    }
}

/// An original that a delete or purge would have to remove cannot be (`Library.checkRemovable`,
/// checked before any row is dropped, so nothing was deleted). The CLI's ErrorReporting gives it
/// its exit status from `errno` (permission or a failing disk).
public enum OriginalRemovalError: Error, Equatable, CustomStringConvertible {
    /// lstat(2) of the original at `path` failed with `errno` (other than ENOENT/ENOTDIR).
    case cannotInspect(path: String, errno: Int32)
    /// The originals' folder `folder` is not writable (access(2) `W_OK|X_OK` failed with `errno`).
    case folderNotWritable(folder: String, errno: Int32)

    /// The system's error number.
    public var errno: Int32 {
        switch self {
        case .cannotInspect(_, let code), .folderNotWritable(_, let code): return code
        }
    }

    public var description: String {
        switch self {
        case let .cannotInspect(path, code):
            return "cannot remove the original \(path): \(String(cString: strerror(code))); nothing was deleted"
        case let .folderNotWritable(folder, code):
            return
                "the originals' folder \(folder) is not writable (\(String(cString: strerror(code)))), so its files could not be removed; nothing was deleted"
        }
    }
}

/// An original file that a command meant to remove (no row references it any more) and left
/// in place, with why: `purge` and `verify --repair` name each one.
public struct FileLeftInPlace: Equatable, Sendable {
    /// Its reference in external data (`ab/abcdef…`).
    public var reference: String
    /// Its path.
    public var path: String
    /// Why it is still there, in words ("it is a folder, not a file", strerror(3), the lock).
    public var reason: String

    public init(reference: String, path: String, reason: String) {
        self.reference = reference
        self.path = path
        self.reason = reason
    }

    /// `{"path":"…","reason":"…"}`.
    public var json: JSONValue { .object([("path", .string(path)), ("reason", .string(reason))]) }
}
