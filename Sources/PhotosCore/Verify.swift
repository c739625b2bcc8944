import Foundation
import Synchronization
import PhotosFiles
import PhotosImaging
import PhotosModel

/// One problem `photos verify` found (SPEC §2 invariants, and SPEC §6 for thumbnails).
public struct VerifyProblem: Equatable, Sendable {
    /// What is wrong, as a matchable value (its raw value is the `kind` of `--json` and of the
    /// printed line).
    public struct Kind: RawRepresentable, Hashable, Comparable, Sendable, ExpressibleByStringLiteral,
        CustomStringConvertible
    {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(stringLiteral value: String) { rawValue = value }
        public var description: String { rawValue }
        public static func < (a: Kind, b: Kind) -> Bool { a.rawValue < b.rawValue }

        /// A PhotoData row's file is gone (invariant 1).
        public static let missingFile: Kind = "missing-file"
        /// A PhotoData row's file cannot be checked or read (a permission or I/O error, not
        /// ENOENT), or a folder of external data cannot be listed. Never repaired: the file
        /// may well be intact, so `--repair` must not take it for missing.
        public static let unreadableFile: Kind = "unreadable-file"
        /// A PhotoData row's file has another size than recorded.
        public static let sizeMismatch: Kind = "size-mismatch"
        /// A PhotoData row's file has another SHA-256 than recorded.
        public static let hashMismatch: Kind = "hash-mismatch"
        /// A file in external data that no row references (invariant 2).
        public static let orphanFile: Kind = "orphan-file"
        /// A leftover temporary file in external data.
        public static let temporaryFile: Kind = "temporary-file"
        /// A photo without its PhotoData row.
        public static let missingPhotoData: Kind = "missing-photo-data"
        /// A photo without its thumbnail.
        public static let missingThumbnail: Kind = "missing-thumbnail"
        /// A thumbnail that is not a sound JPEG of its recorded size (`ThumbnailCheck`).
        public static let damagedThumbnail: Kind = "damaged-thumbnail"
        /// The store's own integrity check (SQLite's `integrity_check` pragma; invariant 3).
        public static let integrity: Kind = "integrity"
        /// A foreign key pointing nowhere (SQLite's `foreign_key_check` pragma; invariant 3).
        public static let foreignKey: Kind = "foreign-key"
        /// A tag link across zones (invariant 4).
        public static let crossZone: Kind = "cross-zone"
        /// A PhotoData row whose file reference is not the content address of its SHA-256
        /// (`ab/abcdef…`), which orphan detection and re-import rely on (SPEC §2).
        public static let badFileReference: Kind = "bad-file-reference"
        /// A tag name that is not what `TagName.normalize` makes (trimmed, NFC, no control
        /// characters), which find-or-create and `dedupe-tags` rely on (SPEC §3).
        public static let badTagName: Kind = "bad-tag-name"
        /// A tag uuid that is not a lowercase canonical UUID, whose string order `dedupe-tags`
        /// takes for byte order (SPEC §5).
        public static let badTagUUID: Kind = "bad-tag-uuid"
        /// Several photos with the same SHA-256: import and merge rely on one photo per
        /// original's bytes ("same bytes = same photo", SPEC §5); a duplicate arrives only from
        /// outside writes. Never repaired: which photo's tags, ratings and zone to keep is the
        /// user's decision (`photos delete` the one not wanted).
        public static let duplicatePhoto: Kind = "duplicate-photo"
        /// A displayName no file can have (empty, a NUL byte, a `/`, `.` or `..`): import takes
        /// it from the file name, and export and `list` show it (a NUL cut it short). Never
        /// repaired: the original name is not known.
        public static let badDisplayName: Kind = "bad-display-name"
        /// Photos whose uniqueNames differ only in case: one UUID (RFC 9562 §4: hex digits
        /// are case-insensitive), so prefixes, sidecars and merges cannot tell them apart, and
        /// their sidecars collide on a case-insensitive file system. Never repaired: which
        /// photo keeps the identity is the user's decision (`photos delete` the other).
        public static let uniqueNameCase: Kind = "unique-name-case"
        /// One author with two or more ratings of one photo (authors compared trimmed and NFC,
        /// as `--author` is), where `rate` keeps one per author (SPEC, ratings): only outside
        /// writes make it. Never repaired: which value the author meant is theirs to say
        /// (`photos rating delete` the unwanted one, or `photos rate` again).
        public static let duplicateAuthorRating: Kind = "duplicate-author-rating"
    }

    public var kind: Kind
    /// What the problem is about, as a value: repairs and the notes on them are matched by it,
    /// never by the wording of `detail`.
    public var subject: VerifySubject
    /// One line naming the photo (uniqueName and displayName), file or row.
    public var detail: String
    /// What `--repair` does about it (and `--repair --dry-run` says it would do); nil when
    /// verify cannot repair it.
    public var repair: VerifyRepair?
    /// True when `--repair` fixed it.
    public var repaired: Bool = false

    public init(kind: Kind, subject: VerifySubject, detail: String, repair: VerifyRepair? = nil, repaired: Bool = false)
    {
        self.kind = kind
        self.subject = subject
        self.detail = detail
        self.repair = repair
        self.repaired = repaired
    }

    /// `{"kind":"…","detail":"…","repair":"…"|null,"repaired":B}`.
    public var json: JSONValue {
        .object([
            ("kind", .string(kind.rawValue)), ("detail", .string(detail)), ("repair", .optional(repair?.description)),
            ("repaired", .bool(repaired))
        ])
    }
}

/// What a `VerifyProblem` is about.
public enum VerifySubject: Hashable, Sendable {
    /// A photo, by uniqueName and displayName.
    case photo(PhotoName)
    /// A photo known by uniqueName only (its displayName is what is wrong).
    case photoNamed(String)
    /// Photos that share one original's SHA-256.
    case photos(sha256: String, [PhotoName])
    /// A file of external data (`ab/abcdef…`).
    case file(reference: String)
    /// A folder of (or the) external data folder, by path.
    case folder(String)
    /// A tag.
    case tag(uuid: String, name: String, zone: String)
    /// A row of a table, by its row id (a dangling foreign key).
    case row(table: String, rowID: Int64)
    /// The database as a whole (its own integrity check).
    case database

    /// The photo's uniqueName, for the subjects that are one photo.
    public var photoUniqueName: String? {
        switch self {
        case .photo(let photo): return photo.uniqueName
        case .photoNamed(let name): return name
        default: return nil
        }
    }
}

/// One change `photos verify --repair` makes, planned before anything is changed, so that
/// `--repair --dry-run` lists exactly what `--repair` would do.
public enum VerifyRepair: Hashable, Sendable, CustomStringConvertible {
    /// Remove a file of external data that no row references (`ab/abcdef…`).
    case removeFile(reference: String)
    /// Delete a photo whose original is gone, with what goes with it (counts when planned).
    case deletePhoto(uniqueName: String, displayName: String, ratings: Int, tags: Int, zone: String)
    /// Make the thumbnail again from the original, through the import's `Thumbnailer`.
    case regenerateThumbnail(uniqueName: String, displayName: String)
    /// Point a PhotoData row at the content address of its SHA-256, where its file is.
    case fixFileReference(uniqueName: String, displayName: String, from: String, to: String)
    /// Move a tag link that crosses zones to the same-named tag of the photo's zone (created
    /// when absent; the smallest uuid when several), as `share add` and `merge` relink tags.
    case relinkTag(uniqueName: String, displayName: String, tagUUID: String, tagName: String, zone: String)
    /// Store a tag's name in its normalized form (trimmed, NFC: `TagName.normalize`), merged as
    /// `dedupe-tags` merges with every tag of its zone of that name: the smallest uuid stays, the
    /// others' photos are re-pointed to it and they are deleted (#31 A9).
    case normalizeTagName(uuid: String, name: String, normalized: String, zone: String)

    /// One line saying what the repair does.
    public var description: String {
        switch self {
        case .removeFile(let reference):
            return "remove \(Library.externalDataName)/\(reference)"
        case let .deletePhoto(name, display, ratings, tags, zone):
            let share = zone == ZoneID.default.rawValue ? "" : ", leaving share \(zone)"
            return
                "delete photo \(name) (\(display)) with its \(ratings) rating\(ratings == 1 ? "" : "s") and \(tags) tag link\(tags == 1 ? "" : "s")\(share); re-importing the intact original restores it instead"
        case let .regenerateThumbnail(name, display):
            return "regenerate the thumbnail of photo \(name) (\(display)) from its original"
        case let .fixFileReference(name, display, from, to):
            return "point photo \(name) (\(display)) at its original \(to) instead of \(from)"
        case let .relinkTag(name, display, uuid, tagName, zone):
            return
                "link photo \(name) (\(display)) to the tag \(JSONValue.string(tagName).serialized()) of its zone \(zone) instead of \(uuid)"
        case let .normalizeTagName(uuid, name, normalized, zone):
            let scalars = { (s: String) in
                s.unicodeScalars.map { String(format: "U+%04X", $0.value) }.joined(separator: " ")
            }
            return
                "rename tag \(JSONValue.string(name).serialized()) (\(uuid), \(scalars(name))) in zone \(zone) to its normalized form \(JSONValue.string(normalized).serialized()) (\(scalars(normalized))), merged with the tags of that name (the smallest uuid stays)"
        }
    }
}

/// What `photos verify` checked and found.
public struct VerifyReport: Sendable {
    public var photos = 0
    public var files = 0
    /// Thumbnails checked.
    public var thumbnails = 0
    public var problems: [VerifyProblem] = []
    /// True for `--repair --dry-run`: the repairs were listed, not made.
    public var dryRun = false
    /// Files of external data no row references that verify (without `--repair`) did not judge
    /// because an import or merge held `import.lock` (`Library.importLockName`): they may be
    /// its written but uncommitted originals. Not problems; 0 when no import or merge ran.
    public var filesNotChecked = 0
    /// True when no unrepaired problem remains.
    public var isClean: Bool { problems.allSatisfy(\.repaired) }
    /// The repairs planned (made unless `dryRun`), in order, without duplicates.
    public var repairs: [VerifyRepair] {
        var seen = Set<VerifyRepair>()
        return problems.compactMap(\.repair).filter { seen.insert($0).inserted }
    }

    public var json: JSONValue {
        .object([
            ("photos", .int(photos)), ("files", .int(files)), ("thumbnails", .int(thumbnails)),
            ("problems", .int(problems.filter { !$0.repaired }.count)),
            ("repaired", .int(problems.filter(\.repaired).count)), ("clean", .bool(isClean)), ("dryRun", .bool(dryRun)),
            ("notChecked", .int(filesNotChecked)),
            ("details", .array(problems.map(\.json)))
        ])
    }
}

extension Library {
    /// Where verify reads its checks and writes its repairs.
    var verifyStore: any VerifyStore { store }

    /// How verify names a photo: its uniqueName and, in parentheses, its displayName.
    static func describePhoto(_ uniqueName: String, _ displayName: String) -> String {
        "photo \(uniqueName) (\(displayName))"
    }

    /// Checks the SPEC §2 invariants: every PhotoData file exists with its recorded size and
    /// SHA-256 (hashing skipped when `quick`), no file in external data lacks a row (orphan),
    /// the store's `integrity_check` (`quick_check` when `quick`) and `foreign_key_check` are clean, no tag link crosses zones;
    /// and SPEC §6: every photo has a thumbnail that is a sound JPEG of its recorded size, at
    /// most 120 pixels on the long edge (`ThumbnailCheck.problem`, which decodes it; when `quick`,
    /// `ThumbnailCheck.structure` on the head the store cuts out: no decode, so damaged scan data
    /// goes unseen).
    ///
    /// The checks, hashing included, run in one read transaction (a WAL snapshot), so imports
    /// and other writers go on meanwhile. Each problem carries the repair planned for it
    /// (`VerifyRepair`). With `repair`, the planned repairs are made: orphan and leftover
    /// temporary files are removed, damaged or missing thumbnails are regenerated from intact
    /// originals (a Thumbnail update or insert in history), and photos whose original is gone
    /// are deleted; history author `verify` unless `--author`, context `verify --repair`. The
    /// orphan removal re-reads the rows under the write lock and the exclusive import lock, so
    /// an import's written-but-uncommitted original is never taken for an orphan. An original
    /// that cannot be checked (stat(2) fails with another errno than ENOENT/ENOTDIR: EACCES,
    /// EIO) is `unreadableFile`, never missing, so `--repair` deletes no such photo.
    ///
    /// With `repair` and `dryRun` (or on a library in dry-run mode, `Library.dryRun`), the same
    /// repair code runs with every transaction rolled back and no file removed; the report
    /// lists the planned repairs (`dryRun` true, none marked repaired), with a note on those a
    /// real run could not make now.
    /// `progress` is called on the calling thread after each recorded original is checked, with
    /// (originals checked, originals in all, bytes of those originals).
    /// - Throws: `LibraryError.busy` when busy, `LibraryError` or `SQLiteError` from the store; `Interrupted<VerifyReport>` when an
    ///   error stops `--repair` after some repairs were made (they stay made; the report marks
    ///   them repaired).
    ///
    /// The SHA-256 of the originals is computed by `jobs` threads (`--jobs`, at least 1;
    /// default the number of cores), each taking the next original; the problems are reported
    /// in the same order whatever `jobs` is.
    public func verify(
        quick: Bool = false, repair: Bool = false, dryRun: Bool = false,
        author: HistoryAuthor = .default, jobs: Int = ProcessInfo.processInfo.activeProcessorCount,
        progress: ((_ done: Int, _ total: Int, _ bytes: Int64) -> Void)? = nil
    ) throws -> VerifyReport {
        try self.dryRun(repair && dryRun) {
            try verifyLibrary(
                quick: quick, repair: repair, author: author, jobs: jobs, snapshotReaders: 3, progress: progress)
        }
    }

    /// `verify` with `snapshotReaders` connections beside the library's for the thumbnails'
    /// checks and the catalog's two parts (0: every check on the library's connection, in turn;
    /// 1: the thumbnails' on the one reader; 2: and the store's own checks on the other), for
    /// tests that compare the reports.
    /// - Throws: as `verify`.
    func verify(quick: Bool, jobs: Int, snapshotReaders: Int) throws -> VerifyReport {
        try verifyLibrary(
            quick: quick, repair: false, author: .default, jobs: jobs, snapshotReaders: snapshotReaders,
            progress: nil)
    }

    /// Thumbnails `verify` reads before checking them on its threads (at most about
    /// 256 × 30 KB in memory).
    static let thumbnailChunk = 256

    /// Recorded originals `verify` reads before stat(2) of their files on its threads.
    static let originalChunk = 1024

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
    /// report, and what to say.
    private struct PendingHash {
        var position: Int
        var original: RecordedOriginal
        var path: String
    }

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

    private func verifyLibrary(
        quick: Bool, repair: Bool, author: HistoryAuthor, jobs: Int, snapshotReaders: Int,
        progress: ((Int, Int, Int64) -> Void)?
    ) throws -> VerifyReport {
        // Repairs remove and judge originals: not while the catalog's originals root is not
        // mounted here, not the catalog's, or not writable (issue 31 item A3).
        if repair { try requireOriginalsRoot() }
        var report = VerifyReport()
        report.dryRun = repair && isDryRun
        var missingOriginal = Set<String>()
        try store.readTransaction {
            // The thumbnails' checks and the catalog's, in two parts, run on three more
            // connections in this transaction's snapshot (`VerifyStore.openSnapshotReaders`),
            // each on its own thread, while this thread checks the originals' files: on
            // PostgreSQL the server runs their statements meanwhile, on SQLite their reads of
            // the file overlap (quick_check alone reads all of it). Without such connections they
            // run here, in turn. Their problems are put where the one-connection order puts them:
            // the catalog's first, the thumbnails' after the originals' and before the orphans'.
            let readers = try self.verifyStore.openSnapshotReaders(count: snapshotReaders)
            let thumbnailChecks = VerifyTask(reader: readers.first) { store in
                try Library.checkThumbnails(store, quick: quick, jobs: jobs)
            }
            let storageChecks = VerifyTask(reader: readers.dropFirst().first) { store in
                try Library.checkStorage(store, thorough: !quick)
            }
            let rowChecks = VerifyTask(reader: readers.dropFirst(2).first) { store in
                try Library.checkCatalogRows(store)
            }
            defer {
                thumbnailChecks.wait()
                storageChecks.wait()
                rowChecks.wait()
            }
            // Counted first (the same snapshot), then read one row at a time, the files of each
            // chunk hashed before the next is read: memory keeps a chunk, the problems and the
            // references of the rows that have one, not every row or reference of the catalog
            // (issue 31 item A11). The references of sound rows (each the content address of its
            // SHA-256) are read again shard by shard for the orphan check, below.
            let total = try self.verifyStore.recordedOriginalCount()
            report.photos = try self.verifyStore.photoCount()
            // The references of rows whose reference is not their SHA-256's content address:
            // that reference and that address (both count as referenced, as for every row).
            var unusual = VerifyReferences()
            // The shards (0x00...0xff) that hold a sound row's original.
            var usedShards = [Bool](repeating: false, count: 256)
            var checked = 0
            var bytesChecked: Int64 = 0
            var pendingHashes: [PendingHash] = []
            // The `photo_data` row of each problem in `report.problems` (so far all the
            // originals'): the store may read the rows in another order than their ids
            // (`VerifyStore.forEachRecordedOriginal`); the problems are reported in row order.
            var problemRows: [Int64] = []
            // Each original against what stat(2) found at its content address (`found`).
            func checkOriginal(_ original: RecordedOriginal, _ found: FileStatus) {
                // A file to hash counts when its hash is done (below); every other row now.
                let queuedBefore = pendingHashes.count
                let problemsBefore = report.problems.count
                defer {
                    problemRows += repeatElement(original.rowID, count: report.problems.count - problemsBefore)
                    if pendingHashes.count == queuedBefore {
                        checked += 1
                        bytesChecked += Int64(original.byteSize)
                        progress?(checked, total, bytesChecked)
                    }
                }
                let (name, display, sha, size, ref, zone) = (
                    original.photo.uniqueName, original.photo.displayName, original.sha256,
                    original.byteSize, original.fileReference, original.zone
                )
                // Built only for a problem: most of a million rows have none.
                var photo: String { Library.describePhoto(name, display) }
                // Originals are content-addressed: the reference is the SHA-256's (SPEC §2);
                // orphan detection and re-import rely on it. `found.isHex`: fileStatus checked
                // the SHA-256's digits already.
                let isHex = found.isHex
                guard isHex, Library.isContentAddress(ref, of: sha) else {
                    let address = ExternalDataStore.reference(for: sha)
                    unusual.insert(ref)
                    unusual.insert(address)
                    let there = isHex && found.error == 0 && found.size == size
                    if !there { missingOriginal.insert(name) }
                    report.problems.append(
                        VerifyProblem(
                            kind: .badFileReference, subject: .photo(original.photo),
                            detail:
                                "\(photo): original is recorded as \(ref), but its SHA-256 \(sha) says \(isHex ? address : "(not lowercase hex)")",
                            repair: there
                                ? .fixFileReference(uniqueName: name, displayName: display, from: ref, to: address)
                                : nil))
                    return
                }
                usedShards[Library.shardIndex(ofHex: sha)] = true
                let heal = "; re-import the intact file to restore it"
                guard found.error == 0 else {
                    // Missing only when the system says so; a permission or I/O error is not a
                    // reason for --repair to delete the photo.
                    if found.error != ENOENT && found.error != ENOTDIR {
                        report.problems.append(
                            VerifyProblem(
                                kind: .unreadableFile, subject: .photo(original.photo),
                                detail:
                                    "\(photo): original \(ref) cannot be checked: \(String(cString: strerror(found.error)))"
                            ))
                        return
                    }
                    missingOriginal.insert(name)
                    report.problems.append(
                        VerifyProblem(
                            kind: .missingFile, subject: .photo(original.photo),
                            detail: "\(photo): original \(ref) is missing\(heal)",
                            // Its ratings and tag links are counted after the scan.
                            repair: .deletePhoto(
                                uniqueName: name, displayName: display, ratings: 0, tags: 0, zone: zone)))
                    return
                }
                if found.mode & S_IFMT != S_IFREG {
                    missingOriginal.insert(name)
                    report.problems.append(
                        VerifyProblem(
                            kind: .sizeMismatch, subject: .photo(original.photo),
                            detail:
                                "\(photo): original \(ref) is not a regular file (\(found.mode & S_IFMT == S_IFDIR ? "a folder" : "a special file")), recorded \(size) bytes\(heal)"
                        ))
                    return
                }
                if found.size != size {
                    missingOriginal.insert(name)
                    report.problems.append(
                        VerifyProblem(
                            kind: .sizeMismatch, subject: .photo(original.photo),
                            detail: "\(photo): original \(ref) has \(found.size) bytes, recorded \(size)\(heal)"))
                    return
                }
                if !quick {
                    pendingHashes.append(
                        PendingHash(
                            position: report.problems.count, original: original, path: self.externalData.path(for: ref))
                    )
                }
            }
            // Read in chunks; each chunk's stat(2) calls made by `jobs` threads, relative to the
            // shard folders' descriptors (no path built, the folders' paths not walked again),
            // then checked here in row order.
            let folder = open(self.externalData.root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            let shards = folder >= 0 ? ShardFolders(in: folder) : nil
            if folder >= 0 { close(folder) }
            let dataRoot = self.externalData.root
            var rows: [RecordedOriginal] = []
            func checkRows() {
                let found = Library.concurrentMap(rows, jobs: jobs) {
                    Library.fileStatus(of: $0, in: shards, root: dataRoot)
                }
                for (original, status) in zip(rows, found) { checkOriginal(original, status) }
                rows.removeAll(keepingCapacity: true)
            }
            // The files of the chunk checked last, hashed by `jobs` threads; each problem goes
            // where the serial loop would have put it (inserted from the last, so the earlier
            // positions stay right). In parts, so that the progress display moves as the hashes
            // are done.
            func hashPending() throws {
                var hashes: [Result<String, Error>] = []
                hashes.reserveCapacity(pendingHashes.count)
                let hashChunk = max(1, jobs) * 16
                for first in stride(from: 0, to: pendingHashes.count, by: hashChunk) {
                    try StopSignal.check() // a read: nothing to clean up
                    let part = pendingHashes[first..<min(first + hashChunk, pendingHashes.count)]
                    hashes += Library.hashFiles(part.map(\.path), jobs: jobs)
                    for pending in part {
                        checked += 1
                        bytesChecked += Int64(pending.original.byteSize)
                    }
                    progress?(checked, total, bytesChecked)
                }
                for (pending, hash) in zip(pendingHashes, hashes).reversed() {
                    let original = pending.original
                    let (sha, ref) = (original.sha256, original.fileReference)
                    let photo = Library.describePhoto(original.photo.uniqueName, original.photo.displayName)
                    switch hash {
                    case .success(let actual) where actual != sha:
                        missingOriginal.insert(original.photo.uniqueName)
                        problemRows.insert(original.rowID, at: pending.position)
                        report.problems.insert(
                            VerifyProblem(
                                kind: .hashMismatch, subject: .photo(original.photo),
                                detail:
                                    "\(photo): original \(ref) has SHA-256 \(actual), recorded \(sha); re-import the intact file to restore it"
                            ), at: pending.position)
                    case .success: break
                    case .failure(let error):
                        problemRows.insert(original.rowID, at: pending.position)
                        report.problems.insert(
                            VerifyProblem(
                                kind: .unreadableFile, subject: .photo(original.photo),
                                detail: "\(photo): original \(ref) cannot be read: \(error)"), at: pending.position)
                    }
                }
                pendingHashes.removeAll(keepingCapacity: true)
            }
            try self.verifyStore.forEachRecordedOriginal { original in
                rows.append(original)
                if rows.count >= Library.originalChunk {
                    checkRows()
                    try hashPending()
                }
            }
            checkRows()
            try hashPending()
            // In row order; one row's problems in the order they were found.
            report.problems = Library.inRowOrder(report.problems, rows: problemRows)
            // What the deletion of each photo whose original is missing takes along, asked for
            // those photos only.
            let deletions = report.problems.indices.filter {
                if case .deletePhoto? = report.problems[$0].repair { return true } else { return false }
            }
            if !deletions.isEmpty {
                let counts = try self.verifyStore.ratingAndTagLinkCounts(
                    ofPhotos: deletions.compactMap { report.problems[$0].subject.photoUniqueName })
                for i in deletions {
                    guard case let .deletePhoto(name, display, _, _, zone)? = report.problems[i].repair else {
                        continue
                    }
                    let count = counts[name] ?? (0, 0)
                    report.problems[i].repair = .deletePhoto(
                        uniqueName: name, displayName: display, ratings: count.ratings, tags: count.tagLinks, zone: zone
                    )
                }
            }
            var withoutData: [String] = []
            for (name, display) in try self.verifyStore.photosWithoutOriginal().map({ ($0.uniqueName, $0.displayName) })
            {
                withoutData.append(Library.describePhoto(name, display))
                report.problems.append(
                    VerifyProblem(
                        kind: .missingPhotoData, subject: .photo(PhotoName(uniqueName: name, displayName: display)),
                        detail: "\(Library.describePhoto(name, display)) has no PhotoData row"))
            }
            // The folders of the references (each reference's part before its last '/'), found
            // without building a path per reference: there are far fewer folders than files.
            unusual.sortForLookups()
            var folderNames = unusual.folders
            let hexDigits = Array("0123456789abcdef".utf8)
            for shard in 0..<256 where usedShards[shard] {
                folderNames.insert(
                    Substring(String(decoding: [hexDigits[shard >> 4], hexDigits[shard & 15]], as: UTF8.self)))
            }
            let root = self.externalData.root
            let folders = [root] + folderNames.map({ $0.isEmpty ? root + "/" : root + "/" + $0 }).sorted()
            for folder in folders {
                var fst = stat()
                if folder == self.externalData.root && stat(folder, &fst) != 0 {
                    report.problems.append(
                        VerifyProblem(
                            kind: .unreadableFile, subject: .folder(folder),
                            detail: "the external data folder \(folder) is missing: \(String(cString: strerror(errno)))"
                        ))
                } else if lstat(folder, &fst) == 0 && stat(folder, &fst) == 0 && fst.st_mode & S_IFMT != S_IFDIR {
                    report.problems.append(
                        VerifyProblem(
                            kind: .unreadableFile, subject: .folder(folder), detail: "\(folder) is not a folder"))
                } else if access(folder, F_OK) == 0 && access(folder, R_OK | X_OK) != 0 {
                    // Its files cannot be listed: orphans there would go unseen.
                    report.problems.append(
                        VerifyProblem(
                            kind: .unreadableFile, subject: .folder(folder),
                            detail: "\(folder) cannot be listed: \(String(cString: strerror(errno)))"))
                }
            }
            // Listed without a String per file (`forEachFile`), a folder at a time: before a
            // shard's files, the SHA-256s of that shard's recorded originals are read (a range
            // of the sha256 index), so memory holds one shard's references, not the catalog's
            // (issue 31 item A11). A file is referenced when it is the content address of a
            // row's SHA-256 (that is every sound row's reference) or an unusual reference. Only
            // the unreferenced ones are named, then put in the order of `allReferences`
            // (folder, then name).
            var unreferenced: [(shard: String, name: String?)] = []
            var shardReferences = VerifyReferences()
            var loadedShard: String?
            var shardError: (any Error)?
            report.files = self.externalData.forEachFile { shard, name in
                if let name {
                    if shard != loadedShard {
                        loadedShard = shard
                        shardReferences = VerifyReferences()
                        // Only a two-lowercase-hex-digit folder holds content addresses.
                        if shardError == nil, Library.isShardName(shard) {
                            do {
                                try self.verifyStore.forEachRecordedSHA256(inShard: shard) {
                                    shardReferences.insert(sha256: $0)
                                }
                            } catch {
                                shardError = error
                            }
                        }
                        shardReferences.sortForLookups()
                    }
                    if !shardReferences.contains(shard: shard, name: name),
                        !unusual.contains(shard: shard, name: name)
                    {
                        unreferenced.append((shard, String(decoding: name, as: UTF8.self)))
                    }
                } else if !unusual.contains(topLevel: shard) {
                    unreferenced.append((shard, nil))
                }
            }
            if let shardError { throw shardError }
            unreferenced.sort { (a: (shard: String, name: String?), b: (shard: String, name: String?)) -> Bool in
                if a.shard != b.shard { return a.shard < b.shard }
                return (a.name ?? "") < (b.name ?? "")
            }
            var orphans: [VerifyProblem] = []
            for (shard, name) in unreferenced {
                let ref = name.map { shard + "/" + $0 } ?? shard
                let temporary = PathName.lastComponent(ref).hasPrefix(ExternalDataStore.temporaryPrefix)
                // While a photo has lost its PhotoData row, an unreferenced original may be the
                // only copy of its bytes: reported, never removed (never delete good data).
                let keep = !temporary && !withoutData.isEmpty
                orphans.append(
                    VerifyProblem(
                        kind: temporary ? .temporaryFile : .orphanFile, subject: .file(reference: ref),
                        detail: "\(Library.externalDataName)/\(ref) is not referenced by any photo"
                            + (keep
                                ? " (kept: it may be the original of \(withoutData.count == 1 ? withoutData[0] : "one of \(withoutData.count) photos"), which \(withoutData.count == 1 ? "has" : "have") no PhotoData row)"
                                : ""),
                        repair: keep ? nil : .removeFile(reference: ref)))
            }
            let thumbnails = try thumbnailChecks.value(fallback: self.verifyStore)
            report.thumbnails = thumbnails.checked
            report.problems += thumbnails.problems + orphans
            let catalog =
                try storageChecks.value(fallback: self.verifyStore) + rowChecks.value(fallback: self.verifyStore)
            report.problems.insert(contentsOf: catalog, at: 0)
        }
        // The folders were listed after the snapshot was taken: an import or merge that
        // committed in between has its originals there and its rows outside the snapshot. Each
        // unreferenced file is looked up again in the catalog as it is now (the last commit);
        // one referenced now, or gone since, is no orphan.
        let recheck = report.problems.indices.filter {
            report.problems[$0].kind == .orphanFile || report.problems[$0].kind == .temporaryFile
        }
        if !recheck.isEmpty {
            // An import or merge holds the import lock shared while it writes originals it has
            // not committed yet: verify alone judges unreferenced files only while it holds
            // that lock exclusively (asked without waiting, held while it decides, so none
            // starts meanwhile); when one runs, they are counted as not checked, no problem.
            // (`--repair` asks again before it removes any, in `makeRepairs`.)
            var importLock: Int32?
            var importRunning = false
            if !repair {
                switch probeImportLock() {
                case .free(let fd): importLock = fd
                case .held: importRunning = true
                case .unknown: break
                }
            }
            defer { if let importLock { close(importLock) } }
            var settled = Set<Int>()
            do {
                for i in recheck {
                    guard case .file(let ref) = report.problems[i].subject else { continue }
                    var st = stat()
                    if lstat(externalData.path(for: ref), &st) != 0 && errno == ENOENT {
                        settled.insert(i)
                    } else if report.problems[i].kind == .orphanFile, try referencesFile(ref) {
                        settled.insert(i)
                    }
                }
            } catch {
                throw LibraryError.wrap(error, library: root)
            }
            if importRunning {
                let unjudged = recheck.filter { !settled.contains($0) }
                report.filesNotChecked = unjudged.count
                settled.formUnion(unjudged)
            }
            report.problems = report.problems.indices.filter { !settled.contains($0) }.map { report.problems[$0] }
        }
        // Never forget every photo at once: when the external data folder is missing or not a
        // folder (an unmounted disk, a moved folder), or no original at all is there while
        // several are recorded, the originals are not gone but out of reach; deleting the photos
        // would lose their tags, ratings and shares for good. Reported, not repaired.
        var st = stat()
        let rootIsFolder = stat(externalData.root, &st) == 0 && st.st_mode & S_IFMT == S_IFDIR
        let missingCount = report.problems.filter { $0.kind == .missingFile }.count
        let noneThere = missingCount > 1 && (try? verifyStore.recordedOriginalCount()) == missingCount
        if !rootIsFolder || noneThere {
            let why =
                !rootIsFolder
                ? "the external data folder \(externalData.root) is missing or not a folder"
                : "none of the \(missingCount) originals is in \(externalData.root)"
            for i in report.problems.indices {
                if case .deletePhoto? = report.problems[i].repair {
                    report.problems[i].repair = nil
                    report.problems[i].detail +=
                        " (not repaired: \(why); mount or restore it, or delete the photos with 'photos delete')"
                }
            }
        }
        // A catalog that several library folders have opened (issue 31 item A3): an original
        // not visible from here may be visible from another machine (a mount that differs, a
        // copy not finished): never a reason to delete the photo. Reported, not repaired.
        if originals.isShared {
            let who =
                originals.folders > 1
                ? "the catalog is shared by \(originals.folders) library folders"
                : "the catalog may be shared by library folders that opened it before photos recorded them"
            for i in report.problems.indices {
                if case .deletePhoto? = report.problems[i].repair {
                    report.problems[i].repair = nil
                    report.problems[i].detail +=
                        " (not repaired: \(who), and an original not visible from here may be visible from another; restore it into \(originals.root), or delete the photo with 'photos delete')"
                }
            }
        }
        // A thumbnail cannot be made again from an original that is gone or damaged; when the
        // photo is to be deleted, that deletion is the thumbnail's repair too.
        var deletion: [VerifySubject: VerifyRepair] = [:]
        for problem in report.problems {
            if case .deletePhoto? = problem.repair { deletion[problem.subject] = problem.repair }
        }
        for i in report.problems.indices {
            if case .regenerateThumbnail? = report.problems[i].repair,
                let name = report.problems[i].subject.photoUniqueName,
                missingOriginal.contains(name)
            {
                report.problems[i].repair = deletion[report.problems[i].subject]
                report.problems[i].detail += " (its original is missing or damaged, so it cannot be made again)"
            }
        }
        guard repair else { return report }
        var done = RepairOutcome()
        func apply() {
            for i in report.problems.indices {
                guard let planned = report.problems[i].repair else { continue }
                if done.made.contains(planned) {
                    // A dry run's repairs were rolled back: listed as "would repair", not repaired.
                    if !isDryRun { report.problems[i].repaired = true }
                } else if let note = done.notes[planned] {
                    report.problems[i].detail += " (\(note))"
                }
            }
        }
        do {
            try makeRepairs(report.repairs, author: author, outcome: &done)
        } catch {
            // What was made before the error stays made (a dry run made nothing): say so with
            // the error (issue 9 item 9).
            apply()
            let e = LibraryError.wrap(error, library: root)
            if !isDryRun && !done.made.isEmpty { throw Interrupted(report: report, error: e) }
            throw e
        }
        apply()
        return report
    }

    /// What `makeRepairs` did: the repairs made, and why the others were not.
    struct RepairOutcome {
        var made = Set<VerifyRepair>()
        var notes: [VerifyRepair: String] = [:]
    }

    /// Makes the planned repairs: file removals, then file references, thumbnails, and photo
    /// deletions, each step in its own transaction. `outcome` holds what was made (committed,
    /// or in a dry run: made and rolled back) when a step throws.
    private func makeRepairs(_ repairs: [VerifyRepair], author: HistoryAuthor, outcome: inout RepairOutcome) throws {
        var orphans: [String] = []
        var thumbnails: [String] = []
        var deletions: [String] = []
        var references: [VerifyRepair] = []
        var relinks: [VerifyRepair] = []
        var tagNames: [VerifyRepair] = []
        for r in repairs {
            switch r {
            case .normalizeTagName: tagNames.append(r)
            case .relinkTag: relinks.append(r)
            case .fixFileReference: references.append(r)
            case .removeFile(let ref): orphans.append(ref)
            case .regenerateThumbnail(let name, _): thumbnails.append(name)
            case .deletePhoto(let name, _, _, _, _): deletions.append(name)
            }
        }
        if !orphans.isEmpty {
            // A running import's written-but-uncommitted originals look like orphans: remove
            // orphans only while no import holds the import lock, and only those still
            // unreferenced under the write lock.
            let importLock = lockImports(exclusive: true)
            defer { if let importLock { close(importLock) } }
            if importLock != nil {
                try write {
                    for ref in orphans where !isReferenced(fileReference: ref) {
                        let code = externalData.removeFile(reference: ref)
                        if code == 0 || code == ENOENT || code == ENOTDIR {
                            // Removed, or gone already: either way no orphan is left.
                            outcome.made.insert(.removeFile(reference: ref))
                        } else {
                            outcome.notes[.removeFile(reference: ref)] =
                                "left in place: \(ExternalDataStore.removalFailure(code))\(code == EISDIR ? "; remove it yourself if it is not wanted" : "")"
                        }
                    }
                }
            } else {
                for ref in orphans {
                    outcome.notes[.removeFile(reference: ref)] =
                        "left in place: an import is running and may still commit it; repair again later"
                }
            }
        }
        if !tagNames.isEmpty { try normalizeTagNames(tagNames, author: author, outcome: &outcome) }
        try StopSignal.check() // between the steps: each is committed or not begun (issue 31 item 19)
        if !relinks.isEmpty {
            let relinked: [VerifyRepair] = try write {
                var history = HistoryWriter(self, author: author, context: .verifyRepair)
                var done: [VerifyRepair] = []
                for case let .relinkTag(name, _, uuid, tagName, zone) in relinks {
                    guard
                        let target = try verifyStore.relinkTag(
                            photo: name, zone: zone, from: uuid, toTagNamed: tagName,
                            newUUID: newObjectUUID())
                    else { continue }
                    if target.createdTag { history.insert(.tag(uuid: target.uuid), zone: zone) }
                    // A tag link is an update of `tags` on the Photo, as `tag add`/`tag remove` record it.
                    history.update(.photo(uniqueName: name), ["tags"], zone: zone)
                    done.append(
                        contentsOf: relinks.filter {
                            if case .relinkTag(name, _, uuid, _, _) = $0 { return true } else { return false }
                        })
                }
                try history.commit()
                return done
            }
            outcome.made.formUnion(relinked)
        }
        try StopSignal.check() // between the steps: each is committed or not begun (issue 31 item 19)
        if !references.isEmpty {
            let fixed: [VerifyRepair] = try write {
                var history = HistoryWriter(self, author: author, context: .verifyRepair)
                var fixed: [VerifyRepair] = []
                for case let .fixFileReference(name, display, from, to) in references {
                    guard let zone = try verifyStore.replaceFileReference(photo: name, from: from, to: to) else {
                        continue
                    }
                    history.update(.photoData(photo: name), ["fileReference"], zone: zone)
                    fixed.append(.fixFileReference(uniqueName: name, displayName: display, from: from, to: to))
                }
                try history.commit()
                return fixed
            }
            outcome.made.formUnion(fixed)
        }
        try StopSignal.check() // between the steps: each is committed or not begun (issue 31 item 19)
        if !thumbnails.isEmpty {
            // Made outside the write lock (decoding takes time), written in one transaction.
            var made: [(name: String, display: String, result: ThumbnailResult)] = []
            for name in thumbnails {
                guard let photo = try? resolvePhoto(name) else { continue }
                let key = VerifyRepair.regenerateThumbnail(uniqueName: name, displayName: photo.displayName)
                do {
                    // From the content address of its SHA-256: where the original is, also when
                    // the step above fixed its reference (and a dry run rolled that back).
                    let file = try ImageFile.read(
                        path: externalData.path(for: ExternalDataStore.reference(for: photo.sha256)),
                        maxBytes: ThumbnailOptions().maxFileBytes)
                    guard file.sha256 == photo.sha256 else {
                        outcome.notes[key] = "its original does not match its SHA-256; re-import the intact file"
                        continue
                    }
                    let result = try file.bytes.withUnsafeBytes {
                        try Thumbnailer.makeThumbnail(from: $0, options: ThumbnailOptions())
                    }
                    made.append((name, photo.displayName, result))
                } catch {
                    outcome.notes[key] = "cannot make it from the original: \(error)"
                }
            }
            let regenerated: [VerifyRepair] = try write {
                var history = HistoryWriter(self, author: author, context: .verifyRepair)
                var regenerated: [VerifyRepair] = []
                for item in made {
                    let r = item.result
                    guard
                        let stored = try verifyStore.storeThumbnail(
                            photo: item.name, data: r.thumbnail, width: r.thumbnailWidth,
                            height: r.thumbnailHeight)
                    else { continue }
                    if stored.inserted {
                        history.insert(.thumbnail(photo: item.name), zone: stored.zone)
                    } else {
                        history.update(.thumbnail(photo: item.name), ["data", "width", "height"], zone: stored.zone)
                    }
                    regenerated.append(.regenerateThumbnail(uniqueName: item.name, displayName: item.display))
                }
                try history.commit()
                return regenerated
            }
            outcome.made.formUnion(regenerated)
        }
        try StopSignal.check() // between the steps: each is committed or not begun (issue 31 item 19)
        if !deletions.isEmpty {
            // Delete only photos whose original is still missing now.
            let gone = deletions.compactMap { try? resolvePhoto($0) }.filter { photo in
                var st = stat()
                return stat(externalData.path(for: photo.fileReference), &st) != 0
                    && (errno == ENOENT || errno == ENOTDIR)
            }
            try deletePhotos(gone, author: author, context: .verifyRepair)
            for r in repairs {
                if case .deletePhoto(let name, _, _, _, _) = r {
                    if gone.contains(where: { $0.uniqueName == name }) {
                        outcome.made.insert(r)
                    } else {
                        outcome.notes[r] = "not deleted: its original is back"
                    }
                }
            }
        }
    }

    /// Why a stored thumbnail is not the one SPEC §6 promises for a photo of `photoWidth` ×
    /// `photoHeight` upright pixels: `ThumbnailCheck` on the bytes, then the size rule
    /// (`Thumbnailer.thumbnailSize`), so a sound JPEG of another photo is caught too.
    static func thumbnailProblem(_ data: [UInt8], width: Int, height: Int, photoWidth: Int, photoHeight: Int) -> String?
    {
        if let reason = ThumbnailCheck.problem(data, width: width, height: height) { return reason }
        return sizeProblem(width: width, height: height, photoWidth: photoWidth, photoHeight: photoHeight)
    }

    /// Why a thumbnail of `width` × `height` pixels is not the size a `photoWidth` ×
    /// `photoHeight` photo's thumbnail has (`Thumbnailer.thumbnailSize`, SPEC §6), or nil.
    static func sizeProblem(width: Int, height: Int, photoWidth: Int, photoHeight: Int) -> String? {
        let expected = Thumbnailer.thumbnailSize(
            width: photoWidth, height: photoHeight, maxEdge: ThumbnailOptions().maxEdge)
        guard expected.width == width, expected.height == height else {
            return
                "is \(width)×\(height) pixels, but a \(photoWidth)×\(photoHeight) photo's thumbnail is \(expected.width)×\(expected.height)"
        }
        return nil
    }

    /// `problems` sorted by `rows` (the row id of each, as many as `problems`), those of one row
    /// kept in their order (a stable sort).
    static func inRowOrder(_ problems: [VerifyProblem], rows: [Int64]) -> [VerifyProblem] {
        precondition(problems.count == rows.count, "a row id for each problem")
        let order = problems.indices.sorted { (rows[$0], $0) < (rows[$1], $1) }
        return order.map { problems[$0] }
    }

    /// Why a thumbnail fails `verify --quick`'s check, from its head: `ThumbnailCheck.structure`
    /// (a whole JPEG whose frame header gives its recorded size, no decode), then the size rule
    /// (`sizeProblem`). When the head ends before the frame header, the check runs on
    /// the whole thumbnail, read by `whole` (nil: it is gone meanwhile, no problem to report).
    /// - Throws: what `whole` throws.
    static func quickThumbnailProblem(_ thumb: ThumbnailHead, whole: () throws -> [UInt8]?) throws -> String? {
        var structure = ThumbnailCheck.structure(
            head: thumb.head[...], byteCount: thumb.byteCount, last: thumb.last[...], width: thumb.width,
            height: thumb.height)
        if structure == .needsMoreBytes {
            guard let data = try whole() else { return nil }
            structure = ThumbnailCheck.structure(
                head: data[...], byteCount: data.count, last: data.suffix(2), width: thumb.width, height: thumb.height)
        }
        if case .damaged(let reason) = structure { return reason }
        return sizeProblem(
            width: thumb.width, height: thumb.height, photoWidth: thumb.photoWidth, photoHeight: thumb.photoHeight)
    }

    /// The thumbnails' checks (SPEC §6) on `store`: photos without one, then each thumbnail in
    /// row order — decoded by `jobs` threads (`thumbnailProblem`), or when `quick` its head's
    /// structure only (`quickThumbnailProblem`). Returns the problems in that order and the
    /// number of thumbnails checked.
    /// - Throws: the store's error.
    static func checkThumbnails(_ store: any VerifyStore, quick: Bool, jobs: Int) throws -> (
        problems: [VerifyProblem], checked: Int
    ) {
        var problems: [VerifyProblem] = []
        var checked = 0
        for (name, display) in try store.photosWithoutThumbnail().map({ ($0.uniqueName, $0.displayName) }
        ) {
            problems.append(
                VerifyProblem(
                    kind: .missingThumbnail, subject: .photo(PhotoName(uniqueName: name, displayName: display)),
                    detail: "\(Library.describePhoto(name, display)) has no thumbnail",
                    repair: .regenerateThumbnail(uniqueName: name, displayName: display)))
        }
        // Counts a checked thumbnail, and reports it when `reason` says what is wrong with it.
        func checkedThumbnail(of photo: PhotoName, _ reason: String?) {
            checked += 1
            guard let reason else { return }
            let (name, display) = (photo.uniqueName, photo.displayName)
            problems.append(
                VerifyProblem(
                    kind: .damagedThumbnail, subject: .photo(photo),
                    detail: "\(Library.describePhoto(name, display)): thumbnail \(reason)",
                    repair: .regenerateThumbnail(uniqueName: name, displayName: display)))
        }
        // Read in chunks of `thumbnailChunk` rows (thumbnails are never all in memory), each
        // chunk decoded by `jobs` threads; the problems keep the rows' order.
        var chunk: [RecordedThumbnail] = []
        func checkChunk() {
            let reasons = Library.concurrentMap(chunk, jobs: jobs) { thumb in
                Library.thumbnailProblem(
                    thumb.data, width: thumb.width, height: thumb.height,
                    photoWidth: thumb.photoWidth, photoHeight: thumb.photoHeight)
            }
            for (thumb, reason) in zip(chunk, reasons) { checkedThumbnail(of: thumb.photo, reason) }
            chunk.removeAll(keepingCapacity: true)
        }
        if quick {
            // The structure only (`ThumbnailCheck.structure`), from each thumbnail's head as
            // the store cuts it out: microseconds a thumbnail, so on one thread. The store may
            // read them in another order than their ids (`VerifyStore.forEachThumbnailHead`):
            // their problems are put in row order.
            let missing = problems.count
            var rows: [Int64] = []
            try store.forEachThumbnailHead(headBytes: ThumbnailCheck.structureHeadBytes) { thumb in
                checkedThumbnail(
                    of: thumb.photo,
                    try Library.quickThumbnailProblem(
                        thumb, whole: { try store.thumbnailData(photo: thumb.photo.uniqueName) }))
                while problems.count - missing > rows.count { rows.append(thumb.rowID) }
            }
            problems = Array(problems[..<missing]) + Library.inRowOrder(Array(problems[missing...]), rows: rows)
        } else {
            try store.forEachThumbnail { thumb in
                chunk.append(thumb)
                if chunk.count >= Library.thumbnailChunk { checkChunk() }
            }
            checkChunk()
        }
        return (problems, checked)
    }

    /// A part of verify's checks that runs on its own thread with a `VerifySnapshotReader`'s
    /// store (closed when done), or, without a reader, on the caller's thread with the caller's
    /// store when its value is asked for.
    final class VerifyTask<Value>: @unchecked Sendable {
        private let work: (any VerifyStore) throws -> Value
        private let reader: VerifySnapshotReader?
        private let finished = DispatchSemaphore(value: 0)
        /// Set by the thread before it signals `finished`; read after the wait.
        private var result: Result<Value, any Error>?
        private var waited = false

        init(reader: VerifySnapshotReader?, _ work: @escaping (any VerifyStore) throws -> Value) {
            self.work = work
            self.reader = reader
            guard let reader else { return }
            Thread.detachNewThread { [self] in run(reader) }
        }

        /// The thread's body.
        private func run(_ reader: VerifySnapshotReader) {
            result = Result { try work(reader.store) }
            reader.close()
            finished.signal()
        }

        /// Waits for the thread, if there is one (once; later calls return at once).
        func wait() {
            guard reader != nil, !waited else { return }
            waited = true
            finished.wait()
        }

        /// The checks' value: the thread's, or computed now on `store` when there is no reader.
        /// - Throws: what the checks threw.
        func value(fallback store: any VerifyStore) throws -> Value {
            guard reader != nil else { return try work(store) }
            wait()
            guard let result else { preconditionFailure("a finished verify task left no result") }
            return try result.get()
        }
    }

    /// A problem the store's own check reported (one line of it).
    static func integrityProblem(_ line: String) -> VerifyProblem {
        VerifyProblem(kind: .integrity, subject: .database, detail: line)
    }

    /// The first part of the catalog's checks: the store's own check (`storageProblems`: SQLite's
    /// quick_check reads the whole file), dangling foreign keys, then tag links across zones.
    /// - Throws: the store's error.
    static func checkStorage(_ store: any VerifyStore, thorough: Bool) throws -> [VerifyProblem] {
        var problems = try store.storageProblems(thorough: thorough).map(Library.integrityProblem)
        for dangling in try store.danglingReferences() {
            problems.append(
                VerifyProblem(
                    kind: .foreignKey, subject: .row(table: dangling.table, rowID: dangling.rowID),
                    detail: "\(dangling.table) row \(dangling.rowID) references a missing \(dangling.parent)"))
        }
        for link in try store.crossZoneTagLinks() {
            let (photo, display, pzone) = (link.photo.uniqueName, link.photo.displayName, link.photoZone)
            problems.append(
                VerifyProblem(
                    kind: .crossZone, subject: .photo(link.photo),
                    detail:
                        "\(Library.describePhoto(photo, display)) in zone \(pzone) has tag '\(link.tagName)' (\(link.tagUUID)) of zone \(link.tagZone)",
                    repair: .relinkTag(
                        uniqueName: photo, displayName: display, tagUUID: link.tagUUID,
                        tagName: link.tagName.precomposedStringWithCanonicalMapping, zone: pzone)))
        }
        return problems
    }

    /// The second part of the catalog's checks: displayNames, photos sharing an original,
    /// uniqueNames differing in case, one author's two ratings, tag names and uuids.
    /// - Throws: the store's error.
    static func checkCatalogRows(_ store: any VerifyStore) throws -> [VerifyProblem] {
        var problems: [VerifyProblem] = []
        for (name, bytes) in try store.photosWithImpossibleDisplayName() {
            let shown = JSONValue.string(String(decoding: bytes, as: UTF8.self)).serialized()
            problems.append(
                VerifyProblem(
                    kind: .badDisplayName, subject: .photoNamed(name),
                    detail: "photo \(name) has the file name \(shown), which no file can have"))
        }
        for (sha, photos) in try store.photosSharingOriginals() {
            let shown = JSONValue.string(photos.map { "\($0.uniqueName) (\($0.displayName))" }.joined(separator: ", "))
                .serialized()
            problems.append(
                VerifyProblem(
                    kind: .duplicatePhoto, subject: .photos(sha256: sha, photos),
                    detail:
                        "photos \(shown) have the same SHA-256 \(sha); delete the one not wanted with 'photos delete'"))
        }
        for group in try store.photosWithUniqueNamesDifferingInCase() {
            let shown = JSONValue.string(group.map { "\($0.uniqueName) (\($0.displayName))" }.joined(separator: ", "))
                .serialized()
            problems.append(
                VerifyProblem(
                    kind: .uniqueNameCase, subject: .photoNamed(group[0].uniqueName),
                    detail:
                        "photos \(shown) have uniqueNames that differ only in case, one identity; delete the one not wanted with 'photos delete'"
                ))
        }
        let ratings = try store.authoredRatingsOfPhotosRatedTwice()
        var start = 0
        while start < ratings.count {
            var end = start
            while end < ratings.count, ratings[end].photo.uniqueName == ratings[start].photo.uniqueName { end += 1 }
            // Grouped by the author as `--author` normalizes it, in first-rating order.
            var byAuthor: [String: [AuthoredRating]] = [:]
            var order: [String] = []
            for rating in ratings[start..<end] {
                let author = rating.author.trimmingCharacters(in: .whitespacesAndNewlines)
                    .precomposedStringWithCanonicalMapping
                if byAuthor[author] == nil { order.append(author) }
                byAuthor[author, default: []].append(rating)
            }
            for author in order {
                guard let same = byAuthor[author], same.count > 1 else { continue }
                let photo = same[0].photo
                let values = same.map { "\($0.value) (rating row \($0.rowID))" }.joined(separator: ", ")
                problems.append(
                    VerifyProblem(
                        kind: .duplicateAuthorRating, subject: .photo(photo),
                        detail:
                            "\(Library.describePhoto(photo.uniqueName, photo.displayName)) has \(same.count) ratings by author \(JSONValue.string(author).serialized()): \(values); one author keeps one rating"
                    ))
            }
            start = end
        }
        for (uuid, name, zone) in try store.allTags().map({ ($0.uuid, $0.name, $0.zone) }) {
            let shown = JSONValue.string(name).serialized()
            // Compared by scalars: Swift's String equality is canonical equivalence, under
            // which a decomposed name equals its NFC form.
            if (try? TagName.normalize(name)).map({ Array($0.unicodeScalars) }) != Array(name.unicodeScalars) {
                // A name that normalizes (a decomposed or untrimmed one) is renamed and merged;
                // one that is empty or holds control characters has no name to take (#31 A9).
                let normalized = try? TagName.normalize(name)
                problems.append(
                    VerifyProblem(
                        kind: .badTagName, subject: .tag(uuid: uuid, name: name, zone: zone),
                        detail:
                            "tag \(shown) (\(uuid)) in zone \(zone) is not a trimmed, NFC-normalized name without control characters",
                        repair: normalized.map {
                            .normalizeTagName(uuid: uuid, name: name, normalized: $0, zone: zone)
                        }))
            }
            if UUID(uuidString: uuid)?.uuidString.lowercased() != uuid {
                problems.append(
                    VerifyProblem(
                        kind: .badTagUUID, subject: .tag(uuid: uuid, name: name, zone: zone),
                        detail: "tag \(shown) in zone \(zone) has uuid '\(uuid)', not a lowercase canonical UUID"))
            }
        }
        return problems
    }
}

extension Library {
    /// Makes the `.normalizeTagName` repairs in one write transaction (#31 A9): per tag, every
    /// tag of its zone whose NFC name is the normalized one, and the tag itself, are merged as
    /// `dedupe-tags` merges them (the smallest uuid stays; the others' photos are re-pointed to
    /// it, `mergeTag`, and they are deleted with their tombstones); the one that stays is renamed
    /// to the normalized name when its stored name differs (compared by scalars: Swift's String
    /// equality holds a decomposed name equal to its NFC form). Zones of the shared store are
    /// their owners' to repair: noted, not changed. History context `verify --repair`.
    /// - Throws: `LibraryError.busy`; the store's error.
    fileprivate func normalizeTagNames(
        _ repairs: [VerifyRepair], author: HistoryAuthor, outcome: inout RepairOutcome
    ) throws {
        var made: [VerifyRepair] = []
        var notes: [VerifyRepair: String] = [:]
        try write {
            var history = HistoryWriter(self, author: author, context: .verifyRepair)
            var gone = Set<String>()
            for repair in repairs {
                guard case let .normalizeTagName(uuid, _, normalized, zone) = repair else { continue }
                if gone.contains(uuid) {
                    // Merged already, as a loser of an earlier group.
                    made.append(repair)
                    continue
                }
                if try isSharedStoreZone(zone) {
                    notes[repair] = "left alone: zone \(zone) is a share of another library, whose owner repairs it"
                    continue
                }
                var group = try catalogStore.tags(named: normalized, zone: zone).map(TagRef.init)
                if !group.contains(where: { $0.uuid == uuid }),
                    let own = try catalogStore.tags(inZone: zone).first(where: { $0.uuid == uuid })
                {
                    group.append(TagRef(own))
                }
                group.sort { uuidByteOrder($0.uuid, $1.uuid) }
                guard let winner = group.first else { continue }
                for loser in group.dropFirst() {
                    try mergeTag(loser, into: winner, history: &history)
                    gone.insert(loser.uuid)
                }
                if !Array(winner.name.unicodeScalars).elementsEqual(Array(normalized.unicodeScalars)) {
                    try catalogStore.renameTag(winner.rowID, to: normalized)
                    history.update(.tag(uuid: winner.uuid), ["name"], zone: zone)
                }
                made.append(repair)
            }
            try history.commit()
        }
        outcome.made.formUnion(made)
        outcome.notes.merge(notes) { a, _ in a }
    }
}
