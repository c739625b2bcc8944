import Foundation
import PhotosFiles
import PhotosImaging
import PhotosModel

/// A photo whose thumbnail could not be made again, and why.
public struct ThumbnailRebuildFailure: Sendable, Equatable {
    public var uniqueName: String
    public var displayName: String
    public var reason: String
}

/// What `photos thumbnails --rebuild` did.
public struct ThumbnailRebuildReport: Sendable {
    /// Thumbnails made again and stored (with a dry run: that would be stored).
    public var rebuilt = 0
    /// Photos whose original could not be read, did not match its SHA-256, or did not decode
    /// (kept only when `rebuildThumbnails` is asked to keep them; `failed` counts them always).
    public var failures: [ThumbnailRebuildFailure] = []
    /// Number of photos that failed.
    public var failed = 0
    /// True for `--dry-run`: made and rolled back.
    public var dryRun = false

    /// `{"rebuilt":N,"failed":N,"dryRun":B,"failures":[{"uniqueName","displayName","error"}]}`.
    public var json: JSONValue {
        .object([
            ("rebuilt", .int(rebuilt)), ("failed", .int(failed)), ("dryRun", .bool(dryRun)),
            (
                "failures",
                .array(
                    failures.map {
                        .object([
                            ("uniqueName", .string($0.uniqueName)), ("displayName", .string($0.displayName)),
                            ("error", .string($0.reason))
                        ])
                    })
            )
        ])
    }
}

extension Library {
    /// Photos whose thumbnails are stored per transaction by `rebuildThumbnails`.
    static let thumbnailRebuildBatch = 64

    /// Photos `rebuildThumbnails` reads a page at a time (keyset pages on uniqueName) when it
    /// rebuilds every photo's thumbnail.
    static let thumbnailRebuildPage = 1000

    /// Makes the thumbnails of `photos` (every photo when nil) again from their originals, with
    /// the import's thumbnailer (`Thumbnailer.makeThumbnail` with `options`: the same bytes a
    /// fresh import with those options stores), `jobs` worker threads decoding side by side
    /// and this thread storing them in transactions of 64, each recorded in history
    /// (context `thumbnails --rebuild`, author `thumbnails` unless `--author`) as an update of
    /// the Thumbnail (or an insert where there was none). Every photo's are made a page of
    /// 1,000 at a time in uniqueName order (`forEachPhotoPage`), so memory is bounded by a page's
    /// names and SHA-256s and `2 × jobs` thumbnails in flight, not by the library (issue 31
    /// item A11). Each photo's image-data hash
    /// (`ImageDataHash`) is recorded as well (the backfill for photos imported before schema 7,
    /// so that a file of theirs with rewritten metadata is recognised: issue 31 item 5), and its
    /// perceptual signature (issue 27 item 1: the backfill for photos imported before it).
    /// - Parameters:
    ///   - dryRun: make every thumbnail and roll every write back.
    ///   - keepFailures: keep each failure in the report's `failures` (its `failed` counts them
    ///     either way): false when `onFailure` reports them, so that a library whose originals
    ///     are all out of reach does not grow the process by a failure a photo.
    ///   - progress: called on this thread after each photo with (done, all, bytes of originals read).
    ///   - onFailure: called on this thread for each photo that fails (the rest go on).
    /// - Throws: `LibraryError` (75 when busy) from the store, `StopRequested` when a stop
    ///   signal arrived (checked after each stored batch); what was stored before stays.
    public func rebuildThumbnails(
        _ photos: [PhotoRecord]?, options: ThumbnailOptions, jobs: Int, dryRun: Bool = false, author: HistoryAuthor,
        keepFailures: Bool = true,
        progress: ((_ done: Int, _ total: Int, _ bytes: Int64) -> Void)? = nil,
        onFailure: ((ThumbnailRebuildFailure) -> Void)? = nil
    ) throws -> ThumbnailRebuildReport {
        try self.dryRun(dryRun) {
            var report = ThumbnailRebuildReport()
            report.dryRun = isDryRun
            var done = 0
            var bytes: Int64 = 0
            let total: Int
            if let photos {
                total = Set(photos.map(\.uniqueName)).count
            } else {
                total = try verifyStore.photoCount()
            }
            // The thumbnails of `work`, made by the workers and stored in batches; throws the
            // first error after the workers are done (what was stored before stays).
            func rebuild(_ work: [(name: String, display: String, sha256: String)]) throws {
                guard !work.isEmpty else { return }
                let workers = max(1, min(jobs, work.count))
                typealias Made = (
                    index: Int, result: Result<(ThumbnailResult, String?), ThumbnailRebuildError>, bytes: Int
                )
                let queue = BoundedQueue<Made>(capacity: workers * 2, producers: workers)
                let next = Counter()
                let store = externalData
                for _ in 0..<workers {
                    let thread = Thread {
                        while true {
                            let i = next.next()
                            // A stop signal: no more photos are taken (issue 31 item 19).
                            guard i < work.count, StopSignal.received == nil else { break }
                            queue.push(
                                Library.makeThumbnail(of: work[i].sha256, in: store, options: options, index: i))
                        }
                        queue.producerDone()
                    }
                    thread.stackSize = 4 << 20
                    thread.start()
                }
                var batch: [(index: Int, result: ThumbnailResult, imageSHA256: String?)] = []
                func storeBatch(_ items: [(index: Int, result: ThumbnailResult, imageSHA256: String?)]) throws {
                    guard !items.isEmpty else { return }
                    report.rebuilt += try write {
                        var history = HistoryWriter(self, author: author, context: .thumbnailRebuild)
                        var stored = 0
                        for item in items {
                            let name = work[item.index].name
                            let r = item.result
                            guard
                                let outcome = try verifyStore.storeThumbnail(
                                    photo: name, data: r.thumbnail, width: r.thumbnailWidth,
                                    height: r.thumbnailHeight)
                            else { continue } // deleted meanwhile
                            // The image-data hash of a photo imported before it was recorded
                            // (schema 7, issue 31 item 5), from the bytes read anyway.
                            // And its perceptual signature (issue 27 item 1): computed for photos
                            // imported before it was, recomputed for the others.
                            if let photo = try catalogStore.photo(uniqueName: name),
                                photo.sha256 == work[item.index].sha256
                            {
                                if let image = item.imageSHA256 {
                                    try metadataStore.setImageSHA256(image, ofPhoto: photo.rowID)
                                }
                                if let signature = r.signature {
                                    try metadataStore.setPerceptualSignature(signature, ofPhoto: photo.rowID)
                                }
                            }
                            if outcome.inserted {
                                history.insert(.thumbnail(photo: name), zone: outcome.zone)
                            } else {
                                history.update(.thumbnail(photo: name), ["data", "width", "height"], zone: outcome.zone)
                            }
                            stored += 1
                        }
                        try history.commit()
                        return stored
                    }
                }
                var failure: Error?
                while true {
                    let (item, finished) = queue.pop(until: Date().addingTimeInterval(60))
                    guard let item else {
                        if finished { break }
                        continue
                    }
                    done += 1
                    bytes += Int64(item.bytes)
                    switch item.result {
                    case .success(let (result, image)):
                        if failure == nil { batch.append((item.index, result, image)) }
                    case .failure(let error):
                        let f = ThumbnailRebuildFailure(
                            uniqueName: work[item.index].name, displayName: work[item.index].display,
                            reason: error.reason)
                        report.failed += 1
                        if keepFailures { report.failures.append(f) }
                        onFailure?(f)
                    }
                    if batch.count >= Library.thumbnailRebuildBatch && failure == nil {
                        do { try storeBatch(batch) } catch { failure = error }
                        batch.removeAll(keepingCapacity: true)
                        // SIGINT, SIGTERM, SIGHUP: stored so far stays; the rest is not stored.
                        if failure == nil, let signal = StopSignal.received { failure = StopRequested(signal: signal) }
                    }
                    progress?(done, total, bytes)
                }
                if failure == nil, let signal = StopSignal.received { failure = StopRequested(signal: signal) }
                if let failure { throw LibraryError.wrap(failure, library: root) }
                try storeBatch(batch)
            }
            if let photos {
                var seen = Set<String>()
                var targets: [(name: String, display: String, sha256: String)] = []
                for p in photos where seen.insert(p.uniqueName).inserted {
                    targets.append((p.uniqueName, p.displayName, p.sha256))
                }
                try rebuild(targets)
            } else {
                try forEachPhotoPage(matching: PhotoFilter(), pageSize: Library.thumbnailRebuildPage) { page in
                    try rebuild(page.map { ($0.uniqueName, $0.displayName, $0.sha256) })
                }
            }
            return report
        }
    }

    private static func makeThumbnail(
        of sha256: String, in store: ExternalDataStore, options: ThumbnailOptions, index: Int
    )
        -> (index: Int, result: Result<(ThumbnailResult, String?), ThumbnailRebuildError>, bytes: Int)
    {
        do {
            let file = try ImageFile.read(
                path: store.path(for: ExternalDataStore.reference(for: sha256)), maxBytes: options.maxFileBytes)
            guard file.sha256 == sha256 else {
                return (
                    index,
                    .failure(
                        ThumbnailRebuildError(
                            reason: "its original does not match its SHA-256; re-import the intact file")),
                    file.bytes.count
                )
            }
            let result = try file.bytes.withUnsafeBytes { try Thumbnailer.makeThumbnail(from: $0, options: options) }
            let image = file.bytes.withUnsafeBytes { ImageDataHash.sha256(of: $0, format: result.format) }
            return (index, .success((result, image)), file.bytes.count)
        } catch {
            return (index, .failure(ThumbnailRebuildError(reason: "cannot make it from the original: \(error)")), 0)
        }
    }
}

/// Why one thumbnail could not be made (a worker's result).
struct ThumbnailRebuildError: Error, Sendable {
    var reason: String
}
