import Foundation
import PhotosFiles
import PhotosImaging
import PhotosModel

/// Import's writer side: inserts the files the workers prepared, one batch per write
/// transaction with one history transaction, through `PhotoInserter` (the insert path `merge`
/// shares). Runs on the importing thread only.
struct ImportBatchWriter {
    let library: Library
    /// The zone new photos go to (`--share`).
    let zone: String
    /// Where a photo of the same original makes a file a duplicate (`Importer.duplicateScope`).
    let duplicates: DuplicateScope
    let author: HistoryAuthor
    /// `--tag` names, normalized.
    let tagNames: [String]
    /// Where a batch checks, under the write lock, that no other process imported the same
    /// bytes meanwhile.
    let importStore: any ImportStore
    /// Where each new photo's file state and image-data hash are recorded.
    let metadataStore: any MetadataStore
    /// Tags found or created by earlier batches, by name (one lookup per name per run).
    private var tagCache: [String: TagRef] = [:]
    /// Whether the zone has a RAW photo a still could join (`join`): asked once per run, set
    /// when a batch adds one; nil after a batch rolled back.
    private var zoneHasRawPhotos: Bool?
    /// Whether the zone has a video photo a still could take over as its Live Photo's still
    /// (`joinLive`): asked once per run, set when a batch adds one; nil after a rollback.
    private var zoneHasVideoPhotos: Bool?
    /// Called inside each batch's transaction before it commits (`Importer.onBatchWritten`).
    let beforeCommit: (() -> Void)?
    /// A file that is no pair in its batch joins the photo of its other half (`Pairing`).
    let pairing: Bool

    init(
        library: Library, zone: String, duplicates: DuplicateScope, author: HistoryAuthor, tagNames: [String],
        pairing: Bool = true, beforeCommit: (() -> Void)? = nil
    ) {
        self.beforeCommit = beforeCommit
        self.pairing = pairing
        self.library = library
        self.zone = zone
        self.duplicates = duplicates
        self.author = author
        self.tagNames = tagNames
        importStore = library.store
        metadataStore = library.store
    }

    /// What one committed batch did.
    struct BatchResult {
        var imported = 0
        /// Bytes of the originals imported.
        var bytes: Int64 = 0
        /// Duplicates of rows another process committed meanwhile.
        var duplicates = 0
        /// Their SHA-256s.
        var duplicateSHA256s: [String] = []
        /// Their paths.
        var duplicatePaths: [String] = []
        /// Paths whose written original vanished before the commit.
        var vanished: [String] = []
        /// RAWs (or Live Photo movies) of a pair whose other half another run committed meanwhile (a duplicate here):
        /// not imported with it, each with the original its worker wrote, which nothing
        /// references (`removeUncommittedFiles` takes them). Run again, the RAW joins that photo.
        var unpaired: [(path: String, original: UncommittedOriginal)] = []
        /// The originals written for a pair whose other half vanished: nothing references them.
        var unreferenced: [UncommittedOriginal] = []
        /// RAWs imported as the `raw` original of a new photo of this batch.
        var paired = 0
        /// Live Photo movies imported as the `pairedVideo` original of a new photo of this batch.
        var livePaired = 0
        /// Files that joined a photo already in the library as the other half of its pair.
        var joined = 0
        /// Their SHA-256s (`--tag` reaches their photos as it reaches a duplicate's).
        var joinedSHA256s: [String] = []
    }

    /// Inserts one batch in one transaction with one history transaction. Whether each original
    /// is still there is checked under the write lock, which `verify --repair` also holds.
    /// The tags it created or found stay cached for the next batch, unless the batch rolled
    /// back (an error, or a dry run), which took the tags it created with it.
    /// - Throws: `LibraryError.busy` past the busy timeout, `SQLiteError`.
    mutating func write(_ batch: [Importer.Prepared]) throws -> BatchResult {
        let (library, zone, tagNames, importStore) = (self.library, self.zone, self.tagNames, self.importStore)
        let duplicates = self.duplicates
        let beforeCommit = self.beforeCommit
        let importedAt = ISODate.string(from: Date())
        var cache = tagCache
        var hasRaw = zoneHasRawPhotos
        var hasVideo = zoneHasVideoPhotos
        let result: BatchResult
        do {
            result = try library.write {
                var result = BatchResult()
                var history = HistoryWriter(library, author: author, context: .import)
                let writer = try library.store.makePhotoInserter()
                for var item in batch {
                    if try importStore.hasOriginal(sha256: item.sha256, in: duplicates) {
                        result.duplicates += 1
                        result.duplicateSHA256s.append(item.sha256)
                        result.duplicatePaths.append(item.path)
                        for half in item.halves where half.original.written != nil {
                            result.unpaired.append((half.original.path, half.original.uncommitted))
                        }
                        continue
                    }
                    if let movie = item.pairedVideo, try importStore.hasOriginal(sha256: movie.sha256, in: duplicates) {
                        // The movie of this Live Photo is a photo already (imported alone
                        // before): the still takes it over below (`joinLive`), as a still
                        // imported after its movie does.
                        result.duplicates += 1
                        result.duplicateSHA256s.append(movie.sha256)
                        result.duplicatePaths.append(movie.path)
                        item.pairedVideo = nil
                    }
                    var st = stat()
                    // (A dry run wrote no file, so it has none to lose.)
                    if item.wroteFile,
                        stat(library.externalData.path(for: ExternalDataStore.reference(for: item.sha256)), &st) != 0
                    {
                        result.vanished.append(item.path)
                        for half in item.halves {
                            result.vanished.append(half.original.path)
                            if half.original.written != nil { result.unreferenced.append(half.original.uncommitted) }
                        }
                        continue
                    }
                    if let gone = item.halves.first(where: {
                        $0.original.written != nil
                            && stat(
                                library.externalData.path(for: ExternalDataStore.reference(for: $0.original.sha256)),
                                &st) != 0
                    }) {
                        result.vanished += [item.path, gone.original.path]
                        if item.wroteFile { result.unreferenced.append(item.uncommitted) }
                        for half in item.halves where half.role != gone.role && half.original.written != nil {
                            result.unreferenced.append(half.original.uncommitted)
                        }
                        continue
                    }
                    if pairing, item.raw == nil, item.pairedVideo == nil,
                        try join(item, history: &history, writer: writer, hasRaw: &hasRaw, tagCache: &cache)
                            || joinLive(item, history: &history, writer: writer, hasVideo: &hasVideo, tagCache: &cache)
                    {
                        result.joined += 1
                        result.joinedSHA256s.append(item.sha256)
                        result.bytes += Int64(item.byteSize)
                        continue
                    }
                    let r = item.result
                    // The round trip keeps identity: the uniqueName an exported sidecar names
                    // (`photos:uniqueName`, upper case) when no photo has it yet (also none of
                    // this batch), in upper or lower case: a UUID is case-insensitive.
                    let uniqueName =
                        try item.sidecar?.uniqueName.flatMap {
                            try importStore.photoExists(uniqueName: $0)
                                || importStore.photoExists(uniqueName: $0.lowercased()) ? nil : $0
                        } ?? RandomUUID.make().uuidString
                    let displayName = PathName.lastComponent(item.path)
                    var row = PhotoRow(
                        uniqueName: uniqueName, displayName: displayName, importedAt: importedAt,
                        captureDate: item.capture?.local, captureOffset: item.capture?.offsetMinutes,
                        captureSource: item.capture?.source, width: r.width, height: r.height,
                        format: r.format, orientation: r.orientation, zoneID: ZoneID(rawValue: zone))
                    if let motion = r.motion {
                        row.kind = "motion"
                        row.durationMS = PhotoRow.durationMilliseconds(seconds: motion.video.duration)
                        row.videoCodec = motion.video.codec
                    }
                    if let video = r.video {
                        // Issue 25 item 2: milliseconds, rounded; the codec as libavcodec names it.
                        row.kind = "video"
                        row.durationMS = PhotoRow.durationMilliseconds(seconds: video.duration)
                        row.videoCodec = video.codec
                    }
                    if let movie = item.pairedVideo {
                        // A Live Photo (issue 25 item 2): the still's photo, with its movie's
                        // duration and codec.
                        row.kind = "live"
                        (row.durationMS, row.videoCodec) = (movie.durationMS, movie.videoCodec)
                    }
                    // A pair's photo is its still's, with what only its RAW (or movie) says
                    // where the still says nothing (the RAW's own sidecar, its container name).
                    let says = item.halves.reduce(item.metadata) { $0.filled(from: $1.original.metadata) }
                    if let position = says.position {
                        (row.latitudeE7, row.longitudeE7) = (position.latitudeE7, position.longitudeE7)
                        row.altitudeMM = position.altitudeMM
                    }
                    (row.camera, row.cameraFormat) = (says.camera, says.cameraFormat)
                    (row.title, row.description) = (says.title, says.description)
                    let photoID = try writer.insert(
                        row, sha256: item.sha256, byteSize: item.byteSize,
                        fileReference: ExternalDataStore.reference(for: item.sha256),
                        thumbnail: ThumbnailRow(data: r.thumbnail, width: r.thumbnailWidth, height: r.thumbnailHeight))
                    history.insert(.photo(uniqueName: uniqueName), zone: zone)
                    history.insert(.photoData(photo: uniqueName), zone: zone)
                    if r.format == .raw { hasRaw = true }
                    if r.format == .video { hasVideo = true }
                    if let id = item.contentIdentifier ?? item.pairedVideo?.contentIdentifier {
                        try metadataStore.setContentIdentifier(id, ofPhoto: photoID)
                    }
                    history.insert(.thumbnail(photo: uniqueName), zone: zone)
                    // The other half of a pair as one more original of the photo, in history.
                    func insertPairHalf(_ half: PairedOriginal, role: OriginalRole, format: ImageFormat) throws {
                        try writer.insertOriginal(
                            PhotoOriginal(
                                role: role, sha256: half.sha256, byteSize: half.byteSize,
                                fileReference: ExternalDataStore.reference(for: half.sha256), format: format),
                            ofPhoto: photoID)
                        history.insert(.photoData(photo: uniqueName, role: role), zone: zone)
                        result.bytes += Int64(half.byteSize)
                    }
                    if let raw = item.raw {
                        // The RAW of its pair (`Pairing.group`): the photo's `raw` original,
                        // unless another process imported those bytes meanwhile.
                        if try importStore.hasOriginal(sha256: raw.sha256, in: duplicates) {
                            result.duplicates += 1
                            result.duplicateSHA256s.append(raw.sha256)
                            result.duplicatePaths.append(raw.path)
                        } else {
                            try insertPairHalf(raw, role: .raw, format: .raw)
                            result.paired += 1
                        }
                    }
                    if let movie = item.pairedVideo {
                        // Its Live Photo movie (`Pairing.live`): the `pairedVideo` original (a
                        // duplicate was taken off the item above).
                        try insertPairHalf(movie, role: .pairedVideo, format: .video)
                        result.livePaired += 1
                    }
                    var names = tagNames
                    var named = Set(tagNames) // a Set: a 4 MiB sidecar holds ~180,000 keywords (no n² scan)
                    for subject in says.subjects {
                        if let name = TagName.fromKeyword(subject), named.insert(name).inserted { names.append(name) }
                    }
                    for name in names {
                        try writer.link(photo: photoID, tag: tag(named: name, cache: &cache, history: &history).rowID)
                    }
                    if let rating = says.rating.flatMap(RatingValue.init(rawValue:)) {
                        let row = RatingRow(photoRowID: photoID, value: rating)
                        try writer.insert(row)
                        history.insert(.rating(uuid: row.uuid), zone: zone)
                    }
                    // What the file said, for the next `--refresh-metadata` to compare with, and
                    // its image-data hash (issue 31 items 4 and 5): one row.
                    try metadataStore.setFileMetadataState(
                        FileMetadataState(metadata: item.sidecar, capture: item.capture), imageSHA256: item.imageSHA256,
                        ofPhoto: photoID)
                    // Its perceptual signature (issue 27 item 1), made from the thumbnail's pixels.
                    if let signature = r.signature {
                        try metadataStore.setPerceptualSignature(signature, ofPhoto: photoID)
                    }
                    result.imported += 1
                    result.bytes += Int64(item.byteSize)
                }
                try history.commit()
                // Group durability: the originals of this batch were written and renamed by the
                // workers without fsync (every item here was prepared after its rename); one
                // syncfs makes them durable before the rows that name them commit (SPEC §2).
                if batch.contains(where: \.wroteAnyFile) { try library.externalData.syncFileSystem() }
                beforeCommit?()
                return result
            }
        } catch {
            tagCache.removeAll()
            zoneHasRawPhotos = nil
            zoneHasVideoPhotos = nil
            throw error
        }
        tagCache = library.isDryRun ? [:] : cache
        zoneHasRawPhotos = library.isDryRun ? nil : hasRaw
        zoneHasVideoPhotos = library.isDryRun ? nil : hasVideo
        DurabilityStats.record(.commit(library.externalData.root))
        return result
    }

    /// Makes `item` (a file that is no pair in its batch) the other half of the photo of its
    /// RAW+JPEG pair when the target zone has one (`Pairing.joinable`; one range read of the
    /// capture-time index, under the write lock): a RAW becomes the `raw` original of its JPEG's
    /// photo; a still takes over as the `primary` original of its RAW's photo (the thumbnail,
    /// width, height, format, orientation and capture time become the still's; the RAW becomes
    /// `raw`). Each change is recorded in history, so `sync`, `share export` and `merge` carry it.
    /// - Returns: true when it joined a photo.
    /// - Throws: the store's error.
    private func join(
        _ item: Importer.Prepared, history: inout HistoryWriter, writer: any PhotoInserter, hasRaw: inout Bool?,
        tagCache cache: inout [String: TagRef]
    ) throws -> Bool {
        guard let t = item.capture, Pairing.fromMetadata(t), item.result.format == .raw || Pairing.isStill(item),
            let from = CaptureTime.shifted(t.local, by: -Pairing.lookupSeconds),
            let to = CaptureTime.shifted(t.local, by: Pairing.lookupSeconds)
        else { return false }
        if item.result.format != .raw {
            // A still joins only a RAW's photo: none in the zone, no lookup.
            if hasRaw == nil { hasRaw = try metadataStore.hasPhoto(format: .raw, zone: zone) }
            guard hasRaw == true else { return false }
        }
        guard
            let photo = try metadataStore.pairCandidates(zone: zone, captureFrom: from, captureTo: to).first(where: {
                Pairing.joinable(item, $0)
            })
        else { return false }
        let reference = ExternalDataStore.reference(for: item.sha256)
        if item.result.format == .raw {
            try writer.insertOriginal(
                PhotoOriginal(
                    role: .raw, sha256: item.sha256, byteSize: item.byteSize, fileReference: reference, format: .raw),
                ofPhoto: photo.rowID)
            history.insert(.photoData(photo: photo.uniqueName, role: .raw), zone: zone)
            try giveJoinedPhoto(photo, whatTheFileSays: item, history: &history, tagCache: &cache)
            return true
        }
        let r = item.result
        try metadataStore.takeOverPrimary(
            ofPhoto: photo.rowID,
            by: PhotoOriginal(
                role: .primary, sha256: item.sha256, byteSize: item.byteSize, fileReference: reference, format: r.format
            ),
            width: r.width, height: r.height, orientation: r.orientation,
            thumbnail: ThumbnailRow(data: r.thumbnail, width: r.thumbnailWidth, height: r.thumbnailHeight))
        // The photo takes the still's name with its role (the RAW's `IMG_1234.CR2` was it).
        try metadataStore.setDisplayName(ofPhoto: photo.rowID, PathName.lastComponent(item.path))
        var attributes = ["displayName", "width", "height", "format", "orientation"]
        try metadataStore.setCaptureTime(
            ofPhoto: photo.rowID, local: t.local, offsetMinutes: t.offsetMinutes, source: t.source)
        attributes += ["captureDate", "captureOffset", "captureSource"]
        try metadataStore.setFileMetadataState(
            FileMetadataState(metadata: item.sidecar, capture: item.capture), imageSHA256: item.imageSHA256,
            ofPhoto: photo.rowID)
        if let signature = r.signature { try metadataStore.setPerceptualSignature(signature, ofPhoto: photo.rowID) }
        history.update(.photo(uniqueName: photo.uniqueName), attributes, zone: zone)
        history.update(.photoData(photo: photo.uniqueName), ["sha256", "byteSize", "format"], zone: zone)
        history.insert(.photoData(photo: photo.uniqueName, role: .raw), zone: zone)
        history.update(.thumbnail(photo: photo.uniqueName), ["data", "width", "height"], zone: zone)
        try giveJoinedPhoto(photo, whatTheFileSays: item, history: &history, tagCache: &cache)
        return true
    }

    /// Makes `item` (a still or a movie that is no pair in its batch) the other half of the Live
    /// Photo of a photo the target zone has (`Pairing.liveJoinable`; issue 25 item 2): found by
    /// its content identifier (`liveCandidates`), else by its capture time
    /// (`pairCandidates`). A movie becomes the `pairedVideo` original of its still's photo,
    /// which becomes kind `live` with the movie's duration and codec. A still takes over as the
    /// `primary` original of its movie's video photo (`takeOverPrimary`, former primary
    /// `pairedVideo`): the photo becomes `live`, and takes the still's thumbnail, width,
    /// height, format, orientation and capture time. Each change is recorded in history, so
    /// `sync`, `share export` and `merge` carry it.
    /// - Returns: true when it joined a photo.
    /// - Throws: the store's error.
    private func joinLive(
        _ item: Importer.Prepared, history: inout HistoryWriter, writer: any PhotoInserter, hasVideo: inout Bool?,
        tagCache cache: inout [String: TagRef]
    ) throws -> Bool {
        let isMovie = item.result.video != nil
        guard isMovie || (Pairing.isStill(item) && item.result.format != .raw && item.result.motion == nil) else {
            return false
        }
        if !isMovie {
            // A still takes over only a video photo: none in the zone, no lookup.
            if hasVideo == nil { hasVideo = try metadataStore.hasPhoto(format: .video, zone: zone) }
            guard hasVideo == true else { return false }
        }
        var found: PairCandidate?
        if let id = item.contentIdentifier {
            found = try metadataStore.liveCandidates(zone: zone, contentIdentifier: id).first {
                Pairing.liveJoinable(item, $0)
            }
        }
        if found == nil, let t = item.capture, Pairing.fromMetadata(t),
            let from = CaptureTime.shifted(t.local, by: -Pairing.lookupSeconds),
            let to = CaptureTime.shifted(t.local, by: Pairing.lookupSeconds)
        {
            found = try metadataStore.pairCandidates(zone: zone, captureFrom: from, captureTo: to).first {
                Pairing.liveJoinable(item, $0)
            }
        }
        guard let photo = found else { return false }
        let reference = ExternalDataStore.reference(for: item.sha256)
        let r = item.result
        if isMovie {
            try writer.insertOriginal(
                PhotoOriginal(
                    role: .pairedVideo, sha256: item.sha256, byteSize: item.byteSize, fileReference: reference,
                    format: .video),
                ofPhoto: photo.rowID)
            try metadataStore.setKind(
                ofPhoto: photo.rowID, kind: "live",
                durationMS: r.video.flatMap { PhotoRow.durationMilliseconds(seconds: $0.duration) },
                videoCodec: r.video?.codec)
            if photo.contentIdentifier == nil, let id = item.contentIdentifier {
                try metadataStore.setContentIdentifier(id, ofPhoto: photo.rowID)
            }
            history.insert(.photoData(photo: photo.uniqueName, role: .pairedVideo), zone: zone)
            history.update(.photo(uniqueName: photo.uniqueName), ["kind", "durationMS", "videoCodec"], zone: zone)
            try giveJoinedPhoto(photo, whatTheFileSays: item, history: &history, tagCache: &cache)
            return true
        }
        try metadataStore.takeOverPrimary(
            ofPhoto: photo.rowID,
            by: PhotoOriginal(
                role: .primary, sha256: item.sha256, byteSize: item.byteSize, fileReference: reference, format: r.format
            ),
            formerPrimary: .pairedVideo, width: r.width, height: r.height, orientation: r.orientation,
            thumbnail: ThumbnailRow(data: r.thumbnail, width: r.thumbnailWidth, height: r.thumbnailHeight))
        // The photo takes the still's name with its role (the movie's `IMG_1234.MOV` was it).
        try metadataStore.setDisplayName(ofPhoto: photo.rowID, PathName.lastComponent(item.path))
        var attributes = ["displayName", "width", "height", "format", "orientation", "kind"]
        if let t = item.capture {
            try metadataStore.setCaptureTime(
                ofPhoto: photo.rowID, local: t.local, offsetMinutes: t.offsetMinutes, source: t.source)
            attributes += ["captureDate", "captureOffset", "captureSource"]
        }
        if let id = item.contentIdentifier { try metadataStore.setContentIdentifier(id, ofPhoto: photo.rowID) }
        try metadataStore.setFileMetadataState(
            FileMetadataState(metadata: item.sidecar, capture: item.capture), imageSHA256: item.imageSHA256,
            ofPhoto: photo.rowID)
        if let signature = r.signature { try metadataStore.setPerceptualSignature(signature, ofPhoto: photo.rowID) }
        history.update(.photo(uniqueName: photo.uniqueName), attributes, zone: zone)
        history.update(.photoData(photo: photo.uniqueName), ["sha256", "byteSize", "format"], zone: zone)
        history.insert(.photoData(photo: photo.uniqueName, role: .pairedVideo), zone: zone)
        history.update(.thumbnail(photo: photo.uniqueName), ["data", "width", "height"], zone: zone)
        try giveJoinedPhoto(photo, whatTheFileSays: item, history: &history, tagCache: &cache)
        return true
    }

    /// The tag `name` of the target zone: from `cache` (tags found or created by this run),
    /// else found or created (`Library.findOrCreateTag`) and cached.
    /// - Throws: the store's error.
    private func tag(named name: String, cache: inout [String: TagRef], history: inout HistoryWriter) throws -> TagRef {
        if let cached = cache[name] { return cached }
        let tag = try library.findOrCreateTag(named: name, zone: zone, history: &history)
        cache[name] = tag
        return tag
    }

    /// Gives the photo a file joined (`join`) what that file says (`PairHalfMetadata.filled`:
    /// the photo's values stay, the file's fill what it lacks, the keywords are the union; a
    /// rating fills only a photo with no anonymous rating), as in a pair imported in one batch
    /// (issue 24 item 2: the two halves of a pair often carry different keywords). Each change
    /// is recorded in history as an update of the photo, so `sync`, `share export` and `merge`
    /// carry it. `--tag` reaches the photo as it reaches a duplicate's (after the batch,
    /// `BatchResult.joinedSHA256s`).
    /// - Throws: the store's error.
    private func giveJoinedPhoto(
        _ candidate: PairCandidate, whatTheFileSays item: Importer.Prepared, history: inout HistoryWriter,
        tagCache cache: inout [String: TagRef]
    ) throws {
        let store = library.store
        guard let photo = try store.photo(uniqueName: candidate.uniqueName) else { return }
        let hasRating = try store.ratings(ofPhoto: photo.rowID).contains { $0.author == nil }
        // (Its ratings are rows of their own: `hasRating` stands for them.)
        let held = PairHalfMetadata(
            position: GeoPosition(
                latitudeE7: photo.latitudeE7, longitudeE7: photo.longitudeE7, altitudeMM: photo.altitudeMM),
            camera: photo.camera, cameraFormat: photo.cameraFormat, title: photo.title,
            description: photo.description)
        let file = item.metadata
        let says = held.filled(from: file)
        var attributes: [String] = []
        // Tags: a Set of what it has, so a large sidecar's keywords are no n² scan.
        var linked = Set(try store.tags(ofPhoto: photo.rowID).map(\.rowID))
        var newLinks = false
        for subject in file.subjects {
            guard let name = TagName.fromKeyword(subject) else { continue }
            let tag = try tag(named: name, cache: &cache, history: &history)
            if linked.insert(tag.rowID).inserted {
                try store.link(photo: photo.rowID, tag: tag.rowID)
                newLinks = true
            }
        }
        if newLinks { attributes.append("tags") }
        if !hasRating, let value = file.rating.flatMap(RatingValue.init(rawValue:)) {
            let uuid = newObjectUUID()
            _ = try store.insertRating(uuid: uuid, photo: photo.rowID, value: value, author: nil)
            history.insert(.rating(uuid: uuid), zone: zone)
            attributes.append("ratings")
        }
        if held.position == nil, let p = says.position {
            try metadataStore.setPosition(
                ofPhoto: photo.rowID, latitudeE7: p.latitudeE7, longitudeE7: p.longitudeE7, altitudeMM: p.altitudeMM)
            attributes += ["latitudeE7", "longitudeE7", "altitudeMM"]
        }
        if says.camera != held.camera || says.cameraFormat != held.cameraFormat {
            try metadataStore.setCamera(ofPhoto: photo.rowID, says.camera, cameraFormat: says.cameraFormat)
            attributes += SyncEntity.cameraAttributes
        }
        if says.title != held.title || says.description != held.description {
            try metadataStore.setText(ofPhoto: photo.rowID, title: says.title, description: says.description)
            attributes += SyncEntity.textAttributes
        }
        if !attributes.isEmpty { history.update(.photo(uniqueName: photo.uniqueName), attributes, zone: zone) }
    }
}
