import PhotosFiles

/// What stops a whole `photos import` (not one file), typed so that callers match on what
/// happened; the CLI words it and picks the exit status (`ErrorReporting`).
public enum ImportError: Error, CustomStringConvertible {
    /// The library's file system refused to take back the original of photo `photo` from the
    /// file at `path` (permission: 77, I/O or a full disk: 74, as `underlying` says). Every later
    /// file would fail the same way, so the import stops, keeping what committed.
    case cannotRestoreOriginal(photo: String, path: String, underlying: FileError)

    public var description: String {
        switch self {
        case let .cannotRestoreOriginal(photo, path, underlying):
            return "cannot restore the original of photo \(photo) from \(path): \(underlying.message)"
        }
    }
}
