import PhotosFiles
import PhotosModel

/// An error of a library as a whole, typed so that callers match on what happened, not on
/// message text. It carries no exit status, option name or hint: the CLI's `ErrorReporting`
/// decides and words those (argument-parser keeps its exit codes in its CLI layer).
public enum LibraryError: Error, CustomStringConvertible {
    /// Another process holds the library's lock past the busy timeout (SQLite BUSY/LOCKED;
    /// PostgreSQL `lock_not_available` under `lock_timeout`).
    case busy(library: String)
    /// The library folder was pointed at another catalog (`photos catalog move`) after this
    /// process opened it: a write now would land in the old catalog, which the library no
    /// longer uses, and be lost. Nothing was written; running the command again opens the
    /// library's new catalog.
    case catalogMoved(library: String)
    /// The library was written by a newer photos.
    case newerSchema(library: String, found: Int, supported: Int)
    /// The database refused or failed, classified without naming the backend, so the CLI
    /// maps it without importing the SQLite module (and a PostgreSQL store maps its SQLSTATEs
    /// to the same kinds).
    /// - `message`: the database's own message (`sqlite3_errmsg`); `detail`: the full error
    ///   line with the code and the statement (never bound values).
    case database(library: String, failure: DatabaseFailure, message: String, detail: String)
    /// An error of the file layer or the system while working on the library at `library`,
    /// kept as thrown (`FileError`, a Foundation error with its `errno`).
    case store(library: String, underlying: Error)
    /// There is no library at `library` (and the open was not to create one, or was a dry run).
    case noLibrary(library: String)
    /// The library at `library` exists but this process may not look into it (stat(2) of its
    /// catalog failed with EACCES or EPERM); `reason` says which part (`Library.accessProblem`).
    case cannotEnter(library: String, reason: String)
    /// The catalog file at `path` holds no schema version: it is not a photos library.
    case notALibrary(path: String)
    /// The library has the older schema version `found` and this open may not migrate it to
    /// `current` (`why`).
    case olderSchema(library: String, found: Int, current: Int, why: OlderSchemaRefusal)
    /// The library folder cannot be created: `reason` names the folder at fault and why.
    case cannotCreate(library: String, reason: String)
    /// A photo, share, tag, rating, zone or participant the command named does not exist.
    case notFound(CatalogItem)
    /// A prefix (at least `Library.minimumPrefixLength` characters) matches several keys:
    /// `candidates` are the first of them (at most 11, each described, so that "and more"
    /// can be told), in key order.
    case ambiguous(PrefixKind, argument: String, candidates: [String])
    /// A prefix shorter than `minimum` characters that is no whole key.
    case prefixTooShort(PrefixKind, argument: String, minimum: Int)

    /// True when another process held the lock.
    public var isBusy: Bool {
        if case .busy = self { return true }
        return false
    }

    /// True for `.store`: not the database's own failure.
    public var isStore: Bool {
        if case .store = self { return true }
        return false
    }

    /// The library folder the error is about; empty for the catalog cases (`notFound`,
    /// `ambiguous`, `prefixTooShort`), which are about an argument.
    public var library: String {
        switch self {
        case .notFound, .ambiguous, .prefixTooShort: return ""
        case .busy(let library), .catalogMoved(let library), .newerSchema(let library, _, _),
            .database(let library, _, _, _),
            .store(let library, _), .noLibrary(let library), .cannotEnter(let library, _),
            .olderSchema(let library, _, _, _), .cannotCreate(let library, _):
            return library
        case .notALibrary(let path): return path
        }
    }

    /// Classifies an error met while working on the library at `library`: busy and newer-schema
    /// errors get their own case, an error already typed for the user (`LibraryError`,
    /// `ValueError`, `ShareError`, `SyncError`, `BackupError`, `SidecarError`, `CatalogCopyError`, `ForeignTablesError`, `OriginalsRootError`, `OriginalsRootChoiceError`) is returned as it is, anything
    /// else is `.store`.
    public static func wrap(_ error: Error, library: String) -> Error {
        switch error {
        case is LibraryError, is ValueError, is ShareError, is SyncError, is BackupError, is SidecarError,
            is CatalogCopyError, is any CatalogPlaceRefusal, is OriginalsRootError, is OriginalsRootChoiceError:
            return error
        case let e as any StoreErrorConvertible:
            let e = e.storeError
            let failure: DatabaseFailure
            switch e.kind {
            case .busy: return LibraryError.busy(library: library)
            case let .newerSchema(found, supported):
                return LibraryError.newerSchema(library: library, found: found, supported: supported)
            case .readOnly: failure = .notWritable
            case .cannotOpen: failure = .cannotOpen
            case .unavailable: failure = .unavailable
            case .refused: failure = .refused
            case .io: failure = .io
            case .corrupt: failure = .corrupt
            case .unsupported: failure = .unsupported
            case .constraint, .other: failure = .other
            }
            return LibraryError.database(library: library, failure: failure, message: e.message, detail: e.detail)
        default: return LibraryError.store(library: library, underlying: error)
        }
    }

    public var description: String {
        switch self {
        case .busy(let library): return "library \(library) is busy"
        case .catalogMoved(let library): return "library \(library): its catalog was moved by another process"
        case let .newerSchema(library, found, supported):
            return "library \(library) has schema version \(found), newer than this photos supports (\(supported))"
        case let .database(library, _, _, detail): return "library \(library): \(detail)"
        case let .store(library, underlying): return "library \(library): \(underlying)"
        case .noLibrary(let library): return "no library at \(library)"
        case let .cannotEnter(library, reason): return "library \(library) cannot be opened: \(reason)"
        case .notALibrary(let path): return "\(path) is not a photos library"
        case let .olderSchema(library, found, current, why):
            return "library \(library) has schema version \(found), older than \(current) (\(why))"
        case let .cannotCreate(library, reason): return "cannot create library folder \(library): \(reason)"
        case .notFound(let item): return "not found: \(item)"
        case let .ambiguous(kind, argument, candidates):
            return "\(kind) prefix '\(argument)' is ambiguous: \(candidates)"
        case let .prefixTooShort(kind, argument, minimum):
            return "\(kind) '\(argument)': a prefix needs at least \(minimum) characters"
        }
    }
}

/// What kind of database failure a `LibraryError.database` is.
public enum DatabaseFailure: Sendable, Equatable {
    /// The database or its folder may not be written (read-only file or file system, permissions).
    case notWritable
    /// The database file cannot be opened.
    case cannotOpen
    /// The database server takes no connection now (`StoreError.Kind.unavailable`): try later.
    case unavailable
    /// The database server refused the login (`StoreError.Kind.refused`).
    case refused
    /// A read or write failed, the disk is full, or memory ran out.
    case io
    /// The file is damaged or not a database.
    case corrupt
    /// The catalog's backend does not do this operation (`StoreError.Kind.unsupported`).
    case unsupported
    /// Anything else: a bug (a constraint, misuse, a statement that does not compile).
    case other
}

/// Why an open refuses a library of an older schema version instead of migrating it.
public enum OlderSchemaRefusal: Sendable, Equatable {
    /// A read-only open of a library this user may not write: only a user who can write it can
    /// upgrade it; `what` says which part is not writable (`Library.whatIsNotWritable`).
    case notWritable(what: String)
    /// A read-only open (as export's dry run makes): it migrates nothing.
    case readOnlyOpen
    /// A dry run: it never migrates a library.
    case dryRun
}
