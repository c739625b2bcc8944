import Foundation
import PhotosFiles
import PhotosModel

/// What `photos backup` wrote.
public struct BackupReport: Sendable {
    /// The backup folder: a library of its own (`photos.sqlite`, `ExternalData/`).
    public var destination = ""
    /// Bytes of the catalog copy.
    public var catalogBytes: Int64 = 0
    /// True when the originals were backed up too (`--originals`).
    public var originals = false
    /// Originals hard-linked (DEST on the library's file system), copied (elsewhere), already
    /// there from an earlier backup, and removed from DEST (no longer referenced).
    public var linked = 0
    public var copied = 0
    public var kept = 0
    public var removed = 0
    /// Originals the copy references that were gone when they were to be backed up (deleted
    /// meanwhile): the backup then fails verify for them.
    public var missing: [String] = []

    /// `{"destination","catalogBytes","originals","linked","copied","kept","removed","missing":[…]}`.
    public var json: JSONValue {
        .object([
            ("destination", .string(destination)), ("catalogBytes", .int(Int(catalogBytes))),
            ("originals", .bool(originals)), ("linked", .int(linked)), ("copied", .int(copied)),
            ("kept", .int(kept)), ("removed", .int(removed)), ("missing", .array(missing.map(JSONValue.string)))
        ])
    }
}

extension Library {
    /// Where the catalog copy is taken and restored.
    var catalogBackupStore: any CatalogBackupStore { store }

    /// Backs the library up into the folder `destination` (created when absent), which is then
    /// a library of its own: `verify --library DEST` checks it and `restore` makes a library of
    /// it. The catalog is copied first as one consistent snapshot while other commands go on
    /// (`CatalogBackupStore`), replacing the previous copy in one rename. With `originals`,
    /// every original that copy references is then hard-linked into `DEST/ExternalData` (same
    /// file system: no space used; originals are never modified in place) or copied (another
    /// file system: written beside, then renamed), skipping those already there from an
    /// earlier backup (content-addressed: same name, same bytes), and files there that the copy
    /// no longer references are removed, so a nightly backup into the same DEST stays a mirror.
    /// - Parameter progress: called after each original with (done, all).
    /// - Throws: `BackupError.destinationInsideLibrary` when DEST is inside the library,
    ///   `.notABackupFolder` when DEST holds a catalog or originals an earlier backup did not
    ///   write (`claimBackupFolder`),
    ///   `.cannotLinkOriginal`/`.cannotRenameOriginal` and the copy's `BackupError`s when an
    ///   original cannot be put in DEST, `LibraryError.cannotCreate` when a folder of DEST cannot
    ///   be created, `LibraryError` (`.busy` when another process holds the lock) from the store.
    public func backup(to destination: String, originals: Bool, progress: ((Int, Int) -> Void)? = nil) throws
        -> BackupReport
    {
        let dest = (destination as NSString).standardizingPath
        guard dest != root && !dest.hasPrefix(root + "/") else {
            throw BackupError.destinationInsideLibrary(destination: dest, library: root)
        }
        // A catalog the store does not back up (PostgreSQL: pg_dump's) is refused before DEST
        // is made.
        do {
            try catalogBackupStore.refuseCatalogBackupIfUnsupported()
        } catch {
            throw LibraryError.wrap(error, library: root)
        }
        try Library.claimBackupFolder(dest, of: root, backend: backend)
        var report = BackupReport()
        report.destination = dest
        report.originals = originals
        do {
            report.catalogBytes = try catalogBackupStore.backupCatalog(
                to: Library.catalogFile(at: dest, backend: backend))
        } catch {
            throw LibraryError.wrap(error, library: root)
        }
        // A copy left by an older backup with its own -wal would be read instead of the new file.
        for companion in backend.catalogFiles(at: dest).dropFirst() { unlink(companion) }
        guard originals else { return report }

        let copy = try Library(
            root: dest, backend: backend, exportStates: exportStates, create: false, busyTimeout: busyTimeout,
            readOnly: true)
        var references = Set<String>()
        try copy.forEachPhoto(matching: PhotoFilter()) { references.insert($0.fileReference) }
        let target = ExternalDataStore(root: dest + "/" + Library.externalDataName)
        try Library.makeFolders(target.root, library: dest)
        var done = 0
        for reference in references.sorted() {
            defer {
                done += 1
                progress?(done, references.count)
            }
            guard ExternalDataStore.isContained(reference) else { continue }
            let source = externalData.path(for: reference), destinationPath = target.path(for: reference)
            var have = stat(), want = stat()
            guard stat(source, &want) == 0 else {
                report.missing.append(reference)
                continue
            }
            if stat(destinationPath, &have) == 0 && have.st_size == want.st_size {
                report.kept += 1
                continue
            }
            try Library.makeFolders(PathName.parent(destinationPath), library: dest)
            let temporary =
                PathName.parent(destinationPath) + "/" + ExternalDataStore.temporaryPrefix
                + PathName.lastComponent(destinationPath)
            unlink(temporary)
            if link(source, temporary) == 0 {
                report.linked += 1
            } else if errno == EXDEV || errno == EPERM || errno == EMLINK {
                try Library.copyFile(source, to: temporary)
                report.copied += 1
            } else {
                throw BackupError.cannotLinkOriginal(source: source, destination: temporary, errno: errno)
            }
            guard rename(temporary, destinationPath) == 0 else {
                let code = errno
                unlink(temporary)
                throw BackupError.cannotRenameOriginal(source: source, destination: destinationPath, errno: code)
            }
        }
        for reference in target.allReferences() where !references.contains(reference) {
            if unlink(target.path(for: reference)) == 0 { report.removed += 1 }
        }
        return report
    }

    /// The file in a backup folder that says `photos backup` wrote it (its text: the backed-up
    /// library's path and a newline). Only a folder holding it has its catalog replaced and its
    /// `ExternalData` mirrored; `restore` does not copy it, so a restored library is never one.
    public static let backupMarkerName = ".photos-backup"

    /// Makes `dest` (created when absent) ready to receive a backup of the library at `root`:
    /// a folder with a catalog or an `ExternalData` folder but no `backupMarkerName` file is a
    /// library (or something else) `backup` did not write, and is refused before anything is
    /// written, since a backup replaces the catalog there and removes originals it does not
    /// reference. Otherwise the marker is written.
    /// - Throws: `BackupError.notABackupFolder` when `dest` holds a catalog or originals `backup`
    ///   did not write, `.cannotCreateMarker` when the marker cannot be written,
    ///   `LibraryError.cannotCreate` when `dest` cannot be created.
    static func claimBackupFolder(_ dest: String, of root: String, backend: any CatalogBackend) throws {
        let files = FileManager.default
        let marker = dest + "/" + backupMarkerName
        if !files.fileExists(atPath: marker) {
            let catalog = catalogFile(at: dest, backend: backend), data = dest + "/" + externalDataName
            for existing in [catalog, data] where files.fileExists(atPath: existing) {
                throw BackupError.notABackupFolder(destination: dest, existing: existing)
            }
        }
        try makeFolders(dest, library: dest)
        do {
            try Data((root + "\n").utf8).write(to: URL(fileURLWithPath: marker), options: .atomic)
        } catch {
            throw BackupError.cannotCreateMarker(path: marker, reason: error.localizedDescription)
        }
    }

    /// Makes a new library at `root` from the backup folder `backup` (one `backup` wrote):
    /// the catalog is restored through `CatalogBackupStore` and migrated to this build's schema,
    /// and the originals under `backup/ExternalData` are hard-linked (same file system) or
    /// copied into the new library.
    /// The library is built in a hidden folder beside `root` and renamed into place at the end
    /// (`stagingFolder`): a restore killed midway leaves nothing at `root`.
    /// - Returns: the new library.
    /// - Throws: `BackupError.noBackup` when `backup` holds no catalog, `.libraryExists` when a
    ///   library already exists at `root` (restore never overwrites one), `.folderNotEmpty` when
    ///   `root` is a folder that is not empty, `.cannotPlaceLibrary` when the finished library cannot
    ///   be renamed into place,
    ///   `.cannotRestoreOriginal` and the copy's `BackupError`s when an original cannot be put in
    ///   place, `LibraryError` when the copy is not a library this build can read or `root`
    ///   cannot be created.
    public static func restore(
        from backup: String, to root: String, backend: any CatalogBackend, exportStates: any ExportStateBackend,
        busyTimeout: Double = 30
    ) throws -> Library {
        let catalog = catalogFile(at: backup, backend: backend)
        guard FileManager.default.fileExists(atPath: catalog) else {
            throw BackupError.noBackup(backup: backup, catalog: catalog)
        }
        guard !exists(at: root, backend: backend) else {
            throw BackupError.libraryExists(library: root)
        }
        if let entries = try? FileManager.default.contentsOfDirectory(atPath: root), !entries.isEmpty {
            throw BackupError.folderNotEmpty(library: root)
        }
        // Checked before anything is created: the copy must be a library this build can read.
        _ = try Library(
            root: backup, backend: backend, exportStates: exportStates, create: false, busyTimeout: busyTimeout,
            readOnly: true, acceptingOlderSchema: true)
        let staging = try stagingFolder(for: root)
        do {
            try restore(
                catalog, ExternalDataStore(root: backup + "/" + externalDataName), into: staging, backend, exportStates,
                busyTimeout)
            // An empty folder at root is replaced by the staged library in the same rename.
            guard rename(staging, root) == 0 else {
                throw BackupError.cannotPlaceLibrary(library: root, errno: errno)
            }
        } catch {
            try? FileManager.default.removeItem(atPath: staging)
            throw error
        }
        // Opened again: the restored catalog is migrated to this build's schema.
        return try Library(
            root: root, backend: backend, exportStates: exportStates, create: false, busyTimeout: busyTimeout)
    }

    /// Writes the restored library into `staging`: a new library whose catalog is restored from
    /// the file `catalog`, with the originals of `source` hard-linked (same file system) or
    /// copied. The library is closed when this returns, so `staging` can be renamed.
    private static func restore(
        _ catalog: String, _ source: ExternalDataStore, into staging: String, _ backend: any CatalogBackend,
        _ exportStates: any ExportStateBackend, _ busyTimeout: Double
    ) throws {
        let fresh = try Library(
            root: staging, backend: backend, exportStates: exportStates, create: true, busyTimeout: busyTimeout)
        do {
            try fresh.catalogBackupStore.restoreCatalog(from: catalog)
        } catch {
            throw LibraryError.wrap(error, library: staging)
        }
        for reference in source.allReferences() {
            let from = source.path(for: reference), to = fresh.externalData.path(for: reference)
            try makeFolders(PathName.parent(to), library: staging)
            if link(from, to) != 0 {
                guard errno == EXDEV || errno == EPERM || errno == EMLINK else {
                    throw BackupError.cannotRestoreOriginal(source: from, destination: to, errno: errno)
                }
                try copyFile(from, to: to)
            }
        }
    }

    /// A new hidden folder beside `root` (`.NAME.restoring-PID`) that `restore` builds the
    /// library in before renaming it to `root`, so a restore killed midway (kill -9, power
    /// loss) leaves no half-restored library at `root` that a second restore would refuse.
    /// Such folders left by restores whose process is gone (kill(2) gives ESRCH) are removed.
    /// - Throws: `LibraryError.cannotCreate` when the parent folder cannot be created.
    private static func stagingFolder(for root: String) throws -> String {
        let standardized = (root as NSString).standardizingPath
        let parent = PathName.parent(standardized)
        let prefix = "." + PathName.lastComponent(standardized) + ".restoring-"
        try makeFolders(parent, library: root)
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: parent)) ?? [] where entry.hasPrefix(prefix)
        {
            guard let pid = Int32(entry.dropFirst(prefix.count)), kill(pid, 0) != 0, errno == ESRCH else { continue }
            try? FileManager.default.removeItem(atPath: parent + "/" + entry)
        }
        let staging = parent + "/" + prefix + String(getpid())
        try? FileManager.default.removeItem(atPath: staging)
        return staging
    }

    /// The file that holds the catalog of the library folder `root` (the first of the
    /// backend's `catalogFiles`: SQLite's `ROOT/photos.sqlite`).
    static func catalogFile(at root: String, backend: any CatalogBackend) -> String {
        backend.catalogFiles(at: root).first ?? root + "/catalog"
    }

    /// Copies the file `source` to the new file `destination`, flushed.
    /// - Throws: `BackupError.cannotOpenSource` when `source` cannot be opened,
    ///   `.cannotCreateCopy` when `destination` cannot be created, `.copyReadFailed` or
    ///   `.copyWriteFailed` when a read, write or fsync(2) fails part-way (the copy is removed).
    static func copyFile(_ source: String, to destination: String) throws {
        let input = open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else {
            throw BackupError.cannotOpenSource(path: source, errno: errno)
        }
        defer { close(input) }
        let output = open(destination, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard output >= 0 else {
            throw BackupError.cannotCreateCopy(path: destination, errno: errno)
        }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var failure: BackupError?
        while failure == nil {
            let n = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
            if n == 0 { break }
            if n < 0 {
                if errno == EINTR { continue }
                failure = .copyReadFailed(path: source, errno: errno)
                break
            }
            var offset = 0
            while offset < n {
                let w = buffer.withUnsafeBytes { bytes in
                    bytes.baseAddress.map { Glibc.write(output, $0 + offset, n - offset) } ?? -1
                }
                if w < 0 {
                    if errno == EINTR { continue }
                    failure = .copyWriteFailed(path: destination, errno: errno)
                    break
                }
                offset += w
            }
        }
        if failure == nil && fsync(output) != 0 {
            failure = .copyWriteFailed(path: destination, errno: errno)
        }
        close(output)
        if let failure {
            unlink(destination)
            throw failure
        }
    }
}
