import Foundation
import PhotosFiles
import PhotosImaging
import PhotosModel

/// One `photos merge` of `other` into `library` (SPEC §5 merge), as a sequence of small steps
/// read top to bottom by `run`: originals, zones and shares, participants, photos (with their
/// originals healed, thumbnails and ratings), tags, moves between zones, tag links, history.
///
/// The rows are read through `MergeSourceStore` (the other library, never migrated) and written
/// through `MergeTargetStore` and `PhotoInserter` (the insert path import's batch writer shares)
/// inside one write transaction of `library` (`Library.write`); the caller removes the copied
/// originals when that transaction fails.
final class MergeSession {
    let library: Library
    let other: Library
    let source: any MergeSourceStore
    let target: any MergeTargetStore
    /// The other library's schema version (`user_version`), read once.
    let sourceVersion: Int
    var history: HistoryWriter
    var report = MergeReport()
    /// Called after each of the other library's photos has its original in place, with
    /// (photos done, photos in all, bytes of their originals).
    var progress: ((Int, Int, Int64) -> Void)?
    /// Originals written to this library's external data (removed again on rollback).
    private(set) var copied: [UncommittedOriginal] = []

    private let sourcePhotos: [MergeSourcePhoto]
    /// The other library's originals besides its primaries (issue 24 item 2), of roles this
    /// build knows, with their file references there.
    private let sourceExtras: [(original: SyncOriginal, fileReference: String)]
    /// The photo here of each photo there, by the other library's uniqueName.
    private var localPhoto: [String: LocalPhoto] = [:]
    /// Photos of the other library that came in new (not matched).
    private var newPhotos = Set<String>()
    /// This library's tag of each uuid there.
    private var localTag: [String: (id: Int64, zone: String, name: String)] = [:]

    /// Reads the other library's photos and originals (one read transaction).
    /// - Throws: `LibraryError` when the other library's schema version cannot be read; `SQLiteError`.
    init(library: Library, other: Library, author: HistoryAuthor) throws {
        // The other library's originals are copied into this one's root (issue 31 item A3).
        try library.requireOriginalsRoot()
        self.library = library
        self.other = other
        source = other.store
        target = library.store
        do { sourceVersion = try other.store.schemaVersion() } catch {
            throw LibraryError.wrap(error, library: other.root)
        }
        let (source, version) = (self.source, sourceVersion)
        sourcePhotos = try other.store.readTransaction { try source.mergeSourcePhotos(schemaVersion: version) }
        sourceExtras = try other.store.readTransaction { try source.mergeSourceExtraOriginals(schemaVersion: version) }
            .filter { SyncEntity.extraOriginalRoles.contains($0.original.role) && isSHA256Hex($0.original.sha256) }
        history = HistoryWriter(library, author: author, context: .merge)
        report.dryRun = library.isDryRun
    }

    /// Runs every step inside the caller's write transaction, the other library read in one
    /// read transaction.
    /// - Throws: `MergeError.originalMismatch`, `FileError`, `SQLiteError`.
    func run() throws {
        try copyOriginals()
        try other.store.readTransaction {
            try mergeZonesAndShares()
            try mergeParticipants()
            try mergePhotos()
            try mergeExtraOriginals()
            try mergeTags()
            try settleZonesOfMatchedPhotos()
            try mergeTagLinks()
        }
        try history.commit()
    }

    /// Copies the originals this library lacks or holds damaged (missing, or of another size:
    /// healed from the intact copy there, issue 9 item 8). Present with its size: kept (a
    /// stat; same-size damage is healed by re-import).
    ///
    /// Group durability (issue 15 item 1): each copy is written and renamed without fsync, and
    /// one `syncfs(2)` of the external data's file system after the last copy makes them all
    /// durable before `run` goes on to the rows, so the transaction that references them
    /// commits only after they are durable; a crash before leaves only orphans.
    private func copyOriginals() throws {
        var done = 0
        var bytes: Int64 = 0
        // Every original of a photo (issue 24 item 2): the primaries, then the others.
        let files =
            sourcePhotos.map {
                (uniqueName: $0.uniqueName, sha256: $0.sha256, byteSize: $0.byteSize, fileReference: $0.fileReference)
            }
            + sourceExtras.map {
                (
                    uniqueName: $0.original.photo, sha256: $0.original.sha256, byteSize: $0.original.byteSize,
                    fileReference: $0.fileReference
                )
            }
        for photo in files {
            defer {
                done += 1
                bytes += Int64(photo.byteSize)
                progress?(done, files.count, bytes)
            }
            let ref = ExternalDataStore.reference(for: photo.sha256)
            var st = stat()
            if stat(library.externalData.path(for: ref), &st) == 0 && Int(st.st_size) == photo.byteSize { continue }
            // SIGINT, SIGTERM, SIGHUP: the transaction rolls back, the copies go (issue 31 item 19).
            try StopSignal.check()
            let restoring = library.isReferenced(fileReference: ref)
            // Streamed and hashed as it is copied (memory one chunk, issue 31 item 20): placed only
            // with the photo's SHA-256; a sparse file is refused before it is read.
            let source = other.externalData.path(for: photo.fileReference)
            let copiedBytes: Int?
            do {
                let copy = try library.externalData.copy(
                    fromFileAt: source, reference: ref, expectedSHA256: photo.sha256, maxBytes: Int.max,
                    durability: .deferred)
                if let copy { copied.append(UncommittedOriginal(reference: ref, written: copy.written)) }
                copiedBytes = copy?.bytes
            } catch let e as FileError where e.kind == .unacceptable {
                if e.reason.hasPrefix("its bytes do not have") {
                    throw MergeError.originalMismatch(library: other.root, photo: photo.uniqueName)
                }
                throw e
            }
            report.filesCopied += 1
            if restoring { report.originalsRestored += 1 }
            report.bytesCopied += Int64(copiedBytes ?? photo.byteSize)
        }
        // (A dry run copied nothing, and its store syncs nothing.)
        if !copied.isEmpty { try library.externalData.syncFileSystem() }
    }

    /// Zones and shares, matched by id, added when absent.
    private func mergeZonesAndShares() throws {
        for zone in try source.mergeSourceZones() where try target.addZoneIfAbsent(zone) {
            report.zones += 1
        }
        for share in try source.mergeSourceShares() where try target.addShareIfAbsent(share) {
            history.insert(.share(id: share.id), zone: share.id)
            report.shares += 1
        }
    }

    /// Participants, matched by share and email; the other library's uuid is kept (schema 3+),
    /// as sync names a participant by it. Rows with values this version does not know are skipped.
    private func mergeParticipants() throws {
        for p in try source.mergeSourceParticipants(schemaVersion: sourceVersion) {
            guard let role = ParticipantRole(rawValue: p.role),
                let permission = SharePermission(rawValue: p.permission),
                let acceptance = Acceptance(rawValue: p.acceptance)
            else { continue }
            let row = ParticipantRow(
                uuid: p.uuid ?? newObjectUUID(), shareID: p.shareID, email: Email(rawValue: p.email), role: role,
                permission: permission, acceptance: acceptance)
            if try library.store.insertParticipant(
                uuid: row.uuid, share: row.shareID, email: row.email, role: row.role, permission: row.permission,
                acceptance: row.acceptance, ignoringExisting: true)
            {
                history.insert(.participant(uuid: row.uuid), zone: p.shareID)
                report.participants += 1
            }
        }
    }

    /// Photos, matched by uniqueName, then SHA-256 in the duplicate scope of the photo's zone
    /// (`Library.duplicateScope(into:)`, import's rule: same bytes = same photo within one
    /// owner's zones; this library's uniqueName stays; a photo of a zone shared with this
    /// library is not touched by one of another zone, issue 31 A1); the others come in new with thumbnail and
    /// ratings, sharing the content-addressed original with such a photo.
    private func mergePhotos() throws {
        let writer = try library.store.makePhotoInserter()
        for photo in sourcePhotos {
            if let found = try target.matchingPhoto(
                uniqueName: photo.uniqueName, sha256: photo.sha256,
                scope: try library.duplicateScope(into: photo.zone))
            {
                localPhoto[photo.uniqueName] = found
                report.matchedPhotos += 1
                continue
            }
            // A value there this version does not know (StoredValueError) names that library.
            let read: PhotoAttributes?
            do { read = try source.mergeSourcePhoto(photo.uniqueName, schemaVersion: sourceVersion) } catch {
                throw LibraryError.wrap(error, library: other.root)
            }
            guard let attributes = read else { continue }
            if try takeOver(photo, attributes) { continue }
            try insertPhoto(photo, attributes, with: writer)
        }
    }

    /// A photo there whose primary is a still and whose `raw` (or `pairedVideo`) original is the
    /// only original of a photo here (the JPEG of a RAW+JPEG pair took over from its RAW there,
    /// issue 24 item 2; the still of a Live Photo from its movie, issue 25 item 2): the photo
    /// here takes the still as its primary, the RAW (or movie) becoming its original of that
    /// role, with the still's format, size, orientation and a sound thumbnail (a Live Photo's
    /// kind `live`) — one photo of the pair, as there, not a second photo holding the RAW or
    /// movie.
    /// - Returns: true when the photo here took over.
    private func takeOver(_ photo: MergeSourcePhoto, _ a: PhotoAttributes) throws -> Bool {
        guard a.format != .raw, a.format != .video, let width = a.width, let height = a.height else { return false }
        for (role, format) in [(OriginalRole.raw, ImageFormat.raw), (.pairedVideo, .video)] {
            guard
                let half = sourceExtras.first(where: {
                    $0.original.photo == photo.uniqueName && $0.original.role == role.rawValue
                })?.original,
                let found = try target.matchingPhoto(
                    uniqueName: photo.uniqueName, sha256: half.sha256,
                    scope: try library.duplicateScope(into: photo.zone)),
                found.id >= 0,
                try library.syncStore.catalogAttributes(.photo, found.name)?["sha256"] == half.sha256,
                try library.syncStore.catalogAttributes(.photo, found.name)?["format"] == format.rawValue,
                try (library.syncStore.extraOriginals(ofPhotos: [found.name])[found.name] ?? []).isEmpty
            else { continue }
            try takeOver(photo, a, found: found, formerPrimary: role, width: width, height: height)
            return true
        }
        return false
    }

    /// `takeOver`'s writes: photo `found` here takes `photo`'s still as its primary, its former
    /// primary becoming `formerPrimary`.
    /// - Throws: the store's error.
    private func takeOver(
        _ photo: MergeSourcePhoto, _ a: PhotoAttributes, found: LocalPhoto, formerPrimary: OriginalRole,
        width: Int, height: Int
    ) throws {
        let reference = ExternalDataStore.reference(for: photo.sha256)
        let thumb = try library.soundThumbnail(
            try source.mergeSourceThumbnail(of: photo.uniqueName), photoWidth: width, photoHeight: height,
            original: reference)
        try library.metadataStore.takeOverPrimary(
            ofPhoto: found.id,
            by: PhotoOriginal(
                role: .primary, sha256: photo.sha256, byteSize: photo.byteSize, fileReference: reference,
                format: a.format),
            formerPrimary: formerPrimary, width: width, height: height, orientation: a.orientation,
            thumbnail: thumb.map { ThumbnailRow(data: $0.data, width: $0.width, height: $0.height) })
        // The still's name comes with it (the RAW's or the movie's name was the photo's).
        try library.metadataStore.setDisplayName(ofPhoto: found.id, a.displayName)
        let kind = formerPrimary == .pairedVideo ? ["kind"] : []
        history.update(
            .photo(uniqueName: found.name), ["displayName", "width", "height", "format", "orientation"] + kind,
            zone: found.zone)
        history.update(.photoData(photo: found.name), ["sha256", "byteSize", "format"], zone: found.zone)
        history.insert(.photoData(photo: found.name, role: formerPrimary), zone: found.zone)
        if thumb != nil { history.update(.thumbnail(photo: found.name), ["data", "width", "height"], zone: found.zone) }
        localPhoto[photo.uniqueName] = found
        report.matchedPhotos += 1
        report.originals += 1
    }

    /// The other library's originals besides the primary (issue 24 item 2) of each photo here it
    /// matched or brought in: a role the photo here has no original of comes in (its file copied
    /// by `copyOriginals`); one it has is kept (this library's original stays, as its primary
    /// does). An original that is the photo's primary here is not added a second time.
    private func mergeExtraOriginals() throws {
        var have: [String: Set<String>] = [:]
        for (o, _) in sourceExtras {
            guard let local = localPhoto[o.photo], local.id >= 0 else { continue }
            if have[local.name] == nil {
                have[local.name] = Set(
                    (try library.syncStore.extraOriginals(ofPhotos: [local.name])[local.name] ?? []).map(\.role))
            }
            guard have[local.name]?.contains(o.role) == false else { continue }
            if try library.syncStore.catalogAttributes(.photo, local.name)?["sha256"] == o.sha256 { continue }
            var here = o
            here.photo = local.name
            try library.syncStore.putExtraOriginal(here, fileReference: ExternalDataStore.reference(for: o.sha256))
            have[local.name]?.insert(o.role)
            if let role = OriginalRole(rawValue: o.role) {
                history.insert(.photoData(photo: local.name, role: role), zone: local.zone)
            }
            report.originals += 1
        }
    }

    /// Inserts a photo of the other library with its original's row, a sound thumbnail
    /// (`Library.soundThumbnail`) and its ratings.
    private func insertPhoto(_ photo: MergeSourcePhoto, _ a: PhotoAttributes, with writer: any PhotoInserter) throws {
        report.photos += 1
        newPhotos.insert(photo.uniqueName)
        let zone = a.zone.rawValue
        let reference = ExternalDataStore.reference(for: photo.sha256)
        let thumb = try library.soundThumbnail(
            try source.mergeSourceThumbnail(of: photo.uniqueName), photoWidth: a.width,
            photoHeight: a.height, original: reference)
        var row = PhotoRow(
            uniqueName: a.uniqueName, displayName: a.displayName, importedAt: a.importedAt, captureDate: a.captureDate,
            captureOffset: a.captureOffset, captureSource: a.captureSource, width: a.width ?? 0, height: a.height ?? 0,
            format: a.format, orientation: a.orientation, zoneID: a.zone)
        // The position, when it is one (the other library is untrusted: a row out of range or
        // with half a position is no position, as on import).
        if let position = GeoPosition(latitudeE7: a.latitudeE7, longitudeE7: a.longitudeE7, altitudeMM: a.altitudeMM) {
            (row.latitudeE7, row.longitudeE7, row.altitudeMM) = (
                position.latitudeE7, position.longitudeE7, position.altitudeMM
            )
        }
        // The kind, duration and codec of a video or Motion Photo (issue 25), under the bounds the
        // changeset reader holds for the same attributes (the other library is untrusted).
        if PhotoRow.kinds.contains(a.kind), a.kind != "still" {
            row.kind = a.kind
            row.durationMS = a.durationMS.flatMap { (0...Int(Int32.max) * 1000).contains($0) ? $0 : nil }
            row.videoCodec = a.videoCodec.flatMap { $0.utf8.count <= 64 ? $0 : nil }
        }
        // The camera (issue 24 item 1), each part only as import stores it (the changeset
        // reader's rule): anything else from the untrusted library is left out.
        func clean(_ text: String?) -> String? { text.flatMap { CameraIdentity.isClean($0) ? $0 : nil } }
        row.camera = CameraIdentity(make: clean(a.cameraMake), model: clean(a.cameraModel), lens: clean(a.lensModel))
        row.cameraFormat = a.cameraFormat.flatMap { CameraIdentity.isRawFormatName($0) ? $0 : nil }
        // The title and description (issue 26 item 6), only as they are stored (`PhotoText`).
        row.title = a.title.flatMap { PhotoText.isTitle($0) ? $0 : nil }
        row.description = a.description.flatMap { PhotoText.isDescription($0) ? $0 : nil }
        row.placeName = a.placeName.flatMap { PhotoText.isPlaceName($0) ? $0 : nil }
        let id = try writer.insert(
            row, sha256: photo.sha256, byteSize: photo.byteSize, fileReference: reference,
            thumbnail: thumb.map { ThumbnailRow(data: $0.data, width: $0.width, height: $0.height) })
        localPhoto[photo.uniqueName] = LocalPhoto(id: id, zone: zone, name: photo.uniqueName)
        history.insert(.photo(uniqueName: photo.uniqueName), zone: zone)
        history.insert(.photoData(photo: photo.uniqueName), zone: zone)
        if thumb != nil { history.insert(.thumbnail(photo: photo.uniqueName), zone: zone) }
        for rating in Self.onePerAuthor(
            try source.mergeSourceRatings(of: photo.uniqueName, schemaVersion: sourceVersion))
        {
            guard let value = RatingValue(rawValue: rating.value) else { continue }
            // A uuid already here (a rating merged before, its photo since renamed) gets a new one.
            let taken = try rating.uuid.map { try target.hasRating(uuid: $0) } ?? true
            let row = RatingRow(
                uuid: taken ? newObjectUUID() : rating.uuid ?? newObjectUUID(), photoRowID: id, value: value,
                author: rating.author)
            try writer.insert(row)
            history.insert(.rating(uuid: row.uuid), zone: zone)
            report.ratings += 1
        }
    }

    /// `ratings` (in row order) with one rating per author, as `rate` keeps them (SPEC §3:
    /// one rating per author per photo): of an author's several, the last (the one a later
    /// `rate` would have left). The other library is untrusted: one whose unique index on
    /// (photo, author) was lost could hold several, and merging them all would break that rule
    /// here. Anonymous ratings (author nil, from before schema 5) are all kept.
    static func onePerAuthor(_ ratings: [RatingRecord]) -> [RatingRecord] {
        var seen = Set<String>()
        var kept: [RatingRecord] = []
        for rating in ratings.reversed() {
            if let author = rating.author, !seen.insert(author).inserted { continue }
            kept.append(rating)
        }
        return kept.reversed()
    }

    /// Tags by uuid, created with the same uuid in the same zone when absent. Same-named tags
    /// with different uuids are then duplicates for `dedupe-tags`.
    private func mergeTags() throws {
        for tag in try source.mergeSourceTags() {
            if let here = try target.tag(uuid: tag.uuid) {
                localTag[tag.uuid] = here
                continue
            }
            report.tags += 1
            // Stored in NFC, as every name here (the other library may hold one decomposed, #31 A9).
            let name = (try? TagName.normalize(tag.name)) ?? tag.name
            localTag[tag.uuid] = (
                try library.store.insertTag(uuid: tag.uuid, name: name, zone: tag.zone), tag.zone, name
            )
            history.insert(.tag(uuid: tag.uuid), zone: tag.zone)
        }
    }

    /// A photo both peers have, in different zones (one moved it into a share after the other
    /// took its copy): both settle on the same zone, whichever merges first (`mergedZone`: a
    /// share's zone over the default zone, else the smaller id), and the side that had it
    /// elsewhere moves it there with its data, thumbnail, ratings and tags (after the tags, so
    /// the other side's same-named tags are reused). Only the same photo (one uniqueName) moves:
    /// a photo matched by its original alone (another photo of the same file, a duplicate by
    /// `DuplicateScope.forPhotos`) stays in its zone, as import leaves it, so that a private
    /// photo never moves into a share because another library shared its file (issue 31 A1).
    private func settleZonesOfMatchedPhotos() throws {
        for photo in sourcePhotos {
            guard let local = localPhoto[photo.uniqueName], local.id >= 0, !newPhotos.contains(photo.uniqueName),
                local.name == photo.uniqueName
            else {
                continue
            }
            let zone = Library.mergedZone(local.zone, photo.zone)
            guard zone != local.zone else { continue }
            report.movedPhotos += 1
            let scope = try target.zoneScope(local.zone) ?? "private"
            try library.movePhoto(
                PhotoKey(rowID: local.id, uniqueName: local.name, zone: local.zone, scope: scope), to: zone,
                history: &history)
            localPhoto[photo.uniqueName] = LocalPhoto(id: local.id, zone: zone, name: local.name)
        }
    }

    /// Tag links, unioned; never across zones: a link whose photo is in another zone here than
    /// its tag goes to the same-named tag of the photo's zone (created when absent).
    private func mergeTagLinks() throws {
        let writer = try library.store.makePhotoInserter()
        var touched = Set<String>()
        for link in try source.mergeSourceTagLinks() {
            guard let photo = localPhoto[link.photo], var tag = localTag[link.tagUUID] else { continue }
            if tag.zone != photo.zone {
                let ref = try library.findOrCreateTag(named: tag.name, zone: photo.zone, history: &history)
                tag = (ref.rowID, ref.zone, ref.name)
            }
            guard try writer.link(photo: photo.id, tag: tag.id) else { continue }
            report.tagLinks += 1
            if touched.insert(photo.name).inserted {
                history.update(.photo(uniqueName: photo.name), ["tags"], zone: photo.zone)
            }
        }
    }
}
