import Foundation
import PhotosFiles
import PhotosImaging
import PhotosModel
import Synchronization

/// Import's worker side: `jobs` threads take files in order, classify, read, hash, decode and
/// thumbnail them and write their originals (`Importer.prepare`), and hand each outcome to the
/// importing thread through a bounded queue of `queueCapacity` entries (at least `2 × jobs`),
/// so memory is bounded by the prepared files in flight, never by the number of files. An entry
/// holds no file bytes and no raw metadata packet (`Importer.prepare` drops them once merged):
/// its thumbnail JPEG (120 px: tens of KB at most), its merged metadata (at most
/// `XMPSidecar.maxKeywords` keywords) and its path.
///
/// The queue holds two batches (`Importer` passes 2 × `ImportOptions.batchSize`, 512), so the
/// workers go on preparing while the importing thread commits a batch and waits for its
/// `syncfs(2)`: with `2 × jobs` entries they stopped after four files, and the import used less
/// than one of two cores on a tree of 640×480 JPEGs (Benchmarks/README.md, issue 15).
final class ImportPipeline {
    /// The SHA-256s this run's workers claimed, and the duplicates they found.
    let claims = Claims()
    /// What the workers prepared, in the order they finished: (path, outcome, the entries of
    /// its folder with its base name, `FileScanner.Walk.nextEntry`).
    let queue: BoundedQueue<(String, Importer.Outcome, Int)>
    /// Set by the importing thread after a fatal error: workers stop taking new files.
    let stop = StopFlag()

    /// Starts the workers.
    /// - Parameters:
    ///   - files: the walk of the paths to import: workers take files from it in scan order as it
    ///     finds them (the first batch is imported while the rest of the tree is walked).
    ///   - jobs: worker threads (at least 1).
    ///   - queueCapacity: prepared files the queue holds before a worker waits; at least `2 × jobs`.
    ///   - catalog: the library's backend and folder, opened read-only by each worker for its
    ///     duplicate lookups; nil for none (a dry run against no library).
    ///   - busyTimeout: seconds a worker waits for a lock, as long as the writer (`--wait`).
    ///   - store: where originals are written; nil for none.
    ///   - thumbnail: thumbnail options.
    ///   - refreshMetadata: read the metadata of files already in the library
    ///     (`--refresh-metadata`, `Importer.prepare`).
    ///   - zone: the record zone photos go into, where a file's image data is looked up.
    ///   - duplicates: where a photo of the same original makes a file a duplicate.
    ///   - photosBeforeRun: the largest photo row id when the run began: only photos up to it
    ///     are a rewritten file's photo (`Importer.prepare`).
    init(
        files: FileScanner.Walk, jobs: Int, queueCapacity: Int = 0,
        catalog: (backend: any CatalogBackend, root: String)?, busyTimeout: Double,
        store: ExternalDataStore?,
        thumbnail thumbOptions: ThumbnailOptions, refreshMetadata: Bool = false,
        zone: String = ZoneID.default.rawValue, duplicates: DuplicateScope = .privateStore,
        photosBeforeRun: Int64 = .max
    ) {
        let queue = BoundedQueue<(String, Importer.Outcome, Int)>(
            capacity: max(jobs * 2, queueCapacity), producers: jobs)
        self.queue = queue
        let claimed = self.claims
        let stop = self.stop
        for _ in 0..<jobs {
            let thread = Thread {
                // Each worker has its own read-only connection: WAL readers never block the writer.
                // It is closed before the worker says it is done: a connection still open when the
                // process exits keeps SQLite from removing the -wal and -shm files (left behind
                // even by a dry run).
                do {
                    let reader = catalog.flatMap {
                        try? $0.backend.open(
                            root: $0.root, options: StoreOpenOptions(readOnly: true, lockWait: busyTimeout))
                    }
                    defer { reader?.close() }
                    while !stop.isSet {
                        guard let (path, sidecarsPossible, siblings) = files.nextEntry() else { break }
                        let outcome = Importer.prepare(
                            path: path, reader: reader, claimed: claimed, store: store,
                            thumbnail: thumbOptions, refreshMetadata: refreshMetadata,
                            sidecarsPossible: sidecarsPossible, zone: zone, duplicates: duplicates,
                            photosBeforeRun: photosBeforeRun)
                        queue.push((path, outcome, siblings))
                    }
                }
                queue.producerDone()
            }
            thread.stackSize = 4 << 20
            thread.start()
        }
    }
}

/// SHA-256s claimed by a worker in this run, so that two identical files in one run import once,
/// and those of the files found to be duplicates (so that `--tag` reaches their photos too).
final class Claims: Sendable {
    private let set = Mutex(Set<String>())
    private let duplicateSet = Mutex(Set<String>())
    func claim(_ sha: String) -> Bool { set.withLock { $0.insert(sha).inserted } }
    func release(_ sha: String) { _ = set.withLock { $0.remove(sha) } }
    /// Notes a file whose SHA-256 the library, or another file of this run, already has.
    func noteDuplicate(_ sha: String) { _ = duplicateSet.withLock { $0.insert(sha) } }
    /// The SHA-256s noted by `noteDuplicate`.
    var duplicates: Set<String> { duplicateSet.withLock { $0 } }
}

/// Set once by the writer after a fatal error; workers stop taking new files.
final class StopFlag: Sendable {
    private let value = Atomic<Bool>(false)
    var isSet: Bool { value.load(ordering: .acquiring) }
    func set() { value.store(true, ordering: .releasing) }
}

/// A shared counter handing out file indexes to workers.
final class Counter: Sendable {
    private let value = Atomic<Int>(0)
    func next() -> Int { value.wrappingAdd(1, ordering: .relaxed).oldValue }
}
