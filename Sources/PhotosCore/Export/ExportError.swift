/// Why `photos export` refused a template, its destination, a folder or an original, typed so
/// that callers match on what happened; the CLI words it and picks the exit status
/// (`ErrorReporting`: 64 for a template, 73 for the destination and folders, 75 for a
/// destination in use, 66 for an unreadable original, 65 for an original of another SHA-256).
public enum ExportError: Error, Equatable, CustomStringConvertible {
    /// `--template`: a `{` without its `}` in `template`.
    case unclosedField(template: String)
    /// `--template`: a field this version does not know (`{field}` as written).
    case unknownField(String)
    /// `--template`: the template is empty.
    case emptyTemplate
    /// `--template`: a strftime conversion (`%Q`) that strftime(3) does not define, in the
    /// field `{field}` as written.
    case unknownConversion(String, field: String)
    /// DEST exists and is not a folder.
    case destinationIsFile(String)
    /// DEST is inside the library.
    case destinationInsideLibrary(String, library: String)
    /// DEST cannot be created (`reason`: the system's words).
    case cannotCreateDestination(String, reason: String)
    /// DEST's lock file cannot be created (`reason`: strerror).
    case cannotWriteDestination(String, reason: String)
    /// Another `photos export` holds DEST's lock.
    case destinationBusy(String)
    /// A folder of a photo's path cannot be created (`reason`: strerror).
    case cannotCreateFolder(String, reason: String)
    /// A folder of a photo's path resolves outside DEST (a symbolic link).
    case folderOutsideDestination(String)
    /// A folder of a photo's path resolves into the library.
    case folderInsideLibrary(String)
    /// The library's original at `source` cannot be read (`reason`: the system's words).
    case unreadableOriginal(source: String, reason: String)
    /// The library's original at `source` reads as `actual`, not the recorded `recorded`
    /// SHA-256 (64 lowercase hex digits each); nothing was put in place.
    case originalMismatch(source: String, actual: String, recorded: String)
    /// The library's original at `source` has `actual` bytes, not the recorded `recorded`
    /// (checked by every export, with or without `--check-hashes`); nothing was put in place.
    case originalSizeMismatch(source: String, actual: Int, recorded: Int)
    /// Reading the library's original at `source` failed part-way (`reason`: strerror): the
    /// disk's fault, not the photo's, so the export stops.
    case originalReadFailed(source: String, reason: String)
    /// The export state database `state` is locked by another process past the busy timeout.
    case stateBusy(state: String)
    /// The export state `state` cannot be written: read-only or not permitted (`message`: the
    /// database's words).
    case stateNotWritable(state: String, message: String)
    /// The export state `state` cannot be written: a full or failing disk.
    case stateIOError(state: String, message: String)
    /// The export state at `path` cannot be opened for another reason than damage.
    case cannotOpenState(path: String, reason: String)
    /// No export state can be created at `path` (after setting a damaged one aside).
    case cannotCreateState(path: String, reason: String)

    /// True for the errors that every later photo would meet too (DEST in use, the export
    /// state busy or not writable, the disk failing): the export stops with it instead of
    /// failing photo after photo.
    public var stopsExport: Bool {
        switch self {
        case .destinationBusy, .originalReadFailed, .stateBusy, .stateNotWritable, .stateIOError: return true
        default: return false
        }
    }

    public var description: String {
        switch self {
        case .unclosedField(let text): return "--template: '{' without a closing '}' in '\(text)'"
        case .unknownField(let field):
            return
                "--template: unknown field '{\(field)}' (known: {name}, {stem}, {ext}, {uniqueName}, {share}, {shareId}, {author}, {rating}, {tag}, {title}, {capture:FORMAT}, {imported:FORMAT})"
        case .emptyTemplate: return "--template: the template is empty"
        case let .unknownConversion(conversion, field):
            return
                "--template: unknown strftime conversion '\(conversion)' in '{\(field)}' (known: %a %A %b %B %c %C %d %D %e %F %g %G %h %H %I %j %k %l %m %M %n %p %P %r %R %s %S %t %T %u %U %V %w %W %x %X %y %Y %z %Z %%)"
        case .destinationIsFile(let dest): return "cannot create export folder \(dest): a file of that name exists"
        case let .destinationInsideLibrary(dest, library):
            return "cannot export to \(dest): it is inside the library \(library)"
        case let .cannotCreateDestination(dest, reason): return "cannot create export folder \(dest): \(reason)"
        case let .cannotWriteDestination(dest, reason): return "cannot write in export folder \(dest): \(reason)"
        case .destinationBusy(let dest):
            return "export folder \(dest) is in use by another photos export; try again later"
        case let .cannotCreateFolder(folder, reason): return "cannot create folder \(folder): \(reason)"
        case .folderOutsideDestination(let folder):
            return "folder \(folder) resolves outside the export folder (a symbolic link?); not written"
        case .folderInsideLibrary(let folder): return "folder \(folder) is inside the library; not written"
        case let .unreadableOriginal(source, reason):
            return "cannot read the original \(source): \(reason) (run 'photos verify')"
        case let .originalMismatch(source, actual, recorded):
            return
                "SHA-256 mismatch: the library's original \(source) reads as \(actual), the library records \(recorded) (run 'photos verify'); not exported"
        case let .originalSizeMismatch(source, actual, recorded):
            return
                "size mismatch: the library's original \(source) has \(actual) bytes, the library records \(recorded) (run 'photos verify'); not exported"
        case let .originalReadFailed(source, reason): return "cannot read the original \(source): \(reason)"
        case .stateBusy(let state):
            return "export state \(state) is busy: another process holds its lock; try again later"
        case let .stateNotWritable(state, message), let .stateIOError(state, message):
            return "export state \(state) cannot be written: \(message)"
        case let .cannotOpenState(path, reason): return "cannot open the export state \(path): \(reason)"
        case let .cannotCreateState(path, reason): return "cannot create the export state \(path): \(reason)"
        }
    }
}
