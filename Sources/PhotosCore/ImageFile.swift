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
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw PhotosError(.noInput, "cannot open: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw PhotosError(.ioError, "cannot stat: \(String(cString: strerror(errno)))") }
        let hasher = try SHA256Hasher()
        var bytes = [UInt8](repeating: 0, count: max(0, Int(st.st_size)))
        var filled = 0
        while true {
            if filled == bytes.count {
                // The file grew while we read it, or its size was not known: keep reading.
                bytes.append(contentsOf: repeatElement(0, count: chunk))
            }
            let want = min(chunk, bytes.count - filled)
            let n = bytes.withUnsafeMutableBytes { buf in Foundation.read(fd, buf.baseAddress! + filled, want) }
            if n < 0 {
                if errno == EINTR { continue }
                throw PhotosError(.ioError, "read error: \(String(cString: strerror(errno)))")
            }
            if n == 0 { break }
            bytes.withUnsafeBytes { hasher.update(UnsafeRawBufferPointer(rebasing: $0[filled..<(filled + n)])) }
            filled += n
        }
        if filled < bytes.count { bytes.removeSubrange(filled...) }
        return ImageFile(bytes: bytes, sha256: hasher.finalizeHex())
    }
}
