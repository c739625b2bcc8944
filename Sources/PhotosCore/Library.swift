import Foundation
import PhotosStorage

/// A photo library on disk: a folder holding the SQLite database and the external data
/// folder of originals (SPEC §2).
///
/// Layout: `ROOT/photos.sqlite` (+ `-wal`, `-shm`) and `ROOT/ExternalData/ab/abcdef…`, each
/// original named by its SHA-256 and sharded by the first two hex digits.
public final class Library {
    /// The library folder.
    public let root: String
    /// The database connection (one per `Library`; use from one thread at a time).
    public let db: Database
    /// The originals, named by SHA-256.
    public let externalData: ExternalDataStore
    /// Seconds a writer waits for another process's lock before giving up with exit 75.
    public let busyTimeout: Double

    /// File name of the database inside the library folder.
    public static let databaseName = "photos.sqlite"
    /// Folder name of the external data inside the library folder.
    public static let externalDataName = "ExternalData"

    /// Path of the database file.
    public var databasePath: String { root + "/" + Library.databaseName }

    /// Resolves the library folder: `--library PATH`, then `$PHOTOS_LIBRARY`, then
    /// `$XDG_DATA_HOME/photos/Library`, then `~/.local/share/photos/Library` (SPEC §2; XDG Base
    /// Directory Specification 0.8 for the default of `XDG_DATA_HOME`).
    public static func resolvePath(explicit: String?, environment: [String: String]) -> String {
        if let explicit, !explicit.isEmpty { return absolute(explicit) }
        if let env = environment["PHOTOS_LIBRARY"], !env.isEmpty { return absolute(env) }
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") { return xdg + "/photos/Library" }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return home + "/.local/share/photos/Library"
    }

    static func absolute(_ path: String) -> String {
        var p = path
        if p.hasPrefix("~/"), let home = ProcessInfo.processInfo.environment["HOME"] { p = home + p.dropFirst(1) }
        if !p.hasPrefix("/") { p = FileManager.default.currentDirectoryPath + "/" + p }
        p = (p as NSString).standardizingPath  // collapses `.`, `..` and repeated slashes
        while p.count > 1 && p.hasSuffix("/") { p.removeLast() }
        return p
    }

    /// True when `root` holds a library database.
    public static func exists(at root: String) -> Bool {
        FileManager.default.fileExists(atPath: root + "/" + databaseName)
    }

    /// Opens the library at `root`, migrating it to the current schema.
    /// - Parameters:
    ///   - root: the library folder.
    ///   - create: create the folder and database when absent (otherwise a missing library is
    ///     an error 66).
    ///   - busyTimeout: seconds to wait for another process's lock.
    ///   - readOnly: open the database read-only and skip migrations (for workers' lookups).
    /// - Throws: `PhotosError` 66 when the library does not exist and `create` is false, 73
    ///   when it cannot be created, 65 when it is newer than this build, 75 when busy.
    public init(root: String, create: Bool, busyTimeout: Double = 30, readOnly: Bool = false) throws {
        self.root = root
        self.busyTimeout = busyTimeout
        let fm = FileManager.default
        let dbPath = root + "/" + Library.databaseName
        if !fm.fileExists(atPath: dbPath) {
            guard create else {
                throw PhotosError.noInput("no library at \(root) (create one with 'photos init' or 'photos import')")
            }
            try Library.makeFolders(root + "/" + Library.externalDataName, library: root)
        }
        do {
            db = try Database(path: dbPath, readOnly: readOnly, busyTimeout: busyTimeout)
            if !readOnly { try db.migrate() }
            else if try db.userVersion > Schema.currentVersion {
                throw MigrationError.newerLibrary(found: try db.userVersion, supported: Schema.currentVersion)
            }
        } catch {
            throw PhotosError.wrap(error, libraryPath: root)
        }
        if !readOnly, !fm.fileExists(atPath: root + "/" + Library.externalDataName) {
            try? fm.createDirectory(atPath: root + "/" + Library.externalDataName, withIntermediateDirectories: true)
        }
        externalData = ExternalDataStore(root: root + "/" + Library.externalDataName)
    }

    /// File in the library folder whose flock(2) keeps `verify --repair` from removing the
    /// originals a running import has written but not yet committed (they look like orphans).
    public static let importLockName = "import.lock"

    /// Locks the import lock file: shared for an import (imports run side by side), exclusive
    /// and without waiting for removing orphans. The kernel drops the lock when the process
    /// dies, so a `kill -9` never leaves it held.
    /// - Returns: the descriptor (close it to release), or nil when `exclusive` and an import
    ///   holds the lock, or when the file cannot be opened.
    public func lockImports(exclusive: Bool) -> Int32? {
        let fd = open(root + "/" + Library.importLockName, O_RDWR | O_CREAT | O_CLOEXEC, 0o666)
        guard fd >= 0 else { return nil }
        while flock(fd, exclusive ? LOCK_EX | LOCK_NB : LOCK_SH) != 0 {
            if errno == EINTR { continue }
            close(fd)
            return nil
        }
        return fd
    }

    /// `mkdir -p path` with the system's reason on failure (Foundation's messages say neither
    /// which component failed nor why, e.g. "NSCocoaErrorDomain error 512" for a file in the way).
    /// - Throws: `PhotosError` 73 naming the library and the folder that cannot be created.
    static func makeFolders(_ path: String, library: String) throws {
        var prefix = ""
        for component in path.split(separator: "/", omittingEmptySubsequences: true) {
            prefix += "/" + component
            var st = stat()
            if stat(prefix, &st) == 0 {
                guard st.st_mode & S_IFMT == S_IFDIR else {
                    throw PhotosError(.cantCreate, "cannot create library folder \(library): \(prefix) exists and is not a folder")
                }
                continue
            }
            if mkdir(prefix, 0o777) != 0 && errno != EEXIST {
                throw PhotosError(.cantCreate, "cannot create library folder \(library): \(prefix): \(String(cString: strerror(errno)))")
            }
        }
    }

    /// Runs `body` in one IMMEDIATE transaction, mapping a lock timeout to `PhotosError` 75.
    /// - Throws: `PhotosError`, or what `body` throws (after rolling back).
    public func write<T>(_ body: () throws -> T) throws -> T {
        do {
            return try db.transaction(.immediate, body)
        } catch let e as SQLiteError {
            throw PhotosError.wrap(e, libraryPath: root)
        }
    }
}
