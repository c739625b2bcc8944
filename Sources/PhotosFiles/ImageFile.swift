import Foundation

/// A file read whole into memory, hashed with SHA-256 in the same pass (one read of the bytes).
public struct ImageFile {
    public var bytes: [UInt8]
    public var sha256: String
    /// The file's modification time (fstat(2) `st_mtim`, seconds since the epoch) when it was read.
    public var modificationTime: Int

    /// Chunk size of each read(2) and hash update, in bytes.
    public static let chunk = 1 << 20

    /// Opens the regular file `path` for reading: the one way originals and files to import
    /// are opened. O_NONBLOCK: a path that is (or was swapped for) a FIFO must not block
    /// open(2) until a writer comes; it opens at once and is refused as not a regular file (the
    /// flag changes nothing on a regular file: POSIX open(2), read(2)). The caller closes the
    /// descriptor.
    /// - Returns: the descriptor and its fstat(2) status.
    /// - Throws: `FileError` naming `path` (`reason`: what went wrong): `.noInput` when it
    ///   cannot be opened or is not a regular file ("not a regular file (a FIFO)"), `.io` when
    ///   fstat fails.
    public static func openRegularFile(path: String) throws -> (fd: Int32, status: stat) {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else {
            let code = errno
            throw FileError(.noInput, path: path, reason: String(cString: strerror(code)), errno: code)
        }
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            let code = errno
            close(fd)
            throw FileError(.io, path: path, reason: "cannot stat: \(String(cString: strerror(code)))", errno: code)
        }
        guard st.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            throw FileError(.noInput, path: path, reason: "not a regular file (\(fileTypeName(st.st_mode)))")
        }
        return (fd, st)
    }

    /// A file type's name for messages, from `st_mode` (POSIX <sys/stat.h>): "a folder",
    /// "a FIFO", "a socket", "a character device", "a block device", "a symbolic link".
    static func fileTypeName(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFDIR: return "a folder"
        case S_IFIFO: return "a FIFO"
        case S_IFSOCK: return "a socket"
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        case S_IFLNK: return "a symbolic link"
        default: return "not a file"
        }
    }

    /// The smallest run of holes (bytes never written, SEEK_HOLE) that makes a file sparse for
    /// `sparseness`: 1 MiB. No image format read has one: PNG's stored deflate blocks carry a
    /// header every 64 KiB, and JPEG, HEVC, AV1 and VP8 entropy-coded data has no long run of
    /// zero bytes.
    public static let sparseHoleBytes: Int64 = 1 << 20

    /// lseek(2) whence values SEEK_DATA and SEEK_HOLE of Linux <unistd.h> (defined only with
    /// _GNU_SOURCE, which Glibc's Swift module is not built with).
    static let seekData: Int32 = 3
    static let seekHole: Int32 = 4

    /// The bytes of holes in the open regular file `fd` of `size` bytes (lseek(2) SEEK_DATA /
    /// SEEK_HOLE, Linux 3.1; 0 where the file system does not report holes), walking at most
    /// 100,000 extents (the holes found by then). The file offset is put back where it was
    /// (lseek moves it; a read(2) after this reads from there).
    public static func holeBytes(fd: Int32, size: Int64) -> Int64 {
        let position = lseek(fd, 0, SEEK_CUR)
        defer { if position >= 0 { lseek(fd, position, SEEK_SET) } }
        var holes: Int64 = 0
        var offset: Int64 = 0
        var extents = 0
        while offset < size && extents < 100_000 {
            extents += 1
            let data = lseek(fd, off_t(offset), ImageFile.seekData)
            if data < 0 {
                // ENXIO: no data after `offset`: the rest is a hole.
                if errno == ENXIO { holes += size - offset }
                break
            }
            holes += Int64(data) - offset
            let hole = lseek(fd, data, ImageFile.seekHole)
            if hole < 0 { break }
            offset = Int64(hole)
        }
        return holes
    }

    /// What makes the open regular file `fd` (its fstat(2) `status`) one not to read as an image
    /// whose reader accepts at most `maxBytes` bytes, nil when nothing does: larger than
    /// `maxBytes` ("3221225472 bytes, more than any image of at most … can be"), or sparse —
    /// holes of at least `sparseHoleBytes` and an eighth of its size ("sparse: 3221221376 of its
    /// 3221225472 bytes are holes") — which a camera or editor never writes (a 3 GiB file of
    /// 4 KB on disk, issue 31 item 20). Decided from fstat and lseek: no byte is read.
    public static func sizeProblem(fd: Int32, status st: stat, maxBytes: Int) -> String? {
        let size = Int64(st.st_size)
        if size > Int64(maxBytes) {
            return "\(size) bytes, more than the \(maxBytes) bytes an image accepted here can have"
        }
        guard size >= sparseHoleBytes else { return nil }
        let holes = holeBytes(fd: fd, size: size)
        if holes >= sparseHoleBytes && holes >= size / 8 {
            return "a sparse file: \(holes) of its \(size) bytes are holes (never written), which no image has"
        }
        return nil
    }

    /// Reads `path` (opened with `openRegularFile`) and hashes it while reading. Memory is the
    /// file's size, so a file that could not be an image of at most `maxBytes` bytes (see
    /// `sizeProblem`: too large, or sparse) is refused before a byte is read.
    /// - Parameter maxBytes: the largest file accepted (`ThumbnailOptions.maxFileBytes` of the
    ///   import's `--max-pixels`).
    /// - Throws: `FileError` naming `path`: what `openRegularFile` throws, `.unacceptable` (65)
    ///   for a file too large or sparse, 74 on a read error.
    public static func read(path: String, maxBytes: Int) throws -> ImageFile {
        let (fd, st) = try openRegularFile(path: path)
        defer { close(fd) }
        if let problem = sizeProblem(fd: fd, status: st, maxBytes: maxBytes) {
            throw FileError(.unacceptable, path: path, reason: problem)
        }
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
        if failure != 0 {
            throw FileError(
                .io, path: path, reason: "read error: \(String(cString: strerror(failure)))", errno: failure)
        }
        return ImageFile(bytes: bytes, sha256: hasher.finalizeHex(), modificationTime: Int(st.st_mtim.tv_sec))
    }
}
