import Foundation
import PhotosModel

/// What an export wrote into its folder, kept in `DEST/.photos-export.sqlite` so that
/// `--update` can skip what is unchanged and `--cleanup` can remove what it wrote earlier
/// (issue #5 §5). Paths are relative to DEST, so the folder can be moved.
///
/// The file is a cache of what is on disk, never the only copy of anything: a missing or
/// damaged one is set aside and rebuilt from the files (by SHA-256) on the next run.
public final class ExportState {
    /// File name of the state database inside DEST.
    public static let fileName = ".photos-export.sqlite"
    /// File name of the lock that keeps two exports out of one DEST at a time.
    public static let lockName = ".photos-export.lock"

    /// One file the export wrote.
    public struct Entry: Equatable, Sendable {
        /// What the file is: the photo's primary original (`original`), another of its originals
        /// (`raw`, `pairedVideo`: `OriginalRole`), or a companion the export made.
        public enum Kind: String, Sendable {
            case original, raw, pairedVideo, xmp, json, thumbnail

            /// The kind of an original of role `role`: `original` for the primary.
            public init(role: OriginalRole) {
                switch role {
                case .primary: self = .original
                case .raw: self = .raw
                case .pairedVideo: self = .pairedVideo
                }
            }

            /// True for a file that is one of the photo's originals (copied byte for byte).
            public var isOriginal: Bool { self == .original || self == .raw || self == .pairedVideo }
        }
        /// Path relative to DEST, `/`-separated, NFC.
        public var path: String
        public var uniqueName: String
        public var kind: Kind
        /// SHA-256 of the bytes written (for a sidecar: of its content).
        public var sha256: String
        /// Bytes.
        public var byteSize: Int
        /// The file's modification time after writing, in nanoseconds since 1970 (a changed
        /// mtime makes `--update` hash the file instead of trusting this row).
        public var mtimeNanoseconds: Int64
    }

    private let db: (any ExportStateStore)?
    /// Serializes the reads of the export's worker threads and the planner on the one
    /// connection (recursive: `forEachEntry`'s body may look up an entry).
    private let lock = NSRecursiveLock()
    /// Set when the state file was unreadable and was moved aside to this path.
    public let setAside: String?

    /// Opens (or creates) the state of the export folder `destination`.
    /// - Parameters:
    ///   - destination: DEST, which exists.
    ///   - backend: opens the state database (the composition root's; SQLite).
    ///   - busyTimeout: seconds to wait for another process's lock on the state (`--wait`).
    /// - Throws: `ExportError.cannotCreateState` or `.cannotOpenState` when no state database can
    ///   be created or opened in DEST; `.stateBusy`, `.stateNotWritable`, `.stateIOError` (or the
    ///   file layer's `FileError`) when the state cannot be opened because it is busy, not
    ///   writable or on a full or failing disk (it is then left as it is: only a damaged state is set aside).
    public init(destination: String, backend: any ExportStateBackend, busyTimeout: Double = 5) throws {
        let path = destination + "/" + ExportState.fileName
        var aside: String?
        do {
            db = try backend.open(path: path, lockWait: busyTimeout)
        } catch {
            // Not damage but the environment (busy, read-only, full): say so, keep the state.
            if let e = (error as? any StoreErrorConvertible)?.storeError, !e.isDamage {
                throw Exporter.environmentError(error, destination: destination)
                    ?? ExportError.cannotOpenState(path: path, reason: e.detail)
            }
            // Damaged (not a database, corrupt, or from a newer photos): keep it for inspection
            // under a hidden name and start afresh; the files on disk rebuild the rows.
            let target = path + ".damaged"
            for suffix in ["", "-wal", "-shm"] { _ = rename(path + suffix, target + suffix) }
            aside = target
            do {
                db = try backend.open(path: path, lockWait: busyTimeout)
            } catch {
                throw ExportError.cannotCreateState(path: path, reason: "\(error)")
            }
        }
        setAside = aside
    }

    /// The state of `destination` for a dry run: read when DEST has one (without creating,
    /// migrating or changing anything), empty otherwise or when it cannot be read — a real
    /// run then rebuilds it from the files, as the dry run's planner does. `record` and
    /// `forget` change only the rows in memory.
    public static func readOnly(destination: String, backend: any ExportStateBackend) -> ExportState {
        let path = destination + "/" + ExportState.fileName
        guard let db = backend.openReadOnly(path: path) else { return ExportState(database: nil) }
        return ExportState(database: db)
    }

    private init(database: (any ExportStateStore)?) {
        db = database
        setAside = nil
        isDryRun = true
    }

    /// True for a dry run's state: nothing is written to the file.
    private var isDryRun = false

    private static func entry(_ row: ExportFileRow) -> Entry? {
        guard let kind = Entry.Kind(rawValue: row.kind) else { return nil }
        return Entry(
            path: row.path, uniqueName: row.uniqueName, kind: kind, sha256: row.sha256, byteSize: row.byteSize,
            mtimeNanoseconds: row.mtimeNanoseconds)
    }

    /// The entry recorded for `path` (relative to DEST), nil when none — or when the state
    /// cannot be read: it is a cache, and the planner then goes by the file's bytes. Read from
    /// the database each time (issue 31 A11: the rows are never all held in memory; an export of
    /// 1,000,000 photos has ~2,000,000 of them, ~1.5 GB as a dictionary). Safe from several
    /// threads.
    public func entry(_ path: String) -> Entry? {
        guard let db else { return nil }
        lock.lock()
        defer { lock.unlock() }
        return (try? db.row(path: path)).flatMap { $0.flatMap(Self.entry) }
    }

    /// The entries recorded for the photo `uniqueName` (every kind), by path; empty when the
    /// state cannot be read.
    public func entries(ofPhoto uniqueName: String) -> [Entry] {
        guard let db else { return [] }
        lock.lock()
        defer { lock.unlock() }
        return ((try? db.rows(uniqueName: uniqueName)) ?? []).compactMap(Self.entry)
    }

    /// Calls `body` with every entry in path order, read in keyset pages of `pageSize` (memory
    /// holds one page). `body` may `forget` entries of the page it was given.
    /// - Throws: what `body` throws, and the store's error.
    public func forEachEntry(pageSize: Int = 1000, _ body: ([Entry]) throws -> Void) throws {
        guard let db else { return }
        var after: String?
        while true {
            let page: [ExportFileRow]
            do {
                lock.lock()
                defer { lock.unlock() }
                page = try db.rows(afterPath: after, limit: max(1, pageSize))
            }
            guard let last = page.last else { return }
            try body(page.compactMap(Self.entry))
            guard page.count == pageSize else { return }
            after = last.path
        }
    }

    /// Records (or replaces) the rows of the files written for one batch, in one transaction
    /// (a dry run's state records nothing). Nothing is kept in memory.
    /// - Throws: `SQLiteError`.
    public func record(_ written: [Entry]) throws {
        guard !written.isEmpty else { return }
        let now = ISODate.string(from: Date())
        if !isDryRun, let db {
            lock.lock()
            defer { lock.unlock() }
            try db.upsert(
                written.map {
                    ExportFileRow(
                        path: $0.path, uniqueName: $0.uniqueName, kind: $0.kind.rawValue, sha256: $0.sha256,
                        byteSize: $0.byteSize, mtimeNanoseconds: $0.mtimeNanoseconds)
                },
                exportedAt: now)
        }
    }

    /// Forgets the rows of `paths` (files removed by `--cleanup`, or gone from disk).
    /// - Throws: `SQLiteError`.
    public func forget(_ paths: [String]) throws {
        guard !paths.isEmpty else { return }
        if !isDryRun, let db {
            lock.lock()
            defer { lock.unlock() }
            try db.delete(paths: paths)
        }
    }
}

extension StoreError {
    /// True for a damaged state file (corrupt, not a database, or from a newer photos): set
    /// aside and rebuilt, unlike the environment's failures (busy, read-only, full).
    fileprivate var isDamage: Bool {
        switch kind {
        case .corrupt, .newerSchema: return true
        default: return false
        }
    }
}
