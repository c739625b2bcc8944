import Foundation

/// Why `Library.backup` or `Library.restore` refused or stopped, typed with the folder or file
/// at fault (and the system's `errno`) so that callers match on what happened. It carries no
/// exit status, option name or hint: the CLI's `ErrorReporting` decides and words those (what
/// cannot be created, a backup or file that is not there, a read or write that failed part-way).
public enum BackupError: Error, Equatable, CustomStringConvertible {
    /// The backup folder `destination` is the library `library` or inside it.
    case destinationInsideLibrary(destination: String, library: String)
    /// The original at `source` could be neither hard-linked nor copied to `destination` (the
    /// temporary name in the backup's ExternalData): link(2) failed with `errno`.
    case cannotLinkOriginal(source: String, destination: String, errno: Int32)
    /// The original at `source`, linked or copied, could not be renamed into place at
    /// `destination`: rename(2) failed with `errno` (the temporary file is removed).
    case cannotRenameOriginal(source: String, destination: String, errno: Int32)
    /// `backup` holds no catalog: the file `catalog` does not exist.
    case noBackup(backup: String, catalog: String)
    /// A library already exists at `library`: restore makes a new one and never overwrites one.
    case libraryExists(library: String)
    /// The backup's original at `source` could be neither hard-linked nor copied to
    /// `destination` in the new library: link(2) failed with `errno`.
    case cannotRestoreOriginal(source: String, destination: String, errno: Int32)
    /// A copy's source file at `path` cannot be opened for reading: open(2) failed with `errno`.
    case cannotOpenSource(path: String, errno: Int32)
    /// A copy's new file at `path` cannot be created: open(2) with `O_CREAT|O_EXCL` failed
    /// with `errno`.
    case cannotCreateCopy(path: String, errno: Int32)
    /// Reading the copy's source at `path` failed part-way with `errno` (the partial copy is
    /// removed).
    case copyReadFailed(path: String, errno: Int32)
    /// Writing or flushing (fsync(2)) the copy at `path` failed with `errno` (the partial copy
    /// is removed).
    case copyWriteFailed(path: String, errno: Int32)
    /// The backup folder `destination` holds `existing` (a catalog or an ExternalData folder)
    /// that no earlier backup wrote: a backup would replace that library, so nothing is written.
    case notABackupFolder(destination: String, existing: String)
    /// The backup marker file at `path` cannot be written (`reason` is the system's words).
    case cannotCreateMarker(path: String, reason: String)
    /// `library` is a folder that is not empty: restore makes a new library in a new or empty
    /// folder only.
    case folderNotEmpty(library: String)
    /// The restored library, complete in its hidden folder, cannot be renamed to `library`:
    /// rename(2) failed with `errno` (the hidden folder is removed).
    case cannotPlaceLibrary(library: String, errno: Int32)

    /// The system's error number, when the error has one.
    public var errno: Int32? {
        switch self {
        case .cannotLinkOriginal(_, _, let code), .cannotRenameOriginal(_, _, let code),
            .cannotRestoreOriginal(_, _, let code), .cannotOpenSource(_, let code), .cannotCreateCopy(_, let code),
            .copyReadFailed(_, let code), .copyWriteFailed(_, let code), .cannotPlaceLibrary(_, let code):
            return code
        case .destinationInsideLibrary, .noBackup, .libraryExists, .notABackupFolder, .cannotCreateMarker,
            .folderNotEmpty:
            return nil
        }
    }

    /// One line naming the folder or file (the CLI adds the hint of `libraryExists`).
    public var description: String {
        switch self {
        case let .destinationInsideLibrary(destination, library):
            return "backup destination \(destination) is inside the library \(library)"
        case let .cannotLinkOriginal(source, destination, code), let .cannotRenameOriginal(source, destination, code):
            return "cannot back up \(source) to \(destination): \(String(cString: strerror(code)))"
        case let .noBackup(backup, catalog): return "no backup at \(backup): \(catalog) does not exist"
        case .libraryExists(let library): return "a library already exists at \(library): restore makes a new one"
        case let .cannotRestoreOriginal(source, destination, code):
            return "cannot restore \(source) to \(destination): \(String(cString: strerror(code)))"
        case let .cannotOpenSource(path, code), let .copyReadFailed(path, code):
            return "cannot read \(path): \(String(cString: strerror(code)))"
        case let .cannotCreateCopy(path, code): return "cannot create \(path): \(String(cString: strerror(code)))"
        case let .copyWriteFailed(path, code): return "cannot write \(path): \(String(cString: strerror(code)))"
        case let .notABackupFolder(destination, existing):
            return "backup destination \(destination) holds \(existing), which 'photos backup' did not write: a "
                + "backup would replace that library; choose an empty or new folder"
        case let .cannotCreateMarker(path, reason): return "cannot create \(path): \(reason)"
        case .folderNotEmpty(let library):
            return "\(library) is a folder that is not empty: restore makes a new library in a new or empty folder"
        case let .cannotPlaceLibrary(library, code):
            return "cannot create the library at \(library): \(String(cString: strerror(code)))"
        }
    }
}
