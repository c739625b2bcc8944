import Foundation

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
    }

    /// Writes the file `path` with the content `produce` gives the sink; when `produce` throws,
    /// nothing is put in place and the temporary file is removed.
    /// - Parameters:
    ///   - path: the final path; its folder must exist.
    ///   - temporaryPrefix: prefix of the temporary file's name, so that a leftover one (after a
    ///     crash) can be recognised and removed.
    ///   - durability: `.immediate` (fsync of the file and its folder before returning) or
    ///     `.deferred` (neither: the caller makes the file durable later, e.g. with
    ///     `Durability.syncFileSystem(containing:)` once for a batch, before it relies on it).
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
        let dir = (path as NSString).deletingLastPathComponent
        let folder = dir.isEmpty ? "." : dir
        let temp = folder + "/" + temporaryPrefix + "\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
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
        close(fd)
        open = false
        guard rename(temp, path) == 0 else {
            let code = errno
            throw FileError(
                FileError.Kind.forErrno(code, otherwise: .cannotCreate),
                "cannot create \(path): \(String(cString: strerror(code)))", errno: code)
        }
        placed = true
        if durability == .immediate {
            let dfd = Foundation.open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            if dfd >= 0 { _ = DurabilityStats.fsync(dfd); close(dfd) }
        }
        return st
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
