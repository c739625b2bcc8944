import Foundation
import PhotosFiles
import PhotosModel

/// Verify's originals step (SPEC §2 invariant 1): every recorded original (a PhotoData row) is
/// at the content address of its SHA-256 (`ab/abcdef…`), a regular file of its recorded size,
/// and, unless `quick`, of its recorded SHA-256.
///
/// The rows are counted first, then read one at a time, in chunks of `Library.originalChunk`:
/// each chunk's stat(2) calls are made by `jobs` threads, relative to the shard folders'
/// descriptors (`Library.ShardFolders`: no path built, the folders' paths not walked again),
/// then checked in row order, and the chunk's files to hash are hashed by `jobs` threads before
/// the next chunk is read: memory keeps a chunk, the problems and the references of the rows
/// that have one, not every row or reference of the catalog (issue 31 item A11).
struct VerifyOriginalsCheck {
    /// An original whose size is right, to be hashed: where its problem would go in
    /// `problems`, and its file's path.
    private struct PendingHash {
        var position: Int
        var original: RecordedOriginal
        var path: String
    }

    /// Whether hashing is skipped (`verify --quick`).
    let quick: Bool
    /// Threads for stat(2) and hashing (at least 1 is used).
    let jobs: Int
    /// The recorded originals in all, for `progress`.
    let total: Int
    /// Where the originals are.
    let externalData: ExternalDataStore
    /// Called after each original is checked: (originals checked, `total`, bytes of those).
    let progress: ((Int, Int, Int64) -> Void)?
    /// The external data folder's shards, nil when the folder could not be opened.
    private let shards: Library.ShardFolders?

    /// The problems found, in row order once `run` returns; one row's in the order found.
    private(set) var problems: [VerifyProblem] = []
    /// The uniqueNames of the photos whose original is missing or damaged: their thumbnails
    /// cannot be made again.
    private(set) var missingOriginal = Set<String>()
    /// The references of rows whose reference is not their SHA-256's content address: that
    /// reference and that address (both count as referenced, as for every row).
    private(set) var unusual = VerifyReferences()
    /// The shards (0x00...0xff) that hold a sound row's original.
    private(set) var usedShards = [Bool](repeating: false, count: 256)

    private var checked = 0
    private var bytesChecked: Int64 = 0
    private var pendingHashes: [PendingHash] = []
    /// The `photo_data` row of each problem in `problems`: the store may read the rows in
    /// another order than their ids (`VerifyStore.forEachRecordedOriginal`); the problems are
    /// reported in row order.
    private var problemRows: [Int64] = []
    /// The chunk read and not checked yet.
    private var rows: [RecordedOriginal] = []

    init(
        quick: Bool, jobs: Int, total: Int, externalData: ExternalDataStore,
        progress: ((Int, Int, Int64) -> Void)?
    ) {
        self.quick = quick
        self.jobs = jobs
        self.total = total
        self.externalData = externalData
        self.progress = progress
        let folder = open(externalData.root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        shards = folder >= 0 ? Library.ShardFolders(in: folder) : nil
        if folder >= 0 { close(folder) }
    }

    /// Checks every recorded original of `store`, leaving the problems in row order.
    /// - Throws: the store's error; `StopSignal`'s when stopped.
    mutating func run(_ store: any VerifyStore) throws {
        try store.forEachRecordedOriginal { original in
            rows.append(original)
            if rows.count >= Library.originalChunk {
                checkRows()
                try hashPending()
            }
        }
        checkRows()
        try hashPending()
        problems = Library.inRowOrder(problems, rows: problemRows)
    }

    /// The chunk's stat(2) calls, by `jobs` threads, then each row checked in order.
    private mutating func checkRows() {
        let (shards, dataRoot) = (shards, externalData.root)
        let found = Library.concurrentMap(rows, jobs: jobs) {
            Library.fileStatus(of: $0, in: shards, root: dataRoot)
        }
        for (original, status) in zip(rows, found) { check(original, status) }
        rows.removeAll(keepingCapacity: true)
    }

    /// `original` against what stat(2) found at its content address (`found`).
    private mutating func check(_ original: RecordedOriginal, _ found: Library.FileStatus) {
        // A file to hash counts when its hash is done (`hashPending`); every other row now.
        let queuedBefore = pendingHashes.count
        let problemsBefore = problems.count
        defer {
            problemRows += repeatElement(original.rowID, count: problems.count - problemsBefore)
            if pendingHashes.count == queuedBefore {
                checked += 1
                bytesChecked += Int64(original.byteSize)
                progress?(checked, total, bytesChecked)
            }
        }
        let (name, size, ref) = (original.photo.uniqueName, original.byteSize, original.fileReference)
        // Built only for a problem: most of a million rows have none.
        var photo: String { Library.describePhoto(name, original.photo.displayName) }
        // Originals are content-addressed: the reference is the SHA-256's (SPEC §2); orphan
        // detection and re-import rely on it. `found.isHex`: fileStatus checked the SHA-256's
        // digits already.
        guard found.isHex, Library.isContentAddress(ref, of: original.sha256) else {
            badReference(original, found)
            return
        }
        usedShards[Library.shardIndex(ofHex: original.sha256)] = true
        let heal = "; re-import the intact file to restore it"
        guard found.error == 0 else {
            notThere(original, found.error)
            return
        }
        if found.mode & S_IFMT != S_IFREG {
            missingOriginal.insert(name)
            problems.append(
                VerifyProblem(
                    kind: .sizeMismatch, subject: .photo(original.photo),
                    detail:
                        "\(photo): original \(ref) is not a regular file (\(found.mode & S_IFMT == S_IFDIR ? "a folder" : "a special file")), recorded \(size) bytes\(heal)"
                ))
            return
        }
        if found.size != size {
            missingOriginal.insert(name)
            problems.append(
                VerifyProblem(
                    kind: .sizeMismatch, subject: .photo(original.photo),
                    detail: "\(photo): original \(ref) has \(found.size) bytes, recorded \(size)\(heal)"))
            return
        }
        if !quick {
            pendingHashes.append(
                PendingHash(position: problems.count, original: original, path: externalData.path(for: ref)))
        }
    }

    /// A row whose reference is not its SHA-256's content address: both count as referenced;
    /// repaired by pointing the row at the address when its file is there.
    private mutating func badReference(_ original: RecordedOriginal, _ found: Library.FileStatus) {
        let (name, display, sha, ref) = (
            original.photo.uniqueName, original.photo.displayName, original.sha256, original.fileReference
        )
        let isHex = found.isHex
        let address = ExternalDataStore.reference(for: sha)
        unusual.insert(ref)
        unusual.insert(address)
        let there = isHex && found.error == 0 && found.size == original.byteSize
        if !there { missingOriginal.insert(name) }
        problems.append(
            VerifyProblem(
                kind: .badFileReference, subject: .photo(original.photo),
                detail:
                    "\(Library.describePhoto(name, display)): original is recorded as \(ref), but its SHA-256 \(sha) says \(isHex ? address : "(not lowercase hex)")",
                repair: there ? .fixFileReference(uniqueName: name, displayName: display, from: ref, to: address) : nil)
        )
    }

    /// A row whose file stat(2) did not find (`error`, its errno): missing only when the system
    /// says so (ENOENT, ENOTDIR); a permission or I/O error is not a reason for `--repair` to
    /// delete the photo.
    private mutating func notThere(_ original: RecordedOriginal, _ error: Int32) {
        let (name, display, ref) = (original.photo.uniqueName, original.photo.displayName, original.fileReference)
        let photo = Library.describePhoto(name, display)
        if error != ENOENT && error != ENOTDIR {
            problems.append(
                VerifyProblem(
                    kind: .unreadableFile, subject: .photo(original.photo),
                    detail: "\(photo): original \(ref) cannot be checked: \(String(cString: strerror(error)))"))
            return
        }
        missingOriginal.insert(name)
        problems.append(
            VerifyProblem(
                kind: .missingFile, subject: .photo(original.photo),
                detail: "\(photo): original \(ref) is missing; re-import the intact file to restore it",
                // Its ratings and tag links are counted after the scan.
                repair: .deletePhoto(uniqueName: name, displayName: display, ratings: 0, tags: 0, zone: original.zone)))
    }

    /// The files of the chunk checked last, hashed by `jobs` threads; each problem goes where
    /// the serial loop would have put it (inserted from the last, so the earlier positions stay
    /// right). In parts, so that the progress display moves as the hashes are done.
    /// - Throws: `StopSignal`'s when stopped (a read: nothing to clean up).
    private mutating func hashPending() throws {
        var hashes: [Result<String, Error>] = []
        hashes.reserveCapacity(pendingHashes.count)
        let hashChunk = max(1, jobs) * 16
        for first in stride(from: 0, to: pendingHashes.count, by: hashChunk) {
            try StopSignal.check()
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
                problems.insert(
                    VerifyProblem(
                        kind: .hashMismatch, subject: .photo(original.photo),
                        detail:
                            "\(photo): original \(ref) has SHA-256 \(actual), recorded \(sha); re-import the intact file to restore it"
                    ), at: pending.position)
            case .success: break
            case .failure(let error):
                problemRows.insert(original.rowID, at: pending.position)
                problems.insert(
                    VerifyProblem(
                        kind: .unreadableFile, subject: .photo(original.photo),
                        detail: "\(photo): original \(ref) cannot be read: \(error)"), at: pending.position)
            }
        }
        pendingHashes.removeAll(keepingCapacity: true)
    }
}
