import Foundation
import PhotosFiles
import PhotosImaging
import PhotosModel
import Synchronization

/// How the photos of a gallery are grouped under headings (`--group`): by the capture date's
/// day, month or year in the photo's own local time, or not at all.
public enum GalleryGrouping: String, CaseIterable, Sendable {
    case day, month, year, none
}

/// What the gallery does with each original (`--originals`).
public enum GalleryOriginals: String, CaseIterable, Sendable {
    /// A copy of the library's file, its SHA-256 checked while it is copied (the default).
    case copy
    /// A hard link to the library's file (link(2)); across file systems, a copy.
    case link
    /// None: the lightbox has no link to an original.
    case none
}

/// What `photos gallery DEST` does, as options (issue 28).
public struct GalleryOptions {
    /// The gallery folder (DEST); created when absent.
    public var destination: String
    /// Which photos: the same filter as `photos list` (and `--share ID` for a share's zone).
    public var filter = PhotoFilter()
    /// The pages' title and heading (`--title`).
    public var title = "Photos"
    /// `--group`.
    public var grouping = GalleryGrouping.day
    /// Photos per page, at least 1 (`--per-page`; default 200): `index.html` holds the first
    /// page, `page-2.html` … the others.
    public var perPage = 200
    /// Longest edge of the lightbox renditions, pixels (`--size`; default 2048); 0 makes none
    /// (the lightbox then shows the original where a browser can show it, else the thumbnail).
    public var size = 2048
    /// JPEG quality of the renditions, 1...100 (`--quality`; default 85, as the thumbnails).
    public var quality = 85
    /// `--originals`.
    public var originals = GalleryOriginals.copy
    /// Worker threads making renditions and copying files (`--jobs`); default the number of cores.
    public var jobs = ProcessInfo.processInfo.activeProcessorCount
    /// Trust the gallery's state: a photo whose original, rendition options and thumbnail (size
    /// and content digest) are those recorded, and whose files are all there, is not written again (`--update`).
    public var update = false
    /// Decide everything, write nothing (`--dry-run`).
    public var dryRun = false

    public init(destination: String) { self.destination = destination }
}

/// What a gallery run did: photos in it, photos whose files were written or found up to date,
/// photos that failed (each in `failures`), pages in all and pages whose bytes changed, files
/// removed (photos no longer selected), and the bytes written.
public struct GallerySummary: Equatable, Sendable {
    public var photos = 0
    public var written = 0
    public var skipped = 0
    public var failed = 0
    public var pages = 0
    public var pagesWritten = 0
    public var removed = 0
    public var bytes: Int64 = 0
    /// Wall-clock seconds of the whole run.
    public var seconds: Double = 0
    public var failures: [ExportFailure] = []

    /// `{"photos":N,"written":N,"skipped":N,"failed":N,"pages":N,"pagesWritten":N,"removed":N,
    /// "bytes":N,"seconds":X}`, plus `"dryRun":true` with `--dry-run`.
    public func json(dryRun: Bool) -> JSONValue {
        var pairs: [(String, JSONValue)] = [
            ("photos", .int(photos)), ("written", .int(written)), ("skipped", .int(skipped)),
            ("failed", .int(failed)), ("pages", .int(pages)), ("pagesWritten", .int(pagesWritten)),
            ("removed", .int(removed)), ("bytes", .int(Int(bytes))), ("seconds", .double(seconds))
        ]
        if dryRun { pairs.append(("dryRun", .bool(true))) }
        return .object(pairs)
    }
}

/// Writes a static HTML gallery of the photos a filter selects (issue 28).
///
/// DEST holds `index.html` and `page-N.html` (at most `perPage` photos each, newest capture
/// first, grouped by their own local capture dates), `gallery.css` and `gallery.js`
/// (`GalleryAssets`), and per photo `t/UNIQUENAME.jpg` (its stored thumbnail, copied byte for
/// byte), `r/UNIQUENAME.jpg` (the display rendition, made by `Thumbnailer` with the long edge
/// `size`: the same decoders, colour management and orientation as thumbnails) and
/// `o/UNIQUENAME.EXT` (the original). File names come from uniqueNames only, never from a
/// library string, and every folder written is checked not to be a symbolic link: nothing is
/// written outside DEST. Each file goes to a temporary name and is renamed into place; a page
/// whose bytes did not change is not rewritten. What was written is kept in
/// `DEST/.photos-gallery.tsv`; files of photos no longer selected are removed.
public final class Gallery {
    /// The state file's name in DEST.
    public static let stateName = ".photos-gallery.tsv"
    /// The lock file's name in DEST (flock(2): one gallery run at a time).
    public static let lockName = ".photos-gallery.lock"
    /// The journal's name in DEST: before a batch's files are written, their names are appended
    /// to it (`UNIQUENAME TAB TAB FILE SPACE FILE…`), so that a run killed before it writes the
    /// state leaves them recorded, and the next run removes or rewrites them. Removed once the
    /// state is written.
    public static let journalName = ".photos-gallery-journal.tsv"
    /// Prefix of temporary files in DEST's folders.
    public static let temporaryPrefix = ".photos-gallery-tmp-"
    /// The state file's first line.
    static let stateHeader = "photos-gallery-state 1"
    /// Photos whose files are made together (thumbnails read on this thread, then `jobs` workers).
    static let batchSize = 64

    private let library: Library
    private let options: GalleryOptions
    /// Called for each photo that fails, as it fails.
    public var onFailure: ((ExportFailure) -> Void)?
    /// Called after each batch with (photos done, photos in all).
    public var onProgress: ((Int, Int) -> Void)?
    /// With `--dry-run`: called with each file (relative to DEST) the run would write.
    public var onPlannedFile: ((String) -> Void)?

    public init(library: Library, options: GalleryOptions) {
        self.library = library
        self.options = options
    }

    /// One photo of the gallery, as its page shows it.
    struct Item: Sendable {
        var uniqueName: String
        var displayName: String
        var format: ImageFormat
        var sha256: String
        var byteSize: Int
        var fileReference: String
        /// The local capture time `YYYY-MM-DDTHH:MM:SS` (nil: none).
        var captureDate: String?
        var importedAt: String
        var rating: Int?
        var tags: [String]
        var thumbnailWidth: Int
        var thumbnailHeight: Int
        var width: Int
        var height: Int
        var rowID: Int64
    }

    /// A photo's record in the state file: what its files were made from, and the files.
    struct StateEntry: Equatable {
        var key: String
        var files: [String]
    }

    /// Runs the gallery.
    /// - Returns: the summary; per-photo failures are in it (and were passed to `onFailure`).
    /// - Throws: `ExportError` when DEST cannot be created, is a file, is inside the library or
    ///   is in use by another gallery run (`.destinationBusy`), or a folder of it is a symbolic
    ///   link (`.folderOutsideDestination`); `FileError` when a page cannot be written; what
    ///   reading the library throws.
    public func run() throws -> GallerySummary {
        let start = Date()
        let dest = Library.absolute(
            options.destination,
            in: LibraryEnvironment(
                variables: ProcessInfo.processInfo.environment,
                currentDirectory: FileManager.default.currentDirectoryPath, fallbackHome: NSHomeDirectory()))
        let fm = FileManager.default
        var isDir: ObjCBool = false
        let exists = fm.fileExists(atPath: dest, isDirectory: &isDir)
        if exists && !isDir.boolValue { throw ExportError.destinationIsFile(dest) }
        let statePath = dest + "/" + Gallery.stateName
        let journalPath = dest + "/" + Gallery.journalName
        if exists {
            for folder in ["t", "r", "o"] {
                var st = stat()
                if lstat(dest + "/" + folder, &st) == 0 && st.st_mode & S_IFMT != S_IFDIR {
                    throw ExportError.folderOutsideDestination(dest + "/" + folder)
                }
            }
            // A folder of the user's own files is not taken over: its index.html, t/… and
            // page-N.html would be overwritten or removed as the gallery's.
            let own = ((try? fm.contentsOfDirectory(atPath: dest)) ?? []).filter {
                $0 != Gallery.lockName && !$0.hasPrefix(Gallery.temporaryPrefix)
            }
            if !own.isEmpty && !own.contains(Gallery.stateName) && !own.contains(Gallery.journalName) {
                throw ExportError.cannotWriteDestination(
                    dest,
                    reason:
                        "it holds files and is not a gallery (no \(Gallery.stateName)): give a new or empty folder")
            }
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
        var lockFD: Int32 = -1
        defer { if lockFD >= 0 { close(lockFD) } }
        var journalFD: Int32 = -1
        defer { if journalFD >= 0 { close(journalFD) } }
        if !options.dryRun {
            lockFD = open(dest + "/" + Gallery.lockName, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o666)
            guard lockFD >= 0 else {
                throw ExportError.cannotWriteDestination(dest, reason: String(cString: strerror(errno)))
            }
            guard flock(lockFD, LOCK_EX | LOCK_NB) == 0 else { throw ExportError.destinationBusy(dest) }
            // Before anything else is written: the folder is a gallery from now on (see above).
            journalFD = open(journalPath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0o666)
            guard journalFD >= 0 else {
                throw ExportError.cannotWriteDestination(dest, reason: String(cString: strerror(errno)))
            }
            for folder in ["t", "r", "o"] {
                let path = dest + "/" + folder
                var st = stat()
                if lstat(path, &st) == 0 {
                    guard st.st_mode & S_IFMT == S_IFDIR else { throw ExportError.folderOutsideDestination(path) }
                } else if mkdir(path, 0o777) != 0 {
                    throw ExportError.cannotCreateFolder(path, reason: String(cString: strerror(errno)))
                }
                Gallery.removeTemporaryFiles(in: path)
            }
            Gallery.removeTemporaryFiles(in: dest)
        }

        // The selection, newest capture first (undated photos last, by import time); memory holds
        // one small item a photo (a 100,000-photo gallery: some tens of MB).
        var items: [Item] = []
        try library.forEachPhotoPage(matching: options.filter, pageSize: 1_000) { page in
            for photo in page {
                items.append(
                    Item(
                        uniqueName: photo.uniqueName, displayName: photo.displayName, format: photo.format,
                        sha256: photo.sha256, byteSize: photo.byteSize, fileReference: photo.fileReference,
                        captureDate: photo.captureDate, importedAt: photo.importedAt, rating: photo.rating,
                        tags: photo.tags, thumbnailWidth: photo.thumbnailWidth, thumbnailHeight: photo.thumbnailHeight,
                        width: photo.width, height: photo.height, rowID: photo.rowID))
            }
        }
        items.sort(by: Gallery.newestFirst)

        var summary = GallerySummary()
        summary.photos = items.count
        let oldState = Gallery.readState(statePath, journal: journalPath)

        var newState: [String: StateEntry] = [:]
        var failed = Set<String>()

        // The photos whose files are (re)written, in batches.
        var work: [Item] = []
        for item in items {
            let files = self.files(of: item)
            // The stored thumbnail's content is part of the key (a rebuild of the same size, a
            // decoder fix, is a new rendition): read for the photos the state has files of.
            guard options.update, let old = oldState[item.uniqueName], old.files == files,
                let thumbnail = try? library.thumbnailData(ofRow: item.rowID, item)
            else {
                work.append(item)
                continue
            }
            let entry = StateEntry(key: key(of: item, thumbnail: thumbnail), files: files)
            if old == entry, files.allSatisfy({ access(dest + "/" + $0, F_OK) == 0 }) {
                newState[item.uniqueName] = entry
                summary.skipped += 1
                continue
            }
            work.append(item)
        }
        var done = summary.skipped
        onProgress?(done, items.count)
        for first in stride(from: 0, to: work.count, by: Gallery.batchSize) {
            if let signal = StopSignal.received { throw StopRequested(signal: signal) }
            let batch = Array(work[first..<min(first + Gallery.batchSize, work.count)])
            if journalFD >= 0 {
                var text = ""
                for item in batch { text += item.uniqueName + "\t\t" + files(of: item).joined(separator: " ") + "\n" }
                try Gallery.append(Array(text.utf8), to: journalFD, path: journalPath)
            }
            var thumbnails: [Result<[UInt8], Error>] = []
            for item in batch {
                thumbnails.append(Result { try library.thumbnailData(ofRow: item.rowID, item) })
            }
            let results = write(batch, thumbnails: thumbnails, dest: dest)
            for ((item, result), thumbnail) in zip(zip(batch, results), thumbnails) {
                switch result {
                case .success(let bytes):
                    summary.written += 1
                    summary.bytes += bytes
                    newState[item.uniqueName] = StateEntry(
                        key: key(of: item, thumbnail: (try? thumbnail.get()) ?? []), files: files(of: item))
                    if options.dryRun, let onPlannedFile { files(of: item).forEach(onPlannedFile) }
                case .failure(let error):
                    failed.insert(item.uniqueName)
                    let failure = ExportFailure(
                        uniqueName: item.uniqueName, displayName: item.displayName, reason: Exporter.reason(error))
                    summary.failed += 1
                    summary.failures.append(failure)
                    onFailure?(failure)
                    // Whatever it had before, and what this run may have written of it, stays
                    // recorded (and so removable later); no key, so that it is made again.
                    let old = oldState[item.uniqueName]?.files ?? []
                    newState[item.uniqueName] = StateEntry(
                        key: "", files: old + files(of: item).filter { !old.contains($0) })
                }
            }
            done += batch.count
            onProgress?(done, items.count)
        }

        // Files of photos no longer in the gallery (deleted, or filtered out), and files a photo
        // no longer has (`--size 0`, `--originals none` after a run with them).
        for (name, entry) in oldState {
            let kept = Set(newState[name]?.files ?? [])
            for file in entry.files where !kept.contains(file) && access(dest + "/" + file, F_OK) == 0 {
                summary.removed += 1
                if !options.dryRun { unlink(dest + "/" + file) }
            }
        }

        // Pages: a failed photo is left out of them (its cell would show a missing image).
        let shown = failed.isEmpty ? items : items.filter { !failed.contains($0.uniqueName) }
        let pageCount = max(1, (shown.count + options.perPage - 1) / options.perPage)
        summary.pages = pageCount
        let renderer = GalleryPage(
            title: options.title, grouping: options.grouping, total: shown.count, pageCount: pageCount,
            renditions: options.size > 0, originals: options.originals, size: options.size)
        // One page in memory at a time (a 200-photo page: about 110 KB).
        func put(_ name: String, _ bytes: [UInt8]) throws {
            let path = dest + "/" + name
            // Data's == compares the bytes with memcmp.
            if let existing = fm.contents(atPath: path), existing.count == bytes.count, existing == Data(bytes) {
                return
            }
            summary.pagesWritten += 1
            summary.bytes += Int64(bytes.count)
            if options.dryRun {
                onPlannedFile?(name)
                return
            }
            try bytes.withUnsafeBytes {
                _ = try AtomicFile.write($0, to: path, temporaryPrefix: Gallery.temporaryPrefix, durability: .deferred)
            }
        }
        try put("gallery.css", Array(GalleryAssets.css.utf8))
        try put("gallery.js", Array(GalleryAssets.js.utf8))
        for page in 0..<pageCount {
            let slice = shown[min(shown.count, page * options.perPage)..<min(shown.count, (page + 1) * options.perPage)]
            try put(GalleryPage.fileName(page), Array(renderer.render(page: page, items: Array(slice)).utf8))
        }
        // Pages of an earlier, longer gallery.
        var extra = pageCount
        while access(dest + "/" + GalleryPage.fileName(extra), F_OK) == 0 {
            summary.removed += 1
            if !options.dryRun { unlink(dest + "/" + GalleryPage.fileName(extra)) }
            extra += 1
        }
        if !options.dryRun {
            try Gallery.writeState(newState, to: statePath)
            try Durability.syncFileSystem(containing: dest, willSync: {})
            unlink(journalPath)
        }
        summary.seconds = Date().timeIntervalSince(start)
        return summary
    }

    /// Newest capture first; photos without a capture date after all others, newest import
    /// first; then by uniqueName, so that the order is the same on every run.
    static func newestFirst(_ a: Item, _ b: Item) -> Bool {
        switch (a.captureDate, b.captureDate) {
        case (let x?, let y?) where x != y: return x > y
        case (nil, _?): return false
        case (_?, nil): return true
        case (nil, nil) where a.importedAt != b.importedAt: return a.importedAt > b.importedAt
        default: return a.uniqueName < b.uniqueName
        }
    }

    /// The extension an original keeps in `o/`.
    static func fileExtension(_ format: ImageFormat) -> String { format.fileExtension }

    /// A uniqueName usable as a file name: letters, digits, '-', '_' and '.', not starting with
    /// '.' (the library's uniqueNames are UUIDs; anything else is refused, not rewritten).
    static func safeName(_ name: String) -> Bool {
        !name.isEmpty && !name.hasPrefix(".") && name.utf8.count <= 200
            && name.unicodeScalars.allSatisfy {
                $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "-_.".unicodeScalars.contains($0))
            }
    }

    /// The files (relative to DEST) a photo has with the current options.
    func files(of item: Item) -> [String] {
        var files = ["t/\(item.uniqueName).jpg"]
        if options.size > 0 { files.append("r/\(item.uniqueName).jpg") }
        if options.originals != .none { files.append("o/\(item.uniqueName).\(Gallery.fileExtension(item.format))") }
        return files
    }

    /// What a photo's files are made from: a change of any part makes `--update` write them
    /// again. `thumbnail` is the stored thumbnail's bytes, keyed by their 64-bit FNV-1a digest
    /// (a thumbnail rebuilt at the same size and byte length is another rendition; faults after
    /// issue 28: the key held only its width and height).
    func key(of item: Item, thumbnail: [UInt8]) -> String {
        var digest: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in thumbnail { digest = (digest ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        let t = String(digest, radix: 16)
        return
            "\(item.sha256):\(item.thumbnailWidth)x\(item.thumbnailHeight):t\(t):s\(options.size):q\(options.quality):\(options.originals.rawValue)"
    }

    /// Writes the files of `batch` on up to `jobs` threads; the results (bytes written, or why
    /// the photo failed) are in `batch`'s order.
    private func write(_ batch: [Item], thumbnails: [Result<[UInt8], Error>], dest: String) -> [Result<Int64, Error>] {
        let results = Mutex([Result<Int64, Error>?](repeating: nil, count: batch.count))
        let next = Atomic<Int>(0)
        nonisolated(unsafe) let work = (self, batch, thumbnails)
        let run: @Sendable () -> Void = {
            while true {
                let i = next.wrappingAdd(1, ordering: .relaxed).oldValue
                guard i < work.1.count else { return }
                let result = Result { try work.0.writeFiles(of: work.1[i], thumbnail: work.2[i].get(), dest: dest) }
                results.withLock { $0[i] = result }
            }
        }
        let jobs = max(1, min(options.jobs, batch.count))
        if jobs == 1 { run() } else { DispatchQueue.concurrentPerform(iterations: jobs) { _ in run() } }
        return results.withLock {
            $0.map { $0 ?? .failure(ExportError.cannotWriteDestination(dest, reason: "not run")) }
        }
    }

    /// Writes one photo's thumbnail, rendition and original; returns the bytes written.
    private func writeFiles(of item: Item, thumbnail: [UInt8], dest: String) throws -> Int64 {
        guard Gallery.safeName(item.uniqueName) else {
            throw ExportError.cannotCreateFolder(item.uniqueName, reason: "the uniqueName is not a safe file name")
        }
        let source = library.externalData.path(for: item.fileReference)
        var bytes = Int64(thumbnail.count)
        var rendition: [UInt8] = []
        if options.dryRun {
            // The rendition's bytes are not known without making it: a dry run reads no original.
            return bytes + (options.originals != .none ? Int64(item.byteSize) : 0)
        }
        if options.size > 0 {
            let file = try ImageFile.read(path: source, maxBytes: ThumbnailOptions().maxFileBytes)
            let made = try file.bytes.withUnsafeBytes {
                try Thumbnailer.makeThumbnail(
                    from: $0, options: ThumbnailOptions(maxEdge: options.size, quality: options.quality))
            }
            rendition = made.thumbnail
            bytes += Int64(rendition.count)
        }
        if options.originals != .none { bytes += Int64(item.byteSize) }
        let write = { (data: [UInt8], path: String) throws in
            try data.withUnsafeBytes {
                _ = try AtomicFile.write(
                    $0, to: dest + "/" + path, temporaryPrefix: Gallery.temporaryPrefix, durability: .deferred)
            }
        }
        try write(thumbnail, "t/\(item.uniqueName).jpg")
        if options.size > 0 { try write(rendition, "r/\(item.uniqueName).jpg") }
        let original = dest + "/o/\(item.uniqueName).\(Gallery.fileExtension(item.format))"
        switch options.originals {
        case .none: break
        case .link:
            unlink(original)
            if link(source, original) == 0 { break }
            fallthrough
        case .copy:
            try AtomicFile.copy(
                from: source, to: original, expectedSHA256: item.sha256, maxBytes: item.byteSize,
                temporaryPrefix: Gallery.temporaryPrefix, durability: .deferred)
        }
        return bytes
    }

    /// The state file: a header line, then one line a photo, `UNIQUENAME TAB KEY TAB FILE SPACE
    /// FILE…`. A missing or unreadable file, or one of another version, is an empty state (the
    /// run then writes every photo's files). The files are untrusted: only a regular file of at
    /// most `stateMaxBytes` is read, its size checked before a byte is (`ImageFile.read`: a FIFO,
    /// a device such as /dev/zero behind a link, a larger or sparse file is an empty state). The
    /// lines of `journal` (a run that stopped before writing the state) add their files to the
    /// photo's, without a key.
    static func readState(_ path: String, journal: String? = nil) -> [String: StateEntry] {
        var state: [String: StateEntry] = [:]
        if let data = boundedContents(path) {
            let lines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: true)
            if lines.first == Substring(stateHeader) { parse(lines.dropFirst(), into: &state) }
        }
        if let journal, let data = boundedContents(journal) {
            var written: [String: StateEntry] = [:]
            parse(
                String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: true)[...],
                into: &written)
            for (name, entry) in written {
                let old = state[name]?.files ?? []
                state[name] = StateEntry(key: "", files: old + entry.files.filter { !old.contains($0) })
            }
        }
        return state
    }

    /// The largest state or journal file read, bytes (256 MiB: some 2 million photos' lines).
    static let stateMaxBytes = 256 << 20

    /// The bytes of the regular file `path` when it has at most `stateMaxBytes`, else nil.
    static func boundedContents(_ path: String) -> [UInt8]? {
        try? ImageFile.read(path: path, maxBytes: stateMaxBytes).bytes
    }

    /// The state's photo lines (after the header), untrusted: a line naming other files than
    /// `t/`, `r/` or `o/` + a safe name is left out, and so is a line of an unsafe uniqueName.
    static func parse(_ lines: ArraySlice<Substring>, into state: inout [String: StateEntry]) {
        for line in lines {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard fields.count == 3, safeName(String(fields[0])) else { continue }
            let files = fields[2].split(separator: " ").map(String.init).filter { file in
                // Only files this class names: a state edited to name others removes nothing else.
                let parts = file.split(separator: "/")
                return parts.count == 2 && ["t", "r", "o"].contains(parts[0]) && safeName(String(parts[1]))
            }
            state[String(fields[0])] = StateEntry(key: String(fields[1]), files: files)
        }
    }

    /// Appends `bytes` to the journal (open with O_APPEND).
    /// - Throws: `ExportError.cannotWriteDestination` naming `path` when write(2) fails.
    static func append(_ bytes: [UInt8], to fd: Int32, path: String) throws {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress.map { $0 + offset }, bytes.count - offset) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                throw ExportError.cannotWriteDestination(path, reason: String(cString: strerror(errno)))
            }
            offset += n
        }
    }

    static func writeState(_ state: [String: StateEntry], to path: String) throws {
        var text = stateHeader + "\n"
        for (name, entry) in state.sorted(by: { $0.key < $1.key }) {
            text += name + "\t" + entry.key + "\t" + entry.files.joined(separator: " ") + "\n"
        }
        let bytes = Array(text.utf8)
        try bytes.withUnsafeBytes {
            _ = try AtomicFile.write($0, to: path, temporaryPrefix: temporaryPrefix, durability: .deferred)
        }
    }

    /// Removes leftover temporary files of an interrupted run directly in `folder`.
    static func removeTemporaryFiles(in folder: String) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
        for name in names where name.hasPrefix(temporaryPrefix) { unlink(folder + "/" + name) }
    }
}

extension Library {
    /// The stored thumbnail of a gallery item (`thumbnailData(of:)`'s checks).
    fileprivate func thumbnailData(ofRow rowID: Int64, _ item: Gallery.Item) throws -> [UInt8] {
        let photoName = Library.describePhoto(item.uniqueName, item.displayName)
        guard let (data, width, height) = try catalogStore.thumbnail(ofPhoto: rowID) else {
            throw ThumbnailError.missing(photo: photoName)
        }
        if let reason = Library.thumbnailProblem(
            data, width: width, height: height, photoWidth: item.width, photoHeight: item.height)
        {
            throw ThumbnailError.damaged(photo: photoName, reason: reason)
        }
        return data
    }
}
