import Foundation
import PhotosFiles
import PhotosModel

/// Writes files under the export folder: temporary name, rename; with `.immediate` durability
/// also fsync of the file and its folder, with `.deferred` none (the caller syncs the batch).
struct FileWriter {
    let root: String
    let realRoot: String
    /// The library folder's real path: nothing is written inside it.
    var realLibrary: String? = nil
    /// A dry run's writer: it checks and reads what a real run would, and creates, writes and
    /// removes nothing (each method says what it returns instead).
    var dryRun = false
    /// When written files are made durable: `.deferred` for export's batches (one syncfs per
    /// batch before the state records them), `.immediate` (fsync of file and folder) otherwise.
    var durability = Durability.immediate
    /// Hash each original while copying it and refuse a SHA-256 mismatch (`--check-hashes`);
    /// otherwise check its size and copy it inside the kernel.
    var checkHashes = true

    /// Removes the file `path` (relative). A dry run removes nothing.
    /// - Returns: true when it was (in a dry run: would be) removed.
    func remove(_ path: String) -> Bool {
        dryRun ? access(root + "/" + path, F_OK) == 0 : unlink(root + "/" + path) == 0
    }

    /// Removes the folder `path` (relative) when it is empty (rmdir(2)); a dry run does not.
    func removeFolderIfEmpty(_ path: String) {
        if !dryRun { rmdir(root + "/" + path) }
    }

    /// Creates the folders of `path` (relative) and checks that the folder's real path is inside
    /// the export folder's.
    /// - Throws: `ExportError.cannotCreateFolder`, `.folderOutsideDestination`, `.folderInsideLibrary`.
    func ensureFolder(of path: String) throws {
        guard let slash = path.lastIndex(of: "/") else { return }
        var folder = root
        // Each folder is checked before the next is made inside it, so a symbolic link on the
        // way never gets a folder created at its target.
        for component in path[..<slash].split(separator: "/") {
            folder += "/" + component
            if dryRun {
                // Nothing is made; an existing folder is checked like a real run checks it.
                guard access(folder, F_OK) == 0 else { return }
            } else if mkdir(folder, 0o777) != 0 && errno != EEXIST {
                throw ExportError.cannotCreateFolder(folder, reason: String(cString: strerror(errno)))
            }
            guard let real = Exporter.realPath(folder), Exporter.isInside(real, realRoot) else {
                throw ExportError.folderOutsideDestination(folder)
            }
            if let realLibrary, Exporter.isInside(real, realLibrary) {
                throw ExportError.folderInsideLibrary(folder)
            }
        }
    }

    /// Copies the original at `source` (one of photo `uniqueName`'s, recorded as `kind`) to
    /// `path`, with the modification time `modificationTime` (seconds since 1970) when given.
    /// Its size must be the library's `byteSize`;
    /// with `checkHashes` it is hashed while copied (read(2), SHA-256, write(2)) and must have
    /// the library's SHA-256, otherwise it is copied inside the kernel (`AtomicFile.Sink.copy`).
    /// - Returns: the state entry: the library's SHA-256 (the computed one with `checkHashes`),
    ///   the size and the mtime written (0 in a dry run, which reads and checks the original as
    ///   a real run does and writes nothing).
    /// - Throws: `ExportError.originalSizeMismatch` when the original's size is not the
    ///   library's, `.originalMismatch` when the bytes read do not have the library's SHA-256
    ///   (nothing is put in place either way), `.unreadableOriginal` when the original cannot
    ///   be opened, `.originalReadFailed` on a read error, `FileError` on copy or write errors.
    func copyOriginal(
        from source: String, to path: String, uniqueName: String, kind: ExportState.Entry.Kind, sha256: String,
        byteSize: Int, modificationTime: Double?
    ) throws -> ExportState.Entry {
        // Opened without blocking on a FIFO and refused unless a regular file, as every original is.
        let input: Int32
        let sourceStatus: stat
        do {
            (input, sourceStatus) = try ImageFile.openRegularFile(path: source)
        } catch let error as FileError {
            throw ExportError.unreadableOriginal(source: source, reason: error.reason)
        }
        defer { close(input) }
        guard Int(sourceStatus.st_size) == byteSize else {
            throw ExportError.originalSizeMismatch(
                source: source, actual: Int(sourceStatus.st_size), recorded: byteSize)
        }
        if dryRun {
            // Read and hash the original as a real copy does; write nothing.
            if checkHashes {
                let hex = try hashChecked(input, source: source, sha256: sha256) { _ in }
                return ExportState.Entry(
                    path: path, uniqueName: uniqueName, kind: kind, sha256: hex,
                    byteSize: byteSize, mtimeNanoseconds: 0)
            }
            return ExportState.Entry(
                path: path, uniqueName: uniqueName, kind: kind, sha256: sha256,
                byteSize: byteSize, mtimeNanoseconds: 0)
        }
        var sha = sha256
        let st = try AtomicFile.write(
            to: root + "/" + path, temporaryPrefix: Exporter.temporaryPrefix, durability: durability
        ) { sink in
            if checkHashes {
                // A mismatch throws before the rename: nothing is put in place.
                sha = try hashChecked(input, source: source, sha256: sha256) { try sink.write($0) }
            } else {
                let copied = try sink.copy(from: input, byteCount: byteSize, source: source)
                // The original shrank since it was measured: not put in place.
                guard copied == byteSize else {
                    throw ExportError.originalSizeMismatch(source: source, actual: copied, recorded: byteSize)
                }
            }
        }
        let touched = setModificationTime(path, modificationTime) ?? st
        return ExportState.Entry(
            path: path, uniqueName: uniqueName, kind: kind, sha256: sha,
            byteSize: Int(touched.st_size), mtimeNanoseconds: FileWriter.mtime(touched))
    }

    /// Reads `input` (the original at `source`) from its start to its end in 1 MiB pieces,
    /// hashing each piece and handing it to `consume`.
    /// - Returns: the SHA-256 (64 lowercase hex digits), which is the library's.
    /// - Throws: `ExportError.originalMismatch` when it is not the library's SHA-256 (or the
    ///   size read is not the library's), `.originalReadFailed` on a read error, and what
    ///   `consume` throws.
    private func hashChecked(
        _ input: Int32, source: String, sha256 expected: String, consume: (UnsafeRawBufferPointer) throws -> Void
    ) throws -> String {
        let hasher = try SHA256Hasher()
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var offset: Int64 = 0
        while true {
            let n = buffer.withUnsafeMutableBytes { pread(input, $0.baseAddress, $0.count, off_t(offset)) }
            if n < 0 {
                if errno == EINTR { continue }
                throw ExportError.originalReadFailed(source: source, reason: String(cString: strerror(errno)))
            }
            if n == 0 { break }
            try buffer.withUnsafeBytes { raw in
                let part = UnsafeRawBufferPointer(rebasing: raw[0..<n])
                hasher.update(part)
                try consume(part)
            }
            offset += Int64(n)
        }
        let sha = hasher.finalizeHex()
        guard sha == expected else {
            throw ExportError.originalMismatch(source: source, actual: sha, recorded: expected)
        }
        return sha
    }

    /// Sets the access and modification times of the file `path` (relative) to `seconds` since
    /// 1970 (utimensat(2), POSIX.1-2008), as `exiftool -P` / osxphotos `--touch-file` users
    /// expect of an exported photo; does nothing for nil, and nothing in a dry run (like every
    /// other change this writer makes).
    /// - Returns: the file's status afterwards (what the export state records), or nil when
    ///   `seconds` is nil, the run is a dry run, or the times could not be set (the file is
    ///   kept as written). A time the file system cannot hold (ext4 keeps 1901-12-13 to
    ///   2446-05-10 and clamps anything else: a capture time in year 9999 or 0001) is not set
    ///   either: a clamped date would be a wrong one, so the file keeps the time it was
    ///   written at.
    func setModificationTime(_ path: String, _ seconds: Double?) -> stat? {
        guard !dryRun, let seconds, seconds.isFinite, abs(seconds) < 1e15 else { return nil }
        let full = root + "/" + path
        var before = stat()
        guard lstat(full, &before) == 0 else { return nil }
        let whole = seconds.rounded(.down)
        let nanoseconds = min(999_999_999, Int(((seconds - whole) * 1e9).rounded()))
        let spec = timespec(tv_sec: Int(whole), tv_nsec: nanoseconds)
        var times = [spec, spec]
        guard utimensat(AT_FDCWD, full, &times, AT_SYMLINK_NOFOLLOW) == 0 else { return nil }
        var st = stat()
        guard lstat(full, &st) == 0 else { return nil }
        if st.st_mtim.tv_sec != spec.tv_sec {
            var kept = [before.st_atim, before.st_mtim]
            _ = utimensat(AT_FDCWD, full, &kept, AT_SYMLINK_NOFOLLOW)
            return lstat(full, &st) == 0 ? st : nil
        }
        return st
    }

    /// Writes `bytes` (a sidecar or thumbnail) to `path`, with the modification time
    /// `modificationTime` (seconds since 1970) when given.
    /// - Throws: `FileError` on write errors.
    func write(
        _ bytes: [UInt8], sha256: String, to path: String, uniqueName: String,
        kind: ExportState.Entry.Kind, modificationTime: Double? = nil
    ) throws -> ExportState.Entry {
        if dryRun {
            return ExportState.Entry(
                path: path, uniqueName: uniqueName, kind: kind, sha256: sha256,
                byteSize: bytes.count, mtimeNanoseconds: 0)
        }
        let written = try bytes.withUnsafeBytes {
            try AtomicFile.write(
                $0, to: root + "/" + path, temporaryPrefix: Exporter.temporaryPrefix, durability: durability)
        }
        let st = setModificationTime(path, modificationTime) ?? written
        return ExportState.Entry(
            path: path, uniqueName: uniqueName, kind: kind, sha256: sha256,
            byteSize: bytes.count, mtimeNanoseconds: FileWriter.mtime(st))
    }

    /// A file's modification time in nanoseconds since 1970, as the export state records it;
    /// a time outside what 64 bits of nanoseconds hold (before 1677-09-21 or after 2262-04-11,
    /// which XFS, Btrfs and ext4 can store) saturates to `Int64.min`/`Int64.max` instead of
    /// trapping.
    static func mtime(_ st: stat) -> Int64 {
        let (product, overflow) = Int64(st.st_mtim.tv_sec).multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return st.st_mtim.tv_sec < 0 ? .min : .max }
        let (sum, overflowSum) = product.addingReportingOverflow(Int64(st.st_mtim.tv_nsec))
        return overflowSum ? .max : sum
    }
}
