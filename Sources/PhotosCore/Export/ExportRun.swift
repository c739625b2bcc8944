import Foundation
import PhotosFiles
import PhotosModel

/// One run of `photos export` (`Exporter.run`) once DEST is ready and its state open, in stages:
/// the names recorded in the state reserved and the progress total counted
/// (`countAndReserve`), every photo planned (`Planner`) and written in batches by the workers
/// (`FileWriter`) with each batch's syncfs pipelined behind the next (`writeAll`), then
/// `--cleanup` (`cleanup`).
struct ExportRun {
    /// Ends the paging once DEST refused a write.
    private struct StopReading: Error {}

    let exporter: Exporter
    /// When the run began, for `ExportSummary.seconds`.
    let start: Date
    /// DEST, absolute.
    let dest: String
    /// DEST's export state; nil in a dry run without one.
    let state: ExportState?
    let writer: FileWriter
    /// Photos written per batch (at least 1).
    let batchSize: Int
    /// Photos read per query (at least `batchSize`).
    let pageSize: Int

    private(set) var summary = ExportSummary()
    private var planner: Planner
    /// The photos in all, for the progress (0 when nobody asked for progress).
    private var total = 0
    /// Photos without a usable name (they keep whatever they had before).
    private var unnamed = Set<String>()
    /// Every path of the run, for `--cleanup`.
    private var keep = NameFingerprints()
    /// Photos whose files are written.
    private var done = 0
    /// A pipeline of two stages (issue 15 item 3): batch N's syncfs runs on its own thread
    /// while the workers write batch N+1; then batch N's rows are recorded, and only then is
    /// batch N+1's syncfs issued. So a file recorded in the export state has been made durable
    /// by a syncfs that returned, and a crash leaves at most two batches of files unrecorded
    /// (found again by their bytes on the next run).
    private var pending: WrittenBatch?
    private var queue: [Exporter.Planned] = []

    init(exporter: Exporter, start: Date, destination dest: String, state: ExportState?, writer: FileWriter) {
        let options = exporter.options
        self.exporter = exporter
        self.start = start
        self.dest = dest
        self.state = state
        self.writer = writer
        batchSize = max(1, options.batchSize)
        pageSize = max(exporter.pageSize, options.batchSize)
        planner = Planner(
            root: dest, state: state, trustState: options.update,
            companionKinds: Planner.companionKinds(sidecar: options.sidecar, thumbnails: options.thumbnails),
            perTag: options.perTag)
    }

    /// The share titles `{share}` reads, once a run (nil until first needed).
    private var shareTitles: [String: String]?

    /// What the template needs to name `page` (issue 32 item 6): the share titles (one query a
    /// run) and the insert authors of the page's photos (one query a page).
    /// - Throws: the store's error.
    private mutating func nameContext(for page: [PhotoRecord]) throws -> ExportNameContext {
        let template = exporter.options.template
        if shareTitles == nil { shareTitles = template.usesShareTitle ? try exporter.library.shareTitlesByZone() : [:] }
        return try exporter.library.nameContext(for: page, template: template, shareTitles: shareTitles ?? [:])
    }

    /// The photos are read a page at a time in uniqueName order (keyset paging), so memory
    /// holds a page, the names taken so far (`Planner.taken`) and the export state, not the
    /// library. With --update a first pass keeps each photo's recorded name before any other
    /// photo picks one, as naming all photos at once did. The same pass counts the progress
    /// total (without --update, a pass of its own, made only when progress is reported).
    /// - Throws: what reading the library throws.
    mutating func countAndReserve() throws {
        let options = exporter.options
        let reserve = options.update && state != nil
        guard reserve || exporter.onProgress != nil else { return }
        try exporter.library.forEachPhotoPage(matching: options.filter, pageSize: pageSize) { page in
            if reserve {
                planner.reserveRecordedNames(
                    page, extras: try extraOriginals(of: page), template: options.template,
                    context: try nameContext(for: page))
            }
            total += options.perTag ? planner.copies(page).count : page.count
        }
    }

    /// Plans and writes every photo, page by page, and records the last batch.
    /// - Throws: what stops the export (`Interrupted<ExportSummary>` once something was written).
    mutating func writeAll() throws {
        do {
            try exporter.library.forEachPhotoPage(matching: exporter.options.filter, pageSize: pageSize) { photos in
                let plan = planner.plan(
                    photos, extras: try extraOriginals(of: photos), template: exporter.options.template,
                    context: try nameContext(for: photos))
                for (photo, reason) in plan.failures {
                    unnamed.insert(photo.uniqueName)
                    exporter.fail(photo, reason, &summary)
                }
                queue += plan.items
                guard try writeBatches(all: false) else { throw StopReading() }
            }
            _ = try writeBatches(all: true)
        } catch is StopReading {
            // DEST refused: the pending batch is recorded below, then `finish` stops the export.
        }
        if let last = pending { try finish(last) }
    }

    /// The originals other than the primary of a page's photos (RAW+JPEG pairs' RAWs, Live
    /// Photos' movies), by photo row id: one batched query a page (issue 24 item 2: export writes
    /// every original of a photo).
    /// - Throws: what reading the library throws.
    private func extraOriginals(of photos: [PhotoRecord]) throws -> [Int64: [PhotoOriginal]] {
        try exporter.library.catalogStore.extraOriginals(ofPhotos: photos.map(\.rowID))
    }

    /// `--cleanup`: removes what the export state holds that this run did not produce.
    /// - Throws: what the state or DEST's file system throws.
    mutating func cleanup() throws {
        let options = exporter.options
        if let state, options.cleanup {
            // A photo without a usable name keeps whatever it had before.
            for name in unnamed { keep.formUnion(state.entries(ofPhoto: name).map(\.path)) }
        }
        if options.cleanup {
            summary.removed = try exporter.cleanup(keeping: keep, state: state, root: dest, writer: writer)
        }
        summary.seconds = Date().timeIntervalSince(start)
    }

    /// Writes the planned photos of the queue in batches of `batchSize` (the last one
    /// shorter with `all`), as one list of every photo was; false once DEST refused and no
    /// further batch may be written.
    private mutating func writeBatches(all: Bool) throws -> Bool {
        while !queue.isEmpty && (all || queue.count >= batchSize) {
            let batch = Array(queue.prefix(batchSize))
            queue.removeFirst(batch.count)
            // Thumbnails are read from the library here, on this thread (one connection).
            var thumbnails: [Result<[UInt8], Error>?] = Array(repeating: nil, count: batch.count)
            if exporter.options.thumbnails {
                for (i, item) in batch.enumerated() {
                    thumbnails[i] = Result { try exporter.library.thumbnailData(of: item.photo) }
                }
            }
            let results = exporter.exportFiles(of: batch, thumbnails: thumbnails, writer: writer, state: state)
            // Progress counts photos whose files are written (they are recorded once their
            // batch's sync returns, before the next batch's sync is issued).
            for _ in batch {
                done += 1
                exporter.onProgress?(done, max(total, done))
            }
            if let earlier = pending {
                pending = nil
                try finish(earlier)
            }
            // Group durability: every file of the batch is in place (renamed, mtime set); one
            // syncfs of DEST's file system makes them durable before the state records them.
            let wrote = !exporter.options.dryRun && results.contains(where: { (try? $0.get())?.wrote == true })
            pending = WrittenBatch(
                items: batch, results: results,
                sync: wrote ? BackgroundSync(path: dest, syncFileSystem: exporter.syncFileSystem) : nil)
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

    /// Waits for a written batch's syncfs, then counts its photos and records its rows (in
    /// one transaction); throws what stops the export.
    private mutating func finish(_ written: WrittenBatch) throws {
        var stop: Error?
        if let sync = written.sync, let error = sync.wait() {
            stop = Exporter.environmentError(error, destination: dest) ?? error
        }
        var recorded: [ExportState.Entry] = []
        var counts = ExportSummary()
        if stop == nil {
            for (item, result) in zip(written.items, written.results) {
                let paths = exporter.files(of: item).map(\.path)
                // Only --cleanup needs every path of the run (a set of 1-3 paths a photo).
                if exporter.options.cleanup { keep.formUnion(paths) }
                do {
                    let files = try result.get()
                    // Only the files of a photo the real run would write (not of one it refuses).
                    if exporter.options.dryRun, let onPlannedFile = exporter.onPlannedFile {
                        paths.forEach(onPlannedFile)
                    }
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
                    if (try? (exporter.library.store as any ExportStore).photoExists(uniqueName: item.photo.uniqueName))
                        == false
                    {
                        exporter.onNote?(
                            "\(item.photo.uniqueName) was deleted from the library during the export; skipped")
                        continue
                    }
                    exporter.fail(item.photo, Exporter.reason(error), &summary)
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
}
