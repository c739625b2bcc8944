import Foundation
import Synchronization
import PhotosFiles
import PhotosModel

extension Library {
    /// What stat(2) found at an original's content address: `error` 0 and the file's type
    /// (`st_mode`) and size in bytes, or the errno.
    struct FileStatus: Sendable {
        var error: Int32
        var mode: mode_t = 0
        var size = 0
        /// Whether the SHA-256 is 64 lowercase hex digits (else there is no content address,
        /// and `error` is ENOENT).
        var isHex = true
    }

    /// Whether `reference` is the content address of `sha256` (`ab/abcdef…`,
    /// `ExternalDataStore.reference(for:)`), compared as UTF-8 bytes without building the
    /// address: verify asks it once per recorded original.
    /// - Parameter sha256: 64 lowercase hex digits (ASCII, so its first two characters are
    ///   its first two bytes).
    static func isContentAddress(_ reference: String, of sha256: String) -> Bool {
        let (r, s) = (reference.utf8, sha256.utf8)
        guard r.count == s.count + 3 else { return false }
        // Native strings' bytes are contiguous: compared with memcmp, not a byte at a time
        // through the views' indexes.
        if let same = r.withContiguousStorageIfAvailable({ r in
            s.withContiguousStorageIfAvailable { s in
                guard let rb = r.baseAddress, let sb = s.baseAddress, s.count >= 2 else { return false }
                return rb[0] == sb[0] && rb[1] == sb[1] && rb[2] == UInt8(ascii: "/")
                    && memcmp(rb + 3, sb, s.count) == 0
            }
        }), let same {
            return same
        }
        return r.prefix(2).elementsEqual(s.prefix(2)) && r.dropFirst(2).first == UInt8(ascii: "/")
            && r.dropFirst(3).elementsEqual(s)
    }

    /// The 256 shard folders of external data (`00` … `ff`), each opened once with `O_PATH`
    /// (open(2): no read permission needed, only a starting point for fstatat(2), as the
    /// folder is in a path) relative to the external data folder's descriptor, so that the
    /// stat of each original resolves one name, not two: the kernel's dentry lookups were the
    /// largest part of `verify --quick`'s own time on 1,000,000 photos. A shard that cannot be
    /// opened keeps the error its path's resolution gives (ENOENT, ENOTDIR, EACCES, …), which
    /// is then what each file in it gets.
    final class ShardFolders: Sendable {
        /// A descriptor, or the negated errno of opening the shard.
        let descriptors: [Int32]

        /// `O_PATH` (Linux `<asm-generic/fcntl.h>`: 010000000), which Glibc's Swift module
        /// leaves out (it is defined under `_GNU_SOURCE`).
        static let openPath: Int32 = 0o10000000

        /// Opens the shards under `folder` (a descriptor of the external data folder; all
        /// shards fail with EBADF when it is negative).
        init(in folder: Int32) {
            let hex = Array("0123456789abcdef".utf8)
            descriptors = (0..<256).map { shard in
                guard folder >= 0 else { return -EBADF }
                let name = String(decoding: [hex[shard >> 4], hex[shard & 15]], as: UTF8.self)
                let fd = openat(folder, name, ShardFolders.openPath | O_DIRECTORY | O_CLOEXEC)
                return fd >= 0 ? fd : -errno
            }
        }

        deinit { for fd in descriptors where fd >= 0 { close(fd) } }
    }

    /// stat(2) of the content address of `original`'s SHA-256 (`ab/abcdef…`; where its file
    /// is, or should be): its name in its shard folder's descriptor (fstatat(2)), or by path
    /// under `root` when the external data folder could not be opened. ENOENT when the SHA-256
    /// is not 64 lowercase hex digits (there is no such address).
    static func fileStatus(of original: RecordedOriginal, in shards: ShardFolders?, root: String) -> FileStatus {
        let sha = original.sha256
        guard isSHA256Hex(sha) else {
            return FileStatus(error: ENOENT, isHex: false)
        }
        var st = stat()
        if let shards {
            // The shard is the SHA-256's first byte, its first two (lowercase hex) digits.
            func digit(_ byte: UInt8) -> Int { Int(byte <= UInt8(ascii: "9") ? byte - 48 : byte - 87) }
            let bytes = sha.utf8
            let shard = digit(bytes[bytes.startIndex]) << 4 | digit(bytes[bytes.index(after: bytes.startIndex)])
            let folder = shards.descriptors[shard]
            guard folder >= 0 else { return FileStatus(error: -folder) }
            guard fstatat(folder, sha, &st, 0) == 0 else { return FileStatus(error: errno) }
        } else {
            guard stat(root + "/" + ExternalDataStore.reference(for: sha), &st) == 0 else {
                return FileStatus(error: errno)
            }
        }
        return FileStatus(error: 0, mode: st.st_mode, size: Int(st.st_size))
    }

    /// The shard (0...255) of a SHA-256 of lowercase hex digits: its first two digits' value.
    static func shardIndex(ofHex sha256: String) -> Int {
        func digit(_ byte: UInt8) -> Int { Int(byte <= UInt8(ascii: "9") ? byte &- 48 : byte &- 87) & 15 }
        let bytes = sha256.utf8
        guard bytes.count >= 2 else { return 0 }
        return digit(bytes[bytes.startIndex]) << 4 | digit(bytes[bytes.index(after: bytes.startIndex)])
    }

    /// Whether `name` is a shard folder's name: two lowercase hex digits.
    static func isShardName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        func isDigit(_ b: UInt8) -> Bool {
            (b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9")) || (b >= UInt8(ascii: "a") && b <= UInt8(ascii: "f"))
        }
        return bytes.count == 2 && bytes.allSatisfy(isDigit)
    }

    /// An original whose size is right, to be hashed: where its problem would go in the
    /// The SHA-256 of each file of `paths` (or the error reading it), in order, computed by up
    /// to `jobs` threads, each taking the next file.
    static func hashFiles(_ paths: [String], jobs: Int) -> [Result<String, Error>] {
        concurrentMap(paths, jobs: jobs) { path in Result { try SHA256Hasher.hex(ofFileAt: path).hex } }
    }

    /// `transform` of each of `items`, in `items`' order, computed by up to `jobs` threads
    /// (at least 1), each taking the next item.
    static func concurrentMap<T: Sendable, R: Sendable>(
        _ items: [T], jobs: Int, _ transform: @escaping @Sendable (T) -> R
    ) -> [R] {
        let threads = max(1, min(jobs, items.count))
        if threads == 1 { return items.map(transform) }
        let results = Mutex([R?](repeating: nil, count: items.count))
        let next = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: threads) { _ in
            while true {
                let i = next.wrappingAdd(1, ordering: .relaxed).oldValue
                guard i < items.count else { return }
                let result = transform(items[i])
                results.withLock { $0[i] = result }
            }
        }
        // Every index was taken by exactly one thread before concurrentPerform returned.
        return results.withLock { $0.compactMap { $0 } }
    }

    /// `problems` sorted by `rows` (the row id of each, as many as `problems`), those of one row
    /// kept in their order (a stable sort).
    static func inRowOrder(_ problems: [VerifyProblem], rows: [Int64]) -> [VerifyProblem] {
        precondition(problems.count == rows.count, "a row id for each problem")
        let order = problems.indices.sorted { (rows[$0], $0) < (rows[$1], $1) }
        return order.map { problems[$0] }
    }
}
