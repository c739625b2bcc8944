import Foundation

/// Durable, all-or-nothing file writes: a temporary file in the target's folder, `write(2)`
/// until done, `fsync(2)`, `rename(2)` over the target, then `fsync` of the folder. A reader
/// (or a crash) sees the old file or the whole new one, never half of it (POSIX rename(2)).
public enum AtomicFile {
    /// Writes `bytes` to `path`.
    /// - Parameters:
    ///   - bytes: the whole content.
    ///   - path: the final path; its folder must exist.
    ///   - temporaryPrefix: prefix of the temporary file's name (a leftover one after a crash
    ///     can then be recognised and removed).
    /// - Throws: `PhotosError` 73 when the temporary file cannot be created or renamed into
    ///   place, 74 when writing or syncing fails; the temporary file is removed either way.
    public static func write(_ bytes: UnsafeRawBufferPointer, to path: String, temporaryPrefix: String = ".photos-tmp-") throws {
        let dir = (path as NSString).deletingLastPathComponent
        let folder = dir.isEmpty ? "." : dir
        let temp = folder + "/" + temporaryPrefix + (path as NSString).lastPathComponent.prefix(80)
            + "-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
        guard fd >= 0 else { throw PhotosError(.cantCreate, "cannot create \(path): \(String(cString: strerror(errno)))") }
        var done = false
        defer { if !done { unlink(temp) } }
        var offset = 0
        while offset < bytes.count, let base = bytes.baseAddress {
            let n = Foundation.write(fd, base + offset, bytes.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                let reason = String(cString: strerror(errno))
                close(fd)
                throw PhotosError(.ioError, "cannot write \(path): \(reason)")
            }
            offset += n
        }
        if fsync(fd) != 0 {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw PhotosError(.ioError, "cannot write \(path): fsync: \(reason)")
        }
        close(fd)
        guard rename(temp, path) == 0 else {
            throw PhotosError(.cantCreate, "cannot create \(path): \(String(cString: strerror(errno)))")
        }
        done = true
        let dfd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dfd >= 0 { fsync(dfd); close(dfd) }
    }
}
