import Foundation
import PhotosFiles
import PhotosModel

/// What `photos purge --share` deleted (or, with `--dry-run`, would delete).
@dynamicMemberLookup
public struct PurgeReport: Equatable {
    public var zone: ZoneID
    /// What the zone held, and so what the purge deletes (`report.photos`, `report.tags`, …).
    public var contents = ZoneContents()
    /// Original files removed after the commit (files still referenced elsewhere stay); in a
    /// dry run, those a real run would remove. Only files actually removed count.
    public var filesRemoved = 0
    /// Originals no row references after the commit that could not be removed (a folder in
    /// their place, a permission or I/O error, the write lock held past the wait), each with
    /// why, in reference order; in a dry run, those a real run could not remove. The purge
    /// itself is committed; `verify --repair` or the user removes them.
    public var filesLeft: [FileLeftInPlace] = []
    public var dryRun = false

    /// A count of `contents`, read as if it were the report's own.
    public subscript(dynamicMember keyPath: KeyPath<ZoneContents, Int>) -> Int { contents[keyPath: keyPath] }

    public var json: JSONValue {
        let c = contents
        return .object([
            ("zone", .string(zone.rawValue)), ("photos", .int(c.photos)), ("photoData", .int(c.photoData)),
            ("thumbnails", .int(c.thumbnails)), ("ratings", .int(c.ratings)), ("tags", .int(c.tags)),
            ("participants", .int(c.participants)), ("shares", .int(c.shares)), ("filesRemoved", .int(filesRemoved)),
            ("filesLeft", .array(filesLeft.map(\.json))), ("dryRun", .bool(dryRun))
        ])
    }
}

extension Library {
    /// Where a zone's rows are counted and deleted.
    var zonePurgeStore: any ZonePurgeStore { store }

    /// The zone id of the share (or zone) `argument` names: an exact id, or an unambiguous id
    /// prefix of at least 4 characters, compared case-insensitively (SPEC §5).
    /// - Throws: `MaintenanceError.zoneNotFound` when none matches, `LibraryError.prefixTooShort`
    ///   for a prefix shorter than 4 characters (a bad argument, as for every other prefix),
    ///   `.zonePrefixAmbiguous` listing the candidates.
    public func resolveZone(_ argument: String) throws -> ZoneID {
        let resolution = try resolveKey(table: "zone", column: "id", argument)
        let text = argument.trimmingCharacters(in: .whitespaces).lowercased()
        if case .found(let id) = resolution, id.lowercased() == text { return ZoneID(rawValue: id) }
        // A share's title names its zone too (issue 32 item 4), by the rule of `resolveShare`
        // (whole id, exact title, id prefix, title prefix): a title that is another share's id
        // prefix is ambiguous (65), never the prefix's zone purged silently. Its ambiguity and
        // store errors go through; only "no such share" falls back to zones without a share.
        do {
            return ZoneID(rawValue: try resolveShare(argument).id)
        } catch LibraryError.notFound(_), LibraryError.prefixTooShort(_, _, _) {}
        switch resolution {
        case .found(let id): return ZoneID(rawValue: id)
        case .none: throw MaintenanceError.zoneNotFound(argument)
        case .tooShort:
            throw LibraryError.prefixTooShort(.share, argument: argument, minimum: Library.minimumPrefixLength)
        case .ambiguous(let ids): throw MaintenanceError.zonePrefixAmbiguous(argument, candidates: ids)
        }
    }

    /// Deletes every object of a zone — its photos with their photo data, thumbnails and ratings,
    /// its tags, the share and its participants, and the zone — in one transaction recorded in
    /// history with a tombstone for every delete, of the shapes `HistoryEntity` declares (author
    /// `purge` unless `--author` is given, SPEC §5 purge). Originals are
    /// removed after the commit, and only those no remaining row references; nothing outside the
    /// library's external data folder is ever touched. A dry run (`dryRun`, or a library in
    /// dry-run mode) runs the same code, rolls it back and removes no file; its
    /// `filesRemoved` counts the files a real run would remove. An original that cannot be
    /// removed after the commit (a folder in its place, unlink(2)'s error, the write lock held
    /// past the wait) is not counted but listed in `filesLeft` with why; the purge stands.
    /// - Throws: `MaintenanceError.defaultZoneNotPurgeable` for the default zone;
    ///   `LibraryError.busy` when another process holds the lock past the wait, `LibraryError`
    ///   for the store's failures; `OriginalRemovalError` when an original cannot be removed
    ///   (`checkRemovable`, nothing deleted).
    /// - Parameter progress: called with (phases done, phases in all) after each phase: the
    ///   count, each set-wise delete of one entity (photo children, photos, tags,
    ///   participants, shares), the zone's own delete, and the removal of the originals.
    ///   The deletes are set-wise SQL, so a phase is the unit of progress, not an object.
    public func purge(
        zone: ZoneID, dryRun: Bool = false, author: HistoryAuthor = .default,
        progress: (_ done: Int, _ total: Int) -> Void = { _, _ in }
    ) throws -> PurgeReport {
        guard zone != .default else { throw MaintenanceError.defaultZoneNotPurgeable }
        return try self.dryRun(dryRun) { try purgeZone(zone, author: author, progress: progress) }
    }

    /// The phases `purge` reports progress in (see its `progress`).
    public static var purgePhaseCount: Int { HistoryEntity.photoChildren.count + 4 + 3 }

    private func purgeZone(
        _ zone: ZoneID, author: HistoryAuthor, progress: (_ done: Int, _ total: Int) -> Void
    ) throws -> PurgeReport {
        let total = Library.purgePhaseCount
        var done = 0
        func step() {
            done += 1
            progress(done, total)
        }
        let store = zonePurgeStore
        var report = PurgeReport(zone: zone)
        report.dryRun = isDryRun
        var references: [String] = []
        var unreferenced: [String] = []
        // One transaction: a stop signal is heeded before it, not inside (issue 31 item 19).
        try StopSignal.check()
        try write {
            let contents = try store.zoneContents(zone)
            report.contents = contents
            // The recorded reference and the content address of the SHA-256 (they differ only
            // in a damaged row; the file, if any, is at the content address).
            references = try store.fileReferences(inZone: zone)
                .flatMap { [$0.fileReference, ExternalDataStore.reference(for: $0.sha256)] }
            try self.checkRemovable(references)
            step()
            // One history transaction; its deletes are written set-wise, straight from the rows,
            // with the tombstones every other command writes (`HistoryEntity`).
            var history = HistoryWriter(self, author: author, context: .purge)
            for entity in HistoryEntity.photoChildren + [.photo, .tag, .participant, .share] {
                try history.deleteSetWise(entity, .zone(zone.rawValue))
                step()
            }
            try history.commit()
            try store.deleteZone(zone)
            step()
            // Only a dry run reports them from here; a real run counts what it removes.
            if isDryRun { unreferenced = self.unreferencedFiles(references) }
        }
        if isDryRun {
            // What unlink(2) would answer for each (`ExternalDataStore.removeFile` in a dry run).
            for ref in unreferenced where ExternalDataStore.isContained(ref) {
                let code = externalData.removeFile(reference: ref)
                if code == 0 {
                    report.filesRemoved += 1
                } else if code != ENOENT && code != ENOTDIR {
                    report.filesLeft.append(
                        FileLeftInPlace(
                            reference: ref, path: externalData.path(for: ref),
                            reason: ExternalDataStore.removalFailure(code)))
                }
            }
        } else {
            (report.filesRemoved, report.filesLeft) = removeUnreferencedFilesSayingWhy(references)
        }
        step()
        return report
    }
}
