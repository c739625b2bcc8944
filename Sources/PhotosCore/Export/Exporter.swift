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
    /// File names (`--template`).
    public var template = ExportNameTemplate.default
    /// One copy per (photo, tag), each named with its tag as `{tag}` (`--per-tag`, issue 32
    /// item 6; the template must have `{tag}`); a photo without tags gets one, `untagged`.
    /// Each copy is a file of its own in the export state (by path), so `--update` keeps each
    /// copy's name and `--cleanup` removes a copy whose tag is gone.
    public var perTag = false
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
    let library: Library
    let options: ExportOptions
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
        /// The photo's other originals (a RAW+JPEG pair's RAW, a Live Photo's movie), written
        /// beside the primary under its stem.
        var extras: [PlannedExtra] = []
        /// The tag of this copy with `--per-tag` (nil: the photo's only copy).
        var tag: String? = nil
        var originalPresent: Bool { present != nil }
    }

    /// One original of a planned photo other than its primary: where it goes and, when an
    /// identical file is already there, its state entry.
    struct PlannedExtra {
        var original: PhotoOriginal
        var path: String
        var kind: ExportState.Entry.Kind
        var present: ExportState.Entry?
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

        let writer = FileWriter(
            root: dest, realRoot: realDest, realLibrary: realLibrary, dryRun: options.dryRun, durability: .deferred,
            checkHashes: options.checkHashes)
        var run = ExportRun(exporter: self, start: start, destination: dest, state: state, writer: writer)
        try run.countAndReserve()
        try run.writeAll()
        try run.cleanup()
        return run.summary
    }

    func fail(_ photo: PhotoRecord, _ reason: String, _ summary: inout ExportSummary) {
        let failure = ExportFailure(uniqueName: photo.uniqueName, displayName: photo.displayName, reason: reason)
        summary.failed += 1
        summary.failures.append(failure)
        onFailure?(failure)
    }

    /// The files one photo produces with the current options, with what each should hold.
    func files(of item: Planned) -> [(path: String, kind: ExportState.Entry.Kind)] {
        let companions = ExportNaming.companions(of: item.path)
        var result: [(String, ExportState.Entry.Kind)] = [(item.path, .original)]
        for extra in item.extras { result.append((extra.path, extra.kind)) }
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
    func exportFiles(
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
            let entry = try writer.copyOriginal(
                from: source, to: item.path, uniqueName: photo.uniqueName, kind: .original, sha256: photo.sha256,
                byteSize: photo.byteSize, modificationTime: photo.captureInstant)
            recorded.append(entry)
            bytesWritten += Int64(entry.byteSize)
            wroteOriginal = true
        } else if let entry = item.present {
            recorded.append(entry)
        }
        // The photo's other originals, each checked and copied as the primary is (issue 24 item 2).
        // One that fails (size or SHA-256 mismatch, unreadable) fails the photo, and the
        // originals this call put in place are taken away again: a photo is exported whole or
        // not at all, never a JPEG without its RAW.
        var copied = wroteOriginal ? [item.path] : []
        do {
            for extra in item.extras {
                if let entry = extra.present {
                    recorded.append(entry)
                    continue
                }
                if checker.diskStatus(extra.path) != .missing { replaced = true }
                let source = library.externalData.path(for: extra.original.fileReference)
                let entry = try writer.copyOriginal(
                    from: source, to: extra.path, uniqueName: photo.uniqueName, kind: extra.kind,
                    sha256: extra.original.sha256, byteSize: extra.original.byteSize,
                    modificationTime: photo.captureInstant)
                copied.append(extra.path)
                recorded.append(entry)
                bytesWritten += Int64(entry.byteSize)
                wroteOther = true
            }
        } catch {
            for path in copied { _ = writer.remove(path) }
            throw error
        }

        for (path, kind) in files(of: item) where !kind.isOriginal {
            let bytes: [UInt8]
            switch kind {
            case .xmp: bytes = Array(XMPWriter.sidecar(for: photo).utf8)
            case .json: bytes = Array((photo.json.serialized() + "\n").utf8)
            case .thumbnail:
                guard let thumbnail else { continue }
                bytes = try thumbnail.get()
            case .original, .raw, .pairedVideo: continue
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
    func cleanup(keeping keep: NameFingerprints, state: ExportState?, root: String, writer: FileWriter) throws
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
        // Foundation's own text ("The operation could not be completed. The file doesn't exist.")
        // is not shown: its file codes say which POSIX error it was (issue 32 item 8).
        if let e = error as? CocoaError, let code = posixCode(e.code) { return String(cString: strerror(code)) }
        let ns = error as NSError
        if ns.domain == NSPOSIXErrorDomain { return String(cString: strerror(Int32(ns.code))) }
        return "\(error.localizedDescription)"
    }

    /// The errno a Foundation file error code stands for, nil for the others.
    static func posixCode(_ code: CocoaError.Code) -> Int32? {
        switch code {
        case .fileNoSuchFile, .fileReadNoSuchFile: return ENOENT
        case .fileWriteNoPermission, .fileReadNoPermission: return EACCES
        case .fileWriteOutOfSpace: return ENOSPC
        case .fileWriteVolumeReadOnly: return EROFS
        case .fileWriteFileExists: return EEXIST
        case .fileReadInvalidFileName, .fileWriteInvalidFileName: return EINVAL
        default: return nil
        }
    }
}
