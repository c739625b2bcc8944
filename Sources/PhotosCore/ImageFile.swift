import Foundation

/// A file read whole into memory, hashed with SHA-256 in the same pass (one read of the bytes).
struct ImageFile {
    var bytes: [UInt8]
    var sha256: String

    /// Chunk size of each read(2) and hash update, in bytes.
    static let chunk = 1 << 20

    /// Reads `path` and hashes it while reading.
    /// - Throws: `PhotosError` 66 when it cannot be opened, 74 on a read error.
    static func read(path: String) throws -> ImageFile {
        // O_NONBLOCK: a path swapped for a FIFO after the scan must not block the open forever
        // (it has no effect on reading a regular file).
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { throw PhotosError(.noInput, "cannot open: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw PhotosError(.ioError, "cannot stat: \(String(cString: strerror(errno)))") }
        guard st.st_mode & S_IFMT == S_IFREG else { throw PhotosError(.noInput, "not a regular file") }
        let hasher = try SHA256Hasher()
        let expected = max(0, Int(st.st_size))
        var bytes = [UInt8]()
        bytes.reserveCapacity(expected)
        var chunkBuffer = [UInt8](repeating: 0, count: chunk)
        // Read in chunks, hashing each as it arrives; a file that grows while we read is read
        // to its end, one that shrinks ends early (its hash then describes what was read).
        while true {
            let n = chunkBuffer.withUnsafeMutableBytes { Foundation.read(fd, $0.baseAddress, chunk) }
            if n < 0 {
                if errno == EINTR { continue }
                throw PhotosError(.ioError, "read error: \(String(cString: strerror(errno)))")
            }
            if n == 0 { break }
            chunkBuffer.withUnsafeBytes { raw in
                let part = UnsafeRawBufferPointer(rebasing: raw[0..<n])
                hasher.update(part)
                bytes.append(contentsOf: part)
            }
        }
        return ImageFile(bytes: bytes, sha256: hasher.finalizeHex())
    }
}
