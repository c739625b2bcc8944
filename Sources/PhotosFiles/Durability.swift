import CSystem
import Foundation
import Synchronization
#if canImport(Glibc)
    import Glibc
#endif

/// When a written file is made durable (survives a crash or power loss).
public enum Durability: Sendable, Equatable {
    /// `fsync(2)` of the file and of its folder before the write returns.
    case immediate
    /// No sync at the write: the caller syncs later, once for many files (group durability),
    /// and before anything (a committed row) relies on the file.
    case deferred

    /// `syncfs(2)` of the file system holding `path` (a file or folder): flushes the data,
    /// inodes and folder entries (renames) of every file on it. Linux syncfs(2) reports
    /// write-back errors since 5.8.
    /// - Parameters:
    ///   - path: a file or folder on the file system to sync.
    ///   - willSync: called on the calling thread after the call is recorded in
    ///     `DurabilityStats` and right before syncfs(2) is issued (export's pipeline starts the
    ///     next batch's writes only then, so the sync is issued after exactly the earlier files).
    /// - Throws: `FileError(.io)` (74) naming `path` when it cannot be opened or syncfs fails.
    public static func syncFileSystem(containing path: String, willSync: () -> Void = {}) throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            throw FileError(.io, "cannot sync \(path): \(String(cString: strerror(code)))", errno: code)
        }
        defer { close(fd) }
        DurabilityStats.record(.syncfs(path))
        willSync()
        guard photos_syncfs(fd) == 0 else {
            let code = errno
            throw FileError(.io, "cannot sync \(path): syncfs: \(String(cString: strerror(code)))", errno: code)
        }
    }
}

/// Counts of durability calls, for tests and the benchmark's fsync-cost note: how many
/// `fsync(2)` and `syncfs(2)` this process made, how many write-backs it started without waiting
/// (`sync_file_range(2)`, `startWriteback`), and optionally the order of events.
public enum DurabilityStats {
    /// One durability-related event.
    public enum Event: Sendable, Equatable {
        /// An `fsync(2)` (of a file or a folder).
        case fsync
        /// A `syncfs(2)` of the file system holding the path.
        case syncfs(String)
        /// A write transaction committed (recorded by its owner, e.g. import's batch writer).
        case commit(String)
    }

    private struct State {
        var fsyncs = 0
        var syncfsCalls = 0
        var writebacks = 0
        var events: [Event]? = nil
        var observer: (@Sendable (Event) -> Void)? = nil
    }
    private static let state = Mutex(State())

    /// Number of `fsync(2)` calls so far in this process.
    public static var fsyncCount: Int { state.withLock { $0.fsyncs } }
    /// Number of `syncfs(2)` calls so far in this process.
    public static var syncfsCount: Int { state.withLock { $0.syncfsCalls } }
    /// Number of write-backs started so far in this process (`startWriteback`: one
    /// `sync_file_range(2)` per deferred file; they make nothing durable and wait for nothing).
    public static var writebackCount: Int { state.withLock { $0.writebacks } }

    /// Starts (or, with `false`, stops) keeping the list of events; `events` returns it.
    public static func recordEvents(_ on: Bool, observer: (@Sendable (Event) -> Void)? = nil) {
        state.withLock {
            $0.events = on ? [] : nil
            $0.observer = on ? observer : nil
        }
    }

    /// The events since `recordEvents(true)`, in order.
    public static var events: [Event] { state.withLock { $0.events ?? [] } }

    /// Records `event` (and counts it); the observer, if any, is called outside the lock.
    public static func record(_ event: Event) {
        let observer: (@Sendable (Event) -> Void)? = state.withLock {
            switch event {
            case .fsync: $0.fsyncs += 1
            case .syncfs: $0.syncfsCalls += 1
            case .commit: break
            }
            $0.events?.append(event)
            return $0.observer
        }
        observer?(event)
    }

    /// `fsync(2)` of `fd`, counted.
    /// - Returns: fsync's result (0, or -1 with errno set).
    static func fsync(_ fd: Int32) -> Int32 {
        record(.fsync)
        return Foundation.fsync(fd)
    }

    /// Starts write-back of the dirty pages of the file open as `fd` without waiting for it:
    /// `sync_file_range(2)` with `SYNC_FILE_RANGE_WRITE` over the whole file (Linux sync_file_range(2):
    /// "initiate write-out of all dirty pages in the specified range which are not presently
    /// under write-out"), counted in `writebackCount`. Durability is unchanged: no metadata and
    /// no disk cache flush, so a deferred file still needs its `syncfs(2)`; that later syncfs only
    /// has to wait for what is still in flight instead of writing every byte of the batch then
    /// (bench corpus, 58 MB of originals: syncfs 60-72 ms -> 24 ms; Benchmarks/README.md).
    /// - Returns: 0, or -1 with errno set (ignored by the callers: write-back then starts later,
    ///   at the syncfs, as it did before).
    @discardableResult
    static func startWriteback(_ fd: Int32) -> Int32 {
        state.withLock { $0.writebacks += 1 }
        return photos_start_writeback(fd)
    }

    /// Size in bytes from which a deferred file's write-back is started at once
    /// (`startWriteback`); smaller files are written by the batch's syncfs (256 KiB: camera
    /// photos and large PNGs start theirs, a tree of small JPEGs submits its writes together).
    public static let writebackThreshold: Int = 256 << 10
}
