import Foundation
import PhotosFiles
import PhotosImaging
import PhotosSQLite

/// What `photos merge` brought in (or, with `--dry-run`, would bring in).
public struct MergeReport: Equatable {
    public var zones = 0
    public var shares = 0
    public var participants = 0
    public var photos = 0
    /// Photos of the other library that matched one here (by uniqueName, then SHA-256).
    public var matchedPhotos = 0
    /// Matched photos that were in another zone here and moved to the zone both peers settle on.
    public var movedPhotos = 0
    public var ratings = 0
    public var tags = 0
    public var tagLinks = 0
    /// Original files copied into this library's external data.
    public var filesCopied = 0
    /// Of those, originals of photos already here that were missing or of another size: the
    /// other library's intact copy restored them (issue 9 item 8, "heal instead of forget").
    public var originalsRestored = 0
    public var bytesCopied: Int64 = 0
    public var dryRun = false

    /// True when nothing would change.
    public var isEmpty: Bool { zones + shares + participants + photos + movedPhotos + ratings + tags + tagLinks == 0 }

    public var json: JSONValue {
        .object([("zones", .int(zones)), ("shares", .int(shares)), ("participants", .int(participants)),
                 ("photos", .int(photos)), ("matchedPhotos", .int(matchedPhotos)), ("movedPhotos", .int(movedPhotos)), ("ratings", .int(ratings)),
                 ("tags", .int(tags)), ("tagLinks", .int(tagLinks)), ("filesCopied", .int(filesCopied)), ("originalsRestored", .int(originalsRestored)),
                 ("bytesCopied", .int(Int(bytesCopied))), ("dryRun", .bool(dryRun))])
    }
}

extension Library {
    /// The thumbnail a merged photo brings, when it is sound (`thumbnailProblem`); otherwise
    /// one made again from the original here, through the import's `Thumbnailer`, so that a
    /// damaged thumbnail of the other library never comes in (issue 9 item 11). Nil when none
    /// can be had (`verify` then reports the missing thumbnail).
    func soundThumbnail(_ source: (data: [UInt8], width: Int, height: Int)?, photoWidth: SQLValue, photoHeight: SQLValue,
                        original reference: String) throws -> (data: [UInt8], width: Int, height: Int)? {
        guard case .integer(let w) = photoWidth, case .integer(let h) = photoHeight else { return source }
        if let source, Library.thumbnailProblem(source.data, width: source.width, height: source.height,
                                                photoWidth: Int(w), photoHeight: Int(h)) == nil {
            return source
        }
        guard let file = try? ImageFile.read(path: externalData.path(for: reference)),
              let made = try? file.bytes.withUnsafeBytes({ try Thumbnailer.makeThumbnail(from: $0, options: ThumbnailOptions()) }) else {
            return nil
        }
        return (made.thumbnail, made.thumbnailWidth, made.thumbnailHeight)
    }

    /// The zone two peers settle on for a photo they have in different zones: a share's zone
    /// over the default zone, else the smaller id. Commutative and idempotent, so any order of
    /// merges between any number of peers ends with the same zone everywhere.
    static func mergedZone(_ a: String, _ b: String) -> String {
        if a == Schema.defaultZoneID { return b }
        if b == Schema.defaultZoneID { return a }
        return min(a, b)
    }

    /// Brings another library's content into this one, the way two peers' stores meet (SPEC §5
    /// merge): zones and shares matched by id (created when absent, with title, permission and
    /// participants); photos matched by uniqueName, then by SHA-256 (same bytes = same photo;
    /// this library's uniqueName stays); new photos come with their original, thumbnail and
    /// ratings; tags matched by uuid (created with the same uuid in the same zone when absent);
    /// tag links unioned. Same-named tags with different uuids are then duplicates for
    /// `dedupe-tags`. Merging the same library again changes nothing.
    ///
    /// Everything happens under the write lock: the originals this library lacks are copied
    /// (temporary file, fsync, rename), then every row is inserted in one transaction (author
    /// `merge` unless `--author` is given, context `merge`); merge deletes nothing, so it records
    /// no tombstones; when that transaction fails, the copied files are removed.
    ///
    /// A photo the two libraries hold in different zones settles in the same zone on both
    /// (`mergedZone`: a share's zone over the default zone, else the smaller id) and moves
    /// there with its data, thumbnail, ratings and tags, so peers converge.
    ///
    /// A link whose photo lives in another zone here than its tag's zone would cross zones; it is
    /// made to the same-named tag of the photo's zone instead (created when absent), as a move
    /// into a share does.
    ///
    /// `other` is only read, never migrated: one of an older schema version gives its rows as
    /// the migrations would convert them (version 1: capture date kept as wall-clock time,
    /// offset unknown, source `exif`).
    ///
    /// A dry run (`dryRun`, or a library in dry-run mode) runs this same code: the transaction
    /// is rolled back and no original is copied or restored (`filesCopied` and
    /// `originalsRestored` count those a real run copies).
    /// - Throws: `PhotosError` 65 when `other` is this library, 75 when busy; `SQLiteError`.
    public func merge(from other: Library, dryRun: Bool = false, author: HistoryAuthor = .default) throws -> MergeReport {
        guard (other.root as NSString).standardizingPath != (root as NSString).standardizingPath else {
            throw PhotosError.dataError("cannot merge a library into itself (\(root))")
        }
        return try self.dryRun(dryRun) { try mergeRows(from: other, author: author) }
    }

    private func mergeRows(from other: Library, author: HistoryAuthor) throws -> MergeReport {
        var report = MergeReport()
        report.dryRun = isDryRun
        let src = other.db
        // The other library is read as it is, never migrated: one of schema version 1 gives its
        // capture columns the way migration 2 would (wall-clock value, offset unknown, source exif).
        let sourceVersion: Int
        do { sourceVersion = try src.userVersion } catch { throw LibraryError.wrap(error, library: other.root) }
        // Schema 3 gave ratings and participants a uuid; an older library's get new ones.
        let ratingUUID = sourceVersion >= 3 ? "uuid" : "NULL"
        let participantUUID = sourceVersion >= 3 ? "uuid" : "NULL"
        let captureColumns = sourceVersion >= 2 ? "capture_date" : "substr(capture_date, 1, 19)"
        let offsetAndSource = sourceVersion >= 2 ? "capture_offset, capture_source"
            : "NULL, CASE WHEN capture_date IS NOT NULL THEN 'exif' END"

        struct SourcePhoto { var id: Int64; var uniqueName: String; var sha: String; var byteSize: Int; var ref: String; var zone: String }
        var sourcePhotos: [SourcePhoto] = []
        try src.transaction(.deferred) {
            sourcePhotos = try Statement.prepare(src, "SELECT p.id, p.unique_name, d.sha256, d.byte_size, d.file_ref, p.zone_id FROM photo p JOIN photo_data d ON d.photo_id = p.id ORDER BY p.id")
                .map { SourcePhoto(id: $0.int64(0), uniqueName: $0.string(1), sha: $0.string(2), byteSize: $0.int(3), ref: $0.string(4), zone: $0.string(5)) }
        }

        // 1. Originals this library lacks, copied once the write lock is held (so that a merge
        // that cannot get it exits 75 having written nothing) and under the shared import lock,
        // so that `verify --repair` does not take them for orphans.
        let importLock = lockImports(exclusive: false)
        defer { if let importLock { close(importLock) } }
        var copied: [String] = []
        let copyOriginals = {
            for photo in sourcePhotos {
                let ref = ExternalDataStore.reference(for: photo.sha)
                // Present with its size: kept (a stat; same-size damage is healed by re-import).
                var st = stat()
                let present = stat(self.externalData.path(for: ref), &st) == 0
                if present && Int(st.st_size) == photo.byteSize { continue }
                let restoring = self.isReferenced(fileReference: ref)
                let file = try ImageFile.read(path: other.externalData.path(for: photo.ref))
                guard file.sha256 == photo.sha else {
                    throw PhotosError.dataError("\(other.root): original of photo \(photo.uniqueName) does not match its SHA-256; run 'photos verify' there")
                }
                if try file.bytes.withUnsafeBytes({ try self.externalData.write($0, reference: ref) }) { copied.append(ref) }
                report.filesCopied += 1
                if restoring { report.originalsRestored += 1 }
                report.bytesCopied += Int64(file.bytes.count)
            }
        }

        // 2. Rows, in one transaction on this library (and one read transaction on the other).
        let body = {
            try copyOriginals()
            var history = HistoryWriter(self, author: author, context: .merge)
            try src.transaction(.deferred) {
                // Zones and shares by id.
                for (id, name, scope) in try Statement.prepare(src, "SELECT id, name, scope FROM zone ORDER BY id").map({ ($0.string(0), $0.string(1), $0.string(2)) }) {
                    if try self.db.scalarInt("SELECT 1 FROM zone WHERE id = ?", [id]) == nil {
                        try self.db.run("INSERT INTO zone (id, name, scope) VALUES (?, ?, ?)", [id, name, scope])
                        report.zones += 1
                    }
                }
                for (id, title, created, permission) in try Statement.prepare(src, "SELECT id, title, created, public_permission FROM share ORDER BY id")
                    .map({ ($0.string(0), $0.string(1), $0.string(2), $0.string(3)) }) {
                    if try self.db.scalarInt("SELECT 1 FROM share WHERE id = ?", [id]) == nil {
                        try self.db.run("INSERT INTO share (id, title, created, public_permission) VALUES (?, ?, ?, ?)", [id, title, created, permission])
                        history.insert(.share(id: id), zone: id)
                        report.shares += 1
                    }
                }
                for (share, email, role, permission, acceptance, uuid) in try Statement.prepare(src, "SELECT share_id, email, role, permission, acceptance, \(participantUUID) FROM participant ORDER BY share_id, email")
                    .map({ ($0.string(0), $0.string(1), $0.string(2), $0.string(3), $0.string(4), $0.optionalString(5)) }) {
                    guard let role = ParticipantRole(rawValue: role), let permission = SharePermission(rawValue: permission),
                          let acceptance = Acceptance(rawValue: acceptance) else { continue }
                    // Sync names a participant by uuid: keep the other library's (schema 3+).
                    let row = ParticipantRow(uuid: uuid ?? newObjectUUID(), shareID: share, email: Email(rawValue: email), role: role,
                                             permission: permission, acceptance: acceptance)
                    if try row.insert(into: self.db, ignoringExisting: true) {
                        history.insert(.participant(uuid: row.uuid), zone: share)
                        report.participants += 1
                    }
                }

                // Photos: by uniqueName, then SHA-256; new ones with thumbnail and ratings.
                var localPhoto: [Int64: (id: Int64, zone: String, name: String)] = [:]
                var newPhotos = Set<Int64>()
                let byName = try self.db.statement("SELECT id, zone_id, unique_name FROM photo WHERE unique_name = ?")
                let bySha = try self.db.statement("SELECT p.id, p.zone_id, p.unique_name FROM photo_data d JOIN photo p ON p.id = d.photo_id WHERE d.sha256 = ? ORDER BY p.id LIMIT 1")
                let writer = try PhotoWriter(self.db)
                let srcPhoto = try Statement.prepare(src, "SELECT unique_name, display_name, imported_at, \(captureColumns), width, height, format, orientation, zone_id, \(offsetAndSource) FROM photo WHERE id = ?")
                let srcThumb = try Statement.prepare(src, "SELECT data, width, height FROM thumbnail WHERE photo_id = ?")
                let srcRatings = try Statement.prepare(src, "SELECT value, \(ratingUUID) FROM rating WHERE photo_id = ? ORDER BY id")
                for photo in sourcePhotos {
                    if let found = try byName.first([photo.uniqueName], { ($0.int64(0), $0.string(1), $0.string(2)) })
                        ?? bySha.first([photo.sha], { ($0.int64(0), $0.string(1), $0.string(2)) }) {
                        localPhoto[photo.id] = found
                        report.matchedPhotos += 1
                        continue
                    }
                    guard let (row, size) = try srcPhoto.first([photo.id], { r in
                        (PhotoRow(uniqueName: r.string(0), displayName: r.string(1), importedAt: r.string(2), captureDate: r.optionalString(3),
                                  captureOffset: r.optionalInt(9), captureSource: r.optionalString(10), width: r.int(4), height: r.int(5),
                                  format: r.string(6), orientation: r.int(7), zoneID: r.optionalString(8) ?? Schema.defaultZoneID),
                         (r.value(4), r.value(5)))
                    }) else { continue }
                    report.photos += 1
                    newPhotos.insert(photo.id)
                    let zone = row.zoneID
                    let reference = ExternalDataStore.reference(for: photo.sha)
                    let sourceThumb = try srcThumb.first([photo.id], { ($0.blob(0), $0.int(1), $0.int(2)) })
                    let thumb = try self.soundThumbnail(sourceThumb, photoWidth: size.0, photoHeight: size.1, original: reference)
                    let id = try writer.insert(row, sha256: photo.sha, byteSize: photo.byteSize, fileReference: reference,
                                               thumbnail: thumb.map { ThumbnailRow(data: $0.data, width: $0.width, height: $0.height) })
                    localPhoto[photo.id] = (id, zone, photo.uniqueName)
                    history.insert(.photo(uniqueName: photo.uniqueName), zone: zone)
                    history.insert(.photoData(photo: photo.uniqueName), zone: zone)
                    if thumb != nil { history.insert(.thumbnail(photo: photo.uniqueName), zone: zone) }
                    for (value, uuid) in try srcRatings.map([photo.id], { ($0.int(0), $0.optionalString(1)) }) {
                        guard let value = RatingValue(rawValue: value) else { continue }
                        // A uuid already here (a rating merged before, its photo since renamed) gets a new one.
                        let taken = try uuid.map { try self.db.scalarInt("SELECT 1 FROM rating WHERE uuid = ?", [$0]) != nil } ?? true
                        let rating = RatingRow(uuid: taken ? newObjectUUID() : uuid ?? newObjectUUID(), photoRowID: id, value: value)
                        try writer.insert(rating)
                        history.insert(.rating(uuid: rating.uuid), zone: zone)
                        report.ratings += 1
                    }
                }

                // Tags by uuid, in their own zone.
                var localTag: [String: (id: Int64, zone: String, name: String)] = [:]
                for (uuid, name, zone) in try Statement.prepare(src, "SELECT uuid, name, zone_id FROM tag ORDER BY uuid").map({ ($0.string(0), $0.string(1), $0.string(2)) }) {
                    if let id = try self.db.statement("SELECT id, zone_id, name FROM tag WHERE uuid = ?").first([uuid], { ($0.int64(0), $0.string(1), $0.string(2)) }) {
                        localTag[uuid] = id
                        continue
                    }
                    report.tags += 1
                    localTag[uuid] = (try TagRows.insert(uuid: uuid, name: name, zone: zone, into: self.db), zone, name)
                    history.insert(.tag(uuid: uuid), zone: zone)
                }

                // A photo both peers have, in different zones (one moved it into a share after the
                // other took its copy): both settle on the same zone, whichever merges first — a
                // share's zone over the default zone, else the smaller zone id — and the side
                // that had it elsewhere moves it there with its data, thumbnail, ratings and tags
                // (after the tags above, so the other side's same-named tags are reused).
                for photo in sourcePhotos {
                    guard let local = localPhoto[photo.id], local.id >= 0, !newPhotos.contains(photo.id) else { continue }
                    let target = Library.mergedZone(local.zone, photo.zone)
                    guard target != local.zone else { continue }
                    report.movedPhotos += 1
                    let scope = try self.db.scalarString("SELECT scope FROM zone WHERE id = ?", [local.zone]) ?? "private"
                    try self.movePhoto(PhotoKey(rowID: local.id, uniqueName: local.name, zone: local.zone, scope: scope), to: target, history: &history)
                    localPhoto[photo.id] = (local.id, target, local.name)
                }

                // Tag links, unioned; never across zones.
                var touched = Set<String>()
                for (photoID, uuid) in try Statement.prepare(src, "SELECT pt.photo_id, t.uuid FROM photo_tag pt JOIN tag t ON t.id = pt.tag_id ORDER BY pt.photo_id, t.uuid")
                    .map({ ($0.int64(0), $0.string(1)) }) {
                    guard let photo = localPhoto[photoID], var tag = localTag[uuid] else { continue }
                    if tag.zone != photo.zone {
                        let ref = try self.findOrCreateTag(named: tag.name, zone: photo.zone, history: &history)
                        tag = (ref.rowID, ref.zone, ref.name)
                    }
                    try writer.link(photo: photo.id, tag: tag.id)
                    if self.db.changes > 0 {
                        report.tagLinks += 1
                        if touched.insert(photo.name).inserted {
                            history.update(.photo(uniqueName: photo.name), ["tags"], zone: photo.zone)
                        }
                    }
                }
            }
            try history.commit()
        }
        do {
            try write(body)
        } catch {
            // Rolled back: the originals copied for it are unreferenced again.
            removeUnreferencedFiles(copied)
            throw error
        }
        return report
    }
}
