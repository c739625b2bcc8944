import Foundation
import PhotosCore
import PhotosFiles

/// A usage error the CLI itself finds (an unknown option, a bad value, a missing argument):
/// printed with the command's usage line, exit 64 (sysexits EX_USAGE). The CLI's counterpart of
/// swift-argument-parser's `ValidationError`.
struct UsageError: Error, Equatable {
    /// One line naming the option or argument at fault.
    var message: String

    init(_ message: String) { self.message = message }
}

/// An error the CLI words itself on top of another (an interrupted import's "run the same
/// command again"): its status and complete message.
struct CommandFailure: Error {
    var status: ExitStatus
    var message: String
}

/// The one place where an error becomes an exit status and the message the user reads.
enum ErrorReporting {
    /// What the user is told about `error`, and the exit status.
    struct Report {
        /// The sysexits status (SPEC §5).
        var status: ExitStatus
        /// One line, unescaped (the console escapes control characters).
        var message: String
        /// True for a usage error: printed with the usage line (`Error: …`), not as
        /// `photos CMD: error: …`.
        var isUsage: Bool { status == .usage }
    }

    /// The report for `error`. Lock and database errors name `libraryPath`; what is not a known
    /// error of the environment or the input is 70 (a bug).
    static func report(for error: Error, libraryPath: String) -> Report {
        switch error {
        case let e as UsageError:
            return Report(status: .usage, message: e.message)
        case let e as CommandFailure:
            return Report(status: e.status, message: e.message)
        default:
            let e = CLIError(error, libraryPath: libraryPath)
            return Report(status: e.status, message: e.message)
        }
    }

    /// `error` (the cause that stopped a batch part-way) with `addendum` appended to its
    /// message: "…; the 3 photos committed before stay imported: run the same command again".
    static func interrupted(_ error: Error, libraryPath: String, addendum: String) -> CommandFailure {
        let cause = report(for: error, libraryPath: libraryPath)
        return CommandFailure(status: cause.status, message: cause.message + addendum)
    }
}

extension ExitStatus {
    /// The exit status for an error thrown below the CLI: the one mapping from Core's typed
    /// errors to sysexits codes (argument-parser keeps `ExitCode` in its CLI layer the same
    /// way). See `CLIError` for the rules.
    /// - Parameters:
    ///   - error: what was thrown.
    ///   - libraryPath: the library, named in database and lock messages.
    init(for error: Error, libraryPath: String = "") {
        self = ErrorReporting.report(for: error, libraryPath: libraryPath).status
    }
}

/// Core's typed errors as the CLI reports them: the exit status and the one line printed.
/// Used only by `ErrorReporting.report` (the one mapping); words the hints ("raise --wait").
///
/// - `ValueError`: 64 when the text is malformed as an argument, else 65.
/// - `LibraryError.busy` 75; `.newerSchema` 65; `.database` by kind: not writable 77 (saying
///   what is not writable), cannot open 77 when the library or its database cannot be
///   accessed else 74, I/O 74, corrupt 65, anything else 70 (a bug).
/// - `FileError` by kind: 66 no input, 73 cannot create, 74 I/O, 77 not permitted, 65 a name
///   outside its folder, 70 crypto.
/// - POSIX errors (`errno` in an `NSError`): EACCES, EPERM, EROFS 77; ENOSPC, EDQUOT, EIO 74;
///   ENOENT 66; others 74. Anything else is 70.
struct CLIError {
    var status: ExitStatus
    var message: String

    init(_ status: ExitStatus, _ message: String) {
        self.status = status
        self.message = message
    }

    init(_ error: Error, libraryPath: String) {
        switch error {
        case let e as PhotosError:
            self.init(e.status, e.message)
        case let e as ValueError:
            self.init(e.isMalformed ? .usage : .dataError, e.description)
        case let e as LibraryError:
            self.init(e)
        case let e as MergeError:
            self.init(e)
        case let e as ExportError:
            self.init(e)
        case let e as ImportError:
            self.init(e)
        case let e as MaintenanceError:
            self.init(maintenance: e)
        case let e as ShareError:
            self.init(share: e)
        case let e as FileError:
            switch e.kind {
            case .noInput: self.init(.noInput, e.message)
            case .cannotCreate: self.init(.cantCreate, e.message)
            case .io: self.init(.ioError, e.message)
            case .notPermitted: self.init(.noPermission, e.message)
            case .invalidName: self.init(.dataError, e.message)
            case .crypto: self.init(.software, e.message)
            }
        default:
            // A database error that reached here unwrapped: classify it for the library.
            if let e = LibraryError.wrap(error, library: libraryPath) as? LibraryError, !e.isStore {
                self.init(e)
            } else {
                self.init(system: error)
            }
        }
    }

    private init(_ error: LibraryError) {
        switch error {
        case .busy(let library):
            self.init(
                .tempFail,
                "library \(library) is busy: another photos process holds its lock; try again later (or raise --wait)")
        case let .newerSchema(library, found, supported):
            self.init(
                .dataError,
                "library \(library): the library has schema version \(found), newer than this photos supports (\(supported)); use a newer photos"
            )
        case let .database(library, failure, message, detail):
            switch failure {
            case .notWritable:
                self.init(
                    .noPermission,
                    "library \(library) is not writable: \(CompositionRoot.whatIsNotWritable(library)) (\(message))")
            case .cannotOpen:
                if let reason = CompositionRoot.accessProblem(library) {
                    self.init(.noPermission, "library \(library) cannot be opened: \(reason) (\(message))")
                } else {
                    self.init(.ioError, "library \(library): \(detail)")
                }
            case .io: self.init(.ioError, "library \(library): \(detail)")
            case .corrupt: self.init(.dataError, "library \(library): \(detail)")
            case .other: self.init(.software, "library \(library): \(detail)")
            }
        case let .store(_, underlying):
            self.init(underlying, libraryPath: "")
        case .noLibrary(let library):
            self.init(.noInput, "no library at \(library) (create one with 'photos init' or 'photos import')")
        case let .cannotEnter(library, reason):
            self.init(.noPermission, "library \(library) cannot be opened: \(reason)")
        case .notALibrary(let path):
            self.init(.dataError, "\(path) is not a photos library (it has no schema version)")
        case let .olderSchema(library, found, current, why):
            switch why {
            case .notWritable(let what):
                self.init(
                    .noPermission,
                    "library \(library) has schema version \(found) and must be upgraded to \(current) by a user who can write it (run 'photos init'): \(what)"
                )
            case .readOnlyOpen:
                self.init(
                    .dataError,
                    "library \(library) has schema version \(found) and must be upgraded to \(current) first, which a read-only open (as a dry run makes) does not do: run 'photos init'"
                )
            case .dryRun:
                self.init(
                    .dataError,
                    "library \(library) has schema version \(found) and must be upgraded to \(current) first, which a dry run does not do: run 'photos init', then the dry run"
                )
            }
        case let .cannotCreate(library, reason):
            self.init(.cantCreate, "cannot create library folder \(library): \(reason)")
        case .notFound, .ambiguous, .prefixTooShort:
            self.init(catalog: error)
        }
    }

    private init(system error: Error) {
        if let code = CLIError.posixCode(error) {
            let reason = String(cString: strerror(code))
            switch code {
            case EACCES, EPERM, EROFS: self.init(.noPermission, reason + ": \(error.localizedDescription)")
            case ENOSPC, EDQUOT, EIO: self.init(.ioError, reason + ": \(error.localizedDescription)")
            case ENOENT: self.init(.noInput, reason + ": \(error.localizedDescription)")
            default: self.init(.ioError, reason + ": \(error.localizedDescription)")
            }
        } else {
            self.init(.software, "\(error)")
        }
    }

    /// The POSIX `errno` behind a Foundation error, when there is one.
    static func posixCode(_ error: Error) -> Int32? {
        let ns = error as NSError
        if ns.domain == NSPOSIXErrorDomain { return Int32(ns.code) }
        if let underlying = ns.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return Int32(underlying.code)
        }
        return nil
    }

    /// This error as a `PhotosError` (for the commands that add a sentence to it).
    var photosError: PhotosError { PhotosError(status, message) }
}

// MARK: maintenance

extension CLIError {
    /// `purge`, `dedupe-tags` and `history` refusals (`MaintenanceError`): a zone or consumer
    /// that does not exist 66 (EX_NOINPUT), an ambiguous share prefix and the default zone 65
    /// (EX_DATAERR), sysexits.h.
    init(maintenance error: MaintenanceError) {
        switch error {
        case .zoneNotFound(let argument):
            self.init(.noInput, "no share or zone '\(argument)' in the library")
        case let .zonePrefixAmbiguous(argument, candidates):
            self.init(.dataError, "share prefix '\(argument)' is ambiguous: \(CLIError.zoneCandidateList(candidates))")
        case .defaultZoneNotPurgeable:
            self.init(.dataError, "the default zone cannot be purged (delete its photos with 'photos delete')")
        case .consumerNotFound(let name):
            self.init(.noInput, "no history consumer '\(name)'")
        }
    }

    /// "a, b, c, …" for a message listing candidates: the first 10, then "…" when there are more.
    private static func zoneCandidateList(_ items: [String]) -> String {
        items.prefix(10).joined(separator: ", ") + (items.count > 10 ? ", …" : "")
    }
}

// MARK: -

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

// MARK: import/verify/merge/export
extension CLIError {
    /// `MergeError`: both 65 (the other library's data, or the arguments, are wrong as data).
    init(_ error: MergeError) {
        switch error {
        case .intoItself, .originalMismatch: self.init(.dataError, error.description)
        }
    }

    /// `ExportError`: a template 64 (usage), DEST, its folders and its state 73, DEST or the
    /// state in use 75, an unreadable original 66, an original of another SHA-256 65, the
    /// state not writable 77, a read or write failing on the disk 74.
    init(_ error: ExportError) {
        switch error {
        case .unclosedField, .unknownField, .emptyTemplate: self.init(.usage, error.description)
        case .destinationIsFile, .destinationInsideLibrary, .cannotCreateDestination, .cannotWriteDestination,
            .cannotCreateFolder, .folderOutsideDestination, .folderInsideLibrary:
            self.init(.cantCreate, error.description)
        case .destinationBusy: self.init(.tempFail, error.description)
        case .unreadableOriginal: self.init(.noInput, error.description)
        case .originalMismatch: self.init(.dataError, error.description)
        case .originalReadFailed, .stateIOError: self.init(.ioError, error.description)
        case .stateBusy: self.init(.tempFail, error.description)
        case .stateNotWritable: self.init(.noPermission, error.description)
        case .cannotOpenState, .cannotCreateState: self.init(.cantCreate, error.description)
        }
    }

    /// `ImportError`: the status of the file system's refusal (77 permission, 74 I/O).
    init(_ error: ImportError) {
        switch error {
        case .cannotRestoreOriginal(_, _, let underlying):
            self.init(CLIError(underlying, libraryPath: "").status, error.description)
        }
    }
}

// MARK: catalog

extension CLIError {
    /// The catalog's lookups: 66 for what does not exist; 65 for an ambiguous or too short
    /// prefix (SPEC §5: a prefix of at least 4 characters, compared case-insensitively), the
    /// candidates listed ("a, b, …" after 10).
    fileprivate init(catalog error: LibraryError) {
        switch error {
        case .notFound(let item):
            switch item {
            case .photo(let argument): self.init(.noInput, "no photo '\(argument)' in the library")
            case .share(let argument): self.init(.noInput, "no share '\(argument)' in the library")
            case .rating(let id): self.init(.noInput, "no rating with id \(id) in the library")
            case .zone(let zone): self.init(.noInput, "no zone '\(zone)' in the library")
            case let .tag(name, zone):
                self.init(.noInput, "no tag '\(name)'\(zone.map { " in zone '\($0)'" } ?? "") in the library")
            case let .tagInPhotoZones(name, zoneCount):
                self.init(.noInput, "no tag '\(name)' in the zone\(zoneCount == 1 ? "" : "s") of these photos")
            case let .participant(email, share): self.init(.noInput, "\(email) is not a participant of share \(share)")
            }
        case let .ambiguous(kind, argument, candidates):
            let list = candidates.prefix(10).joined(separator: ", ") + (candidates.count > 10 ? ", …" : "")
            self.init(.dataError, "\(kind == .photo ? "photo" : "share") prefix '\(argument)' is ambiguous: \(list)")
        case let .prefixTooShort(kind, argument, minimum):
            switch kind {
            case .photo:
                self.init(.dataError, "photo '\(argument)': a uniqueName prefix needs at least \(minimum) characters")
            case .share: self.init(.dataError, "share '\(argument)': an id prefix needs at least \(minimum) characters")
            }
        default:
            self.init(.software, "\(error)")
        }
    }

    /// The sharing commands' refusals: 64 for `share create` without photos, else 65.
    fileprivate init(share error: ShareError) {
        switch error {
        case .noPhotos: self.init(.usage, "share create needs at least one photo")
        case .participantPermissionNone:
            self.init(.dataError, "a participant's permission is read-only or read-write, not none")
        case let .ownerInvited(email, share): self.init(.dataError, "\(email) is the owner of share \(share)")
        case let .ownerRemoved(email, share):
            self.init(
                .dataError, "\(email) is the owner of share \(share) and cannot be removed (purge the share instead)")
        case .notOwned(let share):
            self.init(
                .dataError, "share \(share) was shared with this library by someone else; only its owner can change it")
        case let .photoInSharedZone(photo, zone):
            self.init(
                .dataError,
                "photo \(photo) is in zone \(zone), shared with this library by someone else; it cannot be moved")
        case let .photoInAnotherShare(photo, share):
            self.init(.dataError, "photo \(photo) is already in share \(share); use --move to move it")
        }
    }
}
