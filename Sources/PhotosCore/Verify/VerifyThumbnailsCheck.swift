import Foundation
import PhotosImaging
import PhotosModel

/// Verify's thumbnails step (SPEC §6): photos without a thumbnail, then each thumbnail in row
/// order — decoded by `jobs` threads (`Library.thumbnailProblem`), or when `quick` its head's
/// structure only (`Library.quickThumbnailProblem`).
struct VerifyThumbnailsCheck {
    /// Whether only the heads' structure is checked (`verify --quick`).
    var quick: Bool
    /// Threads decoding thumbnails (at least 1 is used).
    var jobs: Int

    /// The problems in row order (photos without a thumbnail first) and the number of
    /// thumbnails checked.
    /// - Throws: the store's error.
    func run(on store: any VerifyStore) throws -> (problems: [VerifyProblem], checked: Int) {
        let quick = quick
        let jobs = jobs
        var problems: [VerifyProblem] = []
        var checked = 0
        for (name, display) in try store.photosWithoutThumbnail().map({ ($0.uniqueName, $0.displayName) }
        ) {
            problems.append(
                VerifyProblem(
                    kind: .missingThumbnail, subject: .photo(PhotoName(uniqueName: name, displayName: display)),
                    detail: "\(Library.describePhoto(name, display)) has no thumbnail",
                    repair: .regenerateThumbnail(uniqueName: name, displayName: display)))
        }
        // Counts a checked thumbnail, and reports it when `reason` says what is wrong with it.
        func checkedThumbnail(of photo: PhotoName, _ reason: String?) {
            checked += 1
            guard let reason else { return }
            let (name, display) = (photo.uniqueName, photo.displayName)
            problems.append(
                VerifyProblem(
                    kind: .damagedThumbnail, subject: .photo(photo),
                    detail: "\(Library.describePhoto(name, display)): thumbnail \(reason)",
                    repair: .regenerateThumbnail(uniqueName: name, displayName: display)))
        }
        // Read in chunks of `thumbnailChunk` rows (thumbnails are never all in memory), each
        // chunk decoded by `jobs` threads; the problems keep the rows' order.
        var chunk: [RecordedThumbnail] = []
        func checkChunk() {
            let reasons = Library.concurrentMap(chunk, jobs: jobs) { thumb in
                Library.thumbnailProblem(
                    thumb.data, width: thumb.width, height: thumb.height,
                    photoWidth: thumb.photoWidth, photoHeight: thumb.photoHeight)
            }
            for (thumb, reason) in zip(chunk, reasons) { checkedThumbnail(of: thumb.photo, reason) }
            chunk.removeAll(keepingCapacity: true)
        }
        if quick {
            // The structure only (`ThumbnailCheck.structure`), from each thumbnail's head as
            // the store cuts it out: microseconds a thumbnail, so on one thread. The store may
            // read them in another order than their ids (`VerifyStore.forEachThumbnailHead`):
            // their problems are put in row order.
            let missing = problems.count
            var rows: [Int64] = []
            try store.forEachThumbnailHead(headBytes: ThumbnailCheck.structureHeadBytes) { thumb in
                checkedThumbnail(
                    of: thumb.photo,
                    try Library.quickThumbnailProblem(
                        thumb, whole: { try store.thumbnailData(photo: thumb.photo.uniqueName) }))
                while problems.count - missing > rows.count { rows.append(thumb.rowID) }
            }
            problems = Array(problems[..<missing]) + Library.inRowOrder(Array(problems[missing...]), rows: rows)
        } else {
            try store.forEachThumbnail { thumb in
                chunk.append(thumb)
                if chunk.count >= Library.thumbnailChunk { checkChunk() }
            }
            checkChunk()
        }
        return (problems, checked)
    }
}

extension Library {

    /// Why a stored thumbnail is not the one SPEC §6 promises for a photo of `photoWidth` ×
    /// `photoHeight` upright pixels: `ThumbnailCheck` on the bytes, then the size rule
    /// (`Thumbnailer.thumbnailSize`), so a sound JPEG of another photo is caught too.
    static func thumbnailProblem(_ data: [UInt8], width: Int, height: Int, photoWidth: Int, photoHeight: Int) -> String?
    {
        if let reason = ThumbnailCheck.problem(data, width: width, height: height) { return reason }
        return sizeProblem(width: width, height: height, photoWidth: photoWidth, photoHeight: photoHeight)
    }

    /// Why a thumbnail of `width` × `height` pixels is not the size a `photoWidth` ×
    /// `photoHeight` photo's thumbnail has (`Thumbnailer.thumbnailSize`, SPEC §6), or nil.
    static func sizeProblem(width: Int, height: Int, photoWidth: Int, photoHeight: Int) -> String? {
        let expected = Thumbnailer.thumbnailSize(
            width: photoWidth, height: photoHeight, maxEdge: ThumbnailOptions().maxEdge)
        guard expected.width == width, expected.height == height else {
            return
                "is \(width)×\(height) pixels, but a \(photoWidth)×\(photoHeight) photo's thumbnail is \(expected.width)×\(expected.height)"
        }
        return nil
    }

    /// Why a thumbnail fails `verify --quick`'s check, from its head: `ThumbnailCheck.structure`
    /// (a whole JPEG whose frame header gives its recorded size, no decode), then the size rule
    /// (`sizeProblem`). When the head ends before the frame header, the check runs on
    /// the whole thumbnail, read by `whole` (nil: it is gone meanwhile, no problem to report).
    /// - Throws: what `whole` throws.
    static func quickThumbnailProblem(_ thumb: ThumbnailHead, whole: () throws -> [UInt8]?) throws -> String? {
        var structure = ThumbnailCheck.structure(
            head: thumb.head[...], byteCount: thumb.byteCount, last: thumb.last[...], width: thumb.width,
            height: thumb.height)
        if structure == .needsMoreBytes {
            guard let data = try whole() else { return nil }
            structure = ThumbnailCheck.structure(
                head: data[...], byteCount: data.count, last: data.suffix(2), width: thumb.width, height: thumb.height)
        }
        if case .damaged(let reason) = structure { return reason }
        return sizeProblem(
            width: thumb.width, height: thumb.height, photoWidth: thumb.photoWidth, photoHeight: thumb.photoHeight)
    }

    /// The thumbnails' checks (SPEC §6) on `store`: photos without one, then each thumbnail in
    /// row order — decoded by `jobs` threads (`thumbnailProblem`), or when `quick` its head's
    /// structure only (`quickThumbnailProblem`). Returns the problems in that order and the
    /// number of thumbnails checked.
    /// - Throws: the store's error.
    static func checkThumbnails(_ store: any VerifyStore, quick: Bool, jobs: Int) throws -> (
        problems: [VerifyProblem], checked: Int
    ) {
        try VerifyThumbnailsCheck(quick: quick, jobs: jobs).run(on: store)
    }
}
