import Foundation

/// Why `Library.backup` or `Library.restore` refused or stopped, typed with the folder or file
/// at fault (and the system's `errno`) so that callers match on what happened. It carries no
/// exit status, option name or hint: the CLI's `ErrorReporting` decides and words those (what
/// cannot be created, a backup or file that is not there, a read or write that failed part-way).
public enum BackupError: Error, Equatable, CustomStringConvertible {
    /// The backup folder `destination` is the library `library` or inside it.
    case destinationInsideLibrary(destination: String, library: String)
    /// The original at `source`, copied, could not be renamed into place at
    /// `destination`: rename(2) failed with `errno` (the temporary file is removed).
    case cannotRenameOriginal(source: String, destination: String, errno: Int32)
    /// `backup` holds no catalog: the file `catalog` does not exist.
    case noBackup(backup: String, catalog: String)
    /// A library already exists at `library`: restore makes a new one and never overwrites one.
    case libraryExists(library: String)
    /// The backup's original at `source` could not be copied to `destination` in the new
    /// library: the copy failed with `errno`.
    case cannotRestoreOriginal(source: String, destination: String, errno: Int32)
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
        case .cannotRenameOriginal(_, _, let code), .cannotRestoreOriginal(_, _, let code),
            .cannotPlaceLibrary(_, let code):
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
        case let .cannotRenameOriginal(source, destination, code):
            return "cannot back up \(source) to \(destination): \(String(cString: strerror(code)))"
        case let .noBackup(backup, catalog): return "no backup at \(backup): \(catalog) does not exist"
        case .libraryExists(let library): return "a library already exists at \(library): restore makes a new one"
        case let .cannotRestoreOriginal(source, destination, code):
            return "cannot restore \(source) to \(destination): \(String(cString: strerror(code)))"
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
