import Foundation
import PhotosFiles
import PhotosImaging
import PhotosModel

/// The rule that makes a camera's RAW+JPEG pair one photo (issue 24 item 2): a camera set to
/// RAW+JPEG writes `IMG_1234.CR2` and `IMG_1234.JPG` in one folder, with one capture time.
///
/// - Two files are halves of a pair when they are in the same folder, have the same base name
///   ignoring case (`FileScanner.pairingBase`), one is a camera RAW by content (the sniffer's
///   `.raw`, never by extension) and the other a still that is not (JPEG, HEIF, …; not a
///   video), and their capture times agree (`timesAgree`).
/// - The still is the `primary` original: the thumbnail, the photo's width, height, format,
///   orientation and capture time come from it. It is the rendering the photographer saw on the
///   camera's screen (picture style, lens corrections, white balance the camera chose), which no
///   RAW developer reproduces, and it decodes fast. The RAW is the `raw` original.
/// - Three or more files of one base name: the RAW pairs with one still only, a JPEG before a
///   HEIF before any other still (`stillRank`; the camera's JPEG is what a RAW+JPEG camera
///   writes, a HEIC beside it is a phone's or an editor's), ties by path; the others are photos
///   of their own. A second RAW (a DNG converted from the CR2) is a photo of its own too.
/// - A half imported later (or whose other half is already in the library) joins the photo of
///   the other half (`joinable`): a photo of the target zone with one original, of the other
///   kind, whose display name has the same base name and whose capture time agrees. The
///   catalog does not record the folder a file came from, so a later join cannot check it: the
///   capture time within 2 s is what tells two cameras' `IMG_1234` apart.
///
/// Live Photos (issue 25 item 2) pair by the same groups and joins: `live`, `livePair` and
/// `liveJoinable` say how (equal Apple content identifiers; without one, name and time).
enum Pairing {
    /// The most two capture times of a pair may differ, in seconds: a camera writes both files
    /// of one exposure, with one time (sub-seconds may differ by the write order).
    static let maxSeconds = 2.0

    /// The key of a file's group: its folder and its base name ignoring case.
    static func key(_ path: String) -> String {
        let slash = path.lastIndex(of: "/")
        let folder = slash.map { String(path[...$0]) } ?? ""
        return folder + FileScanner.pairingBase(PathName.lastComponent(path))
    }

    /// True for a capture time read from the file's metadata (EXIF, XMP, GPS), false for the
    /// file's modification time (`file-mtime`) or none.
    static func fromMetadata(_ t: CaptureTime?) -> Bool { t.map { $0.source != "file-mtime" } ?? false }

    /// Seconds between two local wall-clock times (`CaptureTime.local`), nil when one is not one.
    static func secondsApart(_ a: String, _ b: String) -> Double? {
        guard let x = WallClock.parse(a), let y = WallClock.parse(b) else { return nil }
        return abs(Double(x.secondsAsUTC - y.secondsAsUTC) + x.fraction - y.fraction)
    }

    /// Whether two halves found in one folder have agreeing capture times: both read from their
    /// metadata and at most `maxSeconds` apart (wall-clock times: one camera writes one offset),
    /// or neither has one in its metadata (a camera that writes no EXIF time, a stripped file:
    /// same folder and base name is then what the camera's naming says, as digiKam and darktable
    /// group by name alone). One with a time and one without are not a pair.
    static func timesAgree(_ a: CaptureTime?, _ b: CaptureTime?) -> Bool {
        switch (fromMetadata(a), fromMetadata(b)) {
        case (true, true):
            guard let a, let b, let d = secondsApart(a.local, b.local) else { return false }
            return d <= maxSeconds
        case (false, false): return true
        default: return false
        }
    }

    /// Which still a RAW pairs with first: JPEG 0, HEIF 1, the others 2.
    static func stillRank(_ format: ImageFormat) -> Int {
        switch format {
        case .jpeg: return 0
        case .heif: return 1
        default: return 2
        }
    }

    /// True for a prepared file that can be the still half of a pair.
    static func isStill(_ p: Importer.Prepared) -> Bool {
        p.result.format != .raw && p.result.video == nil
    }

    /// Splits the prepared files of one group (one folder, one base name) into photos: each
    /// element is the primary with, for a pair, its RAW in `raw` and its Live Photo movie in
    /// `pairedVideo`. In the order of `items`, but a pair takes the place of its still.
    static func group(_ items: [Importer.Prepared]) -> [Importer.Prepared] {
        live(rawPairs(items))
    }

    /// The RAW+JPEG pairs of one group (`group`).
    static func rawPairs(_ items: [Importer.Prepared]) -> [Importer.Prepared] {
        guard
            let rawIndex = items.indices.filter({ items[$0].result.format == .raw })
                .min(by: { items[$0].path < items[$1].path })
        else { return items }
        let raw = items[rawIndex]
        let stills = items.indices.filter { isStill(items[$0]) && timesAgree(items[$0].capture, raw.capture) }
        guard
            let stillIndex = stills.min(by: {
                let (a, b) = (items[$0], items[$1])
                let (ra, rb) = (stillRank(a.result.format), stillRank(b.result.format))
                return ra != rb ? ra < rb : a.path < b.path
            })
        else { return items }
        var out: [Importer.Prepared] = []
        for (i, item) in items.enumerated() where i != rawIndex {
            var item = item
            if i == stillIndex { item.raw = PairedOriginal(raw) }
            out.append(item)
        }
        return out
    }

    /// The Live Photo pairs of one group (one folder, one base name; issue 25 item 2): an
    /// iPhone writes `IMG_1234.HEIC` (or `.JPG`) and `IMG_1234.MOV` of one capture, both
    /// carrying one content identifier. A movie (a video by content) pairs with the first still
    /// (JPEG, then HEIF, then by path; one with no `pairedVideo` yet) that `livePair` accepts;
    /// the still stays the primary, the movie becomes its `pairedVideo`. A second movie of the
    /// group is a video photo of its own.
    static func live(_ items: [Importer.Prepared]) -> [Importer.Prepared] {
        var items = items
        var taken: Set<Int> = []
        for m in items.indices where items[m].result.video != nil {
            let stills = items.indices.filter {
                !taken.contains($0) && isStill(items[$0]) && items[$0].result.motion == nil
                    && items[$0].pairedVideo == nil
                    && livePair(still: items[$0], movie: items[m])
            }
            guard
                let s = stills.min(by: {
                    let (a, b) = (items[$0], items[$1])
                    let (ra, rb) = (stillRank(a.result.format), stillRank(b.result.format))
                    return ra != rb ? ra < rb : a.path < b.path
                })
            else { continue }
            items[s].pairedVideo = PairedOriginal(items[m])
            taken.insert(s)
            taken.insert(m)
        }
        return items.indices.filter { !(taken.contains($0) && items[$0].result.video != nil) }.map { items[$0] }
    }

    /// Whether a still and a movie found in one folder with one base name are the halves of a
    /// Live Photo: their content identifiers (`contentIdentifier`) are equal when both have
    /// one, and differ never pair (two captures of one name: an iPhone's counter after a
    /// reset); when one or both have none (an editor stripped the MakerNote, a converted
    /// movie), their capture times, both read from metadata, are at most `maxSeconds` apart
    /// (`liveTimesAgree`).
    static func livePair(still: Importer.Prepared, movie: Importer.Prepared) -> Bool {
        switch (still.contentIdentifier, movie.contentIdentifier) {
        case let (a?, b?): return a == b
        default: return liveTimesAgree(still.capture, movie.capture)
        }
    }

    /// Whether a still's and its movie's capture times agree: both read from metadata and at
    /// most `maxSeconds` apart, as instants when both offsets are known (a movie's QuickTime
    /// creation date carries one; `creation_time` is UTC), else as wall-clock times.
    static func liveTimesAgree(_ a: CaptureTime?, _ b: CaptureTime?) -> Bool {
        guard let a, let b, fromMetadata(a), fromMetadata(b) else { return false }
        return liveSecondsApart(a.local, a.offsetMinutes, b.local, b.offsetMinutes).map { $0 <= maxSeconds } ?? false
    }

    /// Seconds between two capture times: as instants when both offsets are known, else as
    /// wall-clock times; nil when one is no time.
    static func liveSecondsApart(_ a: String, _ aOffset: Int?, _ b: String, _ bOffset: Int?) -> Double? {
        guard let x = WallClock.parse(a), let y = WallClock.parse(b) else { return nil }
        var d = Double(x.secondsAsUTC - y.secondsAsUTC) + x.fraction - y.fraction
        if let aOffset, let bOffset { d -= Double((aOffset - bOffset) * 60) }
        return abs(d)
    }

    /// Whether `item` (a prepared still or movie that is no pair) may become the other half of
    /// the Live Photo of `candidate` (a photo already in the library): a movie joins a still
    /// photo (not a RAW's, none with a `pairedVideo` yet), a still takes over a video photo
    /// of one original. Equal content identifiers pair whatever the names and times; different
    /// ones never do; when one has none, the same base name ignoring case and capture times
    /// at most `maxSeconds` apart (the catalog keeps no folder: see `Pairing`).
    static func liveJoinable(_ item: Importer.Prepared, _ candidate: PairCandidate) -> Bool {
        let itemIsMovie = item.result.video != nil
        guard itemIsMovie || (isStill(item) && item.result.motion == nil), candidate.originals == 1 else {
            return false
        }
        if itemIsMovie {
            guard candidate.kind == "still", candidate.format != .raw else { return false }
        } else {
            guard candidate.kind == "video" else { return false }
        }
        if let a = item.contentIdentifier, let b = candidate.contentIdentifier { return a == b }
        guard let t = item.capture, fromMetadata(t), candidate.captureSource.map({ $0 != "file-mtime" }) ?? false,
            let date = candidate.captureDate,
            let d = liveSecondsApart(t.local, t.offsetMinutes, date, candidate.captureOffset), d <= maxSeconds
        else { return false }
        return FileScanner.pairingBase(candidate.displayName)
            == FileScanner.pairingBase(PathName.lastComponent(item.path))
    }

    /// The half-width of the capture-time range a join looks candidates up in (seconds): the
    /// rule's `maxSeconds` and one more for the sub-seconds `joinable` compares exactly.
    static let lookupSeconds = Int(maxSeconds.rounded(.up)) + 1

    /// Whether `item` (a prepared file that is no pair) may join `candidate` (a photo already in
    /// the library): one original, the other kind (a RAW joins a still's photo, a still joins a
    /// RAW's photo), the same base name ignoring case, capture times read from metadata at most
    /// `maxSeconds` apart.
    static func joinable(_ item: Importer.Prepared, _ candidate: PairCandidate) -> Bool {
        guard candidate.originals == 1, candidate.kind == "still", let t = item.capture, fromMetadata(t),
            candidate.captureSource.map({ $0 != "file-mtime" }) ?? false, let date = candidate.captureDate,
            let d = secondsApart(t.local, date), d <= maxSeconds,
            FileScanner.pairingBase(candidate.displayName) == FileScanner.pairingBase(PathName.lastComponent(item.path))
        else { return false }
        let itemIsRaw = item.result.format == .raw
        guard itemIsRaw || isStill(item) else { return false }
        return itemIsRaw ? candidate.format != .raw : candidate.format == .raw
    }
}

/// The RAW half of a RAW+JPEG pair, or the movie of a Live Photo, carried with its still's
/// `Importer.Prepared` to the batch writer.
struct PairedOriginal: Sendable {
    var path: String
    var sha256: String
    var byteSize: Int
    /// The original its worker wrote (nil: none, a dry run).
    var written: ExternalDataStore.WrittenOriginal?
    var warnings: [String]
    /// What the RAW's own sidecar and embedded metadata say (a darktable `IMG_1234.CR2.xmp` is
    /// the RAW's alone): the photo gets it where its still says nothing (`ImportBatchWriter`).
    var metadata: PairHalfMetadata
    /// A Live Photo movie's duration (milliseconds, `PhotoRow.durationMilliseconds`) and codec
    /// (as libavcodec names it); nil for a RAW.
    var durationMS: Int?
    var videoCodec: String?
    /// Its content identifier (`Importer.Prepared.contentIdentifier`), nil when none.
    var contentIdentifier: String?

    init(_ p: Importer.Prepared) {
        durationMS = p.result.video.flatMap { PhotoRow.durationMilliseconds(seconds: $0.duration) }
        videoCodec = p.result.video?.codec
        contentIdentifier = p.contentIdentifier
        path = p.path
        sha256 = p.sha256
        byteSize = p.byteSize
        written = p.written
        warnings = p.warnings
        metadata = p.metadata
    }

    /// The original, as `removeUncommittedFiles` takes it when the row does not commit.
    var uncommitted: UncommittedOriginal {
        UncommittedOriginal(reference: ExternalDataStore.reference(for: sha256), written: written)
    }
}

/// What one file of a photo says about it besides its pixels and capture time: its keywords,
/// rating, position, camera, container name, title and description. The one rule by which the
/// halves of a pair give a photo their metadata (issue 24 item 2), whether they are imported
/// in one batch or one joins the other's photo later: the photo's (or its still's) value
/// stays, the other half's fills what it lacks, and the keywords are the union.
struct PairHalfMetadata: Sendable {
    /// `dc:subject` keywords, as the sidecar lists them (`TagName.fromKeyword` makes tags).
    var subjects: [String] = []
    /// `xmp:Rating` as written (`RatingValue` keeps 1–5).
    var rating: Int?
    var position: GeoPosition?
    var camera: CameraIdentity?
    var cameraFormat: String?
    var title: String?
    var description: String?

    /// Each value of `self`, else `other`'s; the keywords of both, `self`'s first.
    func filled(from other: PairHalfMetadata) -> PairHalfMetadata {
        PairHalfMetadata(
            subjects: subjects + other.subjects, rating: rating ?? other.rating, position: position ?? other.position,
            camera: camera ?? other.camera, cameraFormat: cameraFormat ?? other.cameraFormat,
            title: title ?? other.title, description: description ?? other.description)
    }
}

extension Importer.Prepared {
    /// Its Apple content identifier (issue 25 item 2): a still's MakerNote tag 0x0011
    /// (`ExifMetadata.contentIdentifier`), a movie's QuickTime
    /// `com.apple.quicktime.content.identifier`; nil when none or not one
    /// (`ExifReader.isContentIdentifier`).
    var contentIdentifier: String? {
        if let video = result.video {
            return video.contentIdentifier.flatMap { ExifReader.isContentIdentifier($0) ? $0 : nil }
        }
        return result.metadata.exif.contentIdentifier
    }

    /// What this file says (`PairHalfMetadata`).
    var metadata: PairHalfMetadata {
        PairHalfMetadata(
            subjects: sidecar?.subjects ?? [], rating: sidecar?.rating, position: position, camera: camera,
            cameraFormat: cameraFormat, title: title, description: description)
    }
}
