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

/// An error the CLI finds or words itself, with its status and complete message: a refusal of
/// its own (a path argument that does not exist, `show --share` of a photo in another share),
/// or one worded on top of another (an interrupted import's "run the same command again").
/// Core's errors never carry a status; this CLI-side type does.
struct CommandFailure: Error, Equatable {
    /// The sysexits status the command exits with.
    var status: ExitStatus
    /// One line naming the file or argument at fault.
    var message: String

    init(status: ExitStatus, message: String) {
        self.status = status
        self.message = message
    }

    init(_ status: ExitStatus, _ message: String) {
        self.init(status: status, message: message)
    }

    /// EX_NOINPUT (66): a file, photo or library that does not exist.
    static func noInput(_ message: String) -> CommandFailure { CommandFailure(.noInput, message) }
    /// EX_DATAERR (65): input that is well-formed as an argument but wrong as data.
    static func dataError(_ message: String) -> CommandFailure { CommandFailure(.dataError, message) }
}

/// The one place where an error becomes an exit status and the message the user reads.
enum ErrorReporting {
    /// What the user is told about `error`, and the exit status.
    struct Report {
        /// The sysexits status (SPEC §5).
        var status: ExitStatus
        /// One line, unescaped (the console escapes control characters).
        var message: String
        /// True for a usage error: printed as `photos CMD: error: …` like the others, then
        /// the usage line.
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
/// - `ValueError`: 64 (a bad command-line argument value, malformed or out of range; bad data
///   in files is 65 where it is read).
/// - `LibraryError.busy` 75; `.newerSchema` 65; `.database` by kind: not writable 77 (saying
///   what is not writable), cannot open 77 when the library or its database cannot be
///   accessed else 74, a login the database server refused 77 (naming the server, never the
///   password), I/O 74, corrupt 65, anything else 70 (a bug).
/// - `FileError` by kind: 66 no input, 73 cannot create, 74 I/O, 77 not permitted, 65 a name
///   outside its folder, 70 crypto.
/// - `BackupError`: 73 what cannot be created, 66 a backup or source that is not there, 74 a
///   rename, read or write that failed part-way; `SidecarError`: 65 the file's data, 74 a read
///   error, 70 the XMP Toolkit itself.
/// - `StopRequested` (SIGHUP, SIGINT, SIGTERM at a batch boundary): 129, 130, 143.
/// - `OriginalRemovalError` by `errno` (`status(forErrno:otherwise:)`).
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
        case let e as ValueError:
            // Every ValueError the CLI sees comes from a command-line argument (values read from
            // files are checked where they are read): a bad argument value is 64 everywhere,
            // malformed or out of range alike.
            self.init(.usage, e.description)
        case let e as DuplicateResolveError:
            // A group's keeper deleted between finding the groups and resolving them: the data
            // changed under the plan (nothing was changed).
            self.init(.dataError, e.description)
        case let e as CaptureFixError:
            // A `date shift --by` that takes a photo's time outside the years 1…9999: the
            // argument is wrong for the data (nothing was changed).
            self.init(.usage, e.description)
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
        case let e as any CatalogPlaceRefusal:
            // A catalog's place holding another program's tables, or no place at all: no
            // catalog can be made there (EX_CANTCREAT, sysexits.h), as for a `catalog move`
            // target with rows.
            self.init(.cantCreate, e.description)
        case let e as CatalogCopyError:
            // `catalog move`: a target with rows 73 (EX_CANTCREAT: the new catalog cannot be
            // made there), a catalog of another schema version, a damaged value or rows the
            // target's schema refuses 65, the library's own catalog as the target 64
            // (sysexits.h).
            switch e {
            case .targetNotEmpty: self.init(.cantCreate, e.description)
            case .schemaVersion, .unexpectedValue, .rowsRefused: self.init(.dataError, e.description)
            case .sameCatalog, .sameDatabase: self.init(.usage, e.description)
            }
        case let e as ShareError:
            self.init(share: e)
        case let e as SyncError:
            switch e.kind {
            case .noChangeset: self.init(.noInput, e.message)
            case .refused: self.init(.dataError, e.message)
            case .notPermitted: self.init(.noPermission, e.message)
            case .cannotCreate: self.init(.cantCreate, e.message)
            case .cannotWrite: self.init(.ioError, e.message)
            case .misuse: self.init(.usage, e.message)
            case .notConfigured: self.init(.software, e.message)
            }
        case let e as BackupError:
            self.init(backup: e)
        case let e as SidecarError:
            self.init(sidecar: e)
        case let e as OriginalsRootError:
            // Issue 31 item A3: say what to mount (66), or what cannot be written (73).
            if e.problem.isNotMounted {
                self.init(
                    .noInput,
                    "\(e.description): mount the catalog's originals at \(e.root) (the folder holding \(OriginalsMarker.fileName) of catalog \(e.catalogID)), or change the root with 'photos catalog set-originals PATH'; nothing was changed"
                )
            } else if case .notPermitted = e.problem {
                self.init(.noPermission, "\(e.description); nothing was changed")
            } else {
                self.init(.cantCreate, "\(e.description); nothing was changed")
            }
        case let e as OriginalsRootChoiceError:
            self.init(e.isOtherCatalog ? .dataError : .usage, e.message)
        case let e as ThumbnailError:
            switch e {
            case .missing: self.init(.noInput, e.description)
            case .damaged: self.init(.dataError, e.description)
            }
        case let e as OriginalRemovalError:
            switch e {
            case .cannotInspect:
                self.init(CLIError.status(forErrno: e.errno, otherwise: .ioError), e.description)
            case .folderNotWritable:
                self.init(CLIError.status(forErrno: e.errno, otherwise: .noPermission), e.description)
            }
        case let e as StopRequested:
            // 128 + the signal, as rsync exits (issue 31 item 19).
            switch e.signal {
            case SIGHUP: self.init(.hangUp, e.description)
            case SIGTERM: self.init(.terminated, e.description)
            default: self.init(.interrupt, e.description)
            }
        case let e as FileError:
            switch e.kind {
            case .noInput: self.init(.noInput, e.message)
            case .cannotCreate: self.init(.cantCreate, e.message)
            case .io: self.init(.ioError, e.message)
            case .notPermitted: self.init(.noPermission, e.message)
            case .invalidName, .unacceptable: self.init(.dataError, e.message)
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
        case .catalogMoved(let library):
            self.init(
                .tempFail,
                "library \(library): its catalog was moved by 'photos catalog move' while this command ran; nothing was written, run it again"
            )
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
            case .unavailable:
                // `message` names the server (user, host, port, database) and its reason.
                self.init(
                    .tempFail,
                    "library \(library): the catalog's database server takes no connection now: \(message); try again later"
                )
            case .refused:
                // `message` names the server (user, host, port, database) without the password.
                self.init(
                    .noPermission, "library \(library): the catalog's database server refused the login: \(message)")
            case .io: self.init(.ioError, "library \(library): \(detail)")
            case .corrupt: self.init(.dataError, "library \(library): \(detail)")
            case .unsupported: self.init(.unavailable, "library \(library): \(message)")
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

    /// A Foundation error with an `errno` behind it, in strerror's words and the path it
    /// names (`NSFilePathErrorKey`), never Foundation's own text ("The operation could not
    /// be completed", issue 32 item 8); the status by the errno (sysexits.h).
    private init(system error: Error) {
        if let code = CLIError.posixCode(error) {
            var reason = String(cString: strerror(code))
            if let path = (error as NSError).userInfo[NSFilePathErrorKey] as? String { reason = "\(path): " + reason }
            switch code {
            case EACCES, EPERM, EROFS: self.init(.noPermission, reason)
            case ENOSPC, EDQUOT, EIO: self.init(.ioError, reason)
            case ENOENT: self.init(.noInput, reason)
            default: self.init(.ioError, reason)
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

    /// The status of a failed file operation by its `errno`: EACCES, EPERM, EROFS → 77
    /// (permission); ENOSPC, EDQUOT, EIO → 74 (I/O, a full disk); anything else `otherwise`
    /// (sysexits.h).
    static func status(forErrno code: Int32, otherwise: ExitStatus) -> ExitStatus {
        switch code {
        case EACCES, EPERM, EROFS: return .noPermission
        case ENOSPC, EDQUOT, EIO: return .ioError
        default: return otherwise
        }
    }
}

// MARK: maintenance

extension CLIError {
    /// `backup` and `restore` (`BackupError`): DEST inside the library, a library already at
    /// the restore's target, an original that cannot be restored, a folder or marker that cannot
    /// be made 73 (EX_CANTCREAT); no catalog in the backup 66 (EX_NOINPUT); a rename failing
    /// part-way 74 (EX_IOERR), sysexits.h. (A copy's own failures are `FileError`s.)
    init(backup error: BackupError) {
        switch error {
        case .libraryExists:
            self.init(.cantCreate, error.description + " (choose another --library, or move it away)")
        case .destinationInsideLibrary, .cannotRestoreOriginal, .notABackupFolder, .cannotCreateMarker,
            .folderNotEmpty, .cannotPlaceLibrary:
            self.init(.cantCreate, error.description)
        case .noBackup: self.init(.noInput, error.description)
        case .cannotRenameOriginal: self.init(.ioError, error.description)
        }
    }

    /// `purge`, `dedupe-tags` and `history` refusals (`MaintenanceError`): a zone or consumer
    /// that does not exist 66 (EX_NOINPUT), an ambiguous share prefix 65 (EX_DATAERR), the
    /// default zone 64 (a bad argument, EX_USAGE), sysexits.h.
    init(maintenance error: MaintenanceError) {
        switch error {
        case .zoneNotFound(let argument):
            self.init(.noInput, "no share or zone '\(argument)' in the library")
        case let .zonePrefixAmbiguous(argument, candidates):
            self.init(.dataError, "share prefix '\(argument)' is ambiguous: \(CLIError.zoneCandidateList(candidates))")
        case .defaultZoneNotPurgeable:
            // The argument names a zone that exists but may not be purged: a bad argument, 64.
            self.init(.usage, "the default zone cannot be purged (delete its photos with 'photos delete')")
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
/// - Throws: `CommandFailure` with the status `ExitStatus(for:)` gives the refusal.
func parseOption<T>(_ option: String, _ text: String, _ parse: (String) throws -> T) throws -> T {
    do {
        return try parse(text)
    } catch let e as ValueError {
        throw CommandFailure(ExitStatus(for: e), "\(option) \(e)")
    }
}

// MARK: import/verify/merge/export
extension CLIError {
    /// `SidecarError` (import fails the one file with its description; this is its status where
    /// one stops a command): a sidecar or packet too large, too many nodes or malformed 65 (bad
    /// data), a read error 74, the XMP Toolkit failing 70 (the installation's, not the file's).
    init(sidecar error: SidecarError) {
        switch error {
        case .fileTooLarge, .tooManyJSONValues, .notAJSONObject, .packetTooLarge, .tooManyXMPNodes, .malformedPacket,
            .notUTF8, .iptcKeywordNotUTF8:
            self.init(.dataError, error.description)
        case .readFailed: self.init(.ioError, error.description)
        case .toolkitUnavailable, .toolkitAllocationFailed: self.init(.software, error.description)
        }
    }

    /// `MergeError`: `--from` naming this library is a bad argument (64); an original of the
    /// other library that does not match its SHA-256 is bad data (65).
    init(_ error: MergeError) {
        switch error {
        case .intoItself: self.init(.usage, error.description)
        case .originalMismatch: self.init(.dataError, error.description)
        }
    }

    /// `ExportError`: a template 64 (usage), DEST, its folders and its state 73, DEST or the
    /// state in use 75, an unreadable original 66, an original of another SHA-256 or size 65, the
    /// state not writable 77, a read or write failing on the disk 74.
    init(_ error: ExportError) {
        switch error {
        case .unclosedField, .unknownField, .emptyTemplate, .unknownConversion: self.init(.usage, error.description)
        case .destinationIsFile, .destinationInsideLibrary, .cannotCreateDestination, .cannotWriteDestination,
            .cannotCreateFolder, .folderOutsideDestination, .folderInsideLibrary:
            self.init(.cantCreate, error.description)
        case .destinationBusy: self.init(.tempFail, error.description)
        case .unreadableOriginal: self.init(.noInput, error.description)
        case .originalMismatch, .originalSizeMismatch: self.init(.dataError, error.description)
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
    /// The catalog's lookups: 66 for what does not exist; 65 for an ambiguous prefix, 64 for a
    /// too short one (a bad argument value; SPEC §5: a prefix of at least 4 characters, compared
    /// case-insensitively), the
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
            switch kind {
            case .tag:
                // Issue 32 item 2: a mutation never picks one of several tags a name finds.
                self.init(
                    .dataError,
                    "tag name '\(argument)' matches \(candidates.count) tags (case and accents are ignored): \(list); rename one, or merge them with 'photos dedupe-tags --fold'"
                )
            case .photo, .share:
                self.init(
                    .dataError, "\(kind == .photo ? "photo" : "share") prefix '\(argument)' is ambiguous: \(list)")
            }
        case let .prefixTooShort(kind, argument, minimum):
            switch kind {
            case .photo:
                self.init(.usage, "photo '\(argument)': a uniqueName prefix needs at least \(minimum) characters")
            case .share: self.init(.usage, "share '\(argument)': an id prefix needs at least \(minimum) characters")
            case .tag: self.init(.usage, "tag '\(argument)': too short")
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
            self.init(.usage, "a participant's permission is read-only or read-write, not none")
        case let .ownerInvited(email, share): self.init(.dataError, "\(email) is the owner of share \(share)")
        case let .ownerRemoved(email, share):
            self.init(
                .dataError, "\(email) is the owner of share \(share) and cannot be removed (purge the share instead)")
        case .notOwned(let share):
            self.init(
                .noPermission,
                "share \(share) was shared with this library by someone else; only its owner can change it")
        case let .photoInSharedZone(photo, zone):
            self.init(
                .dataError,
                "photo \(photo) is in zone \(zone), shared with this library by someone else; it cannot be moved")
        case let .photoInAnotherShare(photo, share):
            self.init(.dataError, "photo \(photo) is already in share \(share); use --move to move it")
        case let .photoNotInShare(photo, share):
            self.init(.dataError, "photo \(photo) is not in share \(share); nothing moved")
        case let .originalInZone(photo, other, zone):
            self.init(
                .dataError,
                "photo \(photo) has the same original as photo \(other), which is in zone \(zone) already (one photo per original in a zone); nothing moved"
            )
        }
    }
}
