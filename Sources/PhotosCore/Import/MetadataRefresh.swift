import Foundation
import PhotosFiles
import PhotosImaging
import PhotosModel

/// What one file already in the library says about its photo now (`photos import
/// --refresh-metadata`, or any import of a file whose image data is a photo's: issue 31 item
/// 5): its XMP sidecar and embedded metadata, merged as import merges them
/// (`XMPSidecar.merged`), and its capture time (`Importer.captureTime`).
struct MetadataRefresh: Sendable {
    /// The file read.
    var path: String
    /// The photo whose original has the file's SHA-256 (or, with `replacement`, its image data).
    var uniqueName: String
    /// The file's SHA-256: a refresh (without `replacement`) applies only while it is still the
    /// photo's original (another file of the run may have replaced it).
    var sha256: String
    var metadata: XMPSidecar?
    /// Nil when only the file's modification time gave one: a copy's mtime says nothing about
    /// when the photo was taken, so it never replaces a stored time.
    var capture: CaptureTime?
    /// The SHA-256 of the file's image data (`ImageDataHash`), recorded for the photo when it
    /// has none yet (photos imported before schema 7); nil when not computed.
    var imageSHA256: String?
    /// Set when the file is the photo's image with rewritten metadata: its bytes become the
    /// photo's original.
    var replacement: OriginalReplacement?
    /// The file's position (`Importer.position`); nil when it has none, which keeps the photo's.
    var position: GeoPosition? = nil
    /// The file's camera (`Importer.camera`) and RAW container name (`Importer.cameraFormat`):
    /// a refresh sets them when they differ from the photo's (issue 24 item 1).
    var camera: CameraIdentity? = nil
    var cameraFormat: String? = nil
    /// The file's title and description (`Importer.text`); each replaces the photo's when the
    /// file has one that differs (a file without one keeps the photo's: `photos describe`'s).
    var text: (title: String?, description: String?) = (nil, nil)
}

/// A file whose image data is a photo's (same `ImageDataHash`, zone, format, size and
/// orientation) but whose bytes are not its original: the file is the photo's new original.
struct OriginalReplacement: Sendable {
    /// The SHA-256 of the photo's original when the file was matched: the replacement is made
    /// only while the photo still has it.
    var previousSHA256: String
    /// The file's SHA-256 (64 lowercase hex digits) and size in bytes.
    var sha256: String
    var byteSize: Int
    /// The originals rewritten files replaced before (`ImageDataMatch.replacedSHA256s`).
    var replacedBefore: [String] = []
    /// The file this run wrote to external data (nil: none, a dry run).
    var written: ExternalDataStore.WrittenOriginal?
    /// True when this run wrote the file to external data (false in a dry run).
    var wroteFile: Bool { written != nil }
}

/// What a refresh changed (or, in a dry run, would change) on one photo: the lines
/// `import` prints and `--json` lists.
public struct MetadataChange: Equatable, Sendable {
    /// The file read.
    public var path: String
    public var uniqueName: String
    /// Tag names added and removed.
    public var tagsAdded: [String] = []
    public var tagsRemoved: [String] = []
    /// The file's rating before and after (nil: none); nil when the rating did not change.
    public var rating: (from: Int?, to: Int?)?
    /// The capture time set (`YYYY-MM-DDTHH:MM:SS[.fff]` with `±HH:MM` when known).
    public var captureDate: String?
    /// The new original's SHA-256 when the file replaced the photo's original (a file whose
    /// metadata another tool rewrote).
    public var newOriginalSHA256: String?
    /// The camera set (issue 24 item 1), when the file named another than the photo's.
    public var camera: CameraIdentity?

    public static func == (a: MetadataChange, b: MetadataChange) -> Bool {
        a.path == b.path && a.uniqueName == b.uniqueName && a.tagsAdded == b.tagsAdded
            && a.tagsRemoved == b.tagsRemoved && a.rating?.from == b.rating?.from && a.rating?.to == b.rating?.to
            && a.captureDate == b.captureDate && a.newOriginalSHA256 == b.newOriginalSHA256
            && a.camera == b.camera
    }

    /// True when nothing changed.
    public var isEmpty: Bool {
        tagsAdded.isEmpty && tagsRemoved.isEmpty && rating == nil && captureDate == nil && newOriginalSHA256 == nil
            && camera == nil
    }

    /// The changes as words: `+tag Bug`, `−tag Insect` (U+2212), `rating 2→4`, `rating none→3`,
    /// `captureDate 2022-12-31T23:59:58-05:00`, `original replaced (sha256 …)`.
    public var descriptions: [String] {
        var words = tagsAdded.map { "+tag \($0)" } + tagsRemoved.map { "\u{2212}tag \($0)" }
        if let rating {
            words.append(
                "rating \(rating.from.map(String.init) ?? "none")\u{2192}\(rating.to.map(String.init) ?? "none")")
        }
        if let captureDate { words.append("captureDate \(captureDate)") }
        if let newOriginalSHA256 { words.append("original replaced (sha256 \(newOriginalSHA256))") }
        if let camera { words.append("camera \(camera.text)") }
        return words
    }

    /// `{"path","uniqueName","changes":[…descriptions],"tagsAdded":[…],"tagsRemoved":[…],
    /// ["rating":{"from":N|null,"to":N|null},] ["captureDate":"…",] ["sha256":"…"]}`.
    public var json: JSONValue {
        var pairs: [(String, JSONValue)] = [
            ("path", .string(path)), ("uniqueName", .string(uniqueName)),
            ("changes", .array(descriptions.map(JSONValue.string))),
            ("tagsAdded", .array(tagsAdded.map(JSONValue.string))),
            ("tagsRemoved", .array(tagsRemoved.map(JSONValue.string)))
        ]
        if let rating {
            pairs.append(
                (
                    "rating",
                    .object([
                        ("from", rating.from.map { .int($0) } ?? .null), ("to", rating.to.map { .int($0) } ?? .null)
                    ])
                ))
        }
        if let captureDate { pairs.append(("captureDate", .string(captureDate))) }
        if let newOriginalSHA256 { pairs.append(("sha256", .string(newOriginalSHA256))) }
        if let camera { pairs.append(("camera", PhotoRecord.cameraJSON(camera))) }
        return .object(pairs)
    }
}

extension FileMetadataState {
    /// What a file says: its keywords as tag names (`TagName.fromKeyword`; none when it lists
    /// no keywords), its `xmp:Rating` when 1…5, its capture time unless only the file's
    /// modification time gave one.
    init(metadata: XMPSidecar?, capture: CaptureTime?) {
        var names: [String] = []
        for keyword in metadata?.subjects ?? [] {
            if let name = TagName.fromKeyword(keyword) { names.append(name) }
        }
        let fromFile = capture.flatMap { $0.source == "file-mtime" ? nil : $0 }
        self.init(
            tags: names, rating: metadata?.rating.flatMap(RatingValue.init(rawValue:))?.rawValue,
            captureDate: fromFile?.local, captureOffset: fromFile?.offsetMinutes)
    }
}

extension Library {
    /// Where `--refresh-metadata` writes capture times and file states.
    var metadataStore: any MetadataStore { store }

    /// Applies what changed in the files' metadata since they were last read to their photos,
    /// like digiKam's "Read metadata from files", in one write transaction with one history
    /// transaction (context `import --refresh-metadata`, `HistoryWriter`). Issue 31 item 4: a
    /// refresh merges, it does not replace.
    ///
    /// Per photo, what its file said when last read (`FileMetadataState`, recorded at import
    /// and at each refresh) is compared with what it says now, and only the difference is
    /// applied:
    /// - tags: a keyword new in the file links its tag (created as import creates it); a
    ///   keyword gone from the file unlinks its tag. A tag the library linked is never unlinked.
    /// - rating: the file's rating is the photo's anonymous rating (author none, as import
    ///   makes it). When the file's rating changed, the anonymous rating of the old value is
    ///   set to the new one (a Rating update of `value`), deleted (with a tombstone) when the
    ///   file has none now, or inserted when there is none; ratings by authors are never touched.
    /// - capture time: when the file's (EXIF or XMP, never the modification time) changed and
    ///   differs from the photo's, it is set (a Photo update of `captureDate`).
    /// What the file does not say at all (no keyword property, no `xmp:Rating`, no EXIF/XMP
    /// time: a sidecar left behind) is no change. A photo whose file state was never recorded
    /// (imported before schema 7, or from another library) only gains: the file's tags it lacks, the file's rating when it has no anonymous
    /// rating, and the file's capture time when it differs; nothing is removed. The file's
    /// state is then recorded for the next refresh.
    ///
    /// With `replacement`, the file's bytes become the photo's original first (photo data
    /// SHA-256, size and file reference; a PhotoData update of `sha256`/`byteSize`), while the
    /// photo still has the original it was matched with and no photo has the file's; the old
    /// original is removed once nothing references it. A photo deleted meanwhile is passed
    /// over.
    /// - Returns: the changes, per photo that changed, in the order of `items`; and the
    ///   references of originals this call wrote that no photo took (to be removed).
    /// - Throws: `LibraryError.busy`; the store's error; the file system's error making the new
    ///   originals durable.
    func refreshMetadata(_ items: [MetadataRefresh], author: HistoryAuthor) throws -> (
        changes: [MetadataChange], unused: [String]
    ) {
        var replacedOriginals: [String] = []
        let result: ([MetadataChange], [String]) = try write {
            var history = HistoryWriter(self, author: author, context: .refreshMetadata)
            var changes: [MetadataChange] = []
            var unused: [String] = []
            var replaced: [String] = []
            var wroteAny = false
            for item in items {
                let newReference = item.replacement.map { ExternalDataStore.reference(for: $0.sha256) }
                guard let photo = try catalogStore.photo(uniqueName: item.uniqueName) else {
                    if let newReference, item.replacement?.wroteFile == true { unused.append(newReference) }
                    continue
                }
                let object = HistoryObject.photo(uniqueName: photo.uniqueName)
                var change = MetadataChange(path: item.path, uniqueName: photo.uniqueName)
                if let r = item.replacement, let newReference {
                    if photo.sha256 == r.previousSHA256,
                        try !store.hasOriginal(sha256: r.sha256, in: .zone(photo.zone.rawValue))
                    {
                        try metadataStore.replaceOriginal(
                            ofPhoto: photo.rowID, sha256: r.sha256, byteSize: r.byteSize, fileReference: newReference)
                        var older = [photo.sha256]
                        for sha in r.replacedBefore where !older.contains(sha) && older.count < 16 { older.append(sha) }
                        try metadataStore.setReplacedSHA256s(older, ofPhoto: photo.rowID)
                        history.update(
                            .photoData(photo: photo.uniqueName), ["sha256", "byteSize"], zone: photo.zone.rawValue)
                        replaced.append(photo.fileReference)
                        change.newOriginalSHA256 = r.sha256
                        wroteAny = wroteAny || r.wroteFile
                    } else {
                        // Replaced meanwhile (another file of this run), or the bytes are another
                        // photo's now: this file changes nothing.
                        if r.wroteFile, try !referencesFile(newReference) { unused.append(newReference) }
                        continue
                    }
                } else if photo.sha256 != item.sha256 {
                    // The file is no longer the photo's original (a rewritten copy replaced it
                    // in this run): an older version says nothing new.
                    continue
                }
                let before = try metadataStore.fileMetadataState(ofPhoto: photo.rowID)
                // What the file does not say is not a change: no keyword property at all (a
                // sidecar not copied along, a file without XMP) keeps the tags; no xmp:Rating at
                // all keeps the rating (0 or -1 says "none"); no EXIF/XMP time keeps the time.
                var now = FileMetadataState(metadata: item.metadata, capture: item.capture)
                if item.metadata?.hasKeywords != true { now.tags = before?.tags ?? [] }
                if item.metadata?.hasRating != true { now.rating = before?.rating }
                if now.captureDate == nil {
                    now.captureDate = before?.captureDate
                    now.captureOffset = before?.captureOffset
                }
                var attributes: [String] = []
                if let t = item.capture, t.source != "file-mtime",
                    before == nil || before?.captureDate != t.local || before?.captureOffset != t.offsetMinutes,
                    t.local != photo.captureDate || t.offsetMinutes != photo.captureOffset
                {
                    try metadataStore.setCaptureTime(
                        ofPhoto: photo.rowID, local: t.local, offsetMinutes: t.offsetMinutes, source: t.source)
                    attributes.append("captureDate")
                    change.captureDate = t.iso
                }
                // A position the file gives, other than the photo's, replaces it (issue 26 item 1).
                if let p = item.position,
                    p.latitudeE7 != photo.latitudeE7 || p.longitudeE7 != photo.longitudeE7
                        || p.altitudeMM != photo.altitudeMM
                {
                    try metadataStore.setPosition(
                        ofPhoto: photo.rowID, latitudeE7: p.latitudeE7, longitudeE7: p.longitudeE7,
                        altitudeMM: p.altitudeMM)
                    attributes += ["latitudeE7", "longitudeE7", "altitudeMM"]
                }
                // The camera the file names now (issue 24 item 1): read again, it replaces the
                // photo's when they differ; a file that names none keeps the photo's. Compared
                // after that merge, so a file naming less than the photo holds is no change.
                let camera = item.camera ?? photo.camera
                let format = item.cameraFormat ?? photo.cameraFormat
                if camera != photo.camera || format != photo.cameraFormat {
                    try metadataStore.setCamera(ofPhoto: photo.rowID, camera, cameraFormat: format)
                    attributes += SyncEntity.cameraAttributes
                    change.camera = camera
                }
                // The title and description the file gives now (issue 26 item 6), each replacing
                // the photo's when it differs; a file without one keeps the photo's.
                let title = item.text.title ?? photo.title
                let description = item.text.description ?? photo.description
                if title != photo.title || description != photo.description {
                    try metadataStore.setText(ofPhoto: photo.rowID, title: title, description: description)
                    attributes += SyncEntity.textAttributes
                }
                if try mergeTags(of: photo, now: now.tags, before: before?.tags, change: &change, history: &history) {
                    attributes.append("tags")
                }
                if try mergeRating(of: photo, now: now.rating, before: before, change: &change, history: &history) {
                    attributes.append("ratings")
                }
                if before != now || item.imageSHA256 != nil {
                    try metadataStore.setFileMetadataState(now, imageSHA256: item.imageSHA256, ofPhoto: photo.rowID)
                }
                if !attributes.isEmpty { history.update(object, attributes, zone: photo.zone.rawValue) }
                if !change.isEmpty { changes.append(change) }
            }
            try history.commit()
            // The new originals were written without fsync (as import writes them): durable
            // before the rows that name them commit.
            if wroteAny { try externalData.syncFileSystem() }
            replacedOriginals = replaced
            return (changes, unused)
        }
        // After the commit: an original no photo references any more goes.
        if !replacedOriginals.isEmpty { removeUnreferencedFiles(replacedOriginals) }
        return result
    }

    /// Links the tags of keywords new in the file (`now` − `before`) and unlinks those of
    /// keywords gone from it (`before` − `now`); with `before` nil (never recorded), only links
    /// the file's tags the photo lacks.
    /// - Returns: true when a link was added or removed.
    private func mergeTags(
        of photo: StoredPhoto, now: [String], before: [String]?, change: inout MetadataChange,
        history: inout HistoryWriter
    ) throws -> Bool {
        let wanted = Set(now)
        let previous = Set(before ?? [])
        let current = try catalogStore.tags(ofPhoto: photo.rowID)
        let currentNames = Set(current.map(\.name))
        var changed = false
        if before != nil {
            for tag in current where previous.contains(tag.name) && !wanted.contains(tag.name) {
                try catalogStore.unlink(photo: photo.rowID, tag: tag.rowID)
                if change.tagsRemoved.last != tag.name { change.tagsRemoved.append(tag.name) }
                changed = true
            }
        }
        for name in now where !previous.contains(name) && !currentNames.contains(name) {
            let tag = try findOrCreateTag(named: name, zone: photo.zone.rawValue, history: &history)
            try catalogStore.link(photo: photo.rowID, tag: tag.rowID)
            change.tagsAdded.append(name)
            changed = true
        }
        return changed
    }

    /// Applies a change of the file's rating to the photo's anonymous rating (see
    /// `refreshMetadata`).
    /// - Returns: true when the ratings changed.
    private func mergeRating(
        of photo: StoredPhoto, now: Int?, before: FileMetadataState?, change: inout MetadataChange,
        history: inout HistoryWriter
    ) throws -> Bool {
        let anonymous = try catalogStore.ratings(ofPhoto: photo.rowID).filter { $0.author == nil }
        if let before {
            guard before.rating != now else { return false }
            let held = anonymous.first { $0.value == before.rating } ?? anonymous.first
            if let value = now.flatMap(RatingValue.init(rawValue:)) {
                if let held {
                    guard held.value != value.rawValue else { return false }
                    try catalogStore.setValue(ofRating: held.id, to: value)
                    history.update(.rating(uuid: held.uuid), ["value"], zone: photo.zone.rawValue)
                    change.rating = (held.value, value.rawValue)
                } else {
                    try insertAnonymousRating(value, photo: photo, history: &history)
                    change.rating = (nil, value.rawValue)
                }
                return true
            }
            guard let held, held.value == before.rating else { return false }
            try history.delete(.rating, .rowID(held.id))
            try catalogStore.deleteRating(id: held.id)
            change.rating = (held.value, nil)
            return true
        }
        guard let value = now.flatMap(RatingValue.init(rawValue:)), anonymous.isEmpty else { return false }
        try insertAnonymousRating(value, photo: photo, history: &history)
        change.rating = (nil, value.rawValue)
        return true
    }

    private func insertAnonymousRating(_ value: RatingValue, photo: StoredPhoto, history: inout HistoryWriter) throws {
        let uuid = newObjectUUID()
        _ = try catalogStore.insertRating(uuid: uuid, photo: photo.rowID, value: value, author: nil)
        history.insert(.rating(uuid: uuid), zone: photo.zone.rawValue)
    }
}
