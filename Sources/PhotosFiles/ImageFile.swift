import Foundation

/// A file read whole into memory, hashed with SHA-256 in the same pass (one read of the bytes).
public struct ImageFile {
    public var bytes: [UInt8]
    public var sha256: String

    /// Chunk size of each read(2) and hash update, in bytes.
    public static let chunk = 1 << 20

    /// Reads `path` and hashes it while reading.
    /// - Throws: `FileError` when it cannot be opened, 74 on a read error.
    public static func read(path: String) throws -> ImageFile {
        // O_NONBLOCK: a path swapped for a FIFO after the scan must not block the open forever
        // (it has no effect on reading a regular file).
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else {
            throw FileError(.noInput, "cannot open: \(String(cString: strerror(errno)))", errno: errno)
        }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            throw FileError(.io, "cannot stat: \(String(cString: strerror(errno)))", errno: errno)
        }
        guard st.st_mode & S_IFMT == S_IFREG else { throw FileError(.noInput, "not a regular file") }
        let hasher = try SHA256Hasher()
        let size = max(0, Int(st.st_size))
        // Read straight into the buffer, hashing each chunk as it arrives. The size is the one
        // fstat(2) gave: a file still being appended to is read as it was then (a truncated
        // image, which the decoder rejects, to be imported whole on the next run), so memory
        // stays bounded by the file's size; one that shrinks ends early.
        var failure: Int32 = 0
        let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
            count = 0
            guard let base = buffer.baseAddress else { return }
            while count < size {
                let n = Foundation.read(fd, base + count, min(chunk, size - count))
                if n < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                if n == 0 { return }
                hasher.update(UnsafeRawBufferPointer(start: base + count, count: n))
                count += n
            }
        }
        if failure != 0 { throw FileError(.io, "read error: \(String(cString: strerror(failure)))", errno: failure) }
        return ImageFile(bytes: bytes, sha256: hasher.finalizeHex())
    }
}
