import Foundation
import PhotosFiles
import PhotosImaging
import PhotosModel

/// A photo deleted by an apply because a photo of its zone with another uniqueName has the
/// same original (SYNC.md "One photo per original"): its tags and ratings went to `survivor`.
public struct SameOriginalMerge: Equatable, Sendable {
    /// The uniqueName of the photo deleted (it got a tombstone).
    public var deleted: String
    /// The uniqueName of the photo that has the original now, with both photos' tags and ratings.
    public var survivor: String
    /// Their record zone.
    public var zone: String

    public init(deleted: String, survivor: String, zone: String) {
        self.deleted = deleted
        self.survivor = survivor
        self.zone = zone
    }
}

/// What applying a changeset did.
public struct ApplyReport: Equatable, Sendable {
    /// The changeset's header values.
    public var changeset = ChangesetReport()
    /// True when every token of the changeset had been applied before and applying it changed
    /// nothing (no entry accepted, no original copied).
    public var alreadyApplied = false
    /// Entries that won over the state here (changed it).
    public var accepted = 0
    /// Entries that lost (older than what is here, or for an object deleted here).
    public var ignored = 0
    /// Objects materialized: inserted, updated or deleted in the catalog.
    public var inserted = 0
    public var updated = 0
    public var deleted = 0
    /// Of `deleted`, the photos (each with its ratings and tag links): what `sync --apply` and
    /// `share accept` name in their question on a terminal (issue 31 A10).
    public var photosDeleted = 0
    /// Originals copied into external data.
    public var originalsCopied = 0
    /// Duplicate tags merged by the dedupe run after applying.
    public var tagsMerged = 0
    /// Photos deleted because a photo of their zone has the same original (issue 31 A1: no
    /// photo is deleted without a line saying so).
    public var photosMerged: [SameOriginalMerge] = []

    public init() {}

    public var json: JSONValue {
        .object([
            ("sender", .string(changeset.sender)), ("scope", .string(changeset.scope)),
            ("fromToken", .int(Int(changeset.fromToken))), ("toToken", .int(Int(changeset.toToken))),
            ("alreadyApplied", .bool(alreadyApplied)), ("accepted", .int(accepted)), ("ignored", .int(ignored)),
            ("inserted", .int(inserted)), ("updated", .int(updated)), ("deleted", .int(deleted)),
            ("originalsCopied", .int(originalsCopied)), ("tagsMerged", .int(tagsMerged)),
            (
                "photosMerged",
                .array(
                    photosMerged.map {
                        .object([
                            ("deleted", .string($0.deleted)), ("survivor", .string($0.survivor)),
                            ("zone", .string($0.zone))
                        ])
                    })
            )
        ])
    }
}

extension Library {
    /// Applies the changeset folder at `path` (issue 11 items 1, 2, 4).
    ///
    /// Everything in it is checked first (`ChangesetReader`: header, identities, values, stamps,
    /// every original's size and SHA-256); a changeset from this library itself, or one whose
    /// first token is after the last token applied from its sender (a gap), is refused (`SyncError.refused`)
    /// naming the missing range. The originals this library lacks are then copied into external
    /// data (temporary file, fsync, rename) and every row is written in one transaction (author
    /// `sync`): this library's own changes are folded into its sync state, each entry is merged
    /// by the conflict rule (`SyncStamp`: the later history timestamp wins, ties by library id; a
    /// tombstone wins over every update), the objects whose state changed are made so in the
    /// catalog, and the applied range and the sender's acknowledgements are recorded. When that
    /// transaction fails, the copied originals are removed again. Applying the same changeset
    /// twice changes nothing. In the same transaction duplicate tags of the private zones it
    /// touched are merged (`dedupeAfterApplying`), so that they settle as on every peer.
    /// - Throws: `SyncError` `.noChangeset` (no changeset), `.refused` (malformed, tampered, a gap, a scope rule);
    ///   `LibraryError` 75 when busy; `FileError` when an original cannot be written.
    /// - Parameter expecting: a check of the header before anything else (a mailbox file's name against
    ///   what it holds): the reason to refuse it, or nil.
    public func applyChangeset(
        at path: String, author: HistoryAuthor = .default, accepting: Bool = false,
        progress: ((_ done: Int, _ total: Int, _ bytes: Int64) -> Void)? = nil,
        expecting: ((ChangesetHeader) -> String?)? = nil
    ) throws -> ApplyReport {
        // The changeset's originals go into the catalog's originals root (issue 31 item A3).
        try requireOriginalsRoot()
        let reader = try ChangesetReader(path: path, backend: try changesetBackend())
        var report = ApplyReport()
        let h = reader.header
        if let why = expecting?(h) { throw SyncError(.refused, "changeset \(path) refused: \(why)") }
        report.changeset.sender = h.sender
        report.changeset.scope = h.scope
        report.changeset.fromToken = h.fromToken
        report.changeset.toToken = h.toToken
        report.changeset.entries = reader.entries.count
        let me = try libraryID()
        guard h.sender != me else { throw refusalOfOwnID("changeset \(path)", id: me) }
        // Gap and "already applied" are decided again under the write lock.
        let applied =
            try store.readTransaction { try syncStore.appliedToken(sender: h.sender, scope: h.scope) } ?? 0
        try Library.checkGap(h, applied: applied, path: path, me: me)
        // Applied before: applying again changes nothing (every entry loses or ties), and is
        // still done, so that a sender restored from an older backup, whose tokens restarted
        // below what was applied, is not ignored.
        report.alreadyApplied = h.toToken <= applied && h.toToken > 0
        // The scope rules, checked before any original is copied (and again under the lock).
        var thumbnails: [String: (data: [UInt8], width: Int, height: Int)] = [:]
        try store.readTransaction {
            try ApplySession.checkIdentities(reader, store: syncStore, path: path)
            try checkShareRules(reader, accepting: accepting, path: path)
            thumbnails = try checkNewPhotos(reader, path: path)
            try checkExtraOriginals(reader, path: path)
        }
        var importLock = lockImports(exclusive: false)
        defer { if let importLock { close(importLock) } }
        var copied: [UncommittedOriginal] = []
        var removedFiles: [String] = []
        do {
            // Recorded as each is written: a copy that fails part-way (a full disk) leaves none
            // of them behind (issue 31 item 19).
            try copyOriginals(reader, report: &report, written: &copied, progress: progress)
            try write {
                try checkShareRules(reader, accepting: accepting, path: path)
                try checkExtraOriginals(reader, path: path)
                // Under the lock, each original found in place before is checked again (and
                // copied if it went meanwhile): the uncommitted original of another writer that
                // gave up may have been removed since (issue 31 item 16).
                try copyOriginals(reader, report: &report, written: &copied, progress: nil)
                if accepting, let email = h.participant, try syncStore.membership(zone: h.scope) == nil {
                    try syncStore.setMembership(
                        SyncMembership(zone: h.scope, email: email, owner: h.sender, leftAt: nil))
                }
                var session = try ApplySession(library: self, reader: reader, author: author)
                session.thumbnails = thumbnails
                try session.run(me: me, path: path)
                report.accepted = session.accepted
                report.ignored = session.ignored
                report.inserted = session.inserted
                report.updated = session.updated
                report.deleted = session.deleted
                report.photosDeleted = session.photosDeleted
                removedFiles = session.removedFiles
                report.photosMerged = session.merges
                report.tagsMerged = try dedupeAfterApplying(reader, author: author)
            }
        } catch {
            // Unless another import, merge or apply may commit them (issue 31 item 16).
            removeUncommittedFiles(copied, importLock: &importLock)
            // The shard folders made for them too, when they are empty again.
            for file in copied { rmdir(PathName.parent(externalData.path(for: file.reference))) }
            throw error
        }
        // Originals of photos that did not come in (deleted here, in a purged zone) and those
        // of photos deleted by this changeset go again when nothing references them.
        removeUnreferencedFiles(removedFiles + copied.map(\.reference))
        // "Nothing new" is what applying did, not what the sender's tokens claim (issue 31 item
        // 21): after a changeset whose toToken ran ahead (a forged or far-future token, or a
        // sender whose clock jumped back), a later one within the range recorded still brings
        // changes, and saying it brought none would hide them.
        if report.accepted > 0 || report.originalsCopied > 0 { report.alreadyApplied = false }
        return report
    }

    /// The scope rules of a share's changeset (issue 11 items 3, 4). Every entry must be in the
    /// changeset's zone. On a participant's library the sender must be the zone's owner; on the
    /// owner's, the sender is a participant (named in the header) whose changes are accepted
    /// only if it may make them now: its own acceptance (accept, leave) always, edits of photos,
    /// tags, ratings and links only with `read-write` permission, never the share or another
    /// participant (only the owner invites, uninvites or changes permissions). A zone unknown
    /// here comes in only through `share accept`.
    /// - Throws: `SyncError` `.refused` for a malformed or misdirected changeset, `.notPermitted` for a change the
    ///   participant may not make (naming the share, the participant and the permission).
    func checkShareRules(_ reader: ChangesetReader, accepting: Bool, path: String) throws {
        let h = reader.header
        if accepting && h.scope == Library.wholeLibraryScope {
            throw SyncError(.refused, "changeset \(path) is not a share's changeset; apply it with 'sync --apply'")
        }
        func refuse(_ why: String) -> SyncError { SyncError(.refused, "changeset \(path) refused: \(why)") }
        guard h.scope != Library.wholeLibraryScope else {
            // Zones shared with this library change only through their owner's share changesets.
            var owners: [String: String?] = [:]
            for e in reader.entries {
                for reached in try zonesReached(by: e).sorted() {
                    if owners[reached] == nil { owners[reached] = try syncStore.membership(zone: reached)?.owner }
                    if let owner = owners[reached] ?? nil {
                        throw refuse(
                            "\(e.entity.rawValue) \(e.objectID) reaches zone \(reached), which library \(owner) shares with this library; it changes only through that share's changesets"
                        )
                    }
                }
            }
            return
        }
        let zone = h.scope
        for e in reader.entries where e.zone != zone {
            throw refuse(
                "\(e.entity.rawValue) \(e.objectID) points into zone \(e.zone ?? "none"), not the share's zone \(zone)")
        }
        for e in reader.entries where ["zone", "share"].contains(e.attribute) && e.value != zone {
            throw refuse(
                "\(e.entity.rawValue) \(e.objectID) points into zone \(e.value ?? "none"), not the share's zone \(zone)"
            )
        }
        for e in reader.entries {
            if let other = try zonesReached(by: e).sorted().first(where: { $0 != zone }) {
                throw refuse(
                    "\(e.entity.rawValue) \(e.objectID) reaches zone \(other) here, not only the share's zone \(zone)")
            }
        }
        if let m = try syncStore.membership(zone: zone) {
            guard h.sender == m.owner else {
                throw refuse("share \(zone) is owned by library \(m.owner), not by the sender \(h.sender)")
            }
            return
        }
        let share = try catalogStore.share(id: zone)
        guard let share, share.scope == ZoneScope.private.rawValue else {
            if accepting {
                guard let email = h.participant else { throw refuse("it names no participant to accept as") }
                let invited = reader.entries.contains {
                    $0.entity == .participant && $0.attribute == "email" && $0.value == email
                }
                guard invited else { throw refuse("it does not invite \(email) to share \(zone)") }
                return
            }
            throw refuse("share \(zone) is not known here; a participant accepts it with 'share accept'")
        }
        if accepting { throw refuse("share \(zone) belongs to this library") }
        guard let email = h.participant,
            let p = try catalogStore.participant(ofShare: zone, email: Email(rawValue: email))
        else {
            throw SyncError(
                .notPermitted,
                "changeset \(path) refused: its sender is not a participant of share \"\(share.title)\" (\(zone))")
        }
        for e in reader.entries {
            guard e.stamp.library == h.sender else {
                throw refuse(
                    "\(e.entity.rawValue) \(e.objectID) carries a change of library \(e.stamp.library), not of its sender"
                )
            }
            switch e.entity {
            case .participant where e.objectID == p.uuid && e.attribute == "acceptance":
                continue
            case .share, .participant:
                throw SyncError(
                    .notPermitted,
                    "changeset \(path) refused: participant \(email) may not change share \"\(share.title)\" (\(zone)) or its participants; only the owner invites, uninvites or changes permissions"
                )
            case .photo, .tag, .rating, .photoTag, .photoData:
                guard p.permission == SharePermission.readWrite.rawValue, p.acceptance != Acceptance.removed.rawValue
                else {
                    throw SyncError(
                        .notPermitted,
                        "changeset \(path) refused: participant \(email) has permission \(p.permission) on share \"\(share.title)\" (\(zone)) now; its edits are not accepted"
                    )
                }
            }
        }
    }

    /// Checks every photo the changeset brings in new (not in the catalog, no tombstone here or
    /// in the changeset) as import checks a file (issue 31 B12, B18), before anything is
    /// written: a uniqueName that is not a case variant of another photo's (here or in the
    /// changeset) nor of mixed case; every attribute a photo has; an original either carried
    /// by the changeset, with the recorded `byteSize`, decoding (`Thumbnailer`, the import's
    /// decoders and memory budget) as the recorded `format` at the recorded `width` × `height`,
    /// or held here by a photo of the same zone with that size. An original this library holds
    /// only in another zone, not carried, is refused: naming it by SHA-256 would otherwise give
    /// the share a private photo's bytes (the man page's rule "reach no object of another zone
    /// here", for originals too). The photo's thumbnail is then the one made from its original
    /// here, whatever thumbnail the changeset carries.
    /// - Returns: the thumbnails made, by uniqueName (JPEG bytes and pixels).
    /// - Throws: `SyncError` `.refused` naming the changeset, the photo and the fault.
    func checkNewPhotos(_ reader: ChangesetReader, path: String) throws -> [String: (
        data: [UInt8], width: Int, height: Int
    )] {
        func refuse(_ id: String, _ why: String) -> SyncError {
            SyncError(.refused, "changeset \(path) refused: photo \(id) \(why)")
        }
        var thumbnails: [String: (data: [UInt8], width: Int, height: Int)] = [:]
        var folded: [String: String] = [:]
        var index = reader.entries.startIndex
        while index < reader.entries.endIndex {
            let first = reader.entries[index]
            var end = index
            var v: [String: String?] = [:]
            while end < reader.entries.endIndex, reader.entries[end].entity == first.entity,
                reader.entries[end].objectID == first.objectID
            {
                v[reader.entries[end].attribute] = reader.entries[end].value
                end += 1
            }
            index = end
            guard first.entity == .photo else { continue }
            let id = first.objectID
            if let other = folded.updateValue(id, forKey: id.lowercased()), other != id {
                throw refuse(id, "and photo \(other) of the changeset have uniqueNames that differ only in case")
            }
            guard v[SyncEntity.deleted] == nil, try syncStore.catalogAttributes(.photo, id) == nil,
                try !syncStore.syncEntries(.photo, id).contains(where: { $0.attribute == SyncEntity.deleted })
            else { continue }
            guard id == id.lowercased() || id == id.uppercased() else {
                throw refuse(id, "has a uniqueName of mixed case (a UUID is written in one case)")
            }
            for variant in [id.lowercased(), id.uppercased()] where variant != id {
                if try store.photoExists(uniqueName: variant) {
                    throw refuse(id, "differs only in case from photo \(variant) here: one identity")
                }
            }
            let required = [
                "sha256", "byteSize", "displayName", "importedAt", "width", "height", "format", "orientation", "zone"
            ]
            if let missing = required.first(where: { (v[$0] ?? nil) == nil }) {
                throw refuse(id, "is new here but has no \(missing)")
            }
            guard let sha = v["sha256"] ?? nil, let size = (v["byteSize"] ?? nil).flatMap({ Int($0) }),
                let width = (v["width"] ?? nil).flatMap({ Int($0) }),
                let height = (v["height"] ?? nil).flatMap({ Int($0) }),
                let format = v["format"] ?? nil, let zone = v["zone"] ?? nil
            else { throw refuse(id, "has attributes that are not values") }
            if let original = reader.originals[sha] {
                guard original.byteSize == size else {
                    throw refuse(id, "records byteSize \(size), but its original \(sha) has \(original.byteSize) bytes")
                }
                let result: ThumbnailResult
                do {
                    let file = try ImageFile.read(
                        path: reader.path + "/" + original.path, maxBytes: ChangesetReader.maxOriginalBytes)
                    guard file.sha256 == sha else { throw refuse(id, "has an original that changed while read") }
                    result = try file.bytes.withUnsafeBytes {
                        try Thumbnailer.makeThumbnail(from: $0, options: ThumbnailOptions())
                    }
                } catch let e as SyncError {
                    throw e
                } catch {
                    throw refuse(id, "has an original (\(sha)) that does not decode as an image: \(error)")
                }
                guard result.format.rawValue == format else {
                    throw refuse(id, "is recorded as \(format), but its original decodes as \(result.format.rawValue)")
                }
                guard result.width == width, result.height == height else {
                    throw refuse(
                        id,
                        "is recorded as \(width)×\(height) pixels, but its original decodes as \(result.width)×\(result.height)"
                    )
                }
                thumbnails[id] = (result.thumbnail, result.thumbnailWidth, result.thumbnailHeight)
                continue
            }
            if try store.importedOriginal(sha256: sha, in: .zone(zone)) != nil {
                var st = stat()
                let file = externalData.path(for: ExternalDataStore.reference(for: sha))
                guard stat(file, &st) == 0, Int(st.st_size) == size else {
                    throw refuse(id, "records byteSize \(size), but the original \(sha) here is not of that size")
                }
                continue
            }
            if try catalogStore.photoDataExists(sha256: sha, fileReference: nil) {
                throw refuse(
                    id,
                    "names the original \(sha), which this library holds only in another zone, and does not carry it; a changeset reaches no object of another zone here"
                )
            }
            throw refuse(id, "is new here, but its original \(sha) is neither in the changeset nor in this library")
        }
        return thumbnails
    }

    /// Checks every original other than a primary the changeset names (`PhotoData`, issue 24
    /// item 2), before anything is written: it is of a photo this library or the changeset has
    /// (a raw original of a photo that exists nowhere is refused, not kept for a photo that may
    /// never come); an original with a SHA-256 has a size, and its bytes are carried with that
    /// size or held here by a photo of the photo's zone; and it is not the photo's primary
    /// original as well. The reader checked the role (one this build knows, not `primary`).
    /// - Throws: `SyncError` `.refused` naming the changeset, the original and the fault.
    func checkExtraOriginals(_ reader: ChangesetReader, path: String) throws {
        func refuse(_ id: String, _ why: String) -> SyncError {
            SyncError(.refused, "changeset \(path) refused: PhotoData \(id) \(why)")
        }
        var objects: [String: [String: String?]] = [:]
        var order: [String] = []
        var photos: [String: [String: String?]] = [:]
        for e in reader.entries where e.entity == .photoData || e.entity == .photo {
            if e.entity == .photo {
                photos[e.objectID, default: [:]][e.attribute] = e.value
                continue
            }
            if objects[e.objectID] == nil { order.append(e.objectID) }
            objects[e.objectID, default: [:]][e.attribute] = e.value
        }
        for id in order {
            let v = objects[id] ?? [:]
            let photo = String(id.prefix { $0 != "/" })
            let sent = photos[photo]
            let here = try syncStore.catalogAttributes(.photo, photo)
            let known = try !syncStore.syncEntries(.photo, photo).isEmpty
            guard here != nil || sent != nil || known else {
                throw refuse(
                    id, "is an original of photo \(photo), which is neither in the changeset nor in this library")
            }
            // Of a photo deleted here or there: the tombstone wins, the original is not taken.
            if sent?[SyncEntity.deleted] != nil { continue }
            guard let sha = v["sha256"] ?? nil else { continue }
            guard let size = (v["byteSize"] ?? nil).flatMap({ Int($0) }) else {
                throw refuse(id, "names the original \(sha) without its byteSize")
            }
            if sha == (sent?["sha256"] ?? nil) ?? here?["sha256"] {
                throw refuse(id, "names the photo's primary original \(sha) as a second original of it")
            }
            if let original = reader.originals[sha] {
                guard original.byteSize == size else {
                    throw refuse(id, "records byteSize \(size), but its original \(sha) has \(original.byteSize) bytes")
                }
                continue
            }
            if let zone = (sent?["zone"] ?? nil) ?? here?["zone"], try store.hasOriginal(sha256: sha, in: .zone(zone)) {
                var st = stat()
                let file = externalData.path(for: ExternalDataStore.reference(for: sha))
                guard stat(file, &st) == 0, Int(st.st_size) == size else {
                    throw refuse(id, "records byteSize \(size), but the original \(sha) here is not of that size")
                }
                continue
            }
            throw refuse(
                id, "names the original \(sha), which is neither in the changeset nor in the photo's zone here")
        }
    }

    /// The zones an entry reaches in this library: the zone it is stamped with, the zone or
    /// share its value names, and the zone here of every object it names or changes (a photo's,
    /// a tag's or a participant's own; a rating's photo, both the old one and the one its value
    /// names; a link's photo and tag). A tombstone or a link names objects by uuid only, so the
    /// zone they are in here is what an entry really writes into (issue 11 item 4).
    func zonesReached(by e: SyncEntry) throws -> Set<String> {
        var zones = Set<String>()
        if let z = e.zone { zones.insert(z) }
        func photoZone(_ name: String) throws {
            if let z = try syncStore.catalogAttributes(.photo, name)?["zone"] { zones.insert(z) }
        }
        if ["zone", "share"].contains(e.attribute), let v = e.value { zones.insert(v) }
        switch e.entity {
        case .share: zones.insert(e.objectID)
        case .photo: try photoZone(e.objectID)
        case .tag:
            if let z = try syncStore.catalogAttributes(.tag, e.objectID)?["zone"] { zones.insert(z) }
        case .participant:
            if let z = try syncStore.catalogAttributes(.participant, e.objectID)?["share"] { zones.insert(z) }
        case .rating:
            if let photo = try syncStore.catalogAttributes(.rating, e.objectID)?["photo"] { try photoZone(photo) }
            if e.attribute == "photo", let photo = e.value { try photoZone(photo) }
        case .photoTag:
            let parts = e.objectID.split(separator: "/").map(String.init)
            if parts.count == 2 {
                try photoZone(parts[0])
                if let z = try syncStore.catalogAttributes(.tag, parts[1])?["zone"] { zones.insert(z) }
            }
        case .photoData: try photoZone(String(e.objectID.prefix { $0 != "/" }))
        }
        return zones
    }

    /// Merges duplicate tags where the model does (SYNC.md "Duplicates"): per zone, in the zones
    /// of the private store whose tags the changeset named, the smallest uuid winning
    /// (`mergeDuplicateTags`, the rule of `dedupe-tags`), inside the apply's transaction (its own
    /// history transaction, author `dedupe-tags`), so that a kill never separates them. Zones
    /// shared with this library are left to their owner, whose merge arrives with its changesets.
    /// - Returns: the number of tags merged away.
    func dedupeAfterApplying(_ reader: ChangesetReader, author: HistoryAuthor) throws -> Int {
        let zones = Set(reader.entries.filter { $0.entity == .tag && $0.attribute == "zone" }.compactMap(\.value))
        var history = HistoryWriter(self, author: author, context: .dedupeTags)
        var merged = 0
        for zone in zones.sorted() where try catalogStore.zoneExists(zone) {
            if try isSharedStoreZone(zone) { continue }
            merged += try mergeDuplicateTags(inZone: zone, history: &history)
        }
        try history.commit()
        return merged
    }

    /// Refuses a changeset whose first token is after the last one applied from its sender.
    static func checkGap(_ h: ChangesetHeader, applied: Int64, path: String, me: String) throws {
        guard h.fromToken > applied else { return }
        throw SyncError(
            .refused,
            "changeset \(path) refused: it starts after token \(h.fromToken) of library \(h.sender), but this library has applied only up to \(applied); changes \(applied + 1)…\(h.fromToken) are missing (export again there with --since-peer \(me))"
        )
    }

    /// Copies the originals of the changeset's photos that external data lacks (checked by the
    /// reader), appending each reference to `written` as soon as its file is in place, so that
    /// the caller removes them all when a later one fails. Stops before the next original when
    /// a stop signal arrived (`StopSignal`).
    /// - Throws: `FileError` when an original cannot be read or written, `SyncError` when one
    ///   changed while read, `StopRequested`.
    private func copyOriginals(
        _ reader: ChangesetReader, report: inout ApplyReport, written: inout [UncommittedOriginal],
        progress: ((Int, Int, Int64) -> Void)?
    ) throws {
        var bytes: Int64 = 0
        let before = written.count
        let originals = reader.originals.sorted(by: { $0.key < $1.key })
        for (index, (sha, original)) in originals.enumerated() {
            bytes += Int64(original.byteSize)
            defer { progress?(index + 1, originals.count, bytes) }
            let ref = ExternalDataStore.reference(for: sha)
            var st = stat()
            if stat(externalData.path(for: ref), &st) == 0 && Int(st.st_size) == original.byteSize { continue }
            try StopSignal.check()
            // Streamed and hashed as it is copied (memory one chunk, issue 31 item 20), placed only
            // with the SHA-256 the reader checked; too large or sparse is refused before a read.
            do {
                if let copy = try externalData.copy(
                    fromFileAt: reader.path + "/" + original.path, reference: ref, expectedSHA256: sha,
                    maxBytes: ChangesetReader.maxOriginalBytes, durability: .deferred)
                {
                    written.append(UncommittedOriginal(reference: ref, written: copy.written))
                }
            } catch let e as FileError where e.kind == .unacceptable {
                throw SyncError(
                    .refused,
                    "changeset \(reader.path) refused: original \(original.path) changed while read: \(e.reason)")
            }
            report.originalsCopied += 1
        }
        // Group durability, as import does: one syncfs(2) for all of them, before the rows that
        // reference them commit.
        if written.count > before { try externalData.syncFileSystem() }
        try StopSignal.check()
    }
}

/// One apply, inside the caller's write transaction: fold local changes, check the scope rules,
/// merge the entries, make the catalog so, record history and the applied range.
struct ApplySession {
    let library: Library
    let reader: ChangesetReader
    let store: any SyncStore
    var history: HistoryWriter
    var accepted = 0
    var ignored = 0
    var inserted = 0
    var updated = 0
    var deleted = 0
    var photosDeleted = 0
    /// File references of photos deleted (removed after the commit when unreferenced).
    var removedFiles: [String] = []
    /// Photos of one original met in this apply (SYNC.md "One photo per original"): the one
    /// deleted and the one that survives, whose tag links and ratings it takes.
    var sameOriginal: [(loser: String, survivor: String)] = []
    /// The same, with their zone, for the report.
    var merges: [SameOriginalMerge] = []
    /// The change token this apply's entries take.
    var token: Int64 = 0
    /// The thumbnails of new photos made from their originals (`checkNewPhotos`), by uniqueName.
    var thumbnails: [String: (data: [UInt8], width: Int, height: Int)] = [:]
    /// The uniqueNames of the photos the changeset has entries for.
    let changesetPhotos: Set<String>

    init(library: Library, reader: ChangesetReader, author: HistoryAuthor) throws {
        self.library = library
        self.reader = reader
        store = library.syncStore
        history = HistoryWriter(library, author: author, context: .sync)
        changesetPhotos = Set(reader.entries.lazy.filter { $0.entity == .photo }.map(\.objectID))
    }

    mutating func run(me: String, path: String) throws {
        var reconciler = try SyncReconciler(store: store)
        let state = try reconciler.run()
        let h = reader.header
        let applied = try store.appliedToken(sender: h.sender, scope: h.scope) ?? 0
        try Library.checkGap(h, applied: applied, path: path, me: me)
        try ApplySession.checkIdentities(reader, store: store, path: path)
        token = SyncClock.nextToken(after: state.changeToken)
        var changedObjects: [String: (SyncEntity, String)] = [:]
        var current: (SyncEntity, String)?
        var local: [String: SyncEntry] = [:]
        // A changeset whose every token was applied here before (a stale copy replayed: an old
        // mailbox file, `sync --apply` of an old folder) brings no object that is neither in the
        // catalog nor in the sync state: every object of those tokens came in then, so one not
        // here now was deleted (its tombstone compacted since, `TombstoneCompaction`) and would
        // come back. Tokens only grow (`SyncClock.nextToken`), so a sender's new objects always
        // come in a changeset that reaches past what was applied.
        let appliedBefore = h.toToken > 0 && h.toToken <= applied
        var gone = false
        for e in reader.entries {
            if current == nil || current! != (e.entity, e.objectID) {
                current = (e.entity, e.objectID)
                local = Dictionary(
                    try store.syncEntries(e.entity, e.objectID).map { ($0.attribute, $0) },
                    uniquingKeysWith: { a, _ in a })
                gone = try appliedBefore && local.isEmpty && store.catalogAttributes(e.entity, e.objectID) == nil
            }
            if gone {
                ignored += 1
                continue
            }
            // A tombstone here wins over everything; one there wins over every update here.
            let wins: Bool
            if local[SyncEntity.deleted] != nil {
                wins = false
            } else if let old = local[e.attribute] {
                wins = e.stamp > old.stamp
            } else {
                wins = true
            }
            guard wins else {
                ignored += 1
                continue
            }
            try store.putSyncEntry(e, token: token)
            local[e.attribute] = e
            accepted += 1
            changedObjects[e.entity.rawValue + " " + e.objectID] = (e.entity, e.objectID)
        }
        try materialize(Array(changedObjects.values))
        try history.commit()
        if accepted > 0 {
            try store.setSyncTokens(
                changeToken: token,
                reconciledHistoryToken: max(state.reconciledHistoryToken, try store.newestHistoryToken()))
        }
        try store.setAppliedToken(
            sender: h.sender, scope: h.scope, token: ApplySession.recordableAppliedToken(h.toToken, applied: applied))
        // An acknowledgement names a token of this library the sender applied: none after the
        // last one issued before this apply (a forged or far-future one would make `--since-peer`
        // exports skip every later change).
        let issued = state.changeToken
        for ack in reader.acknowledgements where ack.library == me {
            let acknowledged = min(ack.token, issued)
            try store.setAcknowledgedToken(peer: h.sender, scope: ack.scope, token: acknowledged)
            if let email = h.participant {
                try store.setAcknowledgedToken(
                    peer: Library.participantKey(email), scope: ack.scope, token: acknowledged)
            }
        }
    }

    /// The token recorded as applied from a sender after applying its changeset up to `toToken`:
    /// never past this library's clock (`SyncClock.nextToken(after: 0)`, milliseconds since
    /// 1970), never below what was recorded before. A far-future `toToken` (a forged one, a
    /// sender whose clock ran ahead) recorded as it is would make that sender's later, real
    /// changesets look applied ("Nothing new") and `sync --from` ask only for changes after it,
    /// so that they never came (issue 31 item 21). Entries stamped after the clock are sent
    /// again by the next changeset and lose or tie there: applying twice changes nothing.
    static func recordableAppliedToken(_ toToken: Int64, applied: Int64, now: Date = Date()) -> Int64 {
        max(applied, min(toToken, SyncClock.nextToken(after: 0, now: now)))
    }

    /// Scope rules by identity: an object never changes the zone (tag), photo (rating) or share
    /// (participant) it belongs to, so an entry that names an object here with another one is a
    /// uuid pointing into another zone, and is refused.
    static func checkIdentities(_ reader: ChangesetReader, store: any SyncStore, path: String) throws {
        for e in reader.entries {
            let fixed: String
            switch (e.entity, e.attribute) {
            case (.tag, "zone"): fixed = "zone"
            case (.rating, "photo"): fixed = "photo"
            case (.participant, "share"): fixed = "share"
            default: continue
            }
            guard
                let here = try store.catalogAttributes(e.entity, e.objectID)?[fixed]
                    ?? (try store.syncEntries(e.entity, e.objectID).first { $0.attribute == fixed }?.value)
            else { continue }
            if here != e.value {
                throw SyncError(
                    .refused,
                    "changeset \(path) refused: \(e.entity.rawValue) \(e.objectID) belongs to \(fixed) \(here) here, the changeset puts it in \(e.value ?? "none")"
                )
            }
        }
    }

    /// Makes the catalog hold what the sync state says for `objects`: shares and zones first,
    /// then photos, tags, ratings, links and participants; each change recorded in history.
    private mutating func materialize(_ objects: [(SyncEntity, String)]) throws {
        var objects = objects
        var known = Set(objects.map { $0.0.rawValue + " " + $0.1 })
        for (e, id) in objects where e == .share {
            let values = try values(e, id)
            // A share new here: what the sync state already holds in its zone can come in now.
            if try store.catalogAttributes(.share, id) == nil, values[SyncEntity.deleted] == nil {
                try store.forEachSyncEntry(after: 0, zone: id) { entry in
                    if known.insert(entry.entity.rawValue + " " + entry.objectID).inserted {
                        objects.append((entry.entity, entry.objectID))
                    }
                }
            }
            try materializeShare(id, values)
        }
        var links = Set<String>()
        var originalsOf = Set<String>()
        for entity in [SyncEntity.photo, .photoData, .tag, .rating, .photoTag, .participant] {
            for (e, id) in objects where e == entity {
                let values = try values(e, id)
                switch e {
                case .share: break
                case .photo:
                    try materializePhoto(id, values)
                    originalsOf.insert(id)
                    for l in try store.syncLinkEntries(ofPhoto: id) { links.insert(l.objectID) }
                case .photoData: originalsOf.insert(String(id.prefix { $0 != "/" }))
                case .tag: try materializeTag(id, values)
                case .rating: try materializeRating(id, values)
                case .photoTag: links.insert(id)
                case .participant: try materializeParticipant(id, values)
                }
            }
        }
        for photo in originalsOf.sorted() { try materializeOriginals(ofPhoto: photo) }
        for (loser, survivor) in sameOriginal {
            links.formUnion(try moveToSurvivor(from: loser, to: survivor))
        }
        var touched = Set<String>()
        for id in links.sorted() {
            let parts = id.split(separator: "/").map(String.init)
            guard parts.count == 2 else { continue }
            let values = Dictionary(
                try store.syncEntries(.photoTag, id).map { ($0.attribute, $0.value) }, uniquingKeysWith: { a, _ in a })
            let photoZone = try store.catalogAttributes(.photo, parts[0])?["zone"]
            let tagZone = try store.catalogAttributes(.tag, parts[1])?["zone"]
            let want = values["present"] == "1" && photoZone != nil && photoZone == tagZone
            if try store.setLink(photo: parts[0], tag: parts[1], present: want), let zone = photoZone {
                if touched.insert(parts[0]).inserted {
                    history.update(.photo(uniqueName: parts[0]), ["tags"], zone: zone)
                }
                history.update(.tag(uuid: parts[1]), ["photos"], zone: zone)
                updated += 1
            }
        }
    }

    /// The values of one object's entries by attribute.
    private func values(_ entity: SyncEntity, _ id: String) throws -> [String: String?] {
        Dictionary(try store.syncEntries(entity, id).map { ($0.attribute, $0.value) }, uniquingKeysWith: { a, _ in a })
    }

    /// The tombstone of the share of `zone` when the sync state has one: everything in a purged
    /// zone is deleted with it, whatever moved in concurrently.
    private func zoneTombstone(_ zone: String) throws -> SyncEntry? {
        guard zone != ZoneID.default.rawValue else { return nil }
        return try store.syncEntries(.share, zone).first { $0.attribute == SyncEntity.deleted }
    }

    /// Records the tombstone of an object that goes with its zone, stamped as the zone's.
    private mutating func tombstone(_ entity: SyncEntity, _ id: String, stamp: SyncStamp, zone: String?) throws {
        guard try !store.syncEntries(entity, id).contains(where: { $0.attribute == SyncEntity.deleted }) else { return }
        try store.putSyncEntry(
            SyncEntry(
                entity: entity, objectID: id, attribute: SyncEntity.deleted, value: "1", stamp: stamp, zone: zone),
            token: token)
    }

    private mutating func materializeShare(_ id: String, _ v: [String: String?]) throws {
        let exists = try store.catalogAttributes(.share, id)
        if v[SyncEntity.deleted] != nil {
            guard exists != nil else { return }
            if let stamp = try zoneTombstone(id) {
                for entity in [SyncEntity.photo, .tag, .participant] {
                    for object in try store.catalogObjects(entity, inZone: id) {
                        try tombstone(entity, object, stamp: stamp.stamp, zone: id)
                    }
                }
            }
            for entity in HistoryEntity.photoChildren + [.photo, .tag, .participant, .share] {
                try history.deleteSetWise(entity, .zone(id))
            }
            removedFiles += try store.deleteZoneContents(id)
            deleted += 1
            return
        }
        guard let title = v["title"] ?? nil, let created = v["created"] ?? nil,
            let permission = v["publicPermission"] ?? nil, var scope = v["scope"] ?? nil
        else { return }
        // A zone shared with this library is of scope `shared` here, whatever it is at its owner's.
        if try store.membership(zone: id) != nil { scope = ZoneScope.shared.rawValue }
        let wanted = [
            "title": title, "created": exists?["created"] ?? created, "publicPermission": permission, "scope": scope
        ]
        guard exists != wanted else { return }
        try store.putZone(id, scope: scope)
        try store.putShare(id: id, title: title, created: created, publicPermission: permission)
        if exists == nil {
            history.insert(.share(id: id), zone: id)
            inserted += 1
        } else {
            history.update(.share(id: id), ["title", "publicPermission"], zone: id)
            updated += 1
        }
    }

    private mutating func materializePhoto(_ id: String, _ v: [String: String?]) throws {
        let here = try store.catalogAttributes(.photo, id)
        if v[SyncEntity.deleted] != nil {
            guard here != nil, let rowID = try store.rowID(.photo, id) else { return }
            for (ref, sha) in try library.catalogStore.fileReferences(ofPhoto: rowID) {
                removedFiles += [ref, ExternalDataStore.reference(for: sha)]
            }
            for tag in try library.catalogStore.tags(ofPhoto: rowID) {
                history.update(.tag(uuid: tag.uuid), ["photos"], zone: tag.zone.rawValue)
            }
            for child in HistoryEntity.photoChildren { try history.delete(child, .photo(rowID)) }
            try history.delete(.photo, .photo(rowID))
            try store.deleteObject(.photo, id)
            deleted += 1
            photosDeleted += 1
            return
        }
        guard let zone = v["zone"] ?? nil else { return }
        if let dead = try zoneTombstone(zone) {
            // Moved into a zone that was purged: it went with the zone.
            try tombstone(.photo, id, stamp: dead.stamp, zone: zone)
            try materializePhoto(id, try values(.photo, id))
            return
        }
        guard try zoneExists(zone) else { return }
        if let here {
            let replaced = try replaceOriginal(id, here: here, v)
            // The winning position (issue 26 item 1), when the changeset's differs from this one.
            let position = ["latitudeE7", "longitudeE7", "altitudeMM"]
            var moved = false
            if v.keys.contains("latitudeE7"), position.contains(where: { (v[$0] ?? nil) != (here[$0] ?? nil) }) {
                let lat = (v["latitudeE7"] ?? nil).flatMap { Int($0) },
                    lon = (v["longitudeE7"] ?? nil).flatMap { Int($0) }
                if (lat == nil) == (lon == nil) {
                    // By import's rule (`GeoPosition`): 0,0 without an altitude is no position.
                    let p = GeoPosition(
                        latitudeE7: lat, longitudeE7: lon, altitudeMM: (v["altitudeMM"] ?? nil).flatMap { Int($0) })
                    try store.setPhotoPosition(
                        id, latitudeE7: p?.latitudeE7, longitudeE7: p?.longitudeE7, altitudeMM: p?.altitudeMM)
                    history.update(.photo(uniqueName: id), position, zone: here["zone"].flatMap { $0 } ?? zone)
                    moved = true
                }
            }
            // The winning capture time (issue 26 item 5: `date set`/`date shift` on a peer), when
            // the changeset's differs from this one.
            let capture = ["captureDate", "captureOffset", "captureSource"]
            if v.keys.contains("captureDate"), capture.contains(where: { (v[$0] ?? nil) != (here[$0] ?? nil) }) {
                let date = (v["captureDate"] ?? nil).flatMap { CaptureTime.fromISO($0, source: "")?.local }
                if date != nil || (v["captureDate"] ?? nil) == nil {
                    try store.setPhotoCaptureTime(
                        id, captureDate: date,
                        captureOffset: (v["captureOffset"] ?? nil).flatMap { Int($0) }.flatMap {
                            abs($0) <= CaptureTime.maxOffsetMinutes ? $0 : nil
                        }, captureSource: v["captureSource"] ?? nil)
                    history.update(.photo(uniqueName: id), capture, zone: here["zone"].flatMap { $0 } ?? zone)
                    moved = true
                }
            }
            // The kind, duration and codec follow the original (issue 25 item 2): a replaced
            // original may be a video where the photo was a still.
            let video = ["kind", "durationMS", "videoCodec"]
            if v.keys.contains("kind"), video.contains(where: { (v[$0] ?? nil) != (here[$0] ?? nil) }) {
                try store.setPhotoKind(
                    id, kind: (v["kind"] ?? nil) ?? "still", durationMS: (v["durationMS"] ?? nil).flatMap { Int($0) },
                    videoCodec: v["videoCodec"] ?? nil)
                history.update(.photo(uniqueName: id), video, zone: here["zone"].flatMap { $0 } ?? zone)
                moved = true
            }
            // The camera (issue 24 item 1): each attribute the changeset names replaces this one's.
            let cameraKeys = SyncEntity.cameraAttributes
            if cameraKeys.contains(where: { v.keys.contains($0) && (v[$0] ?? nil) != (here[$0] ?? nil) }) {
                func value(_ key: String) -> String? { v.keys.contains(key) ? (v[key] ?? nil) : (here[key] ?? nil) }
                try store.setPhotoCamera(
                    id,
                    camera: CameraIdentity(
                        make: value("cameraMake"), model: value("cameraModel"), lens: value("lensModel")),
                    cameraFormat: value("cameraFormat"))
                history.update(.photo(uniqueName: id), cameraKeys, zone: here["zone"].flatMap { $0 } ?? zone)
                moved = true
            }
            // The title and description (issue 26 item 6): each the changeset names replaces this one's.
            let textKeys = SyncEntity.textAttributes
            if textKeys.contains(where: { v.keys.contains($0) && (v[$0] ?? nil) != (here[$0] ?? nil) }) {
                func value(_ key: String) -> String? { v.keys.contains(key) ? (v[key] ?? nil) : (here[key] ?? nil) }
                try store.setPhotoText(id, title: value("title"), description: value("description"))
                history.update(.photo(uniqueName: id), textKeys, zone: here["zone"].flatMap { $0 } ?? zone)
                moved = true
            }
            // The place name set by hand (issue 26 item 3): the changeset's replaces this one's.
            if v.keys.contains("placeName"), (v["placeName"] ?? nil) != (here["placeName"] ?? nil) {
                try store.setPhotoPlaceName(id, v["placeName"] ?? nil)
                history.update(.photo(uniqueName: id), ["placeName"], zone: here["zone"].flatMap { $0 } ?? zone)
                moved = true
            }
            guard here["zone"] != zone else {
                if replaced || moved { updated += 1 }
                return
            }
            try store.setPhotoZone(id, zone: zone)
            history.update(.photo(uniqueName: id), ["zone"], zone: zone)
            history.update(.photoData(photo: id), ["zone"], zone: zone)
            history.update(.thumbnail(photo: id), ["zone"], zone: zone)
            updated += 1
            return
        }
        guard let sha = v["sha256"] ?? nil, let size = (v["byteSize"] ?? nil).flatMap({ Int($0) }),
            let name = v["displayName"] ?? nil, let importedAt = v["importedAt"] ?? nil,
            let width = (v["width"] ?? nil).flatMap({ Int($0) }),
            let height = (v["height"] ?? nil).flatMap({ Int($0) }),
            // The reader checked both (`ChangesetReader`: one of `ImageFormat`, 1…8).
            let format = (v["format"] ?? nil).flatMap(ImageFormat.init(rawValue:)),
            let orientation = (v["orientation"] ?? nil).flatMap({ Int($0) }).flatMap(Orientation.init(rawValue:))
        else { return }
        // One photo per original holds within one zone (issue 31 A1): a photo of another zone
        // with the same original is neither deleted nor moved; both reference one file.
        let held = try library.store.importedOriginal(sha256: sha, in: .zone(zone))
        // Without its original (carried, or held in this zone) a photo of the changeset cannot
        // come in: refused (`checkNewPhotos` checked it before the lock; this is the same under
        // it). One the sync state held before (its zone arrives now) was checked when it came.
        let ofChangeset = changesetPhotos.contains(id)
        guard reader.originals[sha] != nil || held != nil || !ofChangeset else {
            throw SyncError(
                .refused,
                "changeset \(reader.path) refused: photo \(id) is new here, but its original \(sha) is neither in the changeset nor in its zone \(zone) here"
            )
        }
        if let held, held.uniqueName != id {
            guard try keepOneOfSameOriginal(incoming: id, held: held.uniqueName, zone: zone) else { return }
        }
        let ref = ExternalDataStore.reference(for: sha)
        var st = stat()
        // A dry run (also the preview a terminal's question is asked from) copies nothing: a
        // carried original counts as in place, as the real run will have copied it.
        let wouldBeCopied = library.externalData.isDryRun && reader.originals[sha]?.byteSize == size
        guard wouldBeCopied || (stat(library.externalData.path(for: ref), &st) == 0 && Int(st.st_size) == size)
        else {
            // Its sync state stays, so a later changeset that carries it completes it.
            guard ofChangeset else { return }
            throw SyncError(
                .refused,
                "changeset \(reader.path) refused: the original \(sha) of photo \(id) is not in external data with \(size) bytes"
            )
        }
        let thumb =
            try thumbnails[id]
            ?? library.soundThumbnail(
                reader.thumbnail(photo: id), photoWidth: width, photoHeight: height, original: ref)
        var values = SyncPhotoValues(
            uniqueName: id, displayName: name, importedAt: importedAt, captureDate: v["captureDate"] ?? nil,
            captureOffset: (v["captureOffset"] ?? nil).flatMap { Int($0) }, captureSource: v["captureSource"] ?? nil,
            width: width, height: height, format: format, orientation: orientation, zone: ZoneID(rawValue: zone),
            sha256: sha,
            byteSize: size)
        // The position, only whole: both coordinates (the catalog's CHECK), an altitude with them.
        // By import's rule (`GeoPosition`): 0,0 without an altitude is no position.
        if let p = GeoPosition(
            latitudeE7: (v["latitudeE7"] ?? nil).flatMap({ Int($0) }),
            longitudeE7: (v["longitudeE7"] ?? nil).flatMap({ Int($0) }),
            altitudeMM: (v["altitudeMM"] ?? nil).flatMap { Int($0) })
        {
            (values.latitudeE7, values.longitudeE7, values.altitudeMM) = (p.latitudeE7, p.longitudeE7, p.altitudeMM)
        }
        // Issue 25 item 2: a changeset of an older peer has no kind: a still.
        if let kind = v["kind"] ?? nil { values.kind = kind }
        values.durationMS = (v["durationMS"] ?? nil).flatMap { Int($0) }
        values.videoCodec = v["videoCodec"] ?? nil
        // Issue 24 item 1 (the reader checked each as import stores it); an older peer sends none.
        values.camera = CameraIdentity(
            make: v["cameraMake"] ?? nil, model: v["cameraModel"] ?? nil, lens: v["lensModel"] ?? nil)
        values.cameraFormat = v["cameraFormat"] ?? nil
        (values.title, values.description) = (v["title"] ?? nil, v["description"] ?? nil)
        values.placeName = v["placeName"] ?? nil
        _ = try store.insertPhoto(values, fileReference: ref, thumbnail: thumb)
        history.insert(.photo(uniqueName: id), zone: zone)
        history.insert(.photoData(photo: id), zone: zone)
        if thumb != nil { history.insert(.thumbnail(photo: id), zone: zone) }
        inserted += 1
    }

    /// Makes a photo here hold the originals other than its primary that the sync state says
    /// (`PhotoData`, issue 24 item 2): a role with a SHA-256 whose file is in external data with
    /// its size is inserted or replaced (`photo_data` row of that role, file content-addressed);
    /// a role whose `sha256` has no value is removed (its file goes after the commit when nothing
    /// references it). One PhotoData update is recorded in history per photo changed.
    /// - Throws: the store's error.
    private mutating func materializeOriginals(ofPhoto photo: String) throws {
        guard let zone = try store.catalogAttributes(.photo, photo)?["zone"] else { return }
        var current: [String: SyncOriginal] = [:]
        for o in try store.extraOriginals(ofPhotos: [photo])[photo] ?? [] { current[o.role] = o }
        var changed: [String] = []
        for role in SyncEntity.extraOriginalRoles {
            let v = try values(.photoData, photo + "/" + role)
            let have = current[role]
            guard let sha = v["sha256"] ?? nil else {
                guard have != nil, !v.isEmpty else { continue }
                if let ref = try store.deleteExtraOriginal(photo: photo, role: role) { removedFiles.append(ref) }
                changed.append(role)
                continue
            }
            guard let size = (v["byteSize"] ?? nil).flatMap({ Int($0) }) else { continue }
            let format = v["format"] ?? nil
            if let have, have.sha256 == sha, have.byteSize == size, have.format == format { continue }
            let ref = ExternalDataStore.reference(for: sha)
            // A dry run copies nothing: a carried original counts as in place.
            let wouldBeCopied = library.externalData.isDryRun && reader.originals[sha]?.byteSize == size
            var st = stat()
            guard wouldBeCopied || (stat(library.externalData.path(for: ref), &st) == 0 && Int(st.st_size) == size)
            else { continue }
            if let have, have.sha256 != sha { removedFiles.append(ExternalDataStore.reference(for: have.sha256)) }
            try store.putExtraOriginal(
                SyncOriginal(photo: photo, role: role, sha256: sha, byteSize: size, format: format), fileReference: ref)
            changed.append(role)
        }
        guard !changed.isEmpty else { return }
        for role in changed {
            guard let r = OriginalRole(rawValue: role) else { continue }
            history.update(.photoData(photo: photo, role: r), ["sha256", "byteSize", "format"], zone: zone)
        }
        updated += 1
    }

    /// A photo here whose winning original is another (its file's metadata was rewritten
    /// elsewhere and import took the new bytes as its original, issue 31 item 5): its photo data
    /// takes the new SHA-256 and size when that original is here (the changeset carries it) and
    /// no other photo of its zone has it; the old file goes after the commit when nothing references it.
    /// A PhotoData update of `sha256`/`byteSize` is recorded.
    /// - Returns: true when the original was replaced.
    /// - Throws: the store's error.
    private mutating func replaceOriginal(_ id: String, here: [String: String?], _ v: [String: String?]) throws
        -> Bool
    {
        guard let sha = v["sha256"] ?? nil, let size = (v["byteSize"] ?? nil).flatMap({ Int($0) }),
            (here["sha256"] ?? nil) != sha, isSHA256Hex(sha), let zone = here["zone"] ?? nil,
            try !library.store.hasOriginal(sha256: sha, in: .zone(zone)), let rowID = try store.rowID(.photo, id)
        else { return false }
        let ref = ExternalDataStore.reference(for: sha)
        var st = stat()
        guard stat(library.externalData.path(for: ref), &st) == 0, Int(st.st_size) == size else { return false }
        // A takeover: the JPEG of a RAW+JPEG pair imported after its RAW (issue 24 item 2), or
        // the still of a Live Photo imported after its movie (issue 25 item 2), became the
        // primary there, the former primary its `raw` or `pairedVideo` original: the former
        // primary takes that role here too, and the photo takes the new primary's format, size
        // and orientation, with its thumbnail (the one carried when it is sound for that size,
        // else one made from the original here). A Live Photo's kind follows in
        // `materializePhoto` (the changeset's `kind`).
        if let hereSHA = here["sha256"] ?? nil,
            let format = (v["format"] ?? nil).flatMap(ImageFormat.init(rawValue:)), format != .raw, format != .video,
            let width = (v["width"] ?? nil).flatMap({ Int($0) }),
            let height = (v["height"] ?? nil).flatMap({ Int($0) }),
            let orientation = (v["orientation"] ?? nil).flatMap({ Int($0) }).flatMap(Orientation.init(rawValue:))
        {
            let extras = Set(try store.extraOriginals(ofPhotos: [id])[id]?.map(\.role) ?? [])
            for role in [OriginalRole.raw, .pairedVideo] {
                let entry = try values(.photoData, id + "/" + role.rawValue)
                guard (entry["sha256"] ?? nil) == hereSHA, !extras.contains(role.rawValue) else { continue }
                let thumb = try library.soundThumbnail(
                    reader.thumbnail(photo: id), photoWidth: width, photoHeight: height, original: ref)
                try library.metadataStore.takeOverPrimary(
                    ofPhoto: rowID,
                    by: PhotoOriginal(role: .primary, sha256: sha, byteSize: size, fileReference: ref, format: format),
                    formerPrimary: role, width: width, height: height, orientation: orientation,
                    thumbnail: thumb.map { ThumbnailRow(data: $0.data, width: $0.width, height: $0.height) })
                // The sender's photo took the still's name (the reader checked it: 1–1024 bytes).
                var attributes = ["width", "height", "format", "orientation"]
                if let name = v["displayName"] ?? nil {
                    try library.metadataStore.setDisplayName(ofPhoto: rowID, name)
                    attributes.insert("displayName", at: 0)
                }
                history.update(.photo(uniqueName: id), attributes, zone: zone)
                history.update(.photoData(photo: id), ["sha256", "byteSize", "format"], zone: zone)
                history.insert(.photoData(photo: id, role: role), zone: zone)
                if thumb != nil { history.update(.thumbnail(photo: id), ["data", "width", "height"], zone: zone) }
                return true
            }
        }
        for (old, oldSHA) in try library.catalogStore.fileReferences(ofPhoto: rowID) {
            removedFiles += [old, ExternalDataStore.reference(for: oldSHA)]
        }
        try library.metadataStore.replaceOriginal(ofPhoto: rowID, sha256: sha, byteSize: size, fileReference: ref)
        history.update(.photoData(photo: id), ["sha256", "byteSize"], zone: zone)
        return true
    }

    /// One photo per original in one zone (SPEC: import skips duplicates; verify reports two
    /// photos of one zone with one original), made so by sync the same way on every peer
    /// (SYNC.md "One photo per original"; issue 31 A1: photos of different zones are never
    /// merged): when a photo new here has the original (SHA-256) of photo `held` of its zone with another uniqueName,
    /// the one with the smaller uniqueName (compared as strings) survives; the other gets a
    /// tombstone, so that its deletion travels to every peer, and its tag links and ratings move
    /// to the survivor after the photos of this apply are in (`moveToSurvivor`). Whichever peer
    /// meets the pair first, and in whichever order, the outcome is the same. A `held` photo
    /// whose tombstone is already in the sync state is simply deleted first (deleted there and
    /// imported again: not two photos of one original).
    /// - Returns: true when the incoming photo is to be inserted (it survives).
    /// - Throws: the store's error.
    private mutating func keepOneOfSameOriginal(incoming id: String, held: String, zone: String) throws -> Bool {
        if try store.syncEntries(.photo, held).contains(where: { $0.attribute == SyncEntity.deleted }) {
            try materializePhoto(held, try values(.photo, held))
            return true
        }
        let (survivor, loser) = id < held ? (id, held) : (held, id)
        let entries = try store.syncEntries(.photo, loser)
        try tombstone(.photo, loser, stamp: try Self.after(entries), zone: entries.first?.zone)
        if loser == held { try materializePhoto(held, try values(.photo, held)) }
        sameOriginal.append((loser, survivor))
        merges.append(SameOriginalMerge(deleted: loser, survivor: survivor, zone: zone))
        return survivor == id
    }

    /// A stamp 1 ms after the latest of `entries` (of their library): the same on every peer
    /// that holds the same entries, so that the tombstones this apply writes agree everywhere.
    static func after(_ entries: [SyncEntry]) throws -> SyncStamp {
        guard let latest = entries.map(\.stamp).max() else {
            throw SyncError(.refused, "an object of the changeset has no sync state")
        }
        return SyncStamp(time: SyncClock.stamp(latest.time, after: latest.time), library: latest.library)
    }

    /// Moves what the sync state holds on photo `loser` to `survivor`: each tag link present on
    /// the loser becomes present on the survivor (with the loser's stamp, unless the survivor's
    /// own entry for that tag is later), each live rating of the loser is copied to a rating of
    /// the survivor whose uuid is derived from the loser's (`movedRatingID`, so that every peer
    /// makes the same one) and gets its tombstone; one rating per author still holds (the later
    /// value wins, in `materializeRating`), ratings without an author all move.
    /// - Returns: the survivor's links written (to make so in the catalog).
    /// - Throws: the store's error.
    private mutating func moveToSurvivor(from loser: String, to survivor: String) throws -> [String] {
        guard let zone = try store.catalogAttributes(.photo, survivor)?["zone"] else { return [] }
        var links: [String] = []
        for e in try store.syncLinkEntries(ofPhoto: loser) where e.attribute == "present" && e.value == "1" {
            let id = survivor + "/" + e.objectID.dropFirst(loser.count + 1)
            let here = try store.syncEntries(.photoTag, id)
            if here.contains(where: { $0.attribute == SyncEntity.deleted }) { continue }
            if let old = here.first(where: { $0.attribute == "present" }), old.stamp >= e.stamp { continue }
            var moved = e
            moved.objectID = id
            moved.zone = zone
            try store.putSyncEntry(moved, token: token)
            links.append(id)
        }
        for rating in try store.liveSyncObjects(.rating).sorted() {
            let entries = try store.syncEntries(.rating, rating)
            guard entries.contains(where: { $0.attribute == "photo" && $0.value == loser }) else { continue }
            let id = try Self.movedRatingID(rating, to: survivor)
            let there = try store.syncEntries(.rating, id)
            if !there.contains(where: { $0.attribute == SyncEntity.deleted }) {
                for e in entries where e.attribute != SyncEntity.deleted {
                    if let old = there.first(where: { $0.attribute == e.attribute }), old.stamp >= e.stamp { continue }
                    var moved = e
                    moved.objectID = id
                    moved.zone = zone
                    if e.attribute == "photo" { moved.value = survivor }
                    try store.putSyncEntry(moved, token: token)
                }
            }
            try tombstone(.rating, rating, stamp: try Self.after(entries), zone: entries.first?.zone)
            try materializeRating(rating, try values(.rating, rating))
            try materializeRating(id, try values(.rating, id))
        }
        return links
    }

    /// The uuid of the rating that rating `rating` of a deleted photo becomes on `survivor`: the
    /// first 128 bits of SHA-256 of both, as an RFC 9562 §5.8 version-8 UUID (lowercase), the
    /// same on every peer.
    static func movedRatingID(_ rating: String, to survivor: String) throws -> String {
        let hasher = try SHA256Hasher()
        Array("photos-moved-rating:\(rating)/\(survivor.lowercased())".utf8).withUnsafeBytes { hasher.update($0) }
        var hex = Array(hasher.finalizeHex().prefix(32))
        hex[12] = "8"
        let variant = "89ab"
        hex[16] = variant[variant.index(variant.startIndex, offsetBy: (Int(String(hex[16]), radix: 16) ?? 0) & 3)]
        let s = String(hex)
        func part(_ from: Int, _ to: Int) -> Substring {
            s[s.index(s.startIndex, offsetBy: from)..<s.index(s.startIndex, offsetBy: to)]
        }
        return [part(0, 8), part(8, 12), part(12, 16), part(16, 20), part(20, 32)].joined(separator: "-")
    }

    private func zoneExists(_ zone: String) throws -> Bool {
        try library.catalogStore.zoneExists(zone)
    }

    private mutating func materializeTag(_ id: String, _ v: [String: String?]) throws {
        let here = try store.catalogAttributes(.tag, id)
        if v[SyncEntity.deleted] != nil {
            guard here != nil, let rowID = try store.rowID(.tag, id) else { return }
            for (name, zone) in try library.catalogStore.photos(ofTag: rowID) {
                history.update(.photo(uniqueName: name), ["tags"], zone: zone)
            }
            try history.delete(.tag, .rowID(rowID))
            try store.deleteObject(.tag, id)
            deleted += 1
            return
        }
        guard let name = v["name"] ?? nil, let zone = v["zone"] ?? nil else { return }
        if let dead = try zoneTombstone(zone) {
            try tombstone(.tag, id, stamp: dead.stamp, zone: zone)
            try materializeTag(id, try values(.tag, id))
            return
        }
        guard try zoneExists(zone) else { return }
        guard here?["name"] != name || here?["zone"] != zone else { return }
        try store.putTag(uuid: id, name: name, zone: zone)
        if here == nil {
            history.insert(.tag(uuid: id), zone: zone)
            inserted += 1
        } else {
            history.update(.tag(uuid: id), ["name"], zone: zone)
            updated += 1
        }
    }

    private mutating func materializeRating(_ id: String, _ v: [String: String?]) throws {
        let here = try store.catalogAttributes(.rating, id)
        if v[SyncEntity.deleted] != nil {
            guard here != nil, let rowID = try store.rowID(.rating, id) else { return }
            try history.delete(.rating, .rowID(rowID))
            try store.deleteObject(.rating, id)
            deleted += 1
            return
        }
        guard let photo = v["photo"] ?? nil, let value = (v["value"] ?? nil).flatMap({ Int($0) }),
            let zone = try store.catalogAttributes(.photo, photo)?["zone"]
        else { return }
        let author = v["author"] ?? nil
        if let here {
            guard here["value"] != String(value) else { return }
            try store.putRating(uuid: id, photo: photo, value: value, author: author)
            history.update(.rating(uuid: id), ["value"], zone: zone)
            updated += 1
            return
        }
        // One rating per author per photo (schema migration 5): two libraries that rated the
        // same photo as the same author keep the rating whose value is the later change (ties:
        // the larger uuid), on every peer alike; the other is deleted with the winner's stamp.
        if let author, let other = try store.rating(ofPhoto: photo, author: author), other != id {
            let mine = try valueStamp(id), theirs = try valueStamp(other)
            let (winner, loser) = (mine, id) > (theirs, other) ? (id, other) : (other, id)
            try tombstone(.rating, loser, stamp: try valueStamp(winner), zone: try valueEntry(loser).zone)
            try materializeRating(loser, try values(.rating, loser))
            if winner == other { return }
        }
        try store.putRating(uuid: id, photo: photo, value: value, author: author)
        history.insert(.rating(uuid: id), zone: zone)
        inserted += 1
    }

    /// The entry of a rating's value (its stamp decides between two ratings of one author).
    private func valueEntry(_ rating: String) throws -> SyncEntry {
        let entries = try store.syncEntries(.rating, rating)
        guard let e = entries.first(where: { $0.attribute == "value" }) ?? entries.first else {
            throw SyncError(.refused, "rating \(rating) has no sync state")
        }
        return e
    }

    private func valueStamp(_ rating: String) throws -> SyncStamp { try valueEntry(rating).stamp }

    private mutating func materializeParticipant(_ id: String, _ v: [String: String?]) throws {
        let here = try store.catalogAttributes(.participant, id)
        if v[SyncEntity.deleted] != nil {
            guard here != nil, let rowID = try store.rowID(.participant, id) else { return }
            try history.delete(.participant, .rowID(rowID))
            try store.deleteObject(.participant, id)
            deleted += 1
            return
        }
        guard let share = v["share"] ?? nil, let email = v["email"] ?? nil, let role = v["role"] ?? nil,
            let permission = v["permission"] ?? nil, let acceptance = v["acceptance"] ?? nil,
            try store.catalogAttributes(.share, share) != nil
        else { return }
        let wanted = ["share": share, "email": email, "role": role, "permission": permission, "acceptance": acceptance]
        guard here != wanted else { return }
        try store.putParticipant(
            uuid: id, share: share, email: email, role: role, permission: permission, acceptance: acceptance)
        if here == nil {
            history.insert(.participant(uuid: id), zone: share)
            inserted += 1
        } else {
            history.update(.participant(uuid: id), ["permission", "acceptance"], zone: share)
            updated += 1
        }
    }
}
