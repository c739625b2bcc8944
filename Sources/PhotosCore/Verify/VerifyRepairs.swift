import Foundation
import PhotosFiles
import PhotosImaging
import PhotosModel

extension Library {
    /// What `makeRepairs` did: the repairs made, and why the others were not.
    struct RepairOutcome {
        var made = Set<VerifyRepair>()
        var notes: [VerifyRepair: String] = [:]
    }

    /// Makes the planned repairs: file removals, tag names, then tag links, file references,
    /// thumbnails, and photo deletions, each step in its own transaction. `outcome` holds what
    /// was made (committed, or in a dry run: made and rolled back) when a step throws.
    /// - Throws: `LibraryError.busy`; the store's error; `StopSignal`'s between the steps (each
    ///   is committed or not begun, issue 31 item 19).
    func makeRepairs(_ repairs: [VerifyRepair], author: HistoryAuthor, outcome: inout RepairOutcome) throws {
        var orphans: [String] = []
        var thumbnails: [String] = []
        var deletions: [String] = []
        var references: [VerifyRepair] = []
        var relinks: [VerifyRepair] = []
        var tagNames: [VerifyRepair] = []
        for r in repairs {
            switch r {
            case .normalizeTagName: tagNames.append(r)
            case .relinkTag: relinks.append(r)
            case .fixFileReference: references.append(r)
            case .removeFile(let ref): orphans.append(ref)
            case .regenerateThumbnail(let name, _): thumbnails.append(name)
            case .deletePhoto(let name, _, _, _, _): deletions.append(name)
            }
        }
        if !orphans.isEmpty { try removeOrphans(orphans, outcome: &outcome) }
        if !tagNames.isEmpty { try normalizeTagNames(tagNames, author: author, outcome: &outcome) }
        try StopSignal.check() // between the steps: each is committed or not begun (issue 31 item 19)
        if !relinks.isEmpty { try relinkTags(relinks, author: author, outcome: &outcome) }
        try StopSignal.check() // between the steps: each is committed or not begun (issue 31 item 19)
        if !references.isEmpty { try fixFileReferences(references, author: author, outcome: &outcome) }
        try StopSignal.check() // between the steps: each is committed or not begun (issue 31 item 19)
        if !thumbnails.isEmpty { try regenerateThumbnails(thumbnails, author: author, outcome: &outcome) }
        try StopSignal.check() // between the steps: each is committed or not begun (issue 31 item 19)
        if !deletions.isEmpty {
            try deleteGonePhotos(deletions, repairs: repairs, author: author, outcome: &outcome)
        }
    }

    /// Removes the orphans (`ab/abcdef…`) still unreferenced under the write lock.
    /// - Throws: `LibraryError.busy`; the store's error.
    private func removeOrphans(_ orphans: [String], outcome: inout RepairOutcome) throws {
        // A running import's written-but-uncommitted originals look like orphans: remove
        // orphans only while no import holds the import lock, and only those still
        // unreferenced under the write lock.
        let importLock = lockImports(exclusive: true)
        defer { if let importLock { close(importLock) } }
        if importLock != nil {
            try write {
                for ref in orphans where !isReferenced(fileReference: ref) {
                    let code = externalData.removeFile(reference: ref)
                    if code == 0 || code == ENOENT || code == ENOTDIR {
                        // Removed, or gone already: either way no orphan is left.
                        outcome.made.insert(.removeFile(reference: ref))
                    } else {
                        outcome.notes[.removeFile(reference: ref)] =
                            "left in place: \(ExternalDataStore.removalFailure(code))\(code == EISDIR ? "; remove it yourself if it is not wanted" : "")"
                    }
                }
            }
        } else {
            for ref in orphans {
                outcome.notes[.removeFile(reference: ref)] =
                    "left in place: an import is running and may still commit it; repair again later"
            }
        }
    }

    /// Moves the tag links that cross zones (`.relinkTag`), in one write transaction.
    /// - Throws: `LibraryError.busy`; the store's error.
    private func relinkTags(_ relinks: [VerifyRepair], author: HistoryAuthor, outcome: inout RepairOutcome) throws {
        let relinked: [VerifyRepair] = try write {
            var history = HistoryWriter(self, author: author, context: .verifyRepair)
            var done: [VerifyRepair] = []
            for case let .relinkTag(name, _, uuid, tagName, zone) in relinks {
                guard
                    let target = try verifyStore.relinkTag(
                        photo: name, zone: zone, from: uuid, toTagNamed: tagName,
                        newUUID: newObjectUUID())
                else { continue }
                if target.createdTag { history.insert(.tag(uuid: target.uuid), zone: zone) }
                // A tag link is an update of `tags` on the Photo, as `tag add`/`tag remove` record it.
                history.update(.photo(uniqueName: name), ["tags"], zone: zone)
                done.append(
                    contentsOf: relinks.filter {
                        if case .relinkTag(name, _, uuid, _, _) = $0 { return true } else { return false }
                    })
            }
            try history.commit()
            return done
        }
        outcome.made.formUnion(relinked)
    }

    /// Points the PhotoData rows at their content addresses (`.fixFileReference`), in one write
    /// transaction.
    /// - Throws: `LibraryError.busy`; the store's error.
    private func fixFileReferences(
        _ references: [VerifyRepair], author: HistoryAuthor, outcome: inout RepairOutcome
    ) throws {
        let fixed: [VerifyRepair] = try write {
            var history = HistoryWriter(self, author: author, context: .verifyRepair)
            var fixed: [VerifyRepair] = []
            for case let .fixFileReference(name, display, from, to) in references {
                guard let zone = try verifyStore.replaceFileReference(photo: name, from: from, to: to) else {
                    continue
                }
                history.update(.photoData(photo: name), ["fileReference"], zone: zone)
                fixed.append(.fixFileReference(uniqueName: name, displayName: display, from: from, to: to))
            }
            try history.commit()
            return fixed
        }
        outcome.made.formUnion(fixed)
    }

    /// Makes the thumbnails of `names` again from their originals, outside the write lock
    /// (decoding takes time), then writes them in one transaction.
    /// - Throws: `LibraryError.busy`; the store's error.
    private func regenerateThumbnails(_ names: [String], author: HistoryAuthor, outcome: inout RepairOutcome) throws {
        let made = thumbnailsFromOriginals(names, outcome: &outcome)
        let regenerated: [VerifyRepair] = try write {
            var history = HistoryWriter(self, author: author, context: .verifyRepair)
            var regenerated: [VerifyRepair] = []
            for item in made {
                let r = item.result
                guard
                    let stored = try verifyStore.storeThumbnail(
                        photo: item.name, data: r.thumbnail, width: r.thumbnailWidth,
                        height: r.thumbnailHeight)
                else { continue }
                if stored.inserted {
                    history.insert(.thumbnail(photo: item.name), zone: stored.zone)
                } else {
                    history.update(.thumbnail(photo: item.name), ["data", "width", "height"], zone: stored.zone)
                }
                regenerated.append(.regenerateThumbnail(uniqueName: item.name, displayName: item.display))
            }
            try history.commit()
            return regenerated
        }
        outcome.made.formUnion(regenerated)
    }

    /// The thumbnails of `names` made from their originals, with a note in `outcome` on each
    /// that cannot be made.
    private func thumbnailsFromOriginals(
        _ names: [String], outcome: inout RepairOutcome
    ) -> [(name: String, display: String, result: ThumbnailResult)] {
        var made: [(name: String, display: String, result: ThumbnailResult)] = []
        for name in names {
            guard let photo = try? resolvePhoto(name) else { continue }
            let key = VerifyRepair.regenerateThumbnail(uniqueName: name, displayName: photo.displayName)
            do {
                // From the content address of its SHA-256: where the original is, also when
                // the step above fixed its reference (and a dry run rolled that back).
                let file = try ImageFile.read(
                    path: externalData.path(for: ExternalDataStore.reference(for: photo.sha256)),
                    maxBytes: ThumbnailOptions().maxFileBytes)
                guard file.sha256 == photo.sha256 else {
                    outcome.notes[key] = "its original does not match its SHA-256; re-import the intact file"
                    continue
                }
                let result = try file.bytes.withUnsafeBytes {
                    try Thumbnailer.makeThumbnail(from: $0, options: ThumbnailOptions())
                }
                made.append((name, photo.displayName, result))
            } catch {
                outcome.notes[key] = "cannot make it from the original: \(error)"
            }
        }
        return made
    }

    /// Deletes the photos of `deletions` whose original is still missing now.
    /// - Throws: `LibraryError.busy`; the store's error.
    private func deleteGonePhotos(
        _ deletions: [String], repairs: [VerifyRepair], author: HistoryAuthor, outcome: inout RepairOutcome
    ) throws {
        let gone = deletions.compactMap { try? resolvePhoto($0) }.filter { photo in
            var st = stat()
            return stat(externalData.path(for: photo.fileReference), &st) != 0
                && (errno == ENOENT || errno == ENOTDIR)
        }
        try deletePhotos(gone, author: author, context: .verifyRepair)
        for r in repairs {
            if case .deletePhoto(let name, _, _, _, _) = r {
                if gone.contains(where: { $0.uniqueName == name }) {
                    outcome.made.insert(r)
                } else {
                    outcome.notes[r] = "not deleted: its original is back"
                }
            }
        }
    }
}

extension Library {
    /// Makes the `.normalizeTagName` repairs in one write transaction (#31 A9): per tag, every
    /// tag of its zone whose NFC name is the normalized one, and the tag itself, are merged as
    /// `dedupe-tags` merges them (the smallest uuid stays; the others' photos are re-pointed to
    /// it, `mergeTag`, and they are deleted with their tombstones); the one that stays is renamed
    /// to the normalized name when its stored name differs (compared by scalars: Swift's String
    /// equality holds a decomposed name equal to its NFC form). Zones of the shared store are
    /// their owners' to repair: noted, not changed. History context `verify --repair`.
    /// - Throws: `LibraryError.busy`; the store's error.
    fileprivate func normalizeTagNames(
        _ repairs: [VerifyRepair], author: HistoryAuthor, outcome: inout RepairOutcome
    ) throws {
        var made: [VerifyRepair] = []
        var notes: [VerifyRepair: String] = [:]
        try write {
            var history = HistoryWriter(self, author: author, context: .verifyRepair)
            var gone = Set<String>()
            for repair in repairs {
                guard case let .normalizeTagName(uuid, _, normalized, zone) = repair else { continue }
                if gone.contains(uuid) {
                    // Merged already, as a loser of an earlier group.
                    made.append(repair)
                    continue
                }
                if try isSharedStoreZone(zone) {
                    notes[repair] = "left alone: zone \(zone) is a share of another library, whose owner repairs it"
                    continue
                }
                var group = try catalogStore.tags(named: normalized, zone: zone).map(TagRef.init)
                if !group.contains(where: { $0.uuid == uuid }),
                    let own = try catalogStore.tags(inZone: zone).first(where: { $0.uuid == uuid })
                {
                    group.append(TagRef(own))
                }
                group.sort { uuidByteOrder($0.uuid, $1.uuid) }
                guard let winner = group.first else { continue }
                for loser in group.dropFirst() {
                    try mergeTag(loser, into: winner, history: &history)
                    gone.insert(loser.uuid)
                }
                if !Array(winner.name.unicodeScalars).elementsEqual(Array(normalized.unicodeScalars)) {
                    try catalogStore.renameTag(winner.rowID, to: normalized)
                    history.update(.tag(uuid: winner.uuid), ["name"], zone: zone)
                }
                made.append(repair)
            }
            try history.commit()
        }
        outcome.made.formUnion(made)
        outcome.notes.merge(notes) { a, _ in a }
    }
}
