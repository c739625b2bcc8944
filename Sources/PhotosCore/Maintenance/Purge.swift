import Foundation
import PhotosFiles
import PhotosSQLite

/// What `photos purge --share` deleted (or, with `--dry-run`, would delete).
public struct PurgeReport: Equatable {
    public var zone: String
    public var photos = 0
    public var photoData = 0
    public var thumbnails = 0
    public var ratings = 0
    public var tags = 0
    public var participants = 0
    public var shares = 0
    /// Original files removed after the commit (files still referenced elsewhere stay).
    public var filesRemoved = 0
    public var dryRun = false

    public var json: JSONValue {
        .object([("zone", .string(zone)), ("photos", .int(photos)), ("photoData", .int(photoData)),
                 ("thumbnails", .int(thumbnails)), ("ratings", .int(ratings)), ("tags", .int(tags)),
                 ("participants", .int(participants)), ("shares", .int(shares)), ("filesRemoved", .int(filesRemoved)),
                 ("dryRun", .bool(dryRun))])
    }
}

extension Library {
    /// The zone id of the share (or zone) `argument` names: an exact id, or an unambiguous id
    /// prefix of at least 4 characters, compared case-insensitively (SPEC §5).
    /// - Throws: `PhotosError` 66 when none matches, 65 when ambiguous (listing the candidates).
    public func resolveZone(_ argument: String) throws -> String {
        switch try resolveKey(table: "zone", column: "id", argument) {
        case .found(let id): return id
        case .none, .tooShort: throw PhotosError.noInput("no share or zone '\(argument)' in the library")
        case .ambiguous(let ids): throw PhotosError.dataError("share prefix '\(argument)' is ambiguous: \(Library.candidateList(ids))")
        }
    }

    /// Deletes every object of a zone — its photos with their photo data, thumbnails and ratings,
    /// its tags, the share and its participants, and the zone — in one transaction recorded in
    /// history with a tombstone for every delete, of the shapes `HistoryEntity` declares (author
    /// `purge` unless `--author` is given, SPEC §5 purge). Originals are
    /// removed after the commit, and only those no remaining row references; nothing outside the
    /// library's external data folder is ever touched. A dry run (`dryRun`, or a library in
    /// dry-run mode) runs the same code, rolls it back and removes no file; its
    /// `filesRemoved` counts the files a real run would remove.
    /// - Throws: `PhotosError` 65 for the default zone, 75 when busy; `SQLiteError`.
    public func purge(zone: String, dryRun: Bool = false, author: HistoryAuthor = .default) throws -> PurgeReport {
        guard zone != Schema.defaultZoneID else {
            throw PhotosError.dataError("the default zone cannot be purged (delete its photos with 'photos delete')")
        }
        return try self.dryRun(dryRun) { try purgeZone(zone, author: author) }
    }

    private func purgeZone(_ zone: String, author: HistoryAuthor) throws -> PurgeReport {
        var report = PurgeReport(zone: zone)
        report.dryRun = isDryRun
        var references: [String] = []
        var unreferenced: [String] = []
        try write {
            let z: [SQLBindable] = [zone]
            report.photos = try self.db.scalarInt("SELECT count(*) FROM photo WHERE zone_id = ?", z) ?? 0
            report.photoData = try self.db.scalarInt("SELECT count(*) FROM photo_data d JOIN photo p ON p.id = d.photo_id WHERE p.zone_id = ?", z) ?? 0
            report.thumbnails = try self.db.scalarInt("SELECT count(*) FROM thumbnail t JOIN photo p ON p.id = t.photo_id WHERE p.zone_id = ?", z) ?? 0
            report.ratings = try self.db.scalarInt("SELECT count(*) FROM rating r JOIN photo p ON p.id = r.photo_id WHERE p.zone_id = ?", z) ?? 0
            report.tags = try self.db.scalarInt("SELECT count(*) FROM tag WHERE zone_id = ?", z) ?? 0
            report.participants = try self.db.scalarInt("SELECT count(*) FROM participant WHERE share_id = ?", z) ?? 0
            report.shares = try self.db.scalarInt("SELECT count(*) FROM share WHERE id = ?", z) ?? 0
            // The recorded reference and the content address of the SHA-256 (they differ only
            // in a damaged row; the file, if any, is at the content address).
            references = try Statement.prepare(self.db, "SELECT DISTINCT d.file_ref, d.sha256 FROM photo_data d JOIN photo p ON p.id = d.photo_id WHERE p.zone_id = ?")
                .map(z) { [$0.string(0), ExternalDataStore.reference(for: $0.string(1))] }.flatMap { $0 }
            try self.checkRemovable(references)
            // One history transaction; its deletes are written set-wise, straight from the rows,
            // with the tombstones every other command writes (`HistoryEntity`).
            var history = HistoryWriter(self, author: author, context: .purge)
            for entity in HistoryEntity.photoChildren + [.photo, .tag, .participant, .share] {
                try history.deleteSetWise(entity, .zone(zone))
            }
            try history.commit()
            // Cascades remove photo data, thumbnails, ratings, tag links and participants.
            try self.db.run("DELETE FROM photo WHERE zone_id = ?", z)
            try self.db.run("DELETE FROM tag WHERE zone_id = ?", z)
            try self.db.run("DELETE FROM share WHERE id = ?", z)
            try self.db.run("DELETE FROM zone WHERE id = ?", z)
            unreferenced = self.unreferencedFiles(references)
        }
        report.filesRemoved = isDryRun ? unreferenced.count : removeUnreferencedFiles(references)
        return report
    }
}
