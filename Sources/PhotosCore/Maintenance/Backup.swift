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
    /// Originals copied into DEST that were not there (each an independent file: a reflink
    /// where the file system can, else a copy; never a hard link).
    public var copied = 0
    /// Originals DEST held with other bytes (damaged there, or of another size), replaced by a
    /// copy of the library's intact original.
    public var replaced = 0
    /// Originals already in DEST with the right size and SHA-256, kept.
    public var kept = 0
    /// Originals removed from DEST (no longer referenced by the new catalog copy).
    public var removed = 0
    /// Originals the copy references that were gone when they were to be backed up (deleted
    /// meanwhile): the backup then fails verify for them.
    public var missing: [String] = []
    /// Originals whose bytes in the library do not have their SHA-256 (damaged in place): not
    /// copied, so that a good copy in DEST stays (repair the library with `verify`/`import`).
    public var damaged: [String] = []

    /// `{"destination","catalogBytes","originals","copied","replaced","kept","removed","missing":[…],"damaged":[…]}`.
    public var json: JSONValue {
        .object([
            ("destination", .string(destination)), ("catalogBytes", .int(Int(catalogBytes))),
            ("originals", .bool(originals)), ("copied", .int(copied)), ("replaced", .int(replaced)),
            ("kept", .int(kept)), ("removed", .int(removed)), ("missing", .array(missing.map(JSONValue.string))),
            ("damaged", .array(damaged.map(JSONValue.string)))
        ])
    }
}

extension Library {
    /// Where the catalog copy is taken and restored.
    var catalogBackupStore: any CatalogBackupStore { store }

    /// Backs the library up into the folder `destination` (created when absent), which is then
    /// a library of its own: `verify --library DEST` checks it and `restore` makes a library of
    /// it. The catalog is copied first as one consistent snapshot while other commands go on
    /// (`CatalogBackupStore`) into a hidden staging folder in DEST. With `originals`, every
    /// original that copy references is then put in `DEST/ExternalData` as an independent copy
    /// (`AtomicFile.copy`: a reflink where the file system can, else copy_file_range(2) or
    /// read/write; fsync; never a hard link, so that damage to a live original in place never
    /// reaches the backup). An original already there is kept when its size and SHA-256 are
    /// right, and replaced otherwise (damaged in DEST); one whose bytes in the library do not
    /// have their SHA-256 is not copied (`BackupReport.damaged`), so a good copy stays. Only
    /// then does the new catalog replace the old one (one rename: catalog last), and the files
    /// the new catalog no longer references are removed, so a nightly backup into the same DEST
    /// stays a mirror. A backup that fails or is stopped (`StopSignal`, checked after each
    /// original) leaves DEST's previous backup whole: its catalog, and its originals (those this
    /// run added are removed again).
    /// - Parameter progress: called after each original with (done, all).
    /// - Throws: `BackupError.destinationInsideLibrary` when DEST is inside the library,
    ///   `.notABackupFolder` when DEST holds a catalog or originals an earlier backup did not
    ///   write (`claimBackupFolder`), `.cannotRenameOriginal` when the new catalog cannot be put
    ///   in place, `FileError` when an original cannot be read or copied (74 for a full disk),
    ///   `LibraryError.cannotCreate` when a folder of DEST cannot be created, `LibraryError`
    ///   (`.busy` when another process holds the lock) from the store, `StopRequested` when a
    ///   stop signal arrived.
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
        let staging = try Library.backupStagingFolder(in: dest)
        defer { try? FileManager.default.removeItem(atPath: staging) }
        let stagedCatalog = Library.catalogFile(at: staging, backend: backend)
        do {
            report.catalogBytes = try catalogBackupStore.backupCatalog(to: stagedCatalog)
        } catch {
            throw LibraryError.wrap(error, library: root)
        }
        try StopSignal.check()
        let target = ExternalDataStore(root: dest + "/" + Library.externalDataName)
        // Originals this run put where DEST had none: removed again when the backup fails, so
        // that the previous backup is left as it was (no orphans).
        var added: [String] = []
        var references: [String: (sha256: String, byteSize: Int)] = [:]
        do {
            if originals {
                do {
                    let copy = try Library(
                        root: staging, backend: backend, exportStates: exportStates, create: false,
                        busyTimeout: busyTimeout, readOnly: true)
                    // Every original of every photo (issue 24 item 2: a RAW beside its JPEG too).
                    for file in try copy.store.readTransaction({ try copy.syncStore.originalFiles() }) {
                        references[file.reference] = (file.sha256, file.byteSize)
                    }
                }
                try Library.makeFolders(target.root, library: dest)
                var done = 0
                for (reference, expected) in references.sorted(by: { $0.key < $1.key }) {
                    defer {
                        done += 1
                        progress?(done, references.count)
                    }
                    try StopSignal.check()
                    guard ExternalDataStore.isContained(reference) else { continue }
                    try backUpOriginal(
                        reference, expected: expected, into: target, dest: dest, report: &report, added: &added)
                }
            }
            try StopSignal.check()
            // Catalog last: the new copy replaces the old one only now that its originals are in
            // DEST. A copy left by an older backup with its own -wal would be read instead of
            // the new file: the companions go first.
            let catalog = Library.catalogFile(at: dest, backend: backend)
            for companion in backend.catalogFiles(at: dest).dropFirst() { unlink(companion) }
            guard rename(stagedCatalog, catalog) == 0 else {
                throw BackupError.cannotRenameOriginal(source: stagedCatalog, destination: catalog, errno: errno)
            }
            Library.syncFolder(dest)
        } catch {
            for reference in added { unlink(target.path(for: reference)) }
            throw error
        }
        guard originals else { return report }
        for reference in target.allReferences() where references[reference] == nil {
            if unlink(target.path(for: reference)) == 0 { report.removed += 1 }
        }
        return report
    }

    /// Puts the original `reference` (of SHA-256 and size `expected`) into the backup's
    /// `target`: kept when there as a file of its own (link count 1, not the library's inode)
    /// with that size and SHA-256, else copied from the library
    /// (`AtomicFile.copy`) once its bytes there are checked to have that SHA-256.
    /// - Throws: `FileError` when a file cannot be read or the copy cannot be written,
    ///   `LibraryError.cannotCreate` when its shard folder cannot be made.
    private func backUpOriginal(
        _ reference: String, expected: (sha256: String, byteSize: Int), into target: ExternalDataStore, dest: String,
        report: inout BackupReport, added: inout [String]
    ) throws {
        let source = externalData.path(for: reference), destinationPath = target.path(for: reference)
        var have = stat(), want = stat()
        guard stat(source, &want) == 0 else {
            report.missing.append(reference)
            return
        }
        let there = lstat(destinationPath, &have) == 0
        // A file of its own: a hard link an earlier version made (the library's inode, or a
        // link count above 1: shared with a restored library) shares the original's fate and
        // is replaced by a copy.
        let independent =
            have.st_nlink == 1 && !(have.st_dev == want.st_dev && have.st_ino == want.st_ino)
        if there && independent && have.st_mode & S_IFMT == S_IFREG && Int(have.st_size) == expected.byteSize,
            (try? SHA256Hasher.hex(ofFileAt: destinationPath).hex) == expected.sha256
        {
            report.kept += 1
            return
        }
        // The library's own copy must be intact: a damaged original never replaces a backup.
        let (sha, count) = try SHA256Hasher.hex(ofFileAt: source)
        guard sha == expected.sha256 && count == expected.byteSize else {
            report.damaged.append(reference)
            return
        }
        try Library.makeFolders(PathName.parent(destinationPath), library: dest)
        try AtomicFile.copy(from: source, to: destinationPath, temporaryPrefix: ExternalDataStore.temporaryPrefix)
        if there {
            report.replaced += 1
        } else {
            report.copied += 1
            added.append(reference)
        }
    }

    /// A new hidden folder in the backup folder `dest` (`.photos-backup-staging-PID`) that
    /// `backup` writes the new catalog copy into before renaming it over DEST's catalog, so that
    /// a backup that fails or is killed never leaves DEST with a catalog whose originals are
    /// not there. Such folders left by backups whose process is gone (kill(2) gives ESRCH) are
    /// removed.
    /// - Throws: `LibraryError.cannotCreate` when the folder cannot be made.
    static func backupStagingFolder(in dest: String) throws -> String {
        let prefix = ".photos-backup-staging-"
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: dest)) ?? [] where entry.hasPrefix(prefix) {
            guard let pid = Int32(entry.dropFirst(prefix.count)), kill(pid, 0) != 0, errno == ESRCH else { continue }
            try? FileManager.default.removeItem(atPath: dest + "/" + entry)
        }
        let staging = dest + "/" + prefix + String(getpid())
        try? FileManager.default.removeItem(atPath: staging)
        try makeFolders(staging, library: dest)
        return staging
    }

    /// fsync(2) of the folder `path` (its entries: a rename into it), errors ignored.
    static func syncFolder(_ path: String) {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if fd >= 0 {
            fsync(fd)
            close(fd)
        }
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
    /// and the originals under `backup/ExternalData` are copied into the new library as
    /// independent files (`AtomicFile.copy`: a reflink or a copy, never a hard link, so that the
    /// backup and the library never share the fate of a file). The new library gets a library
    /// id of its own (a restored copy is another library, which can sync with the original),
    /// unless `sameIdentity` (the real restore of a lost library, which its peers know by its
    /// id).
    /// The library is built in a hidden folder beside `root` and renamed into place at the end
    /// (`stagingFolder`): a restore killed or stopped midway leaves nothing at `root`.
    /// - Returns: the new library.
    /// - Throws: `BackupError.noBackup` when `backup` holds no catalog, `.libraryExists` when a
    ///   library already exists at `root` (restore never overwrites one), `.folderNotEmpty` when
    ///   `root` is a folder that is not empty, `.cannotPlaceLibrary` when the finished library cannot
    ///   be renamed into place,
    ///   `FileError` when an original cannot be copied, `LibraryError` when the copy is not a
    ///   library this build can read or `root` cannot be created, `StopRequested` when a stop
    ///   signal arrived.
    public static func restore(
        from backup: String, to root: String, backend: any CatalogBackend, exportStates: any ExportStateBackend,
        busyTimeout: Double = 30, sameIdentity: Bool = false
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
            if !sameIdentity {
                // Opened again, migrated to this build's schema (the sync state exists from
                // version 6), and given an id of its own.
                let restored = try Library(
                    root: staging, backend: backend, exportStates: exportStates, create: false,
                    busyTimeout: busyTimeout)
                try restored.renewLibraryID()
            }
            try StopSignal.check()
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
    /// the file `catalog`, with the originals of `source` copied (`AtomicFile.copy`). The
    /// library is closed when this returns, so `staging` can be renamed.
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
            try StopSignal.check()
            let from = source.path(for: reference), to = fresh.externalData.path(for: reference)
            try makeFolders(PathName.parent(to), library: staging)
            try AtomicFile.copy(from: from, to: to, temporaryPrefix: ExternalDataStore.temporaryPrefix)
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
}
