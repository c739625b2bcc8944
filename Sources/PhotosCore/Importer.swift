import Foundation
import PhotosFiles
import PhotosImaging
import PhotosModel

/// What `photos import` does, as options (SPEC §5).
public struct ImportOptions {
    /// Files and folders to import.
    public var paths: [String]
    /// Tag names (raw; normalized on use) added to every imported photo (`--tag`).
    public var tags: [String] = []
    /// The record zone photos go into (`default`, or a share's id with `--share`).
    public var zone: String = ZoneID.default.rawValue
    /// Check and decode everything, write nothing (`--dry-run`): the batches run in
    /// transactions that roll back (`Library.dryRun`), and no original is written.
    public var dryRun = false
    /// Worker threads reading, hashing, decoding and writing originals (`--jobs`).
    public var jobs: Int = ProcessInfo.processInfo.activeProcessorCount
    /// Enter hidden files and folders (`--hidden`).
    public var includeHidden = false
    /// Thumbnail size, quality and the pixel limit (`--max-pixels`, `--thumbnail-quality`).
    public var thumbnail = ThumbnailOptions()
    /// Photos per committed transaction; a crash loses at most one batch (and at most
    /// `batchSeconds` of work: a partial batch is committed after that long). 256: on a tree of
    /// small files a batch of 64 wrote the random-key index pages (uniqueName, SHA-256) and its
    /// syncfs four times as often — the WAL took 19.9 MB of writes for 10.5 MB of catalog
    /// (2,000 640×480 JPEGs), 13.4 MB with 256 (Benchmarks/README.md, issue 15).
    public var batchSize = 256
    /// Seconds after which a partial batch is committed anyway.
    public var batchSeconds: Double = 2
    /// The history transaction author (`--author`, `$PHOTOS_AUTHOR`).
    public var author = HistoryAuthor.default
    /// `--refresh-metadata`: a file already in the library (same SHA-256) has its sidecar and
    /// embedded metadata read again and applied to its photo (`Library.refreshMetadata`).
    public var refreshMetadata = false
    /// Keep the paths of skipped and duplicate files in the summary (`skippedPaths`,
    /// `duplicatePaths`; `import --verbose` lists them). Off, only their counts are kept, so the
    /// memory of an import does not grow with the number of such files in the tree.
    public var listSkippedAndDuplicates = true
    /// Make a camera's RAW+JPEG pair one photo with two originals, and let a half imported
    /// later join the photo of the other (`Pairing`, issue 24 item 2); false with `--no-pairing`:
    /// every file is a photo of its own.
    public var pairing = true

    public init(paths: [String]) { self.paths = paths }
}

/// One file that could not be imported, with the reason.
public struct ImportFailure: Equatable, Sendable {
    public var path: String
    public var reason: String
}

/// A file whose bytes a photo of the library already has, but whose original in external data
/// was missing or damaged: the import wrote it back (issue 9 item 8, "heal instead of forget").
public struct ImportRestoration: Equatable, Sendable {
    /// The file imported.
    public var path: String
    /// The photo whose original it restored.
    public var uniqueName: String
    public var displayName: String
    /// What was wrong with the stored original, e.g. "it was missing".
    public var reason: String
}

/// The counts an import reports (SPEC §5a).
public struct ImportSummary: Equatable, Sendable {
    /// New photos (a RAW+JPEG pair imported together is one).
    public var imported = 0
    /// RAW files imported as the `raw` original of a new photo, with their JPEG (`Pairing`).
    public var paired = 0
    /// Live Photo movies imported as the `pairedVideo` original of a new photo, with their
    /// still (`Pairing.live`, issue 25 item 2).
    public var livePaired = 0
    /// Files that joined a photo already in the library as the other half of its RAW+JPEG pair
    /// or Live Photo (`Pairing`; not counted in `imported`).
    public var joined = 0
    public var duplicates = 0
    /// Duplicates whose stored original was missing or damaged and was written back (also
    /// counted nowhere else).
    public var restored = 0
    public var skipped = 0
    public var failed = 0
    /// Bytes of the originals imported.
    public var bytes: Int64 = 0
    /// Wall-clock seconds of the whole run.
    public var seconds: Double = 0
    public var failures: [ImportFailure] = []
    public var restorations: [ImportRestoration] = []
    /// The paths counted in `skipped` (not images, or entries that cannot be read as files and
    /// do not claim to be images), in the order they were met.
    public var skippedPaths: [String] = []
    /// The paths counted in `duplicates` (their SHA-256 is already a photo's original).
    public var duplicatePaths: [String] = []
    /// With `--refresh-metadata`: the photos (already in the library) whose tags, rating or
    /// capture time changed; nil without that option.
    public var refreshed: Int?
    /// Files whose image data is a photo's of the target zone but whose bytes are not its
    /// original (another tool rewrote their metadata): each became its photo's original, and
    /// its metadata was applied as a refresh applies it (issue 31 item 5). Also counted in
    /// `duplicates`.
    public var replaced = 0
    /// What each refresh or replacement changed, per photo that changed (with `dryRun`: would
    /// change), in the order they were applied.
    public var metadataChanges: [MetadataChange] = []

    /// `{"imported":N,"duplicates":N,"restored":N,"skipped":N,"failed":N,"paired":N,"joined":N,"livePaired":N,"bytes":N,"seconds":X,
    /// ["refreshed":N (with --refresh-metadata),] ["replaced":N,"metadataChanges":[MetadataChange.json…]
    /// (with --refresh-metadata, or when a file replaced an original),] "failures":[…],"restorations":[{"path","uniqueName","displayName","reason"}]}`.
    public var json: JSONValue {
        var pairs: [(String, JSONValue)] = [
            // paired and joined after failed: the summary's leading keys stay as scripts read them.
            ("imported", .int(imported)), ("duplicates", .int(duplicates)), ("restored", .int(restored)),
            ("skipped", .int(skipped)), ("failed", .int(failed)), ("paired", .int(paired)), ("joined", .int(joined)),
            ("livePaired", .int(livePaired)), ("bytes", .int(Int(bytes))), ("seconds", .double(seconds))
        ]
        if let refreshed { pairs.append(("refreshed", .int(refreshed))) }
        if refreshed != nil || replaced > 0 || !metadataChanges.isEmpty {
            pairs += [("replaced", .int(replaced)), ("metadataChanges", .array(metadataChanges.map(\.json)))]
        }
        pairs += [
            (
                "failures",
                .array(failures.map { .object([("path", .string($0.path)), ("error", .string($0.reason))]) })
            ),
            (
                "restorations",
                .array(
                    restorations.map {
                        .object([
                            ("path", .string($0.path)), ("uniqueName", .string($0.uniqueName)),
                            ("displayName", .string($0.displayName)), ("reason", .string($0.reason))
                        ])
                    })
            )
        ]
        return .object(pairs)
    }
}

/// Imports files into a library: `jobs` workers read each file once (hashing it while reading),
/// skip known SHA-256s, decode and thumbnail it, and write the original to external data; one
/// writer (the calling thread) commits batches of rows with their history (SPEC §5, §7).
public final class Importer {
    private let library: Library?
    private let libraryRoot: String
    private let options: ImportOptions
    /// Called on the calling thread for each file that fails, as it fails.
    public var onFailure: ((ImportFailure) -> Void)?
    /// Called on the calling thread for each file not imported into the share asked for
    /// (`ImportOptions.zone`) because it is a photo of another zone of this library's already:
    /// its path and that photo (issue 31 A1).
    public var onDuplicateInAnotherZone: ((String, ImportedOriginal) -> Void)?
    /// Called on the calling thread for each file that restored a missing or damaged original
    /// (with `dryRun`: would restore).
    public var onRestore: ((ImportRestoration) -> Void)?
    /// Called on the calling thread for each file imported without some of its metadata:
    /// (the file's path, the warning naming the packet that was not read and why). Issue 31
    /// B13: an XMP packet the XMP Toolkit refuses (embedded, or a sidecar that is XML but not
    /// valid XMP) no longer stops the file, nor is it dropped silently.
    public var onWarning: ((String, String) -> Void)?
    /// Called on the calling thread for each photo whose metadata or original a file changed
    /// (with `dryRun`: would change), once its transaction committed.
    public var onMetadataChange: ((MetadataChange) -> Void)?
    /// Called on the calling thread after each file with (files done, files found so far): the
    /// folders are walked while the first files import, so the second number is the total only
    /// once `scanFinished` is true.
    public var onProgress: ((Int, Int) -> Void)?
    /// Called on the calling thread inside each batch's write transaction, after its rows are
    /// written and before it commits (tests of what another process sees meanwhile).
    public var onBatchWritten: (() -> Void)?
    /// True once the walk of the paths has found every file (read from `onProgress`).
    public private(set) var scanFinished = false
    /// Bytes of the files decoded so far in this run (what the progress display shows; read
    /// from `onProgress`, on the calling thread).
    public private(set) var bytesSoFar: Int64 = 0

    /// - Parameters:
    ///   - library: the target library; nil only for a dry run against a library that does not
    ///     exist yet (nothing is a duplicate then).
    ///   - libraryRoot: the library folder (excluded from the scan).
    public init(library: Library?, libraryRoot: String, options: ImportOptions) {
        self.library = library
        self.libraryRoot = libraryRoot
        self.options = options
    }

    struct Prepared: Sendable {
        var path: String
        var sha256: String
        var byteSize: Int
        var result: ThumbnailResult
        /// Sidecar and embedded XMP/IPTC metadata, merged (`XMPSidecar.merged`).
        var sidecar: XMPSidecar?
        var capture: CaptureTime?
        /// The original this worker wrote (nil: none, a dry run).
        var written: ExternalDataStore.WrittenOriginal?
        /// Metadata not read (a packet the XMP Toolkit refused), each naming its file.
        var warnings: [String] = []
        /// True when this worker wrote the original.
        var wroteFile: Bool { written != nil }
        /// The original, as `removeUncommittedFiles` takes it when the row does not commit.
        var uncommitted: UncommittedOriginal {
            UncommittedOriginal(reference: ExternalDataStore.reference(for: sha256), written: written)
        }
        /// The SHA-256 of its image data (`ImageDataHash`), nil when its structure could not be
        /// followed.
        var imageSHA256: String? = nil
        /// Where it was taken (`Importer.position`), nil when no source has a position.
        var position: GeoPosition? = nil
        /// The camera (`Importer.camera`) and a RAW's container name (`Importer.cameraFormat`).
        var camera: CameraIdentity? = nil
        var cameraFormat: String? = nil
        /// Its title and description (`Importer.text`), nil when none.
        var title: String? = nil
        var description: String? = nil
        /// The RAW of its RAW+JPEG pair (`Pairing.group`), imported with it as its `raw` original.
        var raw: PairedOriginal? = nil
        /// The movie of its Live Photo (`Pairing.live`, issue 25 item 2), imported with it as its
        /// `pairedVideo` original.
        var pairedVideo: PairedOriginal? = nil
        /// Its paired halves, each with the role it is imported as: `raw`, then `pairedVideo`.
        var halves: [(role: OriginalRole, original: PairedOriginal)] {
            (raw.map { [(OriginalRole.raw, $0)] } ?? []) + (pairedVideo.map { [(OriginalRole.pairedVideo, $0)] } ?? [])
        }
        /// True when this worker wrote the original, or one of its pair's.
        var wroteAnyFile: Bool { written != nil || halves.contains { $0.original.written != nil } }
        /// Every original written for it (its own and its pair's), for `removeUncommittedFiles`.
        var allUncommitted: [UncommittedOriginal] {
            (wroteFile ? [uncommitted] : [])
                + halves.compactMap { $0.original.written == nil ? nil : $0.original.uncommitted }
        }
    }

    enum Outcome: Sendable {
        /// An XMP sidecar: read with its image, not counted.
        case sidecar
        case skipped
        case duplicate
        /// A duplicate of a photo of another zone than the one asked for (`--share`): not
        /// imported there, and said so (`onDuplicateInAnotherZone`).
        case duplicateInAnotherZone(ImportedOriginal)
        /// A duplicate whose stored original was missing or damaged, written back (unless a
        /// dry run).
        case restored(ImportRestoration, reference: String)
        /// A duplicate whose metadata was read again (`--refresh-metadata`).
        case refresh(MetadataRefresh)
        case failed(String)
        /// The library's file system refused to take an original (permission, a full disk):
        /// not this file's fault, and every later file would fail the same way, so the import
        /// stops with it (77 or 74), keeping what committed.
        case fatal(Error)
        case prepared(Prepared)
    }

    /// Runs the import.
    /// - Returns: the summary; per-file failures are in it (and were passed to `onFailure`).
    /// - Throws: what stops the whole run before anything is committed: the scanner's error for
    ///   a path that does not exist, `ValueError` for a bad `--tag`, `LibraryError.busy` past the
    ///   timeout, `LibraryError` for a database error, `ImportError.cannotRestoreOriginal` or the
    ///   `FileError` of an original the library's file system refuses (wrapped by
    ///   `LibraryError.wrap`). `Interrupted<ImportSummary>` when such an error (e.g. 75: another
    ///   process held the lock past the timeout) stops the run after a batch was committed: its
    ///   report counts what was committed; the originals of uncommitted rows are removed
    ///   (`Library.removeUncommittedFiles`: unless another import, merge or apply runs, which may
    ///   commit the same files; then they stay for `verify --repair`), so running the import
    ///   again imports the rest. `StopRequested` (wrapped the same way) when a stop signal
    ///   arrived (`StopSignal`): the batch gathered so far commits, nothing after it.
    public func run() throws -> ImportSummary {
        guard let library else { return try runImport() }
        return try library.dryRun(options.dryRun) { try runImport() }
    }

    private func runImport() throws -> ImportSummary {
        let start = Date()
        let tagNames = try options.tags.map(TagName.normalize)
        // `--tag` finds its tag as every command does (`TagName.sameTag`); a name that finds
        // several tags of the zone is refused before any file is read (issue 32 item 2).
        for name in tagNames { _ = try library?.uniqueTag(matching: name, zone: options.zone) }
        // Files are taken from the walk as it finds them (issue 15 item 2: memory independent of
        // the number of files in the tree); a path that does not exist stops the run here. With
        // several workers, each batch found ahead is taken largest first, so the run does not
        // end with one worker preparing a large file alone while the others wait (one worker:
        // walk order, which the order cannot slow down).
        let files = try FileScanner(includeHidden: options.includeHidden, excludedFolders: [libraryRoot])
            .stream(options.paths, largestFirst: options.jobs > 1)
        var summary = ImportSummary()
        func fail(_ path: String, _ reason: String) {
            let failure = ImportFailure(path: path, reason: reason)
            summary.failed += 1
            summary.failures.append(failure)
            onFailure?(failure)
        }
        var importLock: Int32?
        // Entries that cannot be read as files: failures when their name says JPEG/PNG (or a
        // folder could not be listed), skipped otherwise — never dropped without a count. Taken
        // from the walk as it finds them.
        func takeProblems() {
            for problem in files.takeProblems() {
                if problem.isFolder || Importer.claimsImage(problem.path) {
                    fail(problem.path, problem.reason)
                } else {
                    summary.skipped += 1
                    if options.listSkippedAndDuplicates { summary.skippedPaths.append(problem.path) }
                }
            }
        }

        // Originals are written into the catalog's originals root: refused (66/73) while it is
        // not mounted here, not the catalog's, or not writable (issue 31 item A3).
        try library?.requireOriginalsRoot()
        importLock = library?.lockImports(exclusive: false)
        defer { if let importLock { close(importLock) } }
        if let library {
            // Take the write lock once before any original is written: a library held by another
            // process past the busy timeout fails here (75) with nothing written, instead of after
            // every worker has copied its files into external data as orphans.
            try library.write {}
        }

        // The duplicate rule is an identity rule, and holds within the zones of one owner (issue
        // 31 A1): into a zone shared with this library, a file is a duplicate of a photo of
        // that zone only (the participant's copy stays its own when it leaves the share); into
        // the default zone or a share of this library, of a photo of any of them (importing a
        // folder again never makes a second photo of one moved into a share).
        let duplicateScope: DuplicateScope = try library?.duplicateScope(into: options.zone) ?? .privateStore
        // The largest photo row id before this run: the rewritten-metadata rule looks only at
        // photos up to it (`Importer.prepare`), so what one run gives never depends on batching.
        let photosBeforeRun = try library?.metadataStore.largestPhotoRowID() ?? 0
        let jobs = max(1, options.jobs)
        // Two batches: the workers go on while one batch commits and waits for its syncfs, even
        // when that takes longer than preparing a batch (a slow moment of the disk).
        let pipeline = ImportPipeline(
            files: files, jobs: jobs, queueCapacity: 2 * options.batchSize,
            catalog: library.map { ($0.backend, $0.root) },
            busyTimeout: library?.busyTimeout ?? 30, store: library?.externalData, thumbnail: options.thumbnail,
            refreshMetadata: options.refreshMetadata, zone: options.zone, duplicates: duplicateScope,
            photosBeforeRun: photosBeforeRun)
        let queue = pipeline.queue
        let stop = pipeline.stop
        var batchWriter = library.map {
            ImportBatchWriter(
                library: $0, zone: options.zone, duplicates: duplicateScope, author: options.author, tagNames: tagNames,
                pairing: options.pairing, beforeCommit: onBatchWritten)
        }

        var batch: [Prepared] = []
        var batchStarted = Date()
        var done = 0
        var fatal: Error?
        // Originals written for rows that will not commit (after a fatal error), removed once
        // the workers have stopped.
        var uncommitted: [UncommittedOriginal] = []
        var batchesCommitted = 0
        // Duplicates of rows another process committed while this run prepared them.
        var committedDuplicates: [String] = []
        var refreshes: [MetadataRefresh] = []
        if options.refreshMetadata { summary.refreshed = 0 }

        func applyRefreshes() {
            defer { refreshes.removeAll(keepingCapacity: true) }
            let written = refreshes.compactMap { r in
                r.replacement.flatMap { replacement in
                    replacement.written.map {
                        UncommittedOriginal(
                            reference: ExternalDataStore.reference(for: replacement.sha256), written: $0)
                    }
                }
            }
            guard fatal == nil, let library, !refreshes.isEmpty else {
                uncommitted += written
                return
            }
            do {
                let (changes, unused) = try library.refreshMetadata(refreshes, author: options.author)
                library.removeUnreferencedFiles(unused)
                let replaced = changes.filter { $0.newOriginalSHA256 != nil }.count
                summary.replaced += replaced
                if options.refreshMetadata { summary.refreshed = (summary.refreshed ?? 0) + changes.count - replaced }
                summary.metadataChanges += changes
                for change in changes { onMetadataChange?(change) }
            } catch {
                uncommitted += written
                fatal = error
                stop.set()
            }
        }

        // Originals restored by the workers (heal on re-import), written without fsync: made
        // durable together with one syncfs before they are reported restored (issue 15 item 1).
        var restoredPending: [(path: String, restoration: ImportRestoration, reference: String)] = []
        func settleRestorations() {
            guard !restoredPending.isEmpty else { return }
            defer { restoredPending.removeAll() }
            if let library {
                do {
                    try library.externalData.syncFileSystem()
                } catch {
                    for item in restoredPending {
                        fail(
                            item.path,
                            "cannot make the restored original of photo \(item.restoration.uniqueName) durable: \(error)"
                        )
                    }
                    if fatal == nil { fatal = error }
                    stop.set()
                    return
                }
            }
            for (path, restoration, reference) in restoredPending {
                if let library, !library.isReferenced(fileReference: reference) {
                    // Its photo was deleted meanwhile: the file is nobody's original.
                    library.removeUnreferencedFiles([reference])
                    fail(
                        path,
                        "its photo \(restoration.uniqueName) was deleted while the original was restored; import it again"
                    )
                } else {
                    summary.restored += 1
                    summary.restorations.append(restoration)
                    onRestore?(restoration)
                }
            }
        }

        func commit() {
            settleRestorations()
            // An empty batch restarts the deadline too: otherwise pop(until:) gets a deadline in the
            // past and returns at once, and the writer spins on a core while the workers decode.
            guard !batch.isEmpty else { batchStarted = Date(); return }
            defer { batch.removeAll(keepingCapacity: true); batchStarted = Date() }
            guard fatal == nil else { return }
            guard let library else {
                // A dry run against a library that does not exist yet: nothing is a duplicate.
                for item in batch {
                    summary.imported += 1
                    if item.raw != nil { summary.paired += 1 }
                    if item.pairedVideo != nil { summary.livePaired += 1 }
                    summary.bytes += Int64(item.byteSize + item.halves.reduce(0) { $0 + $1.original.byteSize })
                }
                return
            }
            do {
                guard var writer = batchWriter else { return }
                defer { batchWriter = writer }
                let result = try writer.write(batch)
                for (path, original) in result.unpaired {
                    fail(
                        path,
                        "the other half of its pair (RAW+JPEG or Live Photo) was imported meanwhile by another run; import it again (it joins that photo)"
                    )
                    uncommitted.append(original)
                }
                uncommitted += result.unreferenced
                for path in result.vanished {
                    fail(
                        path,
                        "its copy in the library vanished before the commit (removed by 'verify --repair'?); import it again"
                    )
                }
                summary.imported += result.imported
                summary.joined += result.joined
                summary.paired += result.paired
                summary.livePaired += result.livePaired
                summary.bytes += result.bytes
                summary.duplicates += result.duplicates
                committedDuplicates += result.duplicateSHA256s + result.joinedSHA256s
                if options.listSkippedAndDuplicates { summary.duplicatePaths += result.duplicatePaths }
                if !library.isDryRun { batchesCommitted += 1 } // a dry run's batches roll back
            } catch {
                // The rows were rolled back: the originals this batch wrote go (below).
                uncommitted += batch.flatMap(\.allUncommitted)
                fatal = error
                stop.set() // nothing more can commit: workers stop taking files
            }
        }

        // The files of a group (one folder, one base name) that came so far, by `Pairing.key`.
        var held: [String: [(String, Outcome)]] = [:]
        // Counts what `outcome` says about `path`; returns the prepared file to batch.
        func take(_ path: String, _ outcome: Outcome) -> Prepared? {
            switch outcome {
            case .sidecar: break
            case .refresh(let item):
                summary.duplicates += 1
                if options.listSkippedAndDuplicates { summary.duplicatePaths.append(path) }
                refreshes.append(item)
                if refreshes.count >= options.batchSize { applyRefreshes() }
            case .skipped:
                summary.skipped += 1
                if options.listSkippedAndDuplicates { summary.skippedPaths.append(path) }
            case .duplicate:
                summary.duplicates += 1
                if options.listSkippedAndDuplicates { summary.duplicatePaths.append(path) }
            case .duplicateInAnotherZone(let found):
                summary.duplicates += 1
                if options.listSkippedAndDuplicates { summary.duplicatePaths.append(path) }
                onDuplicateInAnotherZone?(path, found)
            case .restored(let restoration, let reference):
                restoredPending.append((path, restoration, reference))
            case .failed(let reason):
                fail(path, reason)
            case .fatal(let error):
                if fatal == nil {
                    // What is batched so far can still commit; nothing after it.
                    commit()
                    if fatal == nil { fatal = error }
                    stop.set()
                }
            case .prepared(let item):
                bytesSoFar += Int64(item.byteSize)
                for warning in item.warnings { onWarning?(item.path, warning) }
                return item
            }
            return nil
        }
        // Batches prepared files together (a pair is one item): a batch is committed only
        // between groups.
        func enqueue(_ items: [Prepared]) {
            for item in items {
                if fatal == nil {
                    batch.append(item)
                } else {
                    // After a fatal error nothing more commits; do not leave orphans behind.
                    uncommitted += item.allUncommitted
                }
            }
            if batch.count >= options.batchSize { commit() }
        }
        func release(_ group: [(String, Outcome)]) {
            let prepared = group.compactMap { take($0.0, $0.1) }
            enqueue(options.pairing ? Pairing.group(prepared) : prepared)
        }

        while true {
            // Woken once the rest of the batch is queued, not for every file (a thread switch
            // per file of a tree of small photos), or after at most 0.1 s with what is queued
            // (progress keeps moving on large files), or when the batch's time is up or the
            // workers are done.
            let soon = Date().addingTimeInterval(0.1)
            let (items, finished) = queue.pop(
                atLeast: options.batchSize - batch.count, max: options.batchSize,
                until: min(soon, batchStarted.addingTimeInterval(options.batchSeconds)))
            for (path, outcome, siblings) in items {
                done += 1
                if options.pairing && siblings > 1 {
                    // One of several files with one base name in a folder (`IMG_1234.CR2`,
                    // `IMG_1234.JPG`): held until the others came, so a pair goes into one batch
                    // (one commit) whatever the batch size and the order the workers finished in.
                    let key = Pairing.key(path)
                    held[key, default: []].append((path, outcome))
                    if held[key]?.count ?? 0 >= siblings, let group = held.removeValue(forKey: key) {
                        release(group)
                    }
                } else if let item = take(path, outcome) {
                    enqueue([item])
                }
                takeProblems()
                scanFinished = files.isFinished
            }
            // SIGINT, SIGTERM, SIGHUP (issue 31 item 19): what is batched commits (a batch
            // boundary), nothing after it; the workers stop taking files.
            if fatal == nil, let signal = StopSignal.received {
                commit()
                if fatal == nil { fatal = StopRequested(signal: signal) }
                stop.set()
            }
            // Once per group taken, with its last count: the display redraws at most every 0.1 s,
            // so a call per file showed the count of a group's first file.
            if !items.isEmpty { onProgress?(done, files.found) }
            if items.isEmpty && finished { break }
            // (An empty batch restarts its time: see commit().)
            if Date().timeIntervalSince(batchStarted) >= options.batchSeconds { commit() }
        }
        // Groups some of whose entries never came (a folder named like a file, an entry that
        // could not be read): what came is complete now.
        for key in held.keys.sorted() { if let group = held.removeValue(forKey: key) { release(group) } }
        takeProblems()
        commit()
        applyRefreshes()
        summary.seconds = Date().timeIntervalSince(start)
        if let fatal {
            let error = LibraryError.wrap(fatal, library: libraryRoot)
            // Only where no other import, merge or apply may commit them (issue 31 item 16); else
            // left as orphans for `verify --repair`.
            library?.removeUncommittedFiles(uncommitted, importLock: &importLock)
            guard batchesCommitted > 0 else { throw error }
            throw Interrupted(report: summary, error: error)
        }
        if let library, !tagNames.isEmpty {
            try tagDuplicates(pipeline.claims.duplicates.union(committedDuplicates), tagNames, library)
        }
        return summary
    }

    /// `--tag` on the photos of duplicate files too: a user expects the tag on the photo
    /// whether this run imported it or it was there already. Through `Library.addTag` (each
    /// photo gets the tag of its own zone; history context `tag add`, nothing recorded for a
    /// photo that has it already).
    private func tagDuplicates(_ hashes: Set<String>, _ tagNames: [String], _ library: Library) throws {
        guard !hashes.isEmpty else { return }
        var photos: [PhotoRecord] = []
        for sha in hashes.sorted() {
            guard
                let found = try library.store.importedOriginal(
                    sha256: sha, in: try library.duplicateScope(into: options.zone))
            else { continue }
            photos.append(try library.resolvePhoto(found.uniqueName))
        }
        for name in tagNames { try library.addTag(TagName(rawValue: name), to: photos, author: options.author) }
    }

    /// What is wrong with the stored original at `path`, compared with `bytes` (the file being
    /// imported, whose SHA-256 the photo records), or nil when it is intact.
    ///
    /// Cost: a stat(2), and when the size is right, one read of the stored file compared byte
    /// for byte in 1 MiB chunks (no hashing; memory one chunk). A damaged original of the right
    /// size — a flipped bit — is only found by reading it; that read doubles the I/O of a
    /// duplicate (measured in the README), which is what makes re-importing heal every damage
    /// `verify` reports.
    static func damage(ofStored path: String, comparedWith bytes: [UInt8]) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else {
            return errno == ENOENT ? "it was missing" : "it could not be opened (\(String(cString: strerror(errno))))"
        }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { return "it was not a regular file" }
        guard Int(st.st_size) == bytes.count else { return "it had \(st.st_size) bytes instead of \(bytes.count)" }
        let chunk = ImageFile.chunk
        var buffer = [UInt8](repeating: 0, count: min(chunk, max(1, bytes.count)))
        var offset = 0
        while offset < bytes.count {
            let want = min(buffer.count, bytes.count - offset)
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, want) }
            if n < 0 {
                if errno == EINTR { continue }
                return "it could not be read (\(String(cString: strerror(errno))))"
            }
            if n == 0 { return "it was shorter than recorded" }
            let same = buffer.withUnsafeBytes { b in
                bytes.withUnsafeBytes { all in
                    guard let stored = b.baseAddress, let imported = all.baseAddress else { return false }
                    return memcmp(stored, imported + offset, n) == 0
                }
            }
            if !same { return "its bytes no longer matched its SHA-256" }
            offset += n
        }
        return nil
    }

    /// True when the name's extension (any case) is one of `ImageFormat.claimedExtensions`
    /// (`.jpg`, `.jpeg`, `.png`, `.heic`, `.heif`, `.hif`, `.avif`, `.webp`, `.tif`, `.tiff`, `.gif`): such a file that is
    /// not an image is a failure, not a skip (issue 13 item 2).
    static func claimsImage(_ path: String) -> Bool {
        ImageFormat.claimedExtensions.contains(PathName.pathExtension(path).lowercased())
    }

    /// The worker's part for one file: classify by magic bytes, read and hash, skip a SHA-256
    /// known in `duplicates` (a photo outside it with the same original is no duplicate: the
    /// new photo shares the content-addressed file, issue 31 A1; one of another zone than
    /// `zone` is `.duplicateInAnotherZone`), decode and thumbnail, recognise a photo of `zone`
    /// whose image data it has (`ImageDataHash`: then `.refresh` with a replacement), write the
    /// original.
    static func prepare(
        path: String, reader: (any ImportStore & MetadataStore)?, claimed: Claims, store: ExternalDataStore?,
        thumbnail: ThumbnailOptions, refreshMetadata: Bool = false, sidecarsPossible: Bool = true,
        zone: String = ZoneID.default.rawValue, duplicates: DuplicateScope = .privateStore,
        photosBeforeRun: Int64 = .max
    ) -> Outcome {
        let ext = PathName.pathExtension(path).lowercased()
        if XMPSidecar.isSidecar(path) { return .sidecar }
        let claimsImage = Importer.claimsImage(path)
        let file: ImageFile
        do {
            // Memory is the file's size: one too large for --max-pixels, or sparse, is refused
            // before it is read (issue 31 item 20).
            file = try ImageFile.read(path: path, maxBytes: thumbnail.maxFileBytes)
        } catch let error as FileError
            where error.kind == .unacceptable && Int64(error.reason.prefix { $0 != " " }) != nil
        {
            return .failed("\(error.reason) at --max-pixels \(thumbnail.maxPixels)")
        } catch let error as FileError {
            return .failed(error.reason) // reported with the path
        } catch {
            return .failed("\(error)")
        }
        let detected = file.bytes.withUnsafeBytes {
            // The whole file: a TIFF-based RAW is told from a plain TIFF by its tags (pc_raw_sniff).
            ImageFormatSniffer.detect($0, soiSuffices: ext == "jpg" || ext == "jpeg", heifAndWebP: true)
        }
        guard detected != nil else {
            guard claimsImage else { return .skipped }
            if file.bytes.isEmpty {
                return .failed(
                    "empty file (0 bytes), not a JPEG, PNG, HEIF, AVIF, WebP, TIFF, GIF, JPEG XL or camera RAW")
            }
            let head = file.bytes.prefix(4).map { String(format: "0x%02x", $0) }.joined(separator: " ")
            return .failed(
                "not a JPEG, PNG, HEIF, AVIF, WebP, TIFF, GIF, JPEG XL or camera RAW file (its name says .\(ext), its bytes start with \(head))"
            )
        }
        if !claimed.claim(file.sha256) {
            claimed.noteDuplicate(file.sha256)
            return .duplicate
        }
        if let reader, let found = (try? reader.importedOriginal(sha256: file.sha256, in: duplicates)) ?? nil {
            // (Here `detected` is the format: a duplicate's image-data hash is computed only
            // by a refresh, which records it for a photo that has none.)
            let existing = (found.uniqueName, found.displayName, found.fileReference)
            // Heal instead of forget: a duplicate of a photo whose original is missing or
            // damaged writes the original back, atomically as an import does.
            guard let store,
                let damage = Importer.damage(ofStored: store.path(for: existing.2), comparedWith: file.bytes)
            else {
                claimed.noteDuplicate(file.sha256)
                guard refreshMetadata else {
                    // Asked into a share (`--share`) but a photo of another zone of this library's:
                    // not made a second time, and said so.
                    if zone != ZoneID.default.rawValue && found.zone != zone { return .duplicateInAnotherZone(found) }
                    return .duplicate
                }
                return refresh(
                    path: path, file: file, uniqueName: existing.0, thumbnail: thumbnail,
                    sidecarsPossible: sidecarsPossible)
            }
            let restoration = ImportRestoration(
                path: path, uniqueName: existing.0, displayName: existing.1, reason: damage)
            // (The store of a dry run writes nothing: `Library.dryRun`.)
            do {
                // Deferred like a new original: the importing thread makes the restored
                // originals durable together (one syncfs) before it reports them restored.
                try file.bytes.withUnsafeBytes {
                    _ = try store.write($0, reference: existing.2, durability: .deferred)
                }
            } catch {
                claimed.release(file.sha256)
                if let e = error as? FileError, e.isEnvironmental {
                    return .fatal(ImportError.cannotRestoreOriginal(photo: existing.0, path: path, underlying: e))
                }
                return .failed("cannot restore the original of photo \(existing.0): \(error)")
            }
            return .restored(restoration, reference: existing.2)
        }
        var result: ThumbnailResult
        do {
            result = try file.bytes.withUnsafeBytes { try Thumbnailer.makeThumbnail(from: $0, options: thumbnail) }
        } catch {
            claimed.release(file.sha256)
            return .failed("\(error)")
        }
        result.motion = Importer.motionVideo(file.bytes, format: result.format, thumbnail: thumbnail)
        var sidecar: XMPSidecar?
        var warnings: [String] = []
        do {
            // The scan saw no sidecar-like name in the folder: no open(2) of five absent names.
            sidecar = sidecarsPossible ? try XMPSidecar.load(for: path) : nil
        } catch let error as SidecarError where error.isInvalidXMP {
            // Well-formed XML the toolkit refuses as XMP and that could not be repaired: the
            // image is fine, so it imports without the sidecar, with a warning naming it.
            warnings.append("\(error); imported without it")
        } catch {
            claimed.release(file.sha256)
            return .failed("\(error)")
        }
        // XMP embedded in the image: a packet that cannot be read — malformed, refused by the
        // toolkit, or not UTF-8 (its tags would be changed) — is left out (the image itself is
        // fine), with a warning naming the file (issue 31 items 13 and 21).
        let embedded = Importer.embeddedMetadata(result, path: path)
        warnings += embedded.problems.map { "\($0); imported without it" }
        let capture = Importer.captureTime(
            exif: result.metadata.exif, sidecar: sidecar, embedded: embedded.xmp, fileTime: file.modificationTime,
            video: result.video)
        let position = Importer.position(
            exif: result.metadata.exif, sidecar: sidecar, embedded: embedded.xmp, video: result.video)
        if position == nil, let problem = result.metadata.exif.positionProblem {
            warnings.append("\(path): \(problem)")
        }
        sidecar = XMPSidecar.merged(sidecar: sidecar, embedded: embedded.xmp, iptcKeywords: embedded.iptcKeywords)
        // The same image with rewritten metadata (issue 31 item 5): a photo of the target zone
        // made before this run (`photosBeforeRun`) whose image data has this hash, of the same
        // format, size and orientation (EXIF Orientation is metadata, but it turns the picture),
        // is this file's photo; the file becomes its original. One pass of SHA-256 over the
        // image data, bytes in memory. A photo this run made is never one: two files of one run
        // with the same image data (PNGs that differ in how IDAT is split, in tIME or text
        // chunks) are two photos whichever batch committed first.
        let imageSHA256 = file.bytes.withUnsafeBytes { ImageDataHash.sha256(of: $0, format: result.format) }
        if let reader, let imageSHA256,
            let match = (try? reader.photo(imageSHA256: imageSHA256, zone: zone, rowIDAtMost: photosBeforeRun)) ?? nil,
            match.format == result.format, match.width == result.width, match.height == result.height,
            match.orientation == result.orientation
        {
            // An older version of the photo (its original before a rewritten file replaced it,
            // such as exiftool's FILE_original): never taken back.
            if match.replacedSHA256s.contains(file.sha256) { return .duplicate }
            // The file's metadata is applied as a refresh: metadata that cannot be read would
            // read as "no tags" and remove the photo's, so the file fails instead.
            if let problem = embedded.problems.first {
                claimed.release(file.sha256)
                return .failed(problem)
            }
            var wrote: ExternalDataStore.WrittenOriginal?
            if let store {
                do {
                    wrote = try file.bytes.withUnsafeBytes {
                        try store.writeOriginal(
                            $0, reference: ExternalDataStore.reference(for: file.sha256), durability: .deferred)
                    }
                } catch {
                    claimed.release(file.sha256)
                    if let e = error as? FileError, e.isEnvironmental { return .fatal(e) }
                    return .failed("\(error)")
                }
            }
            return .refresh(
                MetadataRefresh(
                    path: path, uniqueName: match.uniqueName, sha256: file.sha256, metadata: sidecar, capture: capture,
                    imageSHA256: imageSHA256,
                    replacement: OriginalReplacement(
                        previousSHA256: match.sha256, sha256: file.sha256, byteSize: file.bytes.count,
                        replacedBefore: match.replacedSHA256s, written: wrote),
                    position: position, camera: Importer.camera(result, metadata: sidecar),
                    cameraFormat: Importer.cameraFormat(result, path: path),
                    text: Importer.text(result, metadata: sidecar)))
        }
        // Merged into `sidecar`: the raw packet (up to 4 MiB) and the IPTC keywords would only
        // weigh on the import queue and the batch (`ImportPipeline`).
        let text = Importer.text(result, metadata: sidecar)
        var kept = result
        kept.metadata.xmp = nil
        kept.metadata.iptcKeywords = []
        var wrote: ExternalDataStore.WrittenOriginal?
        // A dry run's store writes nothing (`Library.dryRun`): `wrote` stays nil.
        if let store {
            let reference = ExternalDataStore.reference(for: file.sha256)
            do {
                // Deferred: the batch writer makes the batch's originals durable together (one
                // syncfs) before their rows commit; `.prepared` is returned only after the rename.
                wrote = try file.bytes.withUnsafeBytes {
                    try store.writeOriginal($0, reference: reference, durability: .deferred)
                }
            } catch {
                claimed.release(file.sha256)
                // The file being imported and where its original was going (issue 31 item 21):
                // "cannot import SOURCE: cannot write DEST: No space left on device".
                if let e = error as? FileError, e.isEnvironmental {
                    return .fatal(FileError(e.kind, "cannot import \(path): \(e.message)", errno: e.errno))
                }
                return .failed("\(error)")
            }
        }
        return .prepared(
            Prepared(
                path: path, sha256: file.sha256, byteSize: file.bytes.count, result: kept,
                sidecar: sidecar, capture: capture, written: wrote, warnings: warnings, imageSHA256: imageSHA256,
                position: position, camera: Importer.camera(result, metadata: sidecar),
                cameraFormat: Importer.cameraFormat(result, path: path), title: text.title,
                description: text.description))
    }

    /// `--refresh-metadata`'s read of a file already in the library: its metadata as import
    /// reads it (the image is decoded for its embedded EXIF/XMP/IPTC: the decoders read them
    /// as they thumbnail, at the cost of a thumbnail per file), its sidecar, and its capture
    /// time unless only the file's modification time gave one.
    /// - Returns: `.refresh`, or `.failed` naming the file (or its sidecar) when the image or
    ///   the sidecar cannot be read.
    static func refresh(
        path: String, file: ImageFile, uniqueName: String, thumbnail: ThumbnailOptions, sidecarsPossible: Bool = true
    ) -> Outcome {
        let result: ThumbnailResult
        let sidecar: XMPSidecar?
        do {
            result = try file.bytes.withUnsafeBytes { try Thumbnailer.makeThumbnail(from: $0, options: thumbnail) }
            sidecar = sidecarsPossible ? try XMPSidecar.load(for: path) : nil
        } catch {
            return .failed("\(error)")
        }
        // A refresh applies what the file says: metadata that cannot be read faithfully would
        // read as "no tags", so the file fails instead of being left out.
        let embedded = Importer.embeddedMetadata(result, path: path)
        if let problem = embedded.problems.first { return .failed(problem) }
        var capture = Importer.captureTime(
            exif: result.metadata.exif, sidecar: sidecar, embedded: embedded.xmp, fileTime: file.modificationTime,
            video: result.video)
        if capture?.source == "file-mtime" { capture = nil }
        let metadata = XMPSidecar.merged(
            sidecar: sidecar, embedded: embedded.xmp, iptcKeywords: embedded.iptcKeywords)
        // Recorded for a photo imported before its image-data hash was (schema 7).
        let imageSHA256 = file.bytes.withUnsafeBytes { ImageDataHash.sha256(of: $0, format: result.format) }
        return .refresh(
            MetadataRefresh(
                path: path, uniqueName: uniqueName, sha256: file.sha256, metadata: metadata, capture: capture,
                imageSHA256: imageSHA256,
                position: Importer.position(
                    exif: result.metadata.exif, sidecar: sidecar, embedded: embedded.xmp, video: result.video),
                camera: Importer.camera(result, metadata: metadata),
                cameraFormat: Importer.cameraFormat(result, path: path), text: Importer.text(result, metadata: metadata)
            ))
    }

    /// What the image's own metadata says: its XMP packet parsed and its IPTC keywords, each
    /// left out — with a warning naming `path` — when it cannot be read faithfully (issue 31
    /// items 13 and 21): a packet that is malformed, that the toolkit refuses, or that is not
    /// UTF-8 text; IPTC keywords declared UTF-8 (1:90) whose bytes are not (`EmbeddedMetadata`
    /// decoded them with U+FFFD in their place). Nothing is replaced silently.
    struct EmbeddedRead {
        /// The parsed packet; nil when there is none or it was left out.
        var xmp: XMPSidecar?
        /// The IPTC keywords (1:25); empty when left out.
        var iptcKeywords: [String]
        /// Why each part was left out, one line each (the error, naming `path`).
        var problems: [String] = []
    }

    /// Reads the metadata embedded in `result`'s image (`EmbeddedRead`); never throws.
    static func embeddedMetadata(_ result: ThumbnailResult, path: String) -> EmbeddedRead {
        var read = EmbeddedRead(xmp: nil, iptcKeywords: result.metadata.iptcKeywords)
        if let keyword = read.iptcKeywords.first(where: { $0.unicodeScalars.contains("\u{FFFD}") }) {
            let error = SidecarError.iptcKeywordNotUTF8(path: path, shown: JSONValue.string(keyword).serialized())
            read.problems.append("\(error) (its IPTC keywords)")
            read.iptcKeywords = []
        }
        if let packet = result.metadata.xmp {
            do {
                read.xmp = try XMPSidecar.parse(Data(packet), path: path)
            } catch {
                read.problems.append("\(error) (the packet embedded in the image)")
            }
        }
        return read
    }

    /// A Motion Photo's embedded video (issue 25 item 3): a JPEG whose
    /// `MotionPhoto.embeddedVideo` finds a video (a HEIC Motion Photo is not found yet:
    /// `embeddedVideo` reads a JPEG's segments only), with its duration and codec as libavformat
    /// reads them; nil when there is none or the embedded video cannot be read (the still is
    /// then imported as a still: its image is fine).
    static func motionVideo(_ bytes: [UInt8], format: ImageFormat, thumbnail: ThumbnailOptions)
        -> (range: Range<Int>, video: VideoPosterResult)?
    {
        guard format == .jpeg, let range = MotionPhoto.embeddedVideo(in: bytes) else { return nil }
        let video = try? bytes[range].withUnsafeBytes { try VideoPoster.makeThumbnail(from: $0, options: thumbnail) }
        return video.map { (range, $0) }
    }

    /// Where an imported file was taken (issue 26 item 1), from the first source that has a
    /// position: the XMP sidecar (`exif:GPSLatitude`…, the user's or a geotagger's correction),
    /// the EXIF GPS IFD (EXIF 2.32 §4.6.6), a video's ISO 6709 position (QuickTime
    /// `com.apple.quicktime.location.ISO6709`, else the udta `©xyz` atom; `VideoPoster.position`), the
    /// XMP embedded in the image.
    static func position(
        exif: ExifMetadata, sidecar: XMPSidecar?, embedded: XMPSidecar?, video: VideoPosterResult? = nil
    ) -> GeoPosition? {
        sidecar?.position ?? exif.position ?? video?.position ?? embedded?.position
    }

    /// The capture time of an imported file, from the first source that has one (SPEC §3,
    /// issue 9 item 6): EXIF DateTimeOriginal (+ SubSecTimeOriginal, OffsetTimeOriginal), EXIF
    /// DateTimeDigitized (+ its sub-seconds and offset), EXIF DateTime (+ OffsetTime) — an EXIF
    /// time without offset takes the XMP date's offset when both name the same second — the XMP
    /// sidecar's `photoshop:DateCreated`/`exif:DateTimeOriginal` (or a JSON sidecar's
    /// `captureDate`), the same in the embedded XMP — a local time of these still without an
    /// offset takes the one EXIF GPSDateStamp + GPSTimeStamp give (`CaptureTime.offsetFromGPS`,
    /// source `…+gps-offset`) — then the GPS time itself as a UTC instant (source `gps`), and last
    /// the file's modification time
    /// (the local time of the importing machine, with that zone's offset; source `file-mtime`):
    /// `fileTime`, seconds since the epoch, as fstat(2) gave it when the file was read.
    ///
    /// A video (issue 25 item 1; `video` is its poster's reading) has no EXIF: QuickTime
    /// `com.apple.quicktime.creationdate` (ISO 8601 local time with its offset; source
    /// `quicktime-creationdate`), else the container's `creation_time` (UTC, offset 0, shown
    /// with `Z`; source `creation-time`), else the XMP sources, else the file's mtime.
    static func captureTime(
        exif: ExifMetadata, sidecar: XMPSidecar?, embedded: XMPSidecar?, fileTime: Int,
        video: VideoPosterResult? = nil
    ) -> CaptureTime? {
        if let video {
            if let text = video.quickTimeCreationDate,
                let t = CaptureTime.fromISO(text, source: "quicktime-creationdate")
            {
                return t
            }
            if let text = video.creationTime, var t = CaptureTime.fromISO(text, source: "creation-time") {
                // libavformat writes creation_time in UTC ("…Z"); one without a zone is UTC too.
                if t.offsetMinutes == nil { t.offsetMinutes = 0 }
                return t
            }
        }
        let exifSources: [(String?, String?, String?, String)] = [
            (exif.dateTimeOriginal, exif.subSecTimeOriginal, exif.offsetTimeOriginal, "exif"),
            (exif.dateTimeDigitized, exif.subSecTimeDigitized, exif.offsetTimeDigitized, "exif-digitized"),
            (exif.dateTime, exif.subSecTime, exif.offsetTime, "exif-datetime")
        ]
        let xmp = sidecar?.captureTime ?? embedded?.captureTime
        let gps = exif.gpsDateTime.flatMap(CaptureTime.fromGPS)
        // A local time still without an offset takes the one the GPS time gives (issue 26 item 4).
        func withGPSOffset(_ t: CaptureTime) -> CaptureTime {
            guard t.offsetMinutes == nil, let gps, let offset = CaptureTime.offsetFromGPS(local: t.local, gps: gps)
            else { return t }
            return CaptureTime(local: t.local, offsetMinutes: offset, source: t.source + "+gps-offset")
        }
        for (date, subSeconds, offset, source) in exifSources {
            guard let date, var t = CaptureTime.fromEXIF(date, subSeconds: subSeconds, offset: offset, source: source)
            else { continue }
            // EXIF without an offset, XMP with one for the same wall-clock second (Lightroom and
            // digiKam write photoshop:DateCreated with the zone): the offset is the XMP's.
            if t.offsetMinutes == nil, let xmp, xmp.offsetMinutes != nil, xmp.local.prefix(19) == t.local.prefix(19) {
                t.offsetMinutes = xmp.offsetMinutes
            }
            return withGPSOffset(t)
        }
        if let xmp { return withGPSOffset(xmp) }
        // No capture time but the GPS time: that instant, in UTC (source `gps`).
        if let gps { return gps }
        return CaptureTime.fromFileTime(fileTime)
    }
}
