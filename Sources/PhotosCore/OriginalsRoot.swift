import Foundation
import PhotosFiles
import PhotosModel

/// The marker file in the originals root of a shared catalog (issue 31 item A3):
/// `ROOT/.photos-originals`, a comment and the line `catalog <catalog id>`. Written when the
/// root is recorded, compared at every open, so that a mount point that is empty (nothing
/// mounted) or holds another library's originals is not taken for the catalog's.
public enum OriginalsMarker {
    /// The marker's file name in the originals root.
    public static let fileName = ".photos-originals"

    /// The largest marker read, in bytes (a marker is about 150 bytes; a larger file is not one).
    static let maximumBytes = 4096

    /// The marker's path in the originals root `root`.
    public static func path(root: String) -> String { root + "/" + fileName }

    /// What the marker in `root` says.
    public enum Reading: Equatable {
        /// No marker (ENOENT): nothing is mounted there, or not the catalog's folder.
        case absent
        /// The marker names this catalog id.
        case catalog(String)
        /// A file that cannot be read (`code`: the errno of open(2) or read(2); 0 for a file
        /// that is no marker), with the reason in words.
        case unreadable(String, code: Int32)
    }

    /// Reads the marker of `root`, at most `maximumBytes` bytes.
    public static func read(root: String) -> Reading {
        let fd = open(path(root: root), O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else {
            let code = errno
            if code == ENOENT || code == ENOTDIR { return .absent }
            return .unreadable(String(cString: strerror(code)), code: code)
        }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: maximumBytes + 1)
        var count = 0
        while count < bytes.count {
            let n = bytes.withUnsafeMutableBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return 0 }
                return Glibc.read(fd, base + count, buffer.count - count)
            }
            if n < 0 && errno == EINTR { continue }
            if n < 0 {
                let code = errno
                return .unreadable(String(cString: strerror(code)), code: code)
            }
            if n == 0 { break }
            count += n
        }
        guard count <= maximumBytes, let text = String(validating: bytes[..<count], as: UTF8.self) else {
            return .unreadable("not a marker file", code: 0)
        }
        for line in text.split(separator: "\n") where line.hasPrefix("catalog ") {
            let id = line.dropFirst("catalog ".count).trimmingCharacters(in: .whitespaces)
            if id.count == 36 { return .catalog(id) }
        }
        return .unreadable("not a marker file", code: 0)
    }

    /// Writes the marker of `catalogID` into `root` (which exists), atomically (a temporary
    /// file renamed over it).
    /// - Throws: the write error (Foundation's, with its errno).
    public static func write(catalogID: String, root: String) throws {
        let text = """
            # The originals of a photos catalog shared by several library folders: every library
            # folder on the catalog checks this file at open. Do not remove or copy it.
            catalog \(catalogID)

            """
        try text.write(toFile: path(root: root), atomically: true, encoding: .utf8)
    }
}

/// Where a library's originals are and whether this process can use them
/// (`Library.originals`).
public struct OriginalsLocation: Sendable, Equatable {
    /// The folder of the originals (`ExternalDataStore.root`): `LIBRARY/ExternalData`, or the
    /// root a shared catalog records.
    public var root: String
    /// True when the catalog records `root` (a PostgreSQL catalog at schema version 7 or later).
    public var isCatalogRoot: Bool
    /// The catalog id of the marker; nil for a library that records no root.
    public var catalogID: String?
    /// Why `root` is not the catalog's here, or cannot be written; nil when it can be used.
    public var problem: OriginalsRootError.Problem?
    /// Library folders (host and path) recorded as having opened the catalog; 1 for a library
    /// that records none.
    public var folders: Int
    /// True when this open recorded the root (a catalog made before schema version 7, or a new one).
    public var recordedNow: Bool
    /// The library folder's own `ExternalData` when it holds files though the catalog's
    /// originals are elsewhere (left from before the root was recorded): they are not used.
    public var strayFolder: String?
    /// True when the root was recorded for a catalog that held photos already: library
    /// folders that opened it before are unknown (`OriginalsRootRecord.unknownFolders`).
    public var unknownFolders = false

    /// The folder's own external data, for a library that records no root.
    static func local(_ root: String) -> OriginalsLocation {
        OriginalsLocation(
            root: root, isCatalogRoot: false, catalogID: nil, problem: nil, folders: 1, recordedNow: false,
            strayFolder: nil)
    }

    /// True when the catalog is shared: it records its root and more than one library folder
    /// has opened it. A photo whose original is not visible here may then be another
    /// machine's, and `verify --repair` never deletes it.
    public var isShared: Bool { isCatalogRoot && (folders > 1 || unknownFolders) }
}

/// Why a command that writes or repairs originals refuses: the catalog's originals root cannot
/// be used from this library folder now.
public struct OriginalsRootError: Error, CustomStringConvertible, Equatable {
    /// What is wrong with the root.
    public enum Problem: Sendable, Equatable, CustomStringConvertible {
        /// The root does not exist or is not a folder (`reason`): not mounted here.
        case missing(reason: String)
        /// The root exists but holds no marker: an empty mount point, or not the catalog's folder.
        case noMarker
        /// The root's marker names another catalog (`found`): another library's folder.
        case otherCatalog(found: String)
        /// The marker cannot be read (`reason`).
        case unreadableMarker(reason: String)
        /// The root cannot be written by this process (`reason`): a read-only file system.
        case notWritable(reason: String)
        /// This user may not read or write the root or its marker (EACCES, EPERM: `reason`).
        case notPermitted(reason: String)

        public var description: String {
            switch self {
            case .missing(let reason): return "it is not there (\(reason))"
            case .noMarker: return "it holds no \(OriginalsMarker.fileName) marker (nothing mounted there?)"
            case .otherCatalog(let found): return "its marker belongs to another catalog (\(found))"
            case .unreadableMarker(let reason): return "its marker cannot be read (\(reason))"
            case .notWritable(let reason): return "it is not writable (\(reason))"
            case .notPermitted(let reason): return "this user may not use it (\(reason))"
            }
        }

        /// True when the root is not the catalog's here (66); false when only writing fails (73)
        /// or this user may not use it (77).
        public var isNotMounted: Bool {
            switch self {
            case .notWritable, .notPermitted: return false
            default: return true
            }
        }
    }

    /// The library folder.
    public var library: String
    /// The catalog's originals root.
    public var root: String
    /// The catalog id its marker must name.
    public var catalogID: String
    /// What is wrong.
    public var problem: Problem

    public init(library: String, root: String, catalogID: String, problem: Problem) {
        self.library = library
        self.root = root
        self.catalogID = catalogID
        self.problem = problem
    }

    public var description: String {
        "library \(library): the catalog's originals root \(root) cannot be used here: \(problem)"
    }
}

/// `photos init --originals PATH` on a catalog that records another root, or a PATH that
/// cannot be the root: a usage error (64) or, for a folder of another catalog, 65.
public struct OriginalsRootChoiceError: Error, CustomStringConvertible, Equatable {
    /// The message.
    public var message: String
    /// True when the folder holds another catalog's marker (65); false for a usage error (64).
    public var isOtherCatalog: Bool

    public var description: String { message }
}

extension Library {
    /// The machine's host name (gethostname(2)); "localhost" when it has none.
    static var hostName: String {
        var name = [CChar](repeating: 0, count: 256)
        guard gethostname(&name, name.count - 1) == 0 else { return "localhost" }
        let host = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return host.isEmpty ? "localhost" : host
    }

    /// Finds the originals of a shared catalog (`CatalogBackend.sharesCatalog`) for the
    /// library folder `library`: the recorded root, checked against its marker. When the
    /// catalog records none and `mayWrite`, records `proposed` (`init --originals`) or the
    /// folder's own `ExternalData` (a catalog of before schema version 7, or a new one), writing
    /// its marker in the same write transaction, before the record commits; and records the
    /// folder among those that opened the catalog.
    /// - Throws: `OriginalsRootChoiceError` for a `proposed` root other than the recorded one,
    ///   or one holding another catalog's marker; `OriginalsRootError` when `proposed` cannot be
    ///   used (missing, not writable); the store's error.
    static func locateOriginals(
        store: any LibraryStore, library: String, mayWrite: Bool, proposed: String?, busyTimeout: Double
    ) throws -> OriginalsLocation {
        let own = library + "/" + externalDataName
        let host = hostName
        var places = try store.catalogPlaces(host: host, folder: library)
        if let proposed, let recorded = places.originals, recorded.root != proposed {
            throw OriginalsRootChoiceError(
                message:
                    "--originals \(proposed): the catalog keeps its originals in \(recorded.root); every library folder on it uses that root (change it with 'photos catalog set-originals PATH')",
                isOtherCatalog: false)
        }
        var recordedNow = false
        if places.originals == nil || !places.folderKnown, mayWrite {
            var record: OriginalsRootRecord?
            if places.originals == nil {
                let root = proposed ?? own
                if proposed == nil { try? makeFolders(own, library: library) }
                let id: String
                switch OriginalsMarker.read(root: root) {
                case .catalog(let found) where proposed == nil:
                    // The folder's own external data, marked before (a catalog moved here).
                    id = found
                case .catalog(let found):
                    throw OriginalsRootChoiceError(
                        message:
                            "--originals \(root) holds the originals of another catalog (marker \(OriginalsMarker.path(root: root)): catalog \(found)); give the folder of this catalog's originals, or a new one",
                        isOtherCatalog: true)
                default:
                    id = UUID().uuidString.lowercased()
                }
                if let problem = rootProblem(root, catalogID: nil, writing: true) {
                    if proposed != nil {
                        throw OriginalsRootError(library: library, root: root, catalogID: id, problem: problem)
                    }
                    // A folder this user may not write: the root is recorded by a later open
                    // that can write it; meanwhile the folder's own external data is used.
                    return .local(own)
                }
                // A catalog of photos made before schema version 7: other folders may have
                // opened it, unrecorded; it counts as shared from now on.
                let held = try store.photoCount() > 0
                record = OriginalsRootRecord(
                    root: root, catalogID: id, recordedAt: ISODate.string(from: Date()), unknownFolders: held)
            }
            let now = ISODate.string(from: Date())
            var markerFailure: Error?
            try store.writeTransaction(waitingUpTo: busyTimeout) {
                // Under the writer lock: another process may have recorded a root meanwhile
                // (then its marker stands). The marker is written here, before the record
                // commits, so that two first opens at once never leave a marker of an id the
                // catalog does not record.
                let current = try store.catalogPlaces(host: host, folder: library)
                if let record, current.originals == nil {
                    do {
                        try OriginalsMarker.write(catalogID: record.catalogID, root: record.root)
                    } catch {
                        markerFailure = error
                        return .rollback
                    }
                    try store.recordOriginalsRoot(record)
                    recordedNow = true
                }
                if !current.folderKnown { try store.recordCatalogFolder(host: host, folder: library, openedAt: now) }
                return .commit
            }
            if let markerFailure, let record {
                if proposed != nil {
                    throw OriginalsRootError(
                        library: library, root: record.root, catalogID: record.catalogID,
                        problem: .notWritable(reason: markerFailure.localizedDescription))
                }
                // The folder's own external data, not writable now: a later open records it.
                return .local(own)
            }
            places = try store.catalogPlaces(host: host, folder: library)
        }
        guard let recorded = places.originals else { return .local(own) }
        var location = OriginalsLocation(
            root: recorded.root, isCatalogRoot: true, catalogID: recorded.catalogID,
            problem: rootProblem(recorded.root, catalogID: recorded.catalogID, writing: mayWrite),
            folders: max(places.folders, 1), recordedNow: recordedNow, strayFolder: nil,
            unknownFolders: recorded.unknownFolders)
        if recorded.root != own, ExternalDataStore.holdsFiles(own) { location.strayFolder = own }
        return location
    }

    /// Refuses `path` as the originals root to record for a new catalog (`init --database
    /// --originals`) before anything is made: a folder that is missing or may not be written,
    /// or that holds another catalog's marker.
    /// - Throws: `OriginalsRootError` (66, 77, 73); `OriginalsRootChoiceError` (65).
    public static func checkNewOriginalsRoot(_ path: String, library: String) throws {
        if let problem = rootProblem(path, catalogID: nil, writing: true) {
            throw OriginalsRootError(library: library, root: path, catalogID: "", problem: problem)
        }
        if case .catalog(let found) = OriginalsMarker.read(root: path) {
            throw OriginalsRootChoiceError(
                message:
                    "--originals \(path) holds the originals of another catalog (marker \(OriginalsMarker.path(root: path)): catalog \(found)); give the folder of this catalog's originals, or a new one",
                isOtherCatalog: true)
        }
    }

    /// Why the folder `root` is not the originals root of catalog `catalogID` here (not there,
    /// no marker, another catalog's marker), or cannot be written by this process; nil when
    /// it can be used (`photos init --database` checks it before joining a catalog).
    public static func originalsRootProblem(_ root: String, catalogID: String) -> OriginalsRootError.Problem? {
        rootProblem(root, catalogID: catalogID, writing: true)
    }

    /// Why `root` is not usable as the originals root of catalog `catalogID` (nil: no marker is
    /// expected yet), checked in this order: it exists as a folder, its marker names the
    /// catalog, and (when `writing`) this process may write it (access(2) `W_OK`).
    static func rootProblem(_ root: String, catalogID: String?, writing: Bool) -> OriginalsRootError.Problem? {
        var st = stat()
        if stat(root, &st) != 0 { return .missing(reason: String(cString: strerror(errno))) }
        if st.st_mode & S_IFMT != S_IFDIR { return .missing(reason: "not a folder") }
        if let catalogID {
            switch OriginalsMarker.read(root: root) {
            case .absent: return .noMarker
            case .catalog(let found) where found != catalogID: return .otherCatalog(found: found)
            case .catalog: break
            case .unreadable(let reason, let code) where code == EACCES || code == EPERM:
                return .notPermitted(reason: "\(OriginalsMarker.path(root: root)): \(reason)")
            case .unreadable(let reason, _): return .unreadableMarker(reason: reason)
            }
        }
        if writing, access(root, W_OK | X_OK) != 0 {
            let code = errno
            var fs = statvfs()
            if statvfs(root, &fs) == 0, fs.f_flag & UInt(ST_RDONLY) != 0 {
                return .notWritable(reason: "a read-only file system")
            }
            if code == EACCES || code == EPERM {
                return .notPermitted(reason: "\(root): \(String(cString: strerror(code)))")
            }
            return .notWritable(reason: String(cString: strerror(code)))
        }
        return nil
    }

    /// Refuses a command that writes, repairs or removes originals while the catalog's
    /// originals root cannot be used from here (`originals.problem`): import, merge,
    /// `sync --apply`, `share accept`, `verify --repair`. Nothing for a library that keeps its
    /// originals in its own folder.
    /// - Throws: `OriginalsRootError` (the CLI gives 66 when the root is not mounted here, 73
    ///   when it cannot be written).
    public func requireOriginalsRoot() throws {
        guard let problem = originals.problem else { return }
        throw OriginalsRootError(
            library: root, root: originals.root, catalogID: originals.catalogID ?? "", problem: problem)
    }

    /// Records `path` (absolute, an existing folder this process may write) as the originals
    /// root of this library's shared catalog, writing its marker first (`photos catalog
    /// set-originals`). Every library folder on the catalog uses it from its next open.
    /// - Returns: how many of the catalog's originals are in `path` (stat(2) of each; bounded
    ///   by the catalog, read in pages) and how many are recorded.
    /// - Throws: `OriginalsRootChoiceError` for a SQLite library, a relative path, or a folder
    ///   of another catalog; `OriginalsRootError` for a folder that is missing or not writable;
    ///   `LibraryError` from the store.
    public func setOriginalsRoot(_ path: String) throws -> (present: Int, recorded: Int) {
        guard backend.sharesCatalog else {
            throw OriginalsRootChoiceError(
                message:
                    "library \(root) keeps its catalog in \(backend.name) and its originals in \(root)/\(Library.externalDataName); only a catalog shared by several library folders (photos init --database) records an originals root",
                isOtherCatalog: false)
        }
        guard path.hasPrefix("/") else {
            throw OriginalsRootChoiceError(message: "\(path): give an absolute path", isOtherCatalog: false)
        }
        let id = originals.catalogID ?? UUID().uuidString.lowercased()
        if case .catalog(let found) = OriginalsMarker.read(root: path), found != id {
            throw OriginalsRootChoiceError(
                message:
                    "\(path) holds the originals of another catalog (marker \(OriginalsMarker.path(root: path)): catalog \(found)); nothing was changed",
                isOtherCatalog: true)
        }
        if let problem = Library.rootProblem(path, catalogID: nil, writing: true) {
            throw OriginalsRootError(library: root, root: path, catalogID: id, problem: problem)
        }
        do {
            try OriginalsMarker.write(catalogID: id, root: path)
        } catch {
            throw OriginalsRootError(
                library: root, root: path, catalogID: id, problem: .notWritable(reason: error.localizedDescription))
        }
        let record = OriginalsRootRecord(
            root: path, catalogID: id, recordedAt: ISODate.string(from: Date()),
            unknownFolders: originals.unknownFolders)
        try write { try store.recordOriginalsRoot(record) }
        var present = 0
        var recorded = 0
        let target = ExternalDataStore(root: path)
        do {
            try verifyStore.forEachRecordedOriginal { original in
                recorded += 1
                if access(target.path(for: original.fileReference), F_OK) == 0 { present += 1 }
            }
        } catch {
            throw LibraryError.wrap(error, library: root)
        }
        return (present, recorded)
    }
}
