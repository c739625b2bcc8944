import CSystem
import Foundation
import Synchronization

/// Durable, all-or-nothing file writes: a temporary file in the target's folder, `write(2)`
/// until done, `fsync(2)`, `rename(2)` over the target, then `fsync` of the folder. A reader
/// (or a crash) sees the old file or the whole new one, never half of it (POSIX rename(2)).
/// Originals in external data, thumbnails written with `-o` and every export file go through it.
public enum AtomicFile {
    /// Where the content of a file being written goes.
    public struct Sink {
        let fd: Int32
        let path: String

        /// Appends `bytes`, retrying short writes and EINTR.
        /// - Throws: `FileError` naming the final path.
        public func write(_ bytes: UnsafeRawBufferPointer) throws {
            guard let base = bytes.baseAddress else { return }
            var offset = 0
            while offset < bytes.count {
                let n = Foundation.write(fd, base + offset, bytes.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    throw FileError(.io, "cannot write \(path): \(String(cString: strerror(errno)))", errno: errno)
                }
                offset += n
            }
        }

        /// Appends the first `byteCount` bytes of the file open as `input` (read from offset 0,
        /// whatever its file offset), copied inside the kernel with copy_file_range(2) (Linux
        /// 4.5: page cache to page cache, no copy through user space; a reflink on Btrfs and
        /// XFS), or with pread(2)/write(2) in 1 MiB pieces when `kernelCopy` is false or where
        /// the kernel or the file systems cannot (EXDEV, EINVAL, ENOSYS, EOPNOTSUPP).
        /// - Parameters:
        ///   - input: a descriptor open for reading on a regular file.
        ///   - byteCount: bytes to copy.
        ///   - source: the input's path, for messages.
        ///   - kernelCopy: try copy_file_range(2) first (tests pass false to take the
        ///     read/write path).
        /// - Returns: the bytes copied: fewer than `byteCount` when `input` ended before.
        /// - Throws: `FileError` naming `source` when reading fails (74), naming both files
        ///   when copy_file_range fails otherwise (`FileError.Kind.forErrno`: ENOSPC, EDQUOT,
        ///   EIO → 74; EROFS, EACCES, EPERM → 77), naming this file when writing fails.
        public func copy(from input: Int32, byteCount: Int, source: String, kernelCopy: Bool = true) throws -> Int {
            var offset: Int64 = 0
            var kernel = kernelCopy
            var buffer: [UInt8] = []
            while offset < Int64(byteCount) {
                let wanted = byteCount - Int(offset)
                if kernel {
                    let n = photos_copy_file_range(input, &offset, fd, wanted)
                    if n > 0 { continue }
                    if n == 0 { break }
                    let code = errno
                    if code == EINTR { continue }
                    if code == EXDEV || code == EINVAL || code == ENOSYS || code == EOPNOTSUPP {
                        kernel = false
                        continue
                    }
                    throw FileError(
                        FileError.Kind.forErrno(code, otherwise: .io),
                        "cannot copy \(source) to \(path): \(String(cString: strerror(code)))", errno: code)
                }
                if buffer.isEmpty { buffer = [UInt8](repeating: 0, count: 1 << 20) }
                let n = buffer.withUnsafeMutableBytes {
                    pread(input, $0.baseAddress, min($0.count, wanted), off_t(offset))
                }
                if n < 0 {
                    let code = errno
                    if code == EINTR { continue }
                    throw FileError(.io, "cannot read \(source): \(String(cString: strerror(code)))", errno: code)
                }
                if n == 0 { break }
                try buffer.withUnsafeBytes { try write(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
                offset += Int64(n)
            }
            return Int(offset)
        }

        /// Appends the file open as `input` (read from offset 0 with pread(2), in 1 MiB pieces:
        /// memory one piece, whatever its size), hashing what it copies; the content is accepted
        /// only when its SHA-256 is `expectedSHA256` (the caller's `write` then puts nothing in
        /// place when this throws).
        /// - Returns: the bytes copied.
        /// - Throws: `FileError` naming `source`: 74 on a read error, `.unacceptable` (65) for
        ///   another SHA-256; what `write` throws.
        public func copyHashing(from input: Int32, source: String, expectedSHA256: String) throws -> Int {
            let hasher = try SHA256Hasher()
            var buffer = [UInt8](repeating: 0, count: ImageFile.chunk)
            var offset = 0
            while true {
                let n = buffer.withUnsafeMutableBytes { pread(input, $0.baseAddress, $0.count, off_t(offset)) }
                if n < 0 {
                    let code = errno
                    if code == EINTR { continue }
                    throw FileError(
                        .io, path: source, reason: "read error: \(String(cString: strerror(code)))", errno: code)
                }
                if n == 0 { break }
                try buffer.withUnsafeBytes {
                    let piece = UnsafeRawBufferPointer(rebasing: $0[0..<n])
                    hasher.update(piece)
                    try write(piece)
                }
                offset += n
            }
            guard hasher.finalizeHex() == expectedSHA256 else {
                throw FileError(
                    .unacceptable, path: source, reason: "its bytes do not have the SHA-256 \(expectedSHA256)")
            }
            return offset
        }
    }

    /// Copies the regular file `source` to `path` (`write(to:)`: whole or not at all), streamed
    /// and hashed (`Sink.copyHashing`), put in place only when its SHA-256 is `expectedSHA256`;
    /// a file larger than `maxBytes` or sparse (`ImageFile.sizeProblem`) is refused before a
    /// byte is read (issue 31 item 20).
    /// - Returns: the bytes copied.
    /// - Throws: `FileError` naming `source` (`.noInput`, `.unacceptable`, 74 reading) or `path`.
    @discardableResult
    public static func copy(
        from source: String, to path: String, expectedSHA256: String, maxBytes: Int = Int.max,
        temporaryPrefix: String = ".photos-tmp-", durability: Durability = .immediate
    ) throws -> Int {
        let (fd, st) = try ImageFile.openRegularFile(path: source)
        defer { close(fd) }
        if let problem = ImageFile.sizeProblem(fd: fd, status: st, maxBytes: maxBytes) {
            throw FileError(.unacceptable, path: source, reason: problem)
        }
        var copied = 0
        try write(to: path, temporaryPrefix: temporaryPrefix, durability: durability) {
            copied = try $0.copyHashing(from: fd, source: source, expectedSHA256: expectedSHA256)
        }
        return copied
    }

    /// Writes the file `path` with the content `produce` gives the sink; when `produce` throws,
    /// nothing is put in place and the temporary file is removed.
    /// - Parameters:
    ///   - path: the final path; its folder must exist.
    ///   - temporaryPrefix: prefix of the temporary file's name, so that a leftover one (after a
    ///     crash) can be recognised and removed.
    ///   - durability: `.immediate` (fsync of the file and its folder before returning) or
    ///     `.deferred` (neither: the caller makes the file durable later, e.g. with
    ///     `Durability.syncFileSystem(containing:)` once for a batch, before it relies on it;
    ///     the write-back of a file of at least `DurabilityStats.writebackThreshold` bytes is
    ///     started without waiting, `DurabilityStats.startWriteback`).
    ///   - produce: writes the content.
    /// - Returns: the written file's `stat` (size, mtime), taken after the fsync.
    /// - Throws: `FileError` when the temporary file cannot be created or renamed into
    ///   place, 74 when writing or syncing fails, or what `produce` throws.
    @discardableResult
    public static func write(
        to path: String, temporaryPrefix: String = ".photos-tmp-",
        durability: Durability = .immediate,
        _ produce: (Sink) throws -> Void
    ) throws -> stat {
        try write(to: path, temporaryPrefix: temporaryPrefix, durability: durability, reportingCreation: false, produce)
            .stat
    }

    /// `write(to:temporaryPrefix:durability:_:)`, also telling whether the file was created
    /// (no file was at `path` before): with `reportingCreation` the temporary file is put in
    /// place with link(2), which fails with EEXIST when a file is there (then it is replaced
    /// with rename(2) as always), so "created" is decided atomically by the kernel; where the
    /// file system has no hard links (EPERM, EMLINK, EOPNOTSUPP) it is renamed and reported as
    /// not created.
    /// - Returns: the written file's `stat` (its inode is the file now at `path`), and whether
    ///   this call created it.
    /// - Throws: as `write(to:temporaryPrefix:durability:_:)`.
    public static func write(
        to path: String, temporaryPrefix: String = ".photos-tmp-", durability: Durability = .immediate,
        reportingCreation: Bool, _ produce: (Sink) throws -> Void
    ) throws -> (stat: stat, created: Bool) {
        let dir = PathName.parent(path)
        let folder = dir.isEmpty ? "." : dir
        let temp = folder + "/" + temporaryPrefix + TemporaryName.next()
        let fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
        guard fd >= 0 else {
            let code = errno
            throw FileError(
                FileError.Kind.forErrno(code, otherwise: .cannotCreate),
                "cannot create \(path): \(String(cString: strerror(code)))", errno: code)
        }
        var open = true
        var placed = false
        defer {
            if open { close(fd) }
            if !placed { unlink(temp) }
        }
        try produce(Sink(fd: fd, path: path))
        var st = stat()
        guard durability == .deferred || DurabilityStats.fsync(fd) == 0, fstat(fd, &st) == 0 else {
            throw FileError(.io, "cannot write \(path): fsync: \(String(cString: strerror(errno)))", errno: errno)
        }
        // Deferred: start the write-back of a large file now (no wait), so that the caller's one
        // syncfs for the batch finds its data on the way to the disk instead of writing all of it
        // then. A small file is left to that syncfs, which submits the batch's small writes
        // together: one sync_file_range per 18 KB file cost an I/O submission each (on a virtual
        // disk a VM exit each), 3 % of the CPU of an import of 640×480 JPEGs (Benchmarks/README.md).
        if durability == .deferred && st.st_size >= DurabilityStats.writebackThreshold {
            DurabilityStats.startWriteback(fd)
        }
        close(fd)
        open = false
        var created = false
        if reportingCreation && link(temp, path) == 0 {
            created = true
            unlink(temp)
        } else {
            guard rename(temp, path) == 0 else {
                let code = errno
                throw FileError(
                    FileError.Kind.forErrno(code, otherwise: .cannotCreate),
                    "cannot create \(path): \(String(cString: strerror(code)))", errno: code)
            }
        }
        placed = true
        if durability == .immediate {
            let dfd = Foundation.open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            if dfd >= 0 { _ = DurabilityStats.fsync(dfd); close(dfd) }
        }
        return (st, created)
    }

    /// Writes `bytes` to `path` (see `write(to:temporaryPrefix:_:)`).
    /// - Returns: the written file's `stat`.
    /// - Throws: `FileError` or 74.
    @discardableResult
    public static func write(
        _ bytes: UnsafeRawBufferPointer, to path: String, temporaryPrefix: String = ".photos-tmp-",
        durability: Durability = .immediate
    ) throws -> stat {
        try write(to: path, temporaryPrefix: temporaryPrefix, durability: durability) { try $0.write(bytes) }
    }
}

extension AtomicFile {
    /// How `copy(from:to:temporaryPrefix:)` made the copy.
    public enum CopyMethod: Sendable, Equatable {
        /// A reflink (ioctl FICLONE): the copy shares the source's extents copy-on-write, so a
        /// later write to either leaves the other as it was.
        case clone
        /// The bytes were copied (copy_file_range(2) inside the kernel, else read/write).
        case copy
    }

    /// Copies the regular file `source` to `path` as an independent file (its own inode, link
    /// count 1: never a hard link), durably and all or nothing (`write(to:)`: a temporary file,
    /// fsync, rename, fsync of the folder): a reflink where the file system can (Btrfs, XFS),
    /// else copy_file_range(2), else pread/write.
    /// - Parameters:
    ///   - source: the file to copy.
    ///   - path: the copy's final path; its folder must exist. A file there is replaced.
    ///   - temporaryPrefix: prefix of the temporary file's name.
    /// - Returns: how the copy was made, and its `stat`.
    /// - Throws: `FileError` `.noInput` naming `source` when it cannot be opened, 74 when a read,
    ///   write or fsync fails or the source ends early (the temporary file is removed).
    @discardableResult
    public static func copy(from source: String, to path: String, temporaryPrefix: String = ".photos-tmp-") throws
        -> (method: CopyMethod, stat: stat)
    {
        let input = open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else {
            let code = errno
            throw FileError(.noInput, "cannot open \(source): \(String(cString: strerror(code)))", errno: code)
        }
        defer { close(input) }
        var st = stat()
        guard fstat(input, &st) == 0 else {
            let code = errno
            throw FileError(.io, "cannot read \(source): \(String(cString: strerror(code)))", errno: code)
        }
        var method = CopyMethod.copy
        let written = try write(to: path, temporaryPrefix: temporaryPrefix) { sink in
            if photos_clone_file(sink.fd, input) == 0 {
                method = .clone
                return
            }
            let size = Int(st.st_size)
            let copied = try sink.copy(from: input, byteCount: size, source: source)
            guard copied == size else {
                throw FileError(.io, "cannot read \(source): it ended after \(copied) of \(size) bytes", errno: EIO)
            }
        }
        return (method, written)
    }
}

/// Names of temporary files, unique among the processes sharing a folder: the process id (on
/// one machine), 64 random bits drawn once per process (several machines writing one library on
/// shared storage, where process ids repeat) and a counter. Drawing them once saves two system
/// calls per file (getpid, getrandom) that an import of many small files paid for each original.
enum TemporaryName {
    private static let prefix: String = {
        var random = SystemRandomNumberGenerator()
        return "\(getpid())-" + String(random.next() as UInt64, radix: 16) + "-"
    }()
    private static let counter = Atomic<UInt64>(0)

    /// The next name: `<pid>-<random hex>-<counter>`.
    static func next() -> String {
        prefix + String(counter.wrappingAdd(1, ordering: .relaxed).oldValue)
    }
}
