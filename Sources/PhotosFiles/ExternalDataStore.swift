import Foundation
import Synchronization

/// The folder of original image files, each named by the SHA-256 of its bytes and sharded by
/// the first two hex digits (`ab/abcdef…`), written temp file + fsync + rename so that a file
/// under its final name is always whole (SPEC §2).
public struct ExternalDataStore: Sendable {
    /// The external data folder.
    public let root: String

    /// Prefix of temporary files; a leftover one (after a crash) is an orphan.
    public static let temporaryPrefix = ".tmp-"

    /// True for the store of a dry run: `write` and `remove` change nothing.
    public let isDryRun: Bool

    /// Shard folders this process has made sure of (see `write`), shared by copies of this store.
    private let knownFolders = KnownFolders()

    public init(root: String, dryRun: Bool = false) {
        self.root = root
        self.isDryRun = dryRun
    }

    /// This store, writing and removing nothing (for a dry run).
    public var forDryRun: ExternalDataStore { ExternalDataStore(root: root, dryRun: true) }

    /// The reference stored in PhotoData for `sha256`: `ab/abcdef…`.
    public static func reference(for sha256: String) -> String {
        String(sha256.prefix(2)) + "/" + sha256
    }

    /// True when `reference` names a file inside the store: one or two path components
    /// (`ab/abcdef…`, or a top-level entry such as a leftover file), none of them empty, `.` or
    /// `..`, and no NUL byte. References come from database rows (PhotoData `file_ref`, and
    /// `sha256`, which the schema only checks for length) that a damaged or hostile library can
    /// hold anything in, e.g. `../../etc/passwd` or an absolute path.
    public static func isContained(_ reference: String) -> Bool {
        // One pass over the bytes, no allocation (verify calls this for every row).
        var parts = 1
        var length = 0
        var dots = 0
        for byte in reference.utf8 {
            if byte == 0 { return false }
            if byte == UInt8(ascii: "/") {
                // The part before: not empty, not "." or "..".
                guard length > 0, !(dots == length && length <= 2) else { return false }
                parts += 1
                guard parts <= 2 else { return false }
                (length, dots) = (0, 0)
            } else {
                length += 1
                if byte == UInt8(ascii: ".") { dots += 1 }
            }
        }
        return length > 0 && !(dots == length && length <= 2)
    }

    /// Name (inside the store, never written) that `path(for:)` gives a reference that is not
    /// contained in the store: no file is there, so reading it finds it missing.
    public static let uncontainedName = ".invalid-file-reference"

    /// Absolute path of a stored reference. A reference that would lead out of the store
    /// (`isContained` is false: `..`, an absolute path, more components) gets the path of
    /// `uncontainedName` inside the store instead, which holds no file: no command reads,
    /// writes or removes a file outside the library because of a row's contents.
    public func path(for reference: String) -> String {
        guard ExternalDataStore.isContained(reference) else { return root + "/" + ExternalDataStore.uncontainedName }
        return root + "/" + reference
    }

    /// Writes `bytes` under `reference` durably: a temporary file in the same folder, `fsync`,
    /// `rename`, then `fsync` of the folder (POSIX rename(2) atomicity).
    /// With `durability: .deferred` neither fsync is done: the file is whole under its name once
    /// renamed, but survives a crash only after `syncFileSystem()` (import does that once per
    /// batch, before the batch's rows commit).
    /// - Returns: true when the file was written; false in a dry run, which writes nothing.
    /// - Throws: `FileError`: `.invalidName` for a reference outside the store; `.notPermitted`
    ///   (EACCES, EPERM, EROFS, also checked in a dry run) or `.io` (ENOSPC, EDQUOT, EIO) when
    ///   the file system refuses; `.cannotCreate` otherwise (a file or non-empty folder in the way).
    @discardableResult
    public func write(_ bytes: UnsafeRawBufferPointer, reference: String, durability: Durability = .immediate) throws
        -> Bool
    {
        try writeOriginal(bytes, reference: reference, durability: durability) != nil
    }

    /// Copies the regular file at `source` into the store under `reference`, streamed in 1 MiB
    /// reads hashed as they go (memory one chunk, whatever the file's size: issue 31 item 20),
    /// placed as `write` places bytes only when its SHA-256 is `expectedSHA256`. A file larger
    /// than `maxBytes`, or sparse (`ImageFile.sizeProblem`), is refused before a byte is read.
    /// - Parameters:
    ///   - source: the file to copy (another library's original, a changeset's).
    ///   - reference: where it goes (`reference(for:)` of its SHA-256).
    ///   - expectedSHA256: the SHA-256 its bytes must have.
    ///   - maxBytes: the largest file accepted.
    ///   - durability: as for `write`.
    /// - Returns: the bytes copied and the file written (`writeOriginal`), nil in a dry run
    ///   (which copies nothing, but reads and hashes the file as the real run would, so that
    ///   its outcome is the real run's).
    /// - Throws: `FileError` naming `source`: what `ImageFile.openRegularFile` throws,
    ///   `.unacceptable` (65) when its bytes do not have `expectedSHA256` or it is too large or
    ///   sparse, 74 on a read error; a write failure names the source and the destination
    ///   ("cannot copy SOURCE to DEST: No space left on device", the kind `write` gives it).
    @discardableResult
    public func copy(
        fromFileAt source: String, reference: String, expectedSHA256: String, maxBytes: Int,
        durability: Durability = .immediate
    ) throws -> (bytes: Int, written: WrittenOriginal)? {
        let (fd, st) = try ImageFile.openRegularFile(path: source)
        defer { close(fd) }
        if let problem = ImageFile.sizeProblem(fd: fd, status: st, maxBytes: maxBytes) {
            throw FileError(.unacceptable, path: source, reason: problem)
        }
        if isDryRun {
            let digest = try SHA256Hasher.hex(ofFileAt: source)
            guard digest.hex == expectedSHA256 else {
                throw FileError(
                    .unacceptable, path: source, reason: "its bytes do not have the SHA-256 \(expectedSHA256)")
            }
        }
        var copied = 0
        do {
            let wrote = try put(reference: reference, durability: durability) { sink in
                copied = try sink.copyHashing(from: fd, source: source, expectedSHA256: expectedSHA256)
            }
            return wrote.map { (copied, $0) }
        } catch let error as FileError where error.kind != .unacceptable && !error.message.hasPrefix(source + ":") {
            let reason = error.errno.map { String(cString: strerror($0)) } ?? error.reason
            throw FileError(
                error.kind, "cannot copy \(source) to \(path(for: reference)): \(reason)", errno: error.errno)
        }
    }

    /// An original as `writeOriginal` put it in place: whether this write created it (no file
    /// was at its name before: `AtomicFile.write(reportingCreation:)`), and its file's identity.
    public struct WrittenOriginal: Sendable, Equatable {
        /// True when no file was at the name before this write.
        public var created: Bool
        /// st_dev and st_ino of the file written.
        public var device: UInt64
        public var inode: UInt64

        /// True when the file at `path` is still the one written (not replaced by another
        /// writer's rename, not removed).
        public func isStill(at path: String) -> Bool {
            var st = stat()
            return lstat(path, &st) == 0 && UInt64(st.st_dev) == device && UInt64(st.st_ino) == inode
        }
    }

    /// `write`, telling whether the write created the file and which file it is, so that a
    /// writer whose rows do not commit removes only a file it created and that no other writer
    /// has replaced since (`Library.removeUncommittedFiles`, issue 31 item 16).
    /// - Returns: the file written; nil in a dry run, which writes nothing.
    /// - Throws: as `write`.
    public func writeOriginal(
        _ bytes: UnsafeRawBufferPointer, reference: String, durability: Durability = .immediate
    ) throws -> WrittenOriginal? {
        try put(reference: reference, durability: durability) { try $0.write(bytes) }
    }

    /// Writes what `produce` gives under `reference` (see `writeOriginal`).
    /// - Returns: the file written; nil in a dry run.
    private func put(
        reference: String, durability: Durability, _ produce: (AtomicFile.Sink) throws -> Void
    ) throws -> WrittenOriginal? {
        guard ExternalDataStore.isContained(reference) else {
            throw FileError(
                .invalidName,
                "refusing to write an original under \(reference.debugDescription): not a name inside \(root)")
        }
        let final = path(for: reference)
        let dir = PathName.parent(final)
        if isDryRun {
            // Writes nothing, but fails where the real run would for lack of permission (77),
            // so that a dry run's outcome is the real run's.
            let folder = access(dir, F_OK) == 0 ? dir : root
            if access(folder, W_OK | X_OK) != 0, [EACCES, EPERM, EROFS].contains(errno) {
                let code = errno
                throw FileError(
                    FileError.Kind.forErrno(code, otherwise: .notPermitted),
                    "cannot create \(folder == dir ? final : dir): \(String(cString: strerror(code)))", errno: code)
            }
            return nil
        }
        // The shard folder is made sure of once per process (a file in its way moved aside, then
        // mkdir), not before every original: an import of many small files paid an lstat and a
        // failing mkdir for each. If it went meanwhile (another process removed it empty, or put
        // a file there), creating the temporary file fails with ENOENT or ENOTDIR: it is made
        // sure of again and the write tried once more.
        try knownFolders.makeSure(dir, again: false, by: prepareFolder)
        let placed: (stat: stat, created: Bool)
        do {
            placed = try place(at: final, durability: durability, produce)
        } catch let error as FileError where error.errno == ENOENT || error.errno == ENOTDIR {
            try knownFolders.makeSure(dir, again: true, by: prepareFolder)
            placed = try place(at: final, durability: durability, produce)
        }
        return WrittenOriginal(
            created: placed.created, device: UInt64(placed.stat.st_dev), inode: UInt64(placed.stat.st_ino))
    }

    /// `AtomicFile.write` of what `produce` gives at `final`; a folder in the original's place
    /// (rename(2) of a file onto a folder fails with EISDIR) is removed when empty and the write
    /// tried again; one with files in it is not ours to remove.
    /// - Throws: `FileError` (`AtomicFile.write`), `.cannotCreate` for a folder that stays.
    private func place(
        at final: String, durability: Durability, _ produce: (AtomicFile.Sink) throws -> Void
    ) throws -> (stat: stat, created: Bool) {
        func write() throws -> (stat: stat, created: Bool) {
            try AtomicFile.write(
                to: final, temporaryPrefix: ExternalDataStore.temporaryPrefix, durability: durability,
                reportingCreation: true, produce)
        }
        do {
            return try write()
        } catch let error as FileError where error.errno == EISDIR {
            guard rmdir(final) == 0 else {
                let code = errno
                throw FileError(
                    .cannotCreate,
                    "cannot create \(final): a folder is in its place (\(String(cString: strerror(code)))); move it away",
                    errno: code)
            }
            return try write()
        }
    }

    /// Makes sure `dir`, a shard folder of the store (or the store itself), is a folder: a file
    /// (or a dangling link) in its place is moved aside, then the folder is made (mkdir; EEXIST
    /// is fine).
    /// - Throws: `FileError` `.cannotCreate` when the file in the way cannot be moved, or what
    ///   mkdir(2) reports (`FileError.Kind.forErrno`).
    private func prepareFolder(_ dir: String) throws {
        var st = stat()
        if dir != root, lstat(dir, &st) == 0, st.st_mode & S_IFMT != S_IFDIR,
            stat(dir, &st) != 0 || st.st_mode & S_IFMT != S_IFDIR
        {
            // A file (or a dangling link) where the shard folder belongs: no original can be in it.
            // Moved aside under a temporary name (never deleted: `verify --repair` removes it),
            // so the original can be written (heal instead of forget, issue 9 item 8).
            // A name of its own (TemporaryName): a file displaced earlier is never replaced.
            let aside =
                root + "/" + ExternalDataStore.temporaryPrefix + "displaced-" + TemporaryName.next() + "-"
                + PathName.lastComponent(dir)
            let code = ExternalDataStore.moveAside(dir, to: aside)
            if code != 0 {
                throw FileError(
                    .cannotCreate,
                    "cannot create \(dir): a file is in the way and cannot be moved aside: \(String(cString: strerror(code)))",
                    errno: code)
            }
        }
        if mkdir(dir, 0o777) != 0 && errno != EEXIST {
            let code = errno
            throw FileError(
                FileError.Kind.forErrno(code, otherwise: .cannotCreate),
                "cannot create \(dir): \(String(cString: strerror(code)))", errno: code)
        }
    }

    /// Moves the file (or link) at `path` to `aside` unless a folder is there by then: link(2),
    /// then unlink(2), which both refuse a folder (EPERM, EISDIR), so that a folder another
    /// import has just made there (having moved the file aside itself) stays where it is, with
    /// its originals; rename(2) only where the file system has no hard links (EPERM, EMLINK,
    /// EOPNOTSUPP for a file).
    /// - Returns: 0 when no file is at `path` any more (a folder or nothing is); else the errno.
    private static func moveAside(_ path: String, to aside: String) -> Int32 {
        if link(path, aside) == 0 {
            return unlink(path) == 0 || errno == EISDIR || errno == ENOENT ? 0 : errno
        }
        let code = errno
        var st = stat()
        guard lstat(path, &st) == 0 else { return errno == ENOENT ? 0 : errno }
        if st.st_mode & S_IFMT == S_IFDIR { return 0 }
        guard [EPERM, EMLINK, EOPNOTSUPP].contains(code) else { return code }
        return rename(path, aside) == 0 ? 0 : errno
    }

    /// Makes every file written (and renamed) in the store so far durable, with one `syncfs(2)`
    /// of the store's file system (file data, inodes and folder entries; Linux reports write-back
    /// errors from syncfs since 5.8). A dry run syncs nothing.
    /// - Throws: `FileError(.io)` (74) when the folder cannot be opened or syncfs fails.
    public func syncFileSystem() throws {
        if isDryRun { return }
        try Durability.syncFileSystem(containing: root)
    }

    /// Removes the file of `reference` (unlink(2)) and says why not when it cannot. A dry run
    /// removes nothing and answers what unlink(2) would: ENOENT when nothing is there, EISDIR
    /// for a folder (lstat(2)), the errno of access(2) when its folder cannot be written.
    /// - Returns: 0 when the file was (or would be) removed; else the errno (POSIX unlink(2)):
    ///   ENOENT nothing there, EISDIR a folder, EACCES/EPERM/EROFS/EBUSY/EIO the system's
    ///   reason, EINVAL when `reference` is not inside the store.
    public func removeFile(reference: String) -> Int32 {
        guard ExternalDataStore.isContained(reference) else { return EINVAL }
        let path = path(for: reference)
        if isDryRun {
            var st = stat()
            guard lstat(path, &st) == 0 else { return errno }
            if st.st_mode & S_IFMT == S_IFDIR { return EISDIR }
            let folder = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
            return access(folder, W_OK | X_OK) == 0 ? 0 : errno
        }
        return unlink(path) == 0 ? 0 : errno
    }

    /// Why `removeFile` left a file, in words: "it is a folder, not a file" for EISDIR, else
    /// strerror(3).
    public static func removalFailure(_ code: Int32) -> String {
        code == EISDIR ? "it is a folder, not a file" : String(cString: strerror(code))
    }

    /// Removes the file of `reference`; a missing file is not an error. A dry run removes
    /// nothing and answers whether there is a file that would be removed.
    /// - Returns: true when a file was (or, in a dry run, would be) removed.
    @discardableResult
    public func remove(reference: String) -> Bool {
        guard ExternalDataStore.isContained(reference) else { return false }
        if isDryRun { return access(path(for: reference), F_OK) == 0 }
        return unlink(path(for: reference)) == 0
    }

    /// Calls `body` with each name in folder `path` but `.` and `..` (readdir(3): in the file
    /// system's order, as bytes, no String made), the buffer valid during the call only.
    /// - Returns: false when the folder cannot be opened (nothing listed).
    public static func forEachName(inFolder path: String, _ body: (UnsafeBufferPointer<UInt8>) -> Void) -> Bool {
        guard let folder = opendir(path) else { return false }
        defer { closedir(folder) }
        let offset = MemoryLayout<dirent>.offset(of: \dirent.d_name) ?? 19
        while let entry = readdir(folder) {
            // d_name ends with a NUL within the record (records are shorter than `dirent`).
            let name = UnsafeRawPointer(entry).advanced(by: offset).assumingMemoryBound(to: UInt8.self)
            let length = strlen(UnsafeRawPointer(name).assumingMemoryBound(to: CChar.self))
            if (length == 1 && name[0] == UInt8(ascii: "."))
                || (length == 2 && name[0] == UInt8(ascii: ".") && name[1] == UInt8(ascii: "."))
            {
                continue
            }
            body(UnsafeBufferPointer(start: name, count: length))
        }
        return true
    }

    /// Calls `body` with every file under the store, the entries `allReferences` lists, unsorted
    /// and without building a reference per file: (the top-level name, the file's name in that
    /// folder as bytes) — or (the top-level name, nil) for a top-level entry that is not a folder
    /// (a file, or a link that leads nowhere).
    /// - Returns: the number of entries.
    @discardableResult
    public func forEachFile(_ body: (_ shard: String, _ name: UnsafeBufferPointer<UInt8>?) -> Void) -> Int {
        var shards: [String] = []
        _ = ExternalDataStore.forEachName(inFolder: root) { shards.append(String(decoding: $0, as: UTF8.self)) }
        shards.removeAll(where: ExternalDataStore.reservedNames.contains)
        var count = 0
        for shard in shards {
            let dir = root + "/" + shard
            var st = stat()
            guard lstat(dir, &st) == 0 else { continue }
            if stat(dir, &st) != 0 || st.st_mode & S_IFMT != S_IFDIR {
                count += 1
                body(shard, nil)
                continue
            }
            _ = ExternalDataStore.forEachName(inFolder: dir) { name in
                count += 1
                body(shard, name)
            }
        }
        return count
    }

    /// Files at the top of the store that are no original and never listed as files of the
    /// store (so never orphans): the marker of a shared catalog's originals root and its import
    /// lock (issue 31 item A3).
    public static let reservedNames: Set<String> = [".photos-originals", importLockName]

    /// The import lock file at the top of a shared catalog's originals root.
    public static let importLockName = ".photos-import.lock"

    /// True when the folder `path` holds a shard folder or file other than `reservedNames`
    /// (lists its top-level names only).
    public static func holdsFiles(_ path: String) -> Bool {
        var found = false
        _ = forEachName(inFolder: path) { name in
            if !found, !reservedNames.contains(String(decoding: name, as: UTF8.self)) { found = true }
        }
        return found
    }

    /// Every file under the store, as references relative to `root` (`ab/abcdef…`), including
    /// leftover temporary files.
    public func allReferences() -> [String] {
        var result: [String] = []
        guard let shards = try? FileManager.default.contentsOfDirectory(atPath: root) else { return [] }
        for shard in shards.sorted() where !ExternalDataStore.reservedNames.contains(shard) {
            let dir = root + "/" + shard
            // A file, or a link that leads nowhere (stat fails where lstat works), is listed too.
            var st = stat()
            guard lstat(dir, &st) == 0 else { continue }
            if stat(dir, &st) != 0 || st.st_mode & S_IFMT != S_IFDIR { result.append(shard); continue }
            for name in ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).sorted() {
                result.append(shard + "/" + name)
            }
        }
        return result
    }
}

/// Folders a store has made sure of in this process (`ExternalDataStore.write`). A class, so that
/// copies of the store value share it; a lock, as import's workers write at once.
final class KnownFolders: Sendable {
    private let folders = Mutex(Set<String>())

    /// Runs `prepare(folder)` unless the folder is known (or always, `again`), under the lock:
    /// workers that find the same folder gone or a file in its place make sure of it one after
    /// the other, so that none moves aside the folder another has just made (or fails because
    /// the file it saw was moved aside meanwhile).
    /// - Throws: what `prepare` throws; the folder is then not known.
    func makeSure(_ folder: String, again: Bool, by prepare: (String) throws -> Void) throws {
        try folders.withLock { (known: inout Set<String>) throws -> Void in
            if !again && known.contains(folder) { return }
            try prepare(folder)
            known.insert(folder)
        }
    }
}
