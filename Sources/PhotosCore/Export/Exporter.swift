import Foundation
import PhotosFiles
import PhotosModel
import Synchronization

/// Which sidecar `photos export` writes beside each original (`--sidecar`).
public enum SidecarFormat: String, CaseIterable, Sendable {
    /// `NAME.EXT.xmp`, written by `XMPWriter` (the default).
    case xmp
    /// `NAME.EXT.json`: the SPEC §5a photo object.
    case json
    /// No sidecar.
    case none
}

/// What `photos export DEST` does, as options (SPEC §5, issue #5).
public struct ExportOptions {
    /// The export folder (DEST); created when absent.
    public var destination: String
    /// Which photos (`--tag`, `--since`, `--until`, `--zone`/`--share`, `--min-rating`).
    public var filter = PhotoFilter()
    /// File names (`--name`).
    public var template = ExportNameTemplate.default
    /// Also write each thumbnail as `NAME.thumb.jpg` (`--thumbnails`).
    public var thumbnails = false
    /// `--sidecar`.
    public var sidecar = SidecarFormat.xmp
    /// Trust the export state for files recorded as written and unchanged (size and mtime),
    /// keep each photo's earlier name, and rewrite a recorded file that changed on disk
    /// (`--update`).
    public var update = false
    /// Remove files this export wrote earlier that the current selection no longer produces
    /// (`--cleanup`).
    public var cleanup = false
    /// Decide everything, write nothing (`--dry-run`): the same code runs, every file effect
    /// goes through a `FileWriter` that performs none, and the export state is read (when
    /// DEST has one) but neither created nor changed.
    public var dryRun = false
    /// Worker threads copying originals and writing sidecars and thumbnails (`--jobs`); at
    /// least 1, default the number of cores.
    public var jobs: Int = ProcessInfo.processInfo.activeProcessorCount
    /// Photos per group (issue 15 item 1): the files of a group are written and renamed
    /// without fsync, then made durable with one `syncfs(2)` of DEST's file system, and only
    /// then recorded in the export state, in one transaction.
    public var batchSize = 64
    /// Hash every original while copying it and refuse one whose SHA-256 is not the library's
    /// (`--check-hashes`). Without it (the default, as cp, osxphotos and digiKam copy) an
    /// original is copied inside the kernel (copy_file_range(2)) after its size is checked
    /// against the library's: a truncated or grown original is refused either way, one damaged
    /// in place (same size) only with this option; `photos verify` checks every hash.
    public var checkHashes = false

    public init(destination: String) { self.destination = destination }
}

/// A photo that could not be exported, with the reason.
public struct ExportFailure: Equatable, Sendable {
    public var uniqueName: String
    public var displayName: String
    public var reason: String
}

/// The counts an export reports: per photo, `written` (its original was written), `updated`
/// (its original was there, but a sidecar or thumbnail — or a damaged original with `--update` —
/// was rewritten), `skipped` (nothing to do), `failed`; `removed` counts files `--cleanup`
/// deleted; `bytes` all bytes written.
public struct ExportSummary: Equatable, Sendable {
    public var written = 0
    public var updated = 0
    public var skipped = 0
    public var failed = 0
    public var removed = 0
    /// Bytes written (originals, sidecars and thumbnails).
    public var bytes: Int64 = 0
    /// Wall-clock seconds of the whole run.
    public var seconds: Double = 0
    public var failures: [ExportFailure] = []

    /// `{"written":N,"updated":N,"skipped":N,"failed":N,"bytes":N,"seconds":X}` (issue #5 §7),
    /// plus `"removed":N` with `--cleanup` and `"dryRun":true` with `--dry-run`.
    public func json(cleanup: Bool, dryRun: Bool) -> JSONValue {
        var pairs: [(String, JSONValue)] = [
            ("written", .int(written)), ("updated", .int(updated)), ("skipped", .int(skipped)),
            ("failed", .int(failed)), ("bytes", .int(Int(bytes))), ("seconds", .double(seconds))
        ]
        if cleanup { pairs.append(("removed", .int(removed))) }
        if dryRun { pairs.append(("dryRun", .bool(true))) }
        return .object(pairs)
    }
}

/// Exports originals byte for byte with sidecars into a folder (SPEC §5, §7; issue #5).
///
/// Every file is written to a hidden temporary name in its target folder and renamed into place
/// (POSIX rename(2) is atomic), so an interrupted export never leaves part of a file under a
/// real name; the next run removes leftover temporary files. Photos go in batches of
/// `batchSize`, their files written by `jobs` threads; each batch's files are made durable
/// together (one syncfs(2) of DEST's file system) before the export state records them. Each original's
/// size must match the library's; with `checkHashes` it is hashed while it is copied and must match the
/// library's SHA-256, otherwise it is copied inside the kernel. No file is written outside DEST: names
/// are sanitized (`ExportNaming.sanitize`) and every target folder's real path is checked to be
/// inside DEST's real path (symbolic links included).
public final class Exporter {
    /// Prefix of temporary files in the export folder.
    public static let temporaryPrefix = ".photos-export-tmp-"
    /// Most collision variants tried for one name before the photo fails.
    static let maxVariants = 10_000
    /// Photos read from the library per query (keyset pages in uniqueName order).
    static let defaultPageSize = 1_000
    /// Photos read per query (at least `ExportOptions.batchSize`); tests make it small to cross
    /// many pages with few photos.
    var pageSize = Exporter.defaultPageSize

    /// Ends the paging once DEST refused a write.
    private struct StopReading: Error {}

    private let library: Library
    private let options: ExportOptions
    /// Called for each photo that fails, as it fails.
    public var onFailure: ((ExportFailure) -> Void)?
    /// Called after each photo with (photos done, photos in all).
    public var onProgress: ((Int, Int) -> Void)?
    /// Called with remarks worth a line on stderr (a damaged state file set aside, a modified
    /// file `--cleanup` left in place).
    public var onNote: ((String) -> Void)?
    /// With `--dry-run`: called with each file (relative to DEST) the export would produce, in
    /// the order it would write them (original, then its sidecar and thumbnail).
    public var onPlannedFile: ((String) -> Void)?

    /// Makes the file system holding a path durable (syncfs(2)); calls its second argument
    /// right before the sync is issued. Replaced by tests to observe or fail a batch's sync.
    var syncFileSystem: @Sendable (String, () -> Void) throws -> Void = {
        try Durability.syncFileSystem(containing: $0, willSync: $1)
    }

    public init(library: Library, options: ExportOptions) {
        self.library = library
        self.options = options
    }

    /// One planned photo: where its original goes and, when an identical file is already
    /// there, its state entry.
    struct Planned {
        var photo: PhotoRecord
        var path: String
        var present: ExportState.Entry?
        var originalPresent: Bool { present != nil }
    }

    /// Runs the export.
    /// - Returns: the summary; per-photo failures are in it (and were passed to `onFailure`).
    /// - Throws: `ExportError` when DEST cannot be created, is not a folder or is inside the
    ///   library (`.destinationIsFile`, `.destinationInsideLibrary`, `.cannotCreateDestination`,
    ///   `.cannotWriteDestination`), `.destinationBusy` when another export holds DEST's lock,
    ///   and what reading the library throws.
    public func run() throws -> ExportSummary {
        let start = Date()
        // DEST as given on the command line: relative to this process's working folder.
        // (Left for the CLI's typed options to hand over absolute, as the library path is.)
        let dest = Library.absolute(
            options.destination,
            in: LibraryEnvironment(
                variables: ProcessInfo.processInfo.environment,
                currentDirectory: FileManager.default.currentDirectoryPath,
                fallbackHome: NSHomeDirectory()))
        let fm = FileManager.default
        var isDir: ObjCBool = false
        let exists = fm.fileExists(atPath: dest, isDirectory: &isDir)
        if exists && !isDir.boolValue {
            throw ExportError.destinationIsFile(dest)
        }
        let realLibrary = Exporter.realPath(library.root) ?? (library.root as NSString).standardizingPath
        if Exporter.isInside(Exporter.prospectiveRealPath(dest), realLibrary) {
            throw ExportError.destinationInsideLibrary(dest, library: library.root)
        }
        if !exists && !options.dryRun {
            do {
                try fm.createDirectory(atPath: dest, withIntermediateDirectories: true)
            } catch {
                throw ExportError.cannotCreateDestination(dest, reason: Exporter.reason(error))
            }
        }
        let realDest = exists || !options.dryRun ? (Exporter.realPath(dest) ?? dest) : dest

        var lockFD: Int32 = -1
        defer { if lockFD >= 0 { close(lockFD) } }
        var state: ExportState?
        if options.dryRun {
            state = ExportState.readOnly(destination: dest, backend: library.exportStates)
        } else {
            lockFD = open(dest + "/" + ExportState.lockName, O_RDWR | O_CREAT | O_CLOEXEC, 0o666)
            guard lockFD >= 0 else {
                throw ExportError.cannotWriteDestination(dest, reason: String(cString: strerror(errno)))
            }
            guard flock(lockFD, LOCK_EX | LOCK_NB) == 0 else {
                throw ExportError.destinationBusy(dest)
            }
            Exporter.removeTemporaryFiles(in: dest)
            let opened = try ExportState(
                destination: dest, backend: library.exportStates, busyTimeout: library.busyTimeout)
            if let aside = opened.setAside {
                onNote?(
                    "the export state was unreadable; moved it to \(aside) and rebuilt it from the files in \(dest)")
            }
            state = opened
        }

        var summary = ExportSummary()
        var planner = Planner(
            root: dest, state: state, trustState: options.update,
            companionKinds: Planner.companionKinds(sidecar: options.sidecar, thumbnails: options.thumbnails))
        // The photos are read a page at a time in uniqueName order (keyset paging), so memory
        // holds a page, the names taken so far (`Planner.taken`) and the export state, not the
        // library. With --update a first pass keeps each photo's recorded name before any other
        // photo picks one, as naming all photos at once did.
        // The same pass counts the progress total (without --update, a pass of its own, made only
        // when progress is reported).
        let pageSize = max(self.pageSize, options.batchSize)
        let reserve = options.update && state != nil
        var total = 0
        if reserve || onProgress != nil {
            try library.forEachPhotoPage(matching: options.filter, pageSize: pageSize) { page in
                if reserve { planner.reserveRecordedNames(page, template: options.template) }
                total += page.count
            }
        }
        // Photos without a usable name (they keep whatever they had before).
        var unnamed = Set<String>()

        let writer = FileWriter(
            root: dest, realRoot: realDest, realLibrary: realLibrary, dryRun: options.dryRun, durability: .deferred,
            checkHashes: options.checkHashes)
        var keep = NameFingerprints()
        var done = 0
        let batchSize = max(1, options.batchSize)

        /// Waits for a written batch's syncfs, then counts its photos and records its rows (in
        /// one transaction); throws what stops the export.
        func finish(_ written: WrittenBatch) throws {
            var stop: Error?
            if let sync = written.sync, let error = sync.wait() {
                stop = Exporter.environmentError(error, destination: dest) ?? error
            }
            var recorded: [ExportState.Entry] = []
            var counts = ExportSummary()
            if stop == nil {
                for (item, result) in zip(written.items, written.results) {
                    let paths = files(of: item).map(\.path)
                    // Only --cleanup needs every path of the run (a set of 1-3 paths a photo).
                    if options.cleanup { keep.formUnion(paths) }
                    do {
                        let files = try result.get()
                        // Only the files of a photo the real run would write (not of one it refuses).
                        if options.dryRun, let onPlannedFile { paths.forEach(onPlannedFile) }
                        recorded += files.entries
                        counts.bytes += files.bytes
                        switch files.outcome {
                        case .written: counts.written += 1
                        case .updated: counts.updated += 1
                        case .skipped: counts.skipped += 1
                        }
                    } catch {
                        // The export state or DEST's file system refused (busy, read-only,
                        // full): every later photo would fail the same way. Stop with that
                        // status once what this batch wrote is recorded (issue 9 item 9);
                        // running the same export again continues.
                        if let environment = Exporter.environmentError(error, destination: dest) {
                            if stop == nil { stop = environment }
                            continue
                        }
                        // A concurrent delete or purge removed the photo after it was listed:
                        // it is no longer in the library, so it is not a failure of this export.
                        if (try? (library.store as any ExportStore).photoExists(uniqueName: item.photo.uniqueName))
                            == false
                        {
                            onNote?("\(item.photo.uniqueName) was deleted from the library during the export; skipped")
                            continue
                        }
                        fail(item.photo, Exporter.reason(error), &summary)
                    }
                }
                // The batch counts once its rows are in the export state (when there is one).
                do {
                    if let state { try state.record(recorded.filter { state.entry($0.path) != $0 }) }
                    summary.written += counts.written
                    summary.updated += counts.updated
                    summary.skipped += counts.skipped
                    summary.bytes += counts.bytes
                } catch {
                    stop = Exporter.environmentError(error, destination: dest) ?? error
                }
            }
            // SIGINT, SIGTERM, SIGHUP (issue 31 item 19): this batch is written and recorded;
            // stop before the next one.
            if stop == nil, let signal = StopSignal.received { stop = StopRequested(signal: signal) }
            if let stop {
                summary.seconds = Date().timeIntervalSince(start)
                if summary.written + summary.updated + summary.removed > 0 {
                    throw Interrupted(report: summary, error: stop)
                }
                throw stop
            }
        }

        // A pipeline of two stages (issue 15 item 3): batch N's syncfs runs on its own thread
        // while the workers write batch N+1; then batch N's rows are recorded, and only then is
        // batch N+1's syncfs issued. So a file recorded in the export state has been made durable
        // by a syncfs that returned, and a crash leaves at most two batches of files unrecorded
        // (found again by their bytes on the next run).
        var pending: WrittenBatch?
        var queue: [Planned] = []
        /// Writes the planned photos of the queue in batches of `batchSize` (the last one
        /// shorter with `all`), as one list of every photo was; false once DEST refused and no
        /// further batch may be written.
        func writeBatches(all: Bool) throws -> Bool {
            while !queue.isEmpty && (all || queue.count >= batchSize) {
                let batch = Array(queue.prefix(batchSize))
                queue.removeFirst(batch.count)
                // Thumbnails are read from the library here, on this thread (one connection).
                var thumbnails: [Result<[UInt8], Error>?] = Array(repeating: nil, count: batch.count)
                if options.thumbnails {
                    for (i, item) in batch.enumerated() {
                        thumbnails[i] = Result { try library.thumbnailData(of: item.photo) }
                    }
                }
                let results = exportFiles(of: batch, thumbnails: thumbnails, writer: writer, state: state)
                // Progress counts photos whose files are written (they are recorded once their
                // batch's sync returns, before the next batch's sync is issued).
                for _ in batch {
                    done += 1
                    onProgress?(done, max(total, done))
                }
                if let earlier = pending {
                    pending = nil
                    try finish(earlier)
                }
                // Group durability: every file of the batch is in place (renamed, mtime set); one
                // syncfs of DEST's file system makes them durable before the state records them.
                let wrote = !options.dryRun && results.contains(where: { (try? $0.get())?.wrote == true })
                pending = WrittenBatch(
                    items: batch, results: results,
                    sync: wrote ? BackgroundSync(path: dest, syncFileSystem: syncFileSystem) : nil)
                // DEST refused (full, read-only, failing): write no further batch; `finish` records
                // what this one wrote and stops with that status.
                if results.contains(where: { result in
                    guard case .failure(let error) = result else { return false }
                    return Exporter.environmentError(error, destination: dest) != nil
                }) {
                    return false
                }
            }
            return true
        }
        do {
            try library.forEachPhotoPage(matching: options.filter, pageSize: pageSize) { photos in
                let plan = planner.plan(photos, template: options.template)
                for (photo, reason) in plan.failures {
                    unnamed.insert(photo.uniqueName)
                    fail(photo, reason, &summary)
                }
                queue += plan.items
                guard try writeBatches(all: false) else { throw StopReading() }
            }
            _ = try writeBatches(all: true)
        } catch is StopReading {
            // DEST refused: the pending batch is recorded below, then `finish` stops the export.
        }
        if let last = pending { try finish(last) }
        if let state, options.cleanup {
            // A photo without a usable name keeps whatever it had before.
            for name in unnamed { keep.formUnion(state.entries(ofPhoto: name).map(\.path)) }
        }
        if options.cleanup {
            summary.removed = try cleanup(keeping: keep, state: state, root: dest, writer: writer)
        }
        summary.seconds = Date().timeIntervalSince(start)
        return summary
    }

    private func fail(_ photo: PhotoRecord, _ reason: String, _ summary: inout ExportSummary) {
        let failure = ExportFailure(uniqueName: photo.uniqueName, displayName: photo.displayName, reason: reason)
        summary.failed += 1
        summary.failures.append(failure)
        onFailure?(failure)
    }

    /// The files one photo produces with the current options, with what each should hold.
    private func files(of item: Planned) -> [(path: String, kind: ExportState.Entry.Kind)] {
        let companions = ExportNaming.companions(of: item.path)
        var result: [(String, ExportState.Entry.Kind)] = [(item.path, .original)]
        switch options.sidecar {
        case .xmp: result.append((companions.xmp, .xmp))
        case .json: result.append((companions.json, .json))
        case .none: break
        }
        if options.thumbnails { result.append((companions.thumbnail, .thumbnail)) }
        return result
    }

    enum Outcome { case written, updated, skipped }

    /// What one photo's files came to: the export state rows to record (after the batch's
    /// sync), its outcome, the bytes written, and whether any file was written.
    struct ExportedFiles {
        var entries: [ExportState.Entry]
        var outcome: Outcome
        var bytes: Int64
        var wrote: Bool
    }

    /// Writes the files of `batch` (deferred durability) on up to `options.jobs` threads, each
    /// taking the next photo; the results are in `batch`'s order. The export state is only
    /// read meanwhile (nothing records until the batch is done).
    private func exportFiles(
        of batch: [Planned], thumbnails: [Result<[UInt8], Error>?], writer: FileWriter, state: ExportState?
    ) -> [Result<ExportedFiles, Error>] {
        let jobs = max(1, min(options.jobs, batch.count))
        let results = Mutex([Result<ExportedFiles, Error>?](repeating: nil, count: batch.count))
        let next = Atomic<Int>(0)
        // Shared read-only by the threads: the exporter, the state (nothing records until the
        // batch is done) and the batch's plan.
        nonisolated(unsafe) let work = (self, state, batch)
        let run: @Sendable () -> Void = {
            while true {
                let i = next.wrappingAdd(1, ordering: .relaxed).oldValue
                guard i < work.2.count else { return }
                let result = Result {
                    try work.0.export(work.2[i], thumbnail: thumbnails[i], writer: writer, state: work.1)
                }
                results.withLock { $0[i] = result }
            }
        }
        if jobs == 1 {
            run()
        } else {
            DispatchQueue.concurrentPerform(iterations: jobs) { _ in run() }
        }
        return results.withLock { $0.map { $0 ?? .failure(ExportError.cannotWriteDestination("", reason: "not run")) } }
    }

    private func export(
        _ item: Planned, thumbnail: Result<[UInt8], Error>?, writer: FileWriter, state: ExportState?
    ) throws -> ExportedFiles {
        let photo = item.photo
        var recorded: [ExportState.Entry] = []
        var wroteOriginal = false
        var wroteOther = false
        var bytesWritten: Int64 = 0
        try writer.ensureFolder(of: item.path)
        let checker = Planner(root: writer.root, state: state, trustState: options.update)

        var replaced = false
        if !item.originalPresent {
            replaced = checker.diskStatus(item.path) != .missing
            let source = library.externalData.path(for: photo.fileReference)
            let entry = try writer.copyOriginal(from: source, to: item.path, photo: photo)
            recorded.append(entry)
            bytesWritten += Int64(entry.byteSize)
            wroteOriginal = true
        } else if let entry = item.present {
            recorded.append(entry)
        }

        for (path, kind) in files(of: item) where kind != .original {
            let bytes: [UInt8]
            switch kind {
            case .xmp: bytes = Array(XMPWriter.sidecar(for: photo).utf8)
            case .json: bytes = Array((photo.json.serialized() + "\n").utf8)
            case .thumbnail:
                guard let thumbnail else { continue }
                bytes = try thumbnail.get()
            case .original: continue
            }
            let sha = try bytes.withUnsafeBytes { try SHA256Hasher.hex(of: $0) }
            if let entry = checker.currentEntry(
                path, uniqueName: photo.uniqueName, kind: kind, sha256: sha, byteSize: bytes.count)
            {
                recorded.append(entry)
                continue
            }
            let entry = try writer.write(
                bytes, sha256: sha, to: path, uniqueName: photo.uniqueName, kind: kind,
                modificationTime: photo.captureInstant)
            recorded.append(entry)
            bytesWritten += Int64(bytes.count)
            wroteOther = true
        }
        let outcome: Outcome = wroteOriginal ? (replaced ? .updated : .written) : (wroteOther ? .updated : .skipped)
        return ExportedFiles(
            entries: recorded, outcome: outcome, bytes: bytesWritten, wrote: wroteOriginal || wroteOther)
    }

    /// Removes the files the state records that this run did not produce, when they still
    /// hold what was written (a file changed since is left, with a note), then the folders
    /// that became empty.
    private func cleanup(keeping keep: NameFingerprints, state: ExportState?, root: String, writer: FileWriter) throws
        -> Int
    {
        guard let state else { return 0 } // a dry run into a folder no export wrote to
        let checker = Planner(root: root, state: state, trustState: true)
        var removed = 0
        var folders = Set<String>()
        // The state's rows a page at a time in path order (issue 31 A11); each page's rows to
        // forget are forgotten before the next page is read (keyset paging is not disturbed by
        // deleting rows already passed).
        try state.forEachEntry { page in
            var forget: [String] = []
            for entry in page where !keep.contains(entry.path) {
                let full = root + "/" + entry.path
                var st = stat()
                if lstat(full, &st) != 0 {
                    forget.append(entry.path)
                    continue
                }
                if checker.currentEntry(
                    entry.path, uniqueName: entry.uniqueName, kind: entry.kind, sha256: entry.sha256,
                    byteSize: entry.byteSize) != nil
                {
                    if writer.remove(entry.path) {
                        removed += 1
                        forget.append(entry.path)
                        if let slash = entry.path.lastIndex(of: "/") { folders.insert(String(entry.path[..<slash])) }
                    }
                } else {
                    onNote?("left \(entry.path): it changed since this export wrote it")
                    forget.append(entry.path)
                }
            }
            try state.forget(forget)
        }
        // Deepest first; rmdir(2) only removes empty folders.
        var parents = Set<String>()
        for folder in folders {
            var f = folder
            while !f.isEmpty {
                parents.insert(f)
                f = f.lastIndex(of: "/").map { String(f[..<$0]) } ?? ""
            }
        }
        for folder in parents.sorted(by: { $0.count > $1.count }) { writer.removeFolderIfEmpty(folder) }
        return removed
    }

    /// Removes leftover temporary files (from an interrupted export) anywhere under `root`,
    /// without following symbolic links. Call with DEST's lock held.
    static func removeTemporaryFiles(in root: String) {
        var folders = [root]
        while let folder = folders.popLast() {
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { continue }
            for name in names {
                let path = folder + "/" + name
                var st = stat()
                guard lstat(path, &st) == 0 else { continue }
                switch st.st_mode & S_IFMT {
                case S_IFDIR: folders.append(path)
                case S_IFREG where name.hasPrefix(temporaryPrefix): unlink(path)
                default: break
                }
            }
        }
    }

    /// True when `path` is `folder` or lies inside it (both real paths).
    static func isInside(_ path: String, _ folder: String) -> Bool {
        path == folder || path.hasPrefix(folder == "/" ? "/" : folder + "/")
    }

    /// The real path `path` will have once created: the real path of its nearest existing
    /// ancestor followed by the components that do not exist yet.
    static func prospectiveRealPath(_ path: String) -> String {
        var existing = (path as NSString).standardizingPath
        var rest: [String] = []
        while realPath(existing) == nil && existing != "/" && !existing.isEmpty {
            rest.insert(PathName.lastComponent(existing), at: 0)
            existing = PathName.parent(existing)
        }
        let base = realPath(existing) ?? existing
        return rest.reduce(base) { $0 == "/" ? "/" + $1 : $0 + "/" + $1 }
    }

    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// The error that stops an export, or nil for one that fails only its photo: the export
    /// state's SQLite (BUSY/LOCKED → 75, READONLY/PERM → 77, FULL/IOERR → 74), and a file
    /// file error the file system refused (`FileError.isEnvironmental`: EACCES, EROFS, ENOSPC,
    /// EIO), and an `ExportError` that `stopsExport`.
    static func environmentError(_ error: Error, destination: String) -> Error? {
        if let e = error as? ExportError { return e.stopsExport ? e : nil }
        if let e = error as? FileError { return e.isEnvironmental ? e : nil }
        guard let e = (error as? any StoreErrorConvertible)?.storeError else { return nil }
        let state = destination + "/" + ExportState.fileName
        switch e.kind {
        case .busy: return ExportError.stateBusy(state: state)
        case .readOnly: return ExportError.stateNotWritable(state: state, message: e.message)
        case .io: return ExportError.stateIOError(state: state, message: e.message)
        default: return nil
        }
    }

    static func reason(_ error: Error) -> String {
        if let e = error as? ThumbnailError { return e.description }
        if let e = error as? ExportError { return e.description }
        if let e = error as? FileError { return e.message }
        if let e = error as? any StoreErrorConvertible { return e.storeError.detail }
        if let e = error as? CocoaError, let underlying = e.userInfo[NSUnderlyingErrorKey] as? NSError,
            underlying.domain == NSPOSIXErrorDomain
        {
            return String(cString: strerror(Int32(underlying.code)))
        }
        return "\(error.localizedDescription)"
    }
}

/// A batch whose files are written and renamed into place, waiting for its syncfs before its
/// rows are recorded.
struct WrittenBatch {
    var items: [Exporter.Planned]
    var results: [Result<Exporter.ExportedFiles, Error>]
    /// The batch's syncfs, running; nil when the batch wrote nothing (or in a dry run).
    var sync: BackgroundSync?
}

/// One syncfs(2) of a file system, run on its own thread so the next batch's files are written
/// meanwhile. `init` returns once the sync is about to be issued (after it is recorded in
/// `DurabilityStats`), so the files written after `init` are not what it was asked to cover.
final class BackgroundSync: @unchecked Sendable {
    private let finished = DispatchSemaphore(value: 0)
    /// Written by the sync thread before `finished` is signalled; read after `wait`.
    private var error: Error?

    /// Starts `syncFileSystem(path, willSync)` on a new thread and waits until it calls
    /// `willSync` (or has returned without calling it).
    init(path: String, syncFileSystem: @escaping @Sendable (String, () -> Void) throws -> Void) {
        let started = DispatchSemaphore(value: 0)
        Thread.detachNewThread { [self] in
            var signalled = false
            do {
                try syncFileSystem(path) {
                    signalled = true
                    started.signal()
                }
            } catch {
                self.error = error
            }
            if !signalled { started.signal() }
            finished.signal()
        }
        started.wait()
    }

    /// Waits for the sync to return.
    /// - Returns: what it threw (a `FileError`), or nil when it succeeded.
    func wait() -> Error? {
        finished.wait()
        return error
    }
}

/// Chooses each photo's name and tells whether a file on disk already holds what it should.
struct Planner {
    let root: String
    let state: ExportState?
    /// Trust a state row whose file has the recorded size and mtime, without hashing (`--update`).
    let trustState: Bool
    /// The companion files this export writes beside each original; only these are reserved
    /// when names are chosen, so a photo never takes ` (1)` for a file that is not written.
    var companionKinds: Set<ExportState.Entry.Kind> = []

    init(
        root: String, state: ExportState?, trustState: Bool, companionKinds: Set<ExportState.Entry.Kind> = []
    ) {
        self.root = root
        self.state = state
        self.trustState = trustState
        self.companionKinds = companionKinds
    }

    /// The companions `--sidecar` and `--thumbnails` write: the XMP or JSON sidecar (none for
    /// `--sidecar none`) and, with `--thumbnails`, `STEM.thumb.jpg`.
    static func companionKinds(sidecar: SidecarFormat, thumbnails: Bool) -> Set<ExportState.Entry.Kind> {
        var kinds = Set<ExportState.Entry.Kind>()
        switch sidecar {
        case .xmp: kinds.insert(.xmp)
        case .json: kinds.insert(.json)
        case .none: break
        }
        if thumbnails { kinds.insert(.thumbnail) }
        return kinds
    }

    struct Plan {
        var items: [Exporter.Planned] = []
        var failures: [(PhotoRecord, String)] = []
    }

    /// The names taken in this run so far (each original and the companions this export
    /// writes, lowercased): kept across pages because a later photo may not take a name an
    /// earlier one took. The one part of the plan that grows with the photos, held as 64-bit
    /// fingerprints (`NameFingerprints`, issue 31 A11): about 22 bytes a name, ~44 MB for
    /// 1,000,000 photos with XMP sidecars (the strings took ~280 MB).
    private(set) var taken = NameFingerprints()
    /// With `trustState`: the recorded name each photo keeps (`reserveRecordedNames`), until
    /// `plan` hands it out, as the fingerprints of its uniqueName and of the path (issue 31
    /// A11: ~40 bytes a recorded photo; `plan` reads the path back from the state).
    private var reserved: [UInt64: UInt64] = [:]

    /// The lowercased names `path` takes: itself and the companions this export writes.
    private func keys(_ path: String) -> [String] {
        let c = ExportNaming.companions(of: path)
        var result = [path]
        if companionKinds.contains(.xmp) { result.append(c.xmp) }
        if companionKinds.contains(.json) { result.append(c.json) }
        if companionKinds.contains(.thumbnail) { result.append(c.thumbnail) }
        return result.map { $0.lowercased() }
    }

    /// The name a photo's original starts from: the template, else its uniqueName with the
    /// extension, sanitized.
    private func base(_ photo: PhotoRecord, template: ExportNameTemplate) -> String {
        let (_, ext) = ExportNaming.split(photo.displayName)
        let fallback = photo.uniqueName + "." + (ext.isEmpty ? photo.format.fileExtension : ext)
        return ExportNaming.sanitize(template.render(photo)) ?? ExportNaming.sanitize(fallback) ?? photo.uniqueName
    }

    /// With `trustState`, the first pass over every photo (pages in uniqueName order, before
    /// any `plan`): a photo keeps the recorded name it had, when that is still one of its base
    /// name's variants and no earlier photo kept it.
    mutating func reserveRecordedNames(_ photos: [PhotoRecord], template: ExportNameTemplate) {
        guard trustState, let state else { return }
        for photo in photos {
            // One index lookup a photo (issue 31 A11: the state is not held in memory).
            let paths = state.entries(ofPhoto: photo.uniqueName).filter { $0.kind == .original }.map(\.path)
            guard !paths.isEmpty else { continue }
            let base = base(photo, template: template)
            for path in paths.sorted() where ExportNaming.isVariant(path, of: base) {
                let k = keys(path)
                guard k.allSatisfy({ !taken.contains($0) }) else { continue }
                // Its file may be gone or changed since: then it is rewritten under the same name.
                let present = currentEntry(
                    path, uniqueName: photo.uniqueName, kind: .original,
                    sha256: photo.sha256, byteSize: photo.byteSize)
                if present == nil, diskStatus(path) == .other { continue }
                taken.formUnion(k)
                reserved[NameFingerprints.fingerprint(photo.uniqueName)] = NameFingerprints.fingerprint(path)
                break
            }
        }
    }

    /// Names the photos of one page (pages in uniqueName order, after `reserveRecordedNames`
    /// with `trustState`): a photo keeps its reserved name; each other photo, in uniqueName
    /// order, takes the first variant (`base`, `base (1)`, …) whose original and the companions
    /// this export writes (`companionKinds`) are not taken in this run (compared
    /// case-insensitively, for exports to case-insensitive file systems) and that is free on
    /// disk or already holds its bytes. The same names as naming every photo at once.
    mutating func plan(_ photos: [PhotoRecord], template: ExportNameTemplate) -> Plan {
        var result = Plan()
        for photo in photos {
            if let print = reserved.removeValue(forKey: NameFingerprints.fingerprint(photo.uniqueName)),
                let path = state?.entries(ofPhoto: photo.uniqueName).first(where: {
                    $0.kind == .original && NameFingerprints.fingerprint($0.path) == print
                })?.path
            {
                // Its file may have changed since the reservation: looked at again now.
                let present = currentEntry(
                    path, uniqueName: photo.uniqueName, kind: .original, sha256: photo.sha256,
                    byteSize: photo.byteSize)
                result.items.append(Exporter.Planned(photo: photo, path: path, present: present))
                continue
            }
            let base = base(photo, template: template)
            var found: Exporter.Planned?
            for n in 0..<Exporter.maxVariants {
                let candidate = ExportNaming.variant(base, n)
                let k = keys(candidate)
                guard k.allSatisfy({ !taken.contains($0) }) else { continue }
                if let present = currentEntry(
                    candidate, uniqueName: photo.uniqueName, kind: .original,
                    sha256: photo.sha256, byteSize: photo.byteSize)
                {
                    found = Exporter.Planned(photo: photo, path: candidate, present: present)
                } else if diskStatus(candidate) == .missing {
                    found = Exporter.Planned(photo: photo, path: candidate, present: nil)
                } else if trustState, let entry = state?.entry(candidate), entry.uniqueName == photo.uniqueName {
                    // Recorded as this photo's, changed on disk since: rewritten in place.
                    found = Exporter.Planned(photo: photo, path: candidate, present: nil)
                }
                if found != nil {
                    taken.formUnion(k)
                    break
                }
            }
            if let found {
                result.items.append(found)
            } else {
                result.failures.append((photo, "no free name for \(base) after \(Exporter.maxVariants) tries"))
            }
        }
        return result
    }

    enum DiskStatus { case missing, file, other }

    /// What is at `path` (relative to root), without following a final symbolic link; nil when
    /// it cannot be told (e.g. a parent is not a folder).
    func diskStatus(_ path: String) -> DiskStatus? {
        var st = stat()
        if lstat(root + "/" + path, &st) != 0 { return errno == ENOENT ? .missing : (errno == ENOTDIR ? .other : nil) }
        return (st.st_mode & S_IFMT) == S_IFREG ? .file : .other
    }

    /// The state entry describing `path` when the file there already holds `sha256` (a regular
    /// file of `byteSize` bytes; trusted from the state's size and mtime with `trustState`,
    /// otherwise hashed), else nil.
    func currentEntry(
        _ path: String, uniqueName: String, kind: ExportState.Entry.Kind, sha256: String,
        byteSize: Int
    ) -> ExportState.Entry? {
        var st = stat()
        let full = root + "/" + path
        guard lstat(full, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, Int(st.st_size) == byteSize else { return nil }
        let mtime = FileWriter.mtime(st)
        let fresh = ExportState.Entry(
            path: path, uniqueName: uniqueName, kind: kind, sha256: sha256,
            byteSize: byteSize, mtimeNanoseconds: mtime)
        if trustState, let entry = state?.entry(path), entry == fresh { return entry }
        guard let hash = try? SHA256Hasher.hex(ofFileAt: full).hex, hash == sha256 else { return nil }
        return fresh
    }
}

/// Writes files under the export folder: temporary name, rename; with `.immediate` durability
/// also fsync of the file and its folder, with `.deferred` none (the caller syncs the batch).
struct FileWriter {
    let root: String
    let realRoot: String
    /// The library folder's real path: nothing is written inside it.
    var realLibrary: String? = nil
    /// A dry run's writer: it checks and reads what a real run would, and creates, writes and
    /// removes nothing (each method says what it returns instead).
    var dryRun = false
    /// When written files are made durable: `.deferred` for export's batches (one syncfs per
    /// batch before the state records them), `.immediate` (fsync of file and folder) otherwise.
    var durability = Durability.immediate
    /// Hash each original while copying it and refuse a SHA-256 mismatch (`--check-hashes`);
    /// otherwise check its size and copy it inside the kernel.
    var checkHashes = true

    /// Removes the file `path` (relative). A dry run removes nothing.
    /// - Returns: true when it was (in a dry run: would be) removed.
    func remove(_ path: String) -> Bool {
        dryRun ? access(root + "/" + path, F_OK) == 0 : unlink(root + "/" + path) == 0
    }

    /// Removes the folder `path` (relative) when it is empty (rmdir(2)); a dry run does not.
    func removeFolderIfEmpty(_ path: String) {
        if !dryRun { rmdir(root + "/" + path) }
    }

    /// Creates the folders of `path` (relative) and checks that the folder's real path is inside
    /// the export folder's.
    /// - Throws: `ExportError.cannotCreateFolder`, `.folderOutsideDestination`, `.folderInsideLibrary`.
    func ensureFolder(of path: String) throws {
        guard let slash = path.lastIndex(of: "/") else { return }
        var folder = root
        // Each folder is checked before the next is made inside it, so a symbolic link on the
        // way never gets a folder created at its target.
        for component in path[..<slash].split(separator: "/") {
            folder += "/" + component
            if dryRun {
                // Nothing is made; an existing folder is checked like a real run checks it.
                guard access(folder, F_OK) == 0 else { return }
            } else if mkdir(folder, 0o777) != 0 && errno != EEXIST {
                throw ExportError.cannotCreateFolder(folder, reason: String(cString: strerror(errno)))
            }
            guard let real = Exporter.realPath(folder), Exporter.isInside(real, realRoot) else {
                throw ExportError.folderOutsideDestination(folder)
            }
            if let realLibrary, Exporter.isInside(real, realLibrary) {
                throw ExportError.folderInsideLibrary(folder)
            }
        }
    }

    /// Copies the original at `source` to `path`. Its size must be the library's `byteSize`;
    /// with `checkHashes` it is hashed while copied (read(2), SHA-256, write(2)) and must have
    /// the library's SHA-256, otherwise it is copied inside the kernel (`AtomicFile.Sink.copy`).
    /// - Returns: the state entry: the library's SHA-256 (the computed one with `checkHashes`),
    ///   the size and the mtime written (0 in a dry run, which reads and checks the original as
    ///   a real run does and writes nothing).
    /// - Throws: `ExportError.originalSizeMismatch` when the original's size is not the
    ///   library's, `.originalMismatch` when the bytes read do not have the library's SHA-256
    ///   (nothing is put in place either way), `.unreadableOriginal` when the original cannot
    ///   be opened, `.originalReadFailed` on a read error, `FileError` on copy or write errors.
    func copyOriginal(from source: String, to path: String, photo: PhotoRecord) throws -> ExportState.Entry {
        // Opened without blocking on a FIFO and refused unless a regular file, as every original is.
        let input: Int32
        let sourceStatus: stat
        do {
            (input, sourceStatus) = try ImageFile.openRegularFile(path: source)
        } catch let error as FileError {
            throw ExportError.unreadableOriginal(source: source, reason: error.reason)
        }
        defer { close(input) }
        guard Int(sourceStatus.st_size) == photo.byteSize else {
            throw ExportError.originalSizeMismatch(
                source: source, actual: Int(sourceStatus.st_size), recorded: photo.byteSize)
        }
        if dryRun {
            // Read and hash the original as a real copy does; write nothing.
            if checkHashes {
                let hex = try hashChecked(input, source: source, photo: photo) { _ in }
                return ExportState.Entry(
                    path: path, uniqueName: photo.uniqueName, kind: .original, sha256: hex,
                    byteSize: photo.byteSize, mtimeNanoseconds: 0)
            }
            return ExportState.Entry(
                path: path, uniqueName: photo.uniqueName, kind: .original, sha256: photo.sha256,
                byteSize: photo.byteSize, mtimeNanoseconds: 0)
        }
        var sha = photo.sha256
        let st = try AtomicFile.write(
            to: root + "/" + path, temporaryPrefix: Exporter.temporaryPrefix, durability: durability
        ) { sink in
            if checkHashes {
                // A mismatch throws before the rename: nothing is put in place.
                sha = try hashChecked(input, source: source, photo: photo) { try sink.write($0) }
            } else {
                let copied = try sink.copy(from: input, byteCount: photo.byteSize, source: source)
                // The original shrank since it was measured: not put in place.
                guard copied == photo.byteSize else {
                    throw ExportError.originalSizeMismatch(source: source, actual: copied, recorded: photo.byteSize)
                }
            }
        }
        let touched = setModificationTime(path, photo.captureInstant) ?? st
        return ExportState.Entry(
            path: path, uniqueName: photo.uniqueName, kind: .original, sha256: sha,
            byteSize: Int(touched.st_size), mtimeNanoseconds: FileWriter.mtime(touched))
    }

    /// Reads `input` (the original at `source`) from its start to its end in 1 MiB pieces,
    /// hashing each piece and handing it to `consume`.
    /// - Returns: the SHA-256 (64 lowercase hex digits), which is the library's.
    /// - Throws: `ExportError.originalMismatch` when it is not the library's SHA-256 (or the
    ///   size read is not the library's), `.originalReadFailed` on a read error, and what
    ///   `consume` throws.
    private func hashChecked(
        _ input: Int32, source: String, photo: PhotoRecord, consume: (UnsafeRawBufferPointer) throws -> Void
    ) throws -> String {
        let hasher = try SHA256Hasher()
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var offset: Int64 = 0
        while true {
            let n = buffer.withUnsafeMutableBytes { pread(input, $0.baseAddress, $0.count, off_t(offset)) }
            if n < 0 {
                if errno == EINTR { continue }
                throw ExportError.originalReadFailed(source: source, reason: String(cString: strerror(errno)))
            }
            if n == 0 { break }
            try buffer.withUnsafeBytes { raw in
                let part = UnsafeRawBufferPointer(rebasing: raw[0..<n])
                hasher.update(part)
                try consume(part)
            }
            offset += Int64(n)
        }
        let sha = hasher.finalizeHex()
        guard sha == photo.sha256 else {
            throw ExportError.originalMismatch(source: source, actual: sha, recorded: photo.sha256)
        }
        return sha
    }

    /// Sets the access and modification times of the file `path` (relative) to `seconds` since
    /// 1970 (utimensat(2), POSIX.1-2008), as `exiftool -P` / osxphotos `--touch-file` users
    /// expect of an exported photo; does nothing for nil, and nothing in a dry run (like every
    /// other change this writer makes).
    /// - Returns: the file's status afterwards (what the export state records), or nil when
    ///   `seconds` is nil, the run is a dry run, or the times could not be set (the file is
    ///   kept as written). A time the file system cannot hold (ext4 keeps 1901-12-13 to
    ///   2446-05-10 and clamps anything else: a capture time in year 9999 or 0001) is not set
    ///   either: a clamped date would be a wrong one, so the file keeps the time it was
    ///   written at.
    func setModificationTime(_ path: String, _ seconds: Double?) -> stat? {
        guard !dryRun, let seconds, seconds.isFinite, abs(seconds) < 1e15 else { return nil }
        let full = root + "/" + path
        var before = stat()
        guard lstat(full, &before) == 0 else { return nil }
        let whole = seconds.rounded(.down)
        let nanoseconds = min(999_999_999, Int(((seconds - whole) * 1e9).rounded()))
        let spec = timespec(tv_sec: Int(whole), tv_nsec: nanoseconds)
        var times = [spec, spec]
        guard utimensat(AT_FDCWD, full, &times, AT_SYMLINK_NOFOLLOW) == 0 else { return nil }
        var st = stat()
        guard lstat(full, &st) == 0 else { return nil }
        if st.st_mtim.tv_sec != spec.tv_sec {
            var kept = [before.st_atim, before.st_mtim]
            _ = utimensat(AT_FDCWD, full, &kept, AT_SYMLINK_NOFOLLOW)
            return lstat(full, &st) == 0 ? st : nil
        }
        return st
    }

    /// Writes `bytes` (a sidecar or thumbnail) to `path`, with the modification time
    /// `modificationTime` (seconds since 1970) when given.
    /// - Throws: `FileError` on write errors.
    func write(
        _ bytes: [UInt8], sha256: String, to path: String, uniqueName: String,
        kind: ExportState.Entry.Kind, modificationTime: Double? = nil
    ) throws -> ExportState.Entry {
        if dryRun {
            return ExportState.Entry(
                path: path, uniqueName: uniqueName, kind: kind, sha256: sha256,
                byteSize: bytes.count, mtimeNanoseconds: 0)
        }
        let written = try bytes.withUnsafeBytes {
            try AtomicFile.write(
                $0, to: root + "/" + path, temporaryPrefix: Exporter.temporaryPrefix, durability: durability)
        }
        let st = setModificationTime(path, modificationTime) ?? written
        return ExportState.Entry(
            path: path, uniqueName: uniqueName, kind: kind, sha256: sha256,
            byteSize: bytes.count, mtimeNanoseconds: FileWriter.mtime(st))
    }

    /// A file's modification time in nanoseconds since 1970, as the export state records it;
    /// a time outside what 64 bits of nanoseconds hold (before 1677-09-21 or after 2262-04-11,
    /// which XFS, Btrfs and ext4 can store) saturates to `Int64.min`/`Int64.max` instead of
    /// trapping.
    static func mtime(_ st: stat) -> Int64 {
        let (product, overflow) = Int64(st.st_mtim.tv_sec).multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return st.st_mtim.tv_sec < 0 ? .min : .max }
        let (sum, overflowSum) = product.addingReportingOverflow(Int64(st.st_mtim.tv_nsec))
        return overflowSum ? .max : sum
    }
}
