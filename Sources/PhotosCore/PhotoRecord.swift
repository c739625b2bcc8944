import Foundation
import PhotosFiles
import PhotosImaging
import PhotosModel

/// A photo as `list`, `show` and `--json` present it (SPEC §5a).
public struct PhotoRecord: Equatable {
    public var rowID: Int64
    public var uniqueName: String
    public var displayName: String
    public var sha256: String
    public var byteSize: Int
    public var fileReference: String
    /// The original's format (the schema's CHECK allows `jpeg`, `png`, `heif`, `avif` and `webp`, migration 4).
    public var format: ImageFormat
    /// Upright pixels.
    public var width: Int
    public var height: Int
    /// EXIF Orientation 1…8 of the original.
    public var orientation: Orientation
    /// When the photo was taken, ISO 8601: the local wall-clock time with its UTC offset when
    /// known (`2024-12-31T23:30:00-05:00`), without any zone when not (`2024-12-31T23:30:00`);
    /// nil when no source gave one (photos imported before schema version 2 without EXIF date).
    public var captureDate: String?
    /// The capture time's UTC offset in minutes east (−300 for −05:00), nil when unknown.
    public var captureOffset: Int? = nil
    /// Where the capture time came from: `exif`, `exif-digitized`, `exif-datetime`, `xmp` or
    /// `file-mtime` (see `CaptureTime.source`); nil without a capture time.
    public var captureSource: String? = nil
    public var importedAt: String
    public var thumbnailWidth: Int
    public var thumbnailHeight: Int
    public var tags: [String]
    public var ratings: [Int]
    public var zone: String
    public var scope: ZoneScope
    /// Where it was taken (issue 26 item 1; WGS 84 degrees, metres above sea level); nil when
    /// no source gave a position.
    public var position: GeoPosition? = nil
    /// Issue 25 item 2: `still`, `video`, `motion` or `live`.
    public var kind: String = "still"
    /// A video's (or Motion Photo's) duration in milliseconds and video codec (libavcodec's
    /// name); nil for a still.
    public var durationMS: Int? = nil
    public var videoCodec: String? = nil
    /// The camera's make, model and lens (issue 24 item 1); nil when none is known.
    public var camera: CameraIdentity? = nil
    /// A camera RAW's container name in lower case ("nef", "cr3"; issue 24 item 7); nil for
    /// another format.
    public var cameraFormat: String? = nil
    /// The place name set by hand (`photos place set`, issue 26 item 3); nil when none.
    public var placeName: String? = nil
    /// The title and description (issue 26 item 6); nil when none.
    public var title: String? = nil
    public var description: String? = nil
    /// Every original of the photo, primary first (issue 24 item 2: the RAW of a RAW+JPEG pair
    /// is a second one, role `raw`).
    public var originals: [PhotoOriginal] = []
    /// Who gave each of `ratings`, in its order (nil: an anonymous rating, from before ratings
    /// had authors or read from an XMP sidecar); shorter than `ratings` only for a record made
    /// by hand, whose missing authors count as anonymous.
    public var ratingAuthors: [String?] = []

    /// The capture time as seconds since 1970: its wall-clock time less its offset, or read in
    /// the machine's local time zone when the offset is unknown (`CaptureTime.instant`); nil
    /// without a capture time. `photos export` sets the files' modification times to it.
    public var captureInstant: Double? {
        captureDate.flatMap { CaptureTime.fromISO($0, source: "") }?.instant
    }

    /// The displayed rating: the mean of the ratings rounded half up, or nil (SPEC §3).
    public var rating: Int? {
        guard !ratings.isEmpty else { return nil }
        // Half up on integers: floor(sum / n + 1/2) = floor((2·sum + n) / 2n).
        let sum = ratings.reduce(0, +)
        return (2 * sum + ratings.count) / (2 * ratings.count)
    }

    /// `ratings` with their authors, as `list --json` and `show --json` give them (issue #29
    /// item 1): `[{"author":"owner@example.org","value":4}]`, `"author":null` when anonymous.
    public var ratingsJSON: JSONValue {
        .array(
            ratings.enumerated().map { index, value in
                let author = index < ratingAuthors.count ? ratingAuthors[index] : nil
                return .object([("author", .optional(author)), ("value", .int(value))])
            })
    }

    /// The §5a photo object.
    public var json: JSONValue {
        // Typed in parts: one literal of every field is more than the type checker takes.
        let identity: [(String, JSONValue)] = [
            ("uniqueName", .string(uniqueName)), ("displayName", .string(displayName)), ("sha256", .string(sha256)),
            ("byteSize", .int(byteSize)), ("format", .string(format.rawValue)), ("width", .int(width)),
            ("height", .int(height)),
            ("orientation", .int(orientation.rawValue)), ("captureDate", .optional(captureDate)),
            ("captureOffset", .optional(captureOffset)), ("captureSource", .optional(captureSource)),
            ("importedAt", .string(importedAt)),
            ("thumbnailWidth", .int(thumbnailWidth)), ("thumbnailHeight", .int(thumbnailHeight))
        ]
        let relations: [(String, JSONValue)] = [
            ("tags", .array(tags.map(JSONValue.string))), ("ratings", ratingsJSON),
            ("rating", .optional(rating)), ("zone", .string(zone)), ("scope", .string(scope.rawValue)),
            ("title", .optional(title)), ("description", .optional(description))
        ]
        let place: [(String, JSONValue)] = [
            ("latitude", position.map { .decimal($0.latitude, decimals: 7) } ?? .null),
            ("longitude", position.map { .decimal($0.longitude, decimals: 7) } ?? .null),
            ("altitude", position?.altitude.map { .decimal($0, decimals: 3) } ?? .null)
        ]
        let media: [(String, JSONValue)] = [
            ("kind", .string(kind)),
            ("duration", durationMS.map { .decimal(Double($0) / 1000, decimals: 3) } ?? .null),
            ("videoCodec", .optional(videoCodec)), ("cameraFormat", .optional(cameraFormat))
        ]
        let cameraField: [(String, JSONValue)] = camera.map { [("camera", Self.cameraJSON($0))] } ?? []
        let originalsField: [(String, JSONValue)] =
            originals.isEmpty ? [] : [("originals", .array(originals.map { originalJSON($0) }))]
        return .object(identity + relations + place + media + cameraField + originalsField)
    }

    /// A camera as `list --json` gives it: `{"make","model","lens"}`, each a string or null.
    public static func cameraJSON(_ camera: CameraIdentity) -> JSONValue {
        .object([("make", .optional(camera.make)), ("model", .optional(camera.model)), ("lens", .optional(camera.lens))]
        )
    }

    /// One original as `list --json` and `show --json` give it: `role`, `format` (its own, else
    /// the photo's), `byteSize`, `sha256` and `path` (relative to the library folder).
    public func originalJSON(_ original: PhotoOriginal) -> JSONValue {
        .object([
            ("role", .string(original.role.rawValue)), ("format", .string(original.format(orPhoto: format).rawValue)),
            ("byteSize", .int(original.byteSize)), ("sha256", .string(original.sha256)),
            ("path", .string(Library.externalDataName + "/" + original.fileReference))
        ])
    }
}

extension ImageFormat {
    /// True when `format` is the format named `name` (`"png"`): the comparison callers wrote
    /// while `PhotoRecord.format` was a String (the export naming rules).
    public static func == (format: ImageFormat, name: String) -> Bool { format.rawValue == name }
}

/// Which photos `list` (and later `export`) selects.
public struct PhotoFilter {
    /// Photos having every one of these tags (parsed at the edge: `TagName(parsing:)`), each
    /// matched by `TagName.sameTag` (case and accents ignored) and, unless `tagExact`, with the
    /// tags beneath it: `Places` selects photos tagged `Places/France/Paris` (issue 32 item 1).
    public var tags: [TagName] = []
    /// `tags` selects only the tags so named, not the branches beneath them (`--tag-exact`).
    public var tagExact = false
    /// Capture time (or import time when there is none) at or after this bound: the photo's
    /// own local wall-clock time is compared, or its instant when the bound has an offset.
    public var since: CaptureBound?
    /// Capture time (or import time) before this bound.
    public var until: CaptureBound?
    /// Photos in this record zone only (an id as typed: `ZoneID(parsing:)`).
    public var zone: ZoneID?
    /// Photos in this share only: a share id or an unambiguous id prefix, resolved to its zone
    /// by `forEachPhoto` (SPEC §5 `--share`).
    public var share: String?
    /// Photos whose displayed rating (the mean rounded half up) is at least this, 1…5; photos
    /// without ratings are left out (SPEC §5 `--min-rating`).
    public var minRating: Int?
    /// Photos rated by this author (as typed; compared in `AuthorName.normalize`'s form, as
    /// ratings store their authors); with `minRating`, that author's rating is at least it
    /// (issue 32 item 3).
    public var ratedBy: String?
    /// Photos without a rating by this author.
    public var unratedBy: String?
    /// Photos whose display name matches this glob (`*`, `?`, `[abc]`, `[a-z]`, `[!x]`; POSIX
    /// fnmatch without FNM_PATHNAME), ignoring case and diacritics (`NameGlob`).
    public var name: String?
    /// Photos whose display name, a tag, their title or description (issue 26 item 6) or the
    /// title of their share contains this text, ignoring case and diacritics (as
    /// `tag list --match`, `TagName.matches`).
    public var search: String?
    /// Photos whose original has one of these formats; empty: any.
    public var formats: [ImageFormat] = []
    /// Photos of one of these kinds (issue 25 item 2: `still`, `video`, `motion`, `live`); empty: any.
    public var kinds: [String] = []
    /// Photos whose camera make or model contains this text, ignoring the case of ASCII letters
    /// (`--camera`, issue 24 item 7; the comparison is the store's, in SQL); nil: any.
    public var camera: String?
    /// Photos without tags.
    public var untagged = false
    /// Photos with a position (`--with-location`: true), without one (`--without-location`:
    /// false), or either (nil).
    public var hasPosition: Bool?
    /// Photos inside this box (`--bbox S,W,N,E`, WGS 84 degrees, bounds included; west > east is a
    /// box across the antimeridian); nil: anywhere.
    public var box: (south: Double, west: Double, north: Double, east: Double)?
    /// Photos within this great-circle distance of a point (`--near LAT,LON[,RADIUS]`,
    /// `GeoCircle`): the index range of its bounding box first, then the exact distance; nil:
    /// anywhere.
    public var near: GeoCircle?
    /// Photos without ratings.
    public var unrated = false
    /// The order (`--sort`): captured (the default), imported, name, size or rating.
    public var sort: PhotoQuery.Sort = .captured
    /// Reverses the order.
    public var reverse = false
    /// At most this many photos (after every other condition), nil for all.
    public var limit: Int?
    /// Read each photo's originals (`PhotoRecord.originals`, one indexed query per photo) even
    /// where the store gave its tags and ratings with the row (PostgreSQL aggregates those): for
    /// `list --json`. False: `originals` is filled only where relations are read per photo, and
    /// a record without them leaves `originals` out of its JSON (a photo always has one).
    public var includeOriginals = false
    /// Only these photos (uniqueNames, resolved by the caller), nil for any (`export PHOTO...`).
    public var uniqueNames: Set<String>?

    public init() {}
}

extension Library {
    private func record(_ row: StoredPhoto) -> PhotoRecord {
        var record = PhotoRecord(
            rowID: row.rowID, uniqueName: row.uniqueName, displayName: row.displayName, sha256: row.sha256,
            byteSize: row.byteSize, fileReference: row.fileReference, format: row.format, width: row.width,
            height: row.height, orientation: row.orientation,
            captureDate: row.captureDate.map {
                CaptureTime.iso(local: $0, offsetMinutes: row.captureOffset, source: row.captureSource)
            },
            captureOffset: row.captureOffset, captureSource: row.captureSource,
            importedAt: row.importedAt, thumbnailWidth: row.thumbnailWidth, thumbnailHeight: row.thumbnailHeight,
            tags: [], ratings: [], zone: row.zone.rawValue, scope: row.scope)
        record.position = GeoPosition(
            latitudeE7: row.latitudeE7, longitudeE7: row.longitudeE7, altitudeMM: row.altitudeMM)
        (record.kind, record.durationMS, record.videoCodec) = (row.kind, row.durationMS, row.videoCodec)
        (record.camera, record.cameraFormat) = (row.camera, row.cameraFormat)
        (record.title, record.description) = (row.title, row.description)
        record.placeName = row.placeName
        return record
    }

    /// Stops `forEachPhoto` once `--limit` photos were given to its body.
    private struct LimitReached: Error {}

    private func fillRelations(_ record: inout PhotoRecord) throws {
        record.tags = try catalogStore.tagNames(ofPhoto: record.rowID)
        let ratings = try catalogStore.ratings(ofPhoto: record.rowID)
        (record.ratings, record.ratingAuthors) = (ratings.map(\.value), ratings.map(\.author))
        record.originals = try catalogStore.originals(ofPhoto: record.rowID)
    }

    /// The photos matching `filter`, in its order (by default capture, else import, date), then
    /// uniqueName; `body` is called for each so that a large library is never held in memory.
    /// A `--tag` name matches the library's tag names ignoring case and diacritics.
    /// - Throws: `LibraryError.notFound(.tag)` for a tag no photo of the library could have,
    ///   `.notFound(.zone)` for an unknown zone; for `share`, the errors of `resolveShare`; the
    ///   store's error.
    public func forEachPhoto(matching filter: PhotoFilter, _ body: (PhotoRecord) throws -> Void) throws {
        _ = try forEachPhoto(matching: filter, page: nil, body)
    }

    /// The photos matching `filter` in uniqueName order, handed to `body` a page of at most
    /// `pageSize` at a time, each page read by its own query (keyset paging on uniqueName), so
    /// memory holds one page, not the library (`photos export`). With `filter.limit`, the first
    /// `limit` photos in the filter's order are read at once (memory bounded by the limit), then
    /// paged in uniqueName order.
    /// - Throws: what `forEachPhoto(matching:_:)` throws, and what `body` throws.
    public func forEachPhotoPage(
        matching filter: PhotoFilter, pageSize: Int, _ body: ([PhotoRecord]) throws -> Void
    ) throws {
        let size = max(1, pageSize)
        if filter.limit != nil {
            var photos: [PhotoRecord] = []
            try forEachPhoto(matching: filter) { photos.append($0) }
            photos.sort { $0.uniqueName < $1.uniqueName }
            for first in stride(from: 0, to: photos.count, by: size) {
                try body(Array(photos[first..<min(first + size, photos.count)]))
            }
            return
        }
        var after: String? = nil
        while true {
            var photos: [PhotoRecord] = []
            let read = try forEachPhoto(matching: filter, page: PhotoPage(after: after, limit: size)) {
                photos.append($0)
            }
            if !photos.isEmpty { try body(photos) }
            guard read.rows == size, let last = read.last else { return }
            after = last
        }
    }

    /// `forEachPhoto(matching:_:)` with an optional page (`query.page`).
    /// - Returns: the rows the store gave (before Core's own filters: name glob, photo names,
    ///   search) and the last one's uniqueName: where the next page starts.
    private func forEachPhoto(
        matching filter: PhotoFilter, page: PhotoPage?, _ body: (PhotoRecord) throws -> Void
    ) throws -> (rows: Int, last: String?) {
        var query = PhotoQuery()
        query.page = page
        let wanted = filter.tags.map(\.rawValue)
        if !wanted.isEmpty {
            let names = Set(try catalogStore.tagList(zone: nil).map(\.tag.name))
            for name in wanted {
                let matching = names.filter {
                    filter.tagExact ? TagName.sameTag($0, name) : TagName.isInBranch($0, name)
                }
                guard !matching.isEmpty else { throw LibraryError.notFound(.tag(name, zone: nil)) }
                query.tagNameAlternatives.append(matching.sorted())
            }
        }
        func timeBound(_ bound: CaptureBound?) -> PhotoQuery.TimeBound? {
            guard let bound else { return nil }
            if let utc = bound.utcText, let offset = bound.offsetMinutes {
                return .instant(utc: utc, assumedOffsetMinutes: offset)
            }
            return .local(bound.local)
        }
        query.since = timeBound(filter.since)
        query.until = timeBound(filter.until)
        if let zone = filter.zone {
            guard try catalogStore.zoneExists(zone.rawValue) else { throw LibraryError.notFound(.zone(zone)) }
            query.zones.append(zone.rawValue)
        }
        var shareTitles: [String: String] = [:]
        if let share = filter.share { query.zones.append(try resolveShare(share).id) }
        if filter.search != nil {
            for share in try catalogStore.shares() { shareTitles[share.id] = share.title }
        }
        query.minRating = filter.minRating
        query.ratedBy = filter.ratedBy.map(AuthorName.normalize)
        query.unratedBy = filter.unratedBy.map(AuthorName.normalize)
        query.untagged = filter.untagged
        query.hasPosition = filter.hasPosition
        if let box = filter.box {
            func e7(_ v: Double) -> Int { Int((v * 1e7).rounded()) }
            query.box = (e7(box.south), e7(box.west), e7(box.north), e7(box.east))
        }
        if let near = filter.near {
            func e7(_ v: Double) -> Int { Int((v * 1e7).rounded()) }
            let box = near.boundingBox
            query.nearBox = (e7(box.south), e7(box.west), e7(box.north), e7(box.east))
        }
        query.unrated = filter.unrated
        query.formats = filter.formats.map(\.rawValue)
        query.kinds = filter.kinds
        query.camera = filter.camera.map(CameraIdentity.asciiLowercased)
        query.sort = filter.sort
        query.descending = filter.reverse
        let glob = filter.name.map(NameGlob.init)
        var remaining = filter.limit ?? Int.max
        var read: (rows: Int, last: String?) = (0, nil)
        guard remaining > 0 else { return read }
        do {
            try catalogStore.forEachPhoto(matching: query) { row in
                read = (read.rows + 1, row.uniqueName)
                if let names = filter.uniqueNames, !names.contains(row.uniqueName) { return }
                if let glob, !glob.matches(row.displayName) { return }
                if let near = filter.near {
                    guard let lat = row.latitudeE7, let lon = row.longitudeE7,
                        near.contains(latitude: Double(lat) / 1e7, longitude: Double(lon) / 1e7)
                    else { return }
                }
                var rec = record(row)
                if let tags = row.tagNames, let ratings = row.ratingValues, let authors = row.ratingAuthors {
                    rec.tags = tags
                    (rec.ratings, rec.ratingAuthors) = (ratings, authors)
                    if filter.includeOriginals { rec.originals = try catalogStore.originals(ofPhoto: rec.rowID) }
                } else {
                    try fillRelations(&rec)
                }
                if let search = filter.search, !search.isEmpty {
                    let texts =
                        [rec.displayName] + rec.tags + [rec.title, rec.description].compactMap { $0 }
                        + (shareTitles[rec.zone].map { [$0] } ?? [])
                    guard texts.contains(where: { TagName.matches($0, search) }) else { return }
                }
                try body(rec)
                remaining -= 1
                if remaining == 0 { throw LimitReached() }
            }
        } catch is LimitReached {}
        return read
    }

    /// The photo whose uniqueName is `argument`, or starts with it (at least 4 characters),
    /// compared case-insensitively (SPEC §5).
    /// - Throws: `LibraryError.notFound(.photo)` when none matches, `.prefixTooShort(.photo)`
    ///   for a prefix shorter than 4 characters, `.ambiguous(.photo)` with the candidates
    ///   described as `uniqueName (displayName)`.
    public func resolvePhoto(_ argument: String) throws -> PhotoRecord {
        switch try resolveKey(.photoUniqueName, argument) {
        case .found(let name):
            guard var rec = try catalogStore.photo(uniqueName: name).map(record) else {
                throw LibraryError.notFound(.photo(argument))
            }
            try fillRelations(&rec)
            return rec
        case .none:
            throw LibraryError.notFound(.photo(argument))
        case .tooShort:
            throw LibraryError.prefixTooShort(.photo, argument: argument, minimum: Library.minimumPrefixLength)
        case .ambiguous(let names):
            let described = try names.map { name in
                "\(name) (\(try catalogStore.photo(uniqueName: name)?.displayName ?? "?"))"
            }
            throw LibraryError.ambiguous(.photo, argument: argument, candidates: described)
        }
    }

    /// The thumbnail JPEG bytes of a photo, checked first (`ThumbnailCheck`: a sound JPEG of its
    /// recorded size), so that `photos thumbnail` and `export --thumbnails` never write a damaged
    /// one out.
    /// - Throws: `ThumbnailError.missing` when the photo has no thumbnail, `.damaged` when it is
    ///   damaged (the message says why and suggests `photos verify --repair`).
    public func thumbnailData(of photo: PhotoRecord) throws -> [UInt8] {
        let photoName = Library.describePhoto(photo.uniqueName, photo.displayName)
        guard let (data, width, height) = try catalogStore.thumbnail(ofPhoto: photo.rowID) else {
            throw ThumbnailError.missing(photo: photoName)
        }
        if let reason = Library.thumbnailProblem(
            data, width: width, height: height, photoWidth: photo.width, photoHeight: photo.height)
        {
            throw ThumbnailError.damaged(photo: photoName, reason: reason)
        }
        return data
    }

    /// Deletes photos with their photo data, thumbnail and ratings (cascade), nullifying their
    /// tag links, in one transaction with one history transaction: a delete with its tombstone
    /// for each Rating, Thumbnail, PhotoData and Photo (the shapes of `HistoryEntity`, the same
    /// as `purge` records) and a Tag update of `photos` per tag the photo had. Originals no
    /// remaining row references are removed after the commit.
    /// - Parameters:
    ///   - photos: the photos, resolved beforehand (photos deleted meanwhile are skipped).
    ///   - author: the history author.
    ///   - context: `delete`, or `verify --repair` when verify deletes a photo whose original
    ///     is gone.
    /// - Returns: the uniqueNames deleted.
    /// - Throws: `LibraryError.busy`, `OriginalRemovalError` from `checkRemovable`, the store's error.
    @discardableResult
    public func deletePhotos(_ photos: [PhotoRecord], author: HistoryAuthor, context: HistoryContext = .delete) throws
        -> [String]
    {
        try deletePhotosSayingWhy(photos, author: author, context: context).deleted
    }

    /// `deletePhotos`, also naming each original no row references after the commit that
    /// could not be removed, with why (`removeUnreferencedFilesSayingWhy`; none in a dry run).
    /// - Returns: the uniqueNames deleted, and the originals left in place.
    /// - Throws: as `deletePhotos`.
    public func deletePhotosSayingWhy(
        _ photos: [PhotoRecord], author: HistoryAuthor, context: HistoryContext = .delete
    ) throws -> (deleted: [String], left: [FileLeftInPlace]) {
        var unique: [PhotoRecord] = []
        for p in photos where !unique.contains(where: { $0.rowID == p.rowID }) { unique.append(p) }
        let references: [String] = try write {
            var history = HistoryWriter(self, author: author, context: context)
            var refs: [String] = []
            for photo in unique {
                guard try catalogStore.photoExists(photo.rowID) else { continue }
                refs += try deletePhotoRecording(photo.rowID, history: &history)
            }
            try checkRemovable(refs)
            try history.commit()
            return refs
        }
        let left = removeUnreferencedFilesSayingWhy(references).left
        return (unique.map(\.uniqueName), left)
    }

    /// Deletes one photo (it must exist) as `delete` does, inside the caller's write transaction:
    /// a Tag update of `photos` per tag it had, a delete with its tombstone for each Rating,
    /// Thumbnail, PhotoData (`HistoryEntity.photoChildren`) and the Photo, then the row (cascade).
    /// The one place of those rows and tombstones, shared by `delete`, `verify --repair` and
    /// `duplicates --resolve`.
    /// - Returns: the file references to remove after the commit when unreferenced (the
    ///   recorded reference and the content address of each original's SHA-256: they differ
    ///   only in a damaged row, and the file, if any, is at the content address).
    /// - Throws: the store's error; the history writer's permission error for a zone this
    ///   library may not write.
    func deletePhotoRecording(_ photoID: Int64, history: inout HistoryWriter) throws -> [String] {
        var refs: [String] = []
        for (ref, sha) in try catalogStore.fileReferences(ofPhoto: photoID) {
            refs += [ref, ExternalDataStore.reference(for: sha)]
        }
        for tag in try catalogStore.tags(ofPhoto: photoID).sorted(by: { $0.uuid < $1.uuid }) {
            history.update(.tag(uuid: tag.uuid), ["photos"], zone: tag.zone.rawValue)
        }
        for child in HistoryEntity.photoChildren { try history.delete(child, .photo(photoID)) }
        try history.delete(.photo, .photo(photoID))
        try catalogStore.deletePhoto(photoID)
        return refs
    }

    /// Throws unless every existing file among `references` can be removed: its folder is
    /// writable (access(2) `W_OK`), and whether it exists can be told. Called inside the
    /// transaction that drops the rows, so that a library whose originals this user may not
    /// remove gets 77 (74 for an I/O error) with nothing deleted, instead of rows gone and
    /// their originals left behind as orphans.
    /// - Throws: `OriginalRemovalError` naming the folder or file, with the `errno`.
    func checkRemovable(_ references: [String]) throws {
        var writableFolders = Set<String>() // each folder checked once (256 shards for 10,000 files)
        for ref in Set(references).sorted() where ExternalDataStore.isContained(ref) {
            let path = externalData.path(for: ref)
            var st = stat()
            if lstat(path, &st) != 0 {
                let code = errno
                if code == ENOENT || code == ENOTDIR { continue }
                throw OriginalRemovalError.cannotInspect(path: path, errno: code)
            }
            // A contained reference has no empty component: its folder is what precedes the
            // last "/" of the path (NSString's deletingLastPathComponent, without its cost).
            let folder = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
            guard !writableFolders.contains(folder) else { continue }
            if access(folder, W_OK | X_OK) != 0 {
                let code = errno
                throw OriginalRemovalError.folderNotWritable(folder: folder, errno: code)
            }
            writableFolders.insert(folder)
        }
    }

    /// Removes the external files among `references` that no PhotoData row references any more.
    /// Call after the commit that dropped the rows, never before. The check and the unlink hold
    /// the write lock, so an import committing the same bytes meanwhile (it checks its file
    /// under the same lock) cannot end up with a row whose file is gone. When the lock cannot
    /// be had, the files stay, as orphans for `verify --repair`. A dry run removes nothing.
    /// - Returns: the number of files removed.
    @discardableResult
    public func removeUnreferencedFiles(_ references: [String]) -> Int {
        removeUnreferencedFilesSayingWhy(references).removed
    }

    /// `removeUnreferencedFiles`, also naming each unreferenced file it could not remove and why
    /// (a folder in its place, a permission or I/O error from unlink(2), the write lock held
    /// by another writer past the wait, the catalog unreadable), in reference order. A file
    /// gone already is neither removed nor left.
    /// - Returns: the number of files removed, and those left in place.
    public func removeUnreferencedFilesSayingWhy(_ references: [String]) -> (removed: Int, left: [FileLeftInPlace]) {
        guard !references.isEmpty, !isDryRun else { return (0, []) }
        var removed = 0
        var left: [FileLeftInPlace] = []
        // A reference outside the store (a damaged or hostile row) names no file of the library:
        // never touched, never reported.
        let unique = Set(references).filter(ExternalDataStore.isContained).sorted()
        let body = {
            removed = 0
            left = []
            for ref in unique where !self.isReferenced(fileReference: ref) {
                let code = self.externalData.removeFile(reference: ref)
                if code == 0 {
                    removed += 1
                } else if code != ENOENT && code != ENOTDIR {
                    left.append(
                        FileLeftInPlace(
                            reference: ref, path: self.externalData.path(for: ref),
                            reason: ExternalDataStore.removalFailure(code)))
                }
            }
        }
        var failure: String?
        do {
            try write(body)
        } catch let e as LibraryError where e.isBusy {
            // The rows are gone already: another writer that took the lock right after our
            // commit must not turn the files into orphans (issue 9 item 9). Wait for it a little
            // longer than `--wait` (at least `cleanupWait` seconds), then give up (the files stay
            // for `verify --repair`).
            do {
                try write(waitingUpTo: max(busyTimeout, Library.cleanupWait), body)
            } catch {
                failure = "another process held the write lock: \(error)"
            }
        } catch {
            failure = "\(error)"
        }
        if let failure {
            // Nothing was removed that cannot be told: name the files still there.
            let still = unique.filter { access(externalData.path(for: $0), F_OK) == 0 }
            left = still.map { FileLeftInPlace(reference: $0, path: externalData.path(for: $0), reason: failure) }
        }
        return (removed, left)
    }

    /// Removes originals this process wrote for rows that never committed (a batch rolled back
    /// or never run, a merge or apply that failed), so that an interrupted command leaves no
    /// orphan — but never a file another writer may commit (issue 31 item 16). Content-addressed
    /// files are shared: another import, merge or apply may have written or found the same file
    /// and be about to commit a row naming it, so "no committed row names it" is not enough
    /// while one runs. The caller's shared import lock (`importLock`, closed here and set to nil)
    /// is given up and the import lock taken exclusively without waiting:
    /// - held: no import, merge or apply runs now or can start until this returns, so nobody
    ///   else writes an original or commits a row naming one; each file no committed row names
    ///   (`isReferenced`: the last commit, on either backend) is removed.
    /// - not to be had (another import, merge or apply runs): only a file this process created
    ///   (no file was at its name before its write: `ExternalDataStore.WrittenOriginal.created`)
    ///   and that is still the file it wrote (same device and inode: no other writer has put its
    ///   own copy there since) is removed, under the write lock (waiting up to `cleanupWait`),
    ///   where no other writer is between its check of the file and its commit (imports check
    ///   their files under the lock; a merge copies under it; an apply checks again under it),
    ///   and only when no committed row names it. Every other file stays, as an orphan that
    ///   `verify --repair` removes later under the exclusive import lock once it is provably
    ///   unreferenced.
    /// A dry run removes nothing.
    /// - Parameters:
    ///   - files: the originals this process wrote for rows that did not commit.
    ///   - importLock: the shared import lock the caller holds (`lockImports(exclusive: false)`),
    ///     or nil; released here.
    /// - Returns: the number of files removed, and the references left in place.
    @discardableResult
    public func removeUncommittedFiles(_ files: [UncommittedOriginal], importLock: inout Int32?) -> (
        removed: Int, left: [String]
    ) {
        if let fd = importLock {
            close(fd)
            importLock = nil
        }
        var unique: [String: UncommittedOriginal] = [:]
        for file in files where ExternalDataStore.isContained(file.reference) {
            // A file written twice by this process (healed, then written again): the last write.
            unique[file.reference] = file
        }
        guard !unique.isEmpty, !isDryRun else { return (0, []) }
        let present = { (ref: String) in access(self.externalData.path(for: ref), F_OK) == 0 }
        var removed = 0
        var left: [String] = []
        func remove(_ ref: String) {
            let code = externalData.removeFile(reference: ref)
            if code == 0 {
                removed += 1
            } else if code != ENOENT && code != ENOTDIR {
                left.append(ref)
            }
        }
        let references = unique.keys.sorted()
        if let exclusive = lockImports(exclusive: true) {
            defer { close(exclusive) }
            for ref in references where present(ref) && !isReferenced(fileReference: ref) { remove(ref) }
            return (removed, left)
        }
        let own = references.filter { unique[$0]?.written?.created == true }
        do {
            try write(waitingUpTo: max(busyTimeout, Library.cleanupWait)) {
                for ref in own {
                    guard let written = unique[ref]?.written, written.isStill(at: externalData.path(for: ref)),
                        !isReferenced(fileReference: ref)
                    else { continue }
                    remove(ref)
                }
            }
        } catch {
            // The lock could not be had: nothing more is removed.
        }
        left += references.filter(present).filter { !left.contains($0) }
        return (removed, left)
    }

    /// The files among `references` that no PhotoData row references now and that exist: what
    /// `removeUnreferencedFiles` would remove. Call inside the transaction that dropped the
    /// rows, so that a dry run (which rolls that transaction back) counts the same files.
    func unreferencedFiles(_ references: [String]) -> [String] {
        Set(references).filter { !isReferenced(fileReference: $0) && access(externalData.path(for: $0), F_OK) == 0 }
            .sorted()
    }

    /// True when a PhotoData row references `fileReference` — or when that cannot be told
    /// (a database error): a file is only removed when it is certainly unreferenced. The content
    /// address of a SHA-256 (`ab/abcdef…`) is referenced by every row of that SHA-256, whatever
    /// its `file_ref` says (a damaged `file_ref` is repaired back to the content address by
    /// `verify --repair`, so the file there must stay).
    public func isReferenced(fileReference: String) -> Bool {
        (try? referencesFile(fileReference)) ?? true
    }

    /// True when a PhotoData row references `fileReference` now (see `isReferenced`), in the
    /// catalog as the caller's transaction sees it (outside one: the last commit).
    /// - Throws: the store's error.
    func referencesFile(_ fileReference: String) throws -> Bool {
        do {
            // By SHA-256 (the file's name), which is indexed.
            // A contained reference (`ab/abcdef…`) has no empty component: its name is its
            // last one (NSString's lastPathComponent, without its cost per file).
            let sha =
                ExternalDataStore.isContained(fileReference)
                ? String(fileReference.split(separator: "/").last ?? "")
                : PathName.lastComponent(fileReference)
            if fileReference == ExternalDataStore.reference(for: sha) {
                return try catalogStore.photoDataExists(sha256: sha, fileReference: nil)
            }
            return try catalogStore.photoDataExists(sha256: sha, fileReference: fileReference)
        }
    }
}

/// An original a command wrote for rows that may not commit (`Library.removeUncommittedFiles`):
/// its reference, and what the write reported (nil when it is not known, e.g. a dry run).
public struct UncommittedOriginal: Sendable, Equatable {
    /// `ab/abcdef…`.
    public var reference: String
    /// Whether the write created the file, and the file's identity.
    public var written: ExternalDataStore.WrittenOriginal?

    public init(reference: String, written: ExternalDataStore.WrittenOriginal?) {
        self.reference = reference
        self.written = written
    }
}
