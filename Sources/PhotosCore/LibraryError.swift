import PhotosFiles
import PhotosModel

/// An error of a library as a whole, typed so that callers match on what happened, not on
/// message text. It carries no exit status, option name or hint: the CLI's `ExitStatus(for:)`
/// and its one wording place decide those (argument-parser keeps `ExitCode` in its CLI layer).
public enum LibraryError: Error, CustomStringConvertible {
    /// Another process holds the library's lock past the busy timeout (SQLite BUSY/LOCKED;
    /// PostgreSQL `lock_not_available` under `lock_timeout`).
    case busy(library: String)
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
        case .busy(let library), .newerSchema(let library, _, _), .database(let library, _, _, _),
            .store(let library, _):
            return library
        }
    }

    /// Classifies an error met while working on the library at `library`: busy and newer-schema
    /// errors get their own case, an error already typed for the user (`PhotosError`,
    /// `LibraryError`, `ValueError`, `ShareError`) is returned as it is, anything else is `.store`.
    public static func wrap(_ error: Error, library: String) -> Error {
        switch error {
        case is PhotosError, is LibraryError, is ValueError, is ShareError: return error
        case let e as any StoreErrorConvertible:
            let e = e.storeError
            let failure: DatabaseFailure
            switch e.kind {
            case .busy: return LibraryError.busy(library: library)
            case let .newerSchema(found, supported):
                return LibraryError.newerSchema(library: library, found: found, supported: supported)
            case .readOnly: failure = .notWritable
            case .cannotOpen: failure = .cannotOpen
            case .io: failure = .io
            case .corrupt: failure = .corrupt
            case .constraint, .other: failure = .other
            }
            return LibraryError.database(library: library, failure: failure, message: e.message, detail: e.detail)
        default: return LibraryError.store(library: library, underlying: error)
        }
    }

    public var description: String {
        switch self {
        case .busy(let library): return "library \(library) is busy"
        case let .newerSchema(library, found, supported):
            return "library \(library) has schema version \(found), newer than this photos supports (\(supported))"
        case let .database(library, _, _, detail): return "library \(library): \(detail)"
        case let .store(library, underlying): return "library \(library): \(underlying)"
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
    /// A read or write failed, the disk is full, or memory ran out.
    case io
    /// The file is damaged or not a database.
    case corrupt
    /// Anything else: a bug (a constraint, misuse, a statement that does not compile).
    case other
}
