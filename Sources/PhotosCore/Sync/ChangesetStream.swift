import Foundation
import PhotosFiles

/// A changeset folder as one byte stream, for `photos` on the two ends of an SSH connection
/// (issue 29 item 2). The stream is lines of ASCII and the files' bytes:
///
///     file NAME SIZE\n  <SIZE bytes>  sha256 HEX\n     (once per file)
///     end COUNT\n
///
/// NAME is the changeset's database file name or `originals/SHA256`; SIZE is decimal bytes;
/// HEX is the SHA-256 of the bytes just sent, computed by the sender as it reads them. The
/// receiver treats the stream as untrusted: lines are read at most `lineLimit` bytes, names must
/// be one of the two forms (no other path, no duplicates), sizes are checked against the limits
/// before a byte is written and against the bytes actually received after, every file's hash is
/// computed from what arrived, and the folder counts as received only when `end` arrives with
/// the right count. Memory is one chunk (`chunkBytes`) whatever the sizes say.
public enum ChangesetStream {
    /// The protocol's name and version, the first line `photos sync serve` writes
    /// (`photos-sync 1 LIBRARYID`): a peer of another version is refused before anything else.
    public static let protocolName = "photos-sync"
    public static let protocolVersion = 1

    /// Longest line accepted from the peer, bytes (the longest the protocol writes is a file
    /// line: 5 + 74 + 20).
    public static let lineLimit = 256
    /// Bytes read or written per call.
    static let chunkBytes = 1 << 20
    /// Largest changeset database accepted, bytes (16 GiB: far beyond any library's entries; the
    /// disk used is still bounded by the bytes actually received).
    public static let databaseLimit: Int64 = 1 << 34

    /// Why the stream failed.
    public enum Failure: Error, Equatable, CustomStringConvertible {
        /// The peer closed the stream before it was complete: `received` bytes of what it said.
        case truncated(String)
        /// The peer sent something the protocol does not allow (the peer is not `photos sync
        /// serve` of this version, or is hostile).
        case malformed(String)
        /// Reading or writing a local file, or the connection, failed.
        case io(String)

        public var description: String {
            switch self {
            case .truncated(let m), .malformed(let m), .io(let m): return m
            }
        }
    }

    // MARK: Sending

    /// Writes the changeset folder at `folder` to `fd`: its database file, then every original,
    /// then `end`. Each file is read once, hashed as it is written.
    /// - Throws: `Failure.io` when a file cannot be read (or changes size while it is read) or
    ///   `fd` cannot be written (the peer went away).
    public static func send(folder: String, databaseName: String, to fd: Int32) throws {
        try send(folder: folder, databaseName: databaseName, originalsInPlace: [], to: fd)
    }

    /// A file of the stream read from elsewhere than the changeset folder: `name` in the
    /// stream (`originals/SHA`), read from `path` (the library's own file of that original).
    public struct FileSource: Equatable, Sendable {
        public var name: String
        public var path: String
        public init(name: String, path: String) {
            self.name = name
            self.path = path
        }
    }

    /// `send(folder:databaseName:to:)` for a changeset whose originals stay in the library
    /// (`exportChangeset(originalsInPlace: true)`): the database from `folder`, then each of
    /// `originalsInPlace` (in name order) from its library file, read and hashed once as it is
    /// written; an original whose bytes are not its name's SHA-256 stops the stream before its
    /// `sha256` line (the receiver applies nothing).
    /// - Throws: as `send(folder:databaseName:to:)`; `Failure.io` naming such an original.
    public static func send(
        folder: String, databaseName: String, originalsInPlace: [FileSource], to fd: Int32
    ) throws {
        var files = [FileSource(name: databaseName, path: folder + "/" + databaseName)]
        let originals = folder + "/" + changesetOriginalsFolder
        if let list = try? FileManager.default.contentsOfDirectory(atPath: originals) {
            files += list.filter { isSHA256Hex($0) }.map {
                FileSource(name: changesetOriginalsFolder + "/" + $0, path: originals + "/" + $0)
            }
        }
        files += originalsInPlace
        files = [files[0]] + files.dropFirst().sorted { $0.name < $1.name }
        for f in files { try sendFile(f.path, name: f.name, to: fd) }
        try writeAll(fd, Array("end \(files.count)\n".utf8))
    }

    private static func sendFile(_ path: String, name: String, to fd: Int32) throws {
        let input = open(path, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw Failure.io("cannot read \(path): \(String(cString: strerror(errno)))") }
        defer { close(input) }
        var st = stat()
        guard fstat(input, &st) == 0, st.st_mode & S_IFMT == S_IFREG else {
            throw Failure.io("\(path) is not a regular file")
        }
        let size = Int64(st.st_size)
        try writeAll(fd, Array("file \(name) \(size)\n".utf8))
        let hasher: SHA256Hasher
        do { hasher = try SHA256Hasher() } catch { throw Failure.io("cannot hash \(path): \(error)") }
        var buffer = [UInt8](repeating: 0, count: chunkBytes)
        var sent: Int64 = 0
        while sent < size {
            let want = Int(min(Int64(chunkBytes), size - sent))
            let n = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, want) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw Failure.io("\(path) became shorter while it was sent (\(sent) of \(size) bytes)") }
            buffer.withUnsafeBytes { hasher.update(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
            try writeAll(fd, buffer[0..<n])
            sent += Int64(n)
        }
        let hex = hasher.finalizeHex()
        // An original is named by its SHA-256: one whose bytes say otherwise goes no further.
        let prefix = changesetOriginalsFolder + "/"
        if name.hasPrefix(prefix), name.dropFirst(prefix.count) != hex {
            throw Failure.io(
                "the original \(name.dropFirst(prefix.count)) (\(path)) does not have its recorded SHA-256 (run 'photos verify')"
            )
        }
        try writeAll(fd, Array("sha256 \(hex)\n".utf8))
    }

    /// Writes every byte of `bytes` to `fd`, retrying short writes.
    /// - Throws: `Failure.io` when the write fails (EPIPE: the peer closed the connection).
    public static func writeAll<C: Collection>(_ fd: Int32, _ bytes: C) throws where C.Element == UInt8 {
        let array = Array(bytes)
        var done = 0
        while done < array.count {
            let n = array.withUnsafeBytes { write(fd, $0.baseAddress! + done, array.count - done) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                throw Failure.io("the connection was closed while writing (\(String(cString: strerror(errno))))")
            }
            done += n
        }
    }

    // MARK: Receiving

    /// Reads a changeset folder from `input` into `folder` (which must not exist; it is created
    /// here). On any failure `folder` is removed again: a partial stream leaves nothing.
    /// - Parameters:
    ///   - durable: fsync each file and the folder (for a changeset kept at its destination; a
    ///     temporary one applied at once need not be).
    /// - Returns: the number of files and bytes received.
    /// - Throws: `Failure.truncated` when the stream ends early, `.malformed` when it breaks the
    ///   protocol or a file's bytes do not hash to what the sender said, `.io` for local writes.
    @discardableResult
    public static func receive(
        from input: LineReader, into folder: String, databaseName: String, durable: Bool = false
    ) throws -> (files: Int, bytes: Int64) {
        guard mkdir(folder, 0o755) == 0 else {
            throw Failure.io("cannot create \(folder): \(String(cString: strerror(errno)))")
        }
        do {
            guard mkdir(folder + "/" + changesetOriginalsFolder, 0o755) == 0 else {
                throw Failure.io(
                    "cannot create \(folder)/\(changesetOriginalsFolder): \(String(cString: strerror(errno)))")
            }
            let result = try receiveFiles(input, folder: folder, databaseName: databaseName, durable: durable)
            if durable {
                try? Durability.syncFileSystem(containing: folder)
            }
            return result
        } catch {
            try? FileManager.default.removeItem(atPath: folder)
            throw error
        }
    }

    private static func receiveFiles(
        _ input: LineReader, folder: String, databaseName: String, durable: Bool
    ) throws -> (files: Int, bytes: Int64) {
        var seen = Set<String>()
        var total: Int64 = 0
        while true {
            let line = try input.line(what: "a file line")
            let words = line.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
            if words.count == 2, words[0] == "end" {
                guard Int(words[1]) == seen.count else {
                    throw Failure.malformed("the stream ended with \(words[1]) files, \(seen.count) were received")
                }
                guard seen.contains(databaseName) else { throw Failure.malformed("the stream has no \(databaseName)") }
                return (seen.count, total)
            }
            guard words.count == 3, words[0] == "file", let size = Int64(words[2]), size >= 0,
                words[2] == String(size)
            else {
                throw Failure.malformed("expected 'file NAME SIZE' or 'end COUNT', got \(line.debugDescription)")
            }
            let name = words[1]
            let original =
                name.hasPrefix(changesetOriginalsFolder + "/")
                && isSHA256Hex(String(name.dropFirst(changesetOriginalsFolder.count + 1)))
            guard name == databaseName || original else {
                throw Failure.malformed("file \(name.debugDescription) is neither \(databaseName) nor an original")
            }
            guard seen.insert(name).inserted else { throw Failure.malformed("file \(name) sent twice") }
            let limit = original ? Int64(ChangesetReader.maxOriginalBytes) : databaseLimit
            guard size <= limit else {
                throw Failure.malformed("file \(name) is said to have \(size) bytes, more than the \(limit) accepted")
            }
            let digest = try input.copy(size, to: folder + "/" + name, name: name, durable: durable)
            let trailer = try input.line(what: "the SHA-256 of \(name)")
            guard trailer == "sha256 " + digest else {
                throw Failure.malformed(
                    "the bytes of \(name) do not have the SHA-256 the sender sent (\(trailer.debugDescription))")
            }
            if original, name != changesetOriginalsFolder + "/" + digest {
                throw Failure.malformed("the bytes of \(name) have the SHA-256 \(digest)")
            }
            total += size
        }
    }

    /// Bounded reads of a file descriptor: lines of at most `ChangesetStream.lineLimit` bytes,
    /// and byte runs copied to files in chunks, counting what actually arrived.
    public final class LineReader {
        let fd: Int32
        private var buffer = [UInt8](repeating: 0, count: ChangesetStream.chunkBytes)
        private var start = 0
        private var end = 0
        /// Bytes taken from `fd` so far.
        public private(set) var received: Int64 = 0

        public init(fd: Int32) { self.fd = fd }

        /// Refills the buffer when empty; false at end of stream.
        private func fill() throws -> Bool {
            if start < end { return true }
            start = 0
            end = 0
            while true {
                // Waits in rounds of a second, so that SIGINT, SIGTERM and SIGHUP (whose
                // handlers restart system calls) stop a read from a peer that went silent.
                var waiting = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                let ready = poll(&waiting, 1, 1000)
                if ready == 0 || (ready < 0 && errno == EINTR) {
                    try StopSignal.check()
                    continue
                }
                let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if n < 0 && errno == EINTR { continue }
                guard n >= 0 else {
                    throw Failure.io("reading the connection failed: \(String(cString: strerror(errno)))")
                }
                end = n
                received += Int64(n)
                return n > 0
            }
        }

        /// True when the stream has no byte left (none buffered, none to read).
        /// - Throws: `Failure.io` when reading fails.
        public func atEnd() throws -> Bool { try !fill() }

        /// The next line without its newline.
        /// - Throws: `Failure.truncated` at end of stream, `.malformed` for a line over the limit
        ///   or one that is not UTF-8.
        public func line(what: String) throws -> String {
            var bytes: [UInt8] = []
            while true {
                guard try fill() else {
                    throw Failure.truncated("the connection closed after \(received) bytes, before \(what)")
                }
                if let newline = buffer[start..<end].firstIndex(of: 10) {
                    bytes += buffer[start..<newline]
                    start = newline + 1
                    break
                }
                bytes += buffer[start..<end]
                start = end
                guard bytes.count <= ChangesetStream.lineLimit else {
                    throw Failure.malformed(
                        "a line longer than \(ChangesetStream.lineLimit) bytes, where \(what) was expected")
                }
            }
            guard bytes.count <= ChangesetStream.lineLimit, let text = String(validating: bytes, as: UTF8.self) else {
                throw Failure.malformed("a line that is too long or not text, where \(what) was expected")
            }
            return text
        }

        /// Copies exactly `size` bytes into a new file at `path`, hashing them.
        /// - Returns: the SHA-256 (hex) of the bytes.
        /// - Throws: `Failure.truncated` when the stream ends first (naming the bytes received).
        func copy(_ size: Int64, to path: String, name: String, durable: Bool) throws -> String {
            let out = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            guard out >= 0 else { throw Failure.io("cannot create \(path): \(String(cString: strerror(errno)))") }
            defer { close(out) }
            let hasher: SHA256Hasher
            do { hasher = try SHA256Hasher() } catch { throw Failure.io("cannot hash \(name): \(error)") }
            var copied: Int64 = 0
            while copied < size {
                guard try fill() else {
                    throw Failure.truncated("the connection closed after \(copied) of the \(size) bytes of \(name)")
                }
                let n = Int(min(Int64(end - start), size - copied))
                try buffer.withUnsafeBytes { raw in
                    let part = UnsafeRawBufferPointer(rebasing: raw[start..<(start + n)])
                    hasher.update(part)
                    var done = 0
                    while done < n {
                        let w = write(out, part.baseAddress! + done, n - done)
                        if w < 0 && errno == EINTR { continue }
                        guard w > 0 else {
                            throw Failure.io("cannot write \(path): \(String(cString: strerror(errno)))")
                        }
                        done += w
                    }
                }
                start += n
                copied += Int64(n)
            }
            if durable, fsync(out) != 0 {
                throw Failure.io("cannot write \(path): \(String(cString: strerror(errno)))")
            }
            return hasher.finalizeHex()
        }
    }
}
