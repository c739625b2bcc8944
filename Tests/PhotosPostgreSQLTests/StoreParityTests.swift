import PhotosModel
import PhotosPostgreSQL
import PhotosSQLite
import PhotosTestSupport
import XCTest

/// Every store protocol answers the same on PostgreSQL as on SQLite: one scripted sequence of
/// writes through the protocols (photos through each backend's photo writer), then every read,
/// compared value for value.
final class StoreParityTests: PostgresTestCase {
    typealias Stores = CatalogStore & HistoryStore & HistoryFeedStore & HistoryCompactionStore & VerifyStore
        & TagDedupeStore & ZonePurgeStore & MergeSourceStore & MergeTargetStore & StatsStore & ImportStore
        & ExportStore

    /// A photo to insert: unique name, original's digest, thumbnail, zone, capture time and offset.
    typealias NewPhoto = (name: String, sha: String, thumbnail: [UInt8]?, zone: String, capture: String?, offset: Int?)

    func testEveryStoreReadsTheSameAsOnSQLite() throws {
        let sqlite = try migratedSQLiteDatabase()
        let onSQLite = try script(sqlite) { p in
            try sqlite.transaction {
                try PhotoWriter(sqlite).insert(
                    PhotoRow(
                        uniqueName: p.name, displayName: p.name + ".jpg", importedAt: "2026-01-02T03:04:05.678Z",
                        captureDate: p.capture, captureOffset: p.offset, captureSource: p.capture.map { _ in "exif" },
                        width: 40, height: 30, format: .jpeg, orientation: .right, zoneID: ZoneID(rawValue: p.zone)),
                    sha256: p.sha, byteSize: 1000, fileReference: "ab/" + p.sha,
                    thumbnail: p.thumbnail.map { ThumbnailRow(data: $0, width: 4, height: 3) })
            }
        }
        let pg = db!
        let onPostgres = try script(pg) { p in
            try pg.transaction {
                try PostgresPhotoWriter(pg).insert(
                    PhotoRow(
                        uniqueName: p.name, displayName: p.name + ".jpg", importedAt: "2026-01-02T03:04:05.678Z",
                        captureDate: p.capture, captureOffset: p.offset,
                        captureSource: p.capture.map { _ in "exif" }, width: 40, height: 30, format: .jpeg,
                        orientation: .right, zoneID: ZoneID(rawValue: p.zone)),
                    sha256: p.sha, byteSize: 1000, fileReference: "ab/" + p.sha,
                    thumbnail: p.thumbnail.map { (data: $0, width: 4, height: 3) })
            }
        }
        XCTAssertEqual(onSQLite.count, onPostgres.count)
        for (index, (a, b)) in zip(onSQLite, onPostgres).enumerated() {
            XCTAssertEqual(b, a, "read \(index) differs")
        }
    }

    /// Stats with the library id (random per library, migration 6) replaced by whether it is
    /// a lowercase UUID.
    static func comparable(_ stats: LibraryStats) -> LibraryStats {
        var s = stats
        let id = s.libraryID
        s.libraryID = id.count == 36 && id == id.lowercased() && UUID(uuidString: id) != nil ? "a UUID" : id
        return s
    }

    /// The scripted writes, then every read as text.
    private func script(_ s: any Stores, insertPhoto: (NewPhoto) throws -> Int64) throws -> [String] {
        var out: [String] = []
        func read(_ label: String, _ value: Any) { out.append(label + ": " + String(describing: value)) }

        _ = try s.addZoneIfAbsent(ZoneRecord(id: "s1", name: "s1", scope: "shared"))
        try s.insertShare(id: "s1", title: "Trip", created: "2026-01-01T00:00:00.000Z")
        try s.createPrivateZone("work")
        let p1 = try insertPhoto(("p1", sha(1), [0, 255, 1, 0, 92, 120], "default", "2025-06-07T08:09:10", 120))
        let p2 = try insertPhoto(("p2", sha(2), [9], "default", "2025-06-07T07:00:00", nil))
        let p3 = try insertPhoto(("P3", sha(3), nil, "s1", nil, nil))
        let t1 = try s.insertTag(uuid: "b0000000-0000-4000-8000-000000000001", name: "Beach", zone: "default")
        let t2 = try s.insertTag(uuid: "a0000000-0000-4000-8000-000000000002", name: "beach", zone: "default")
        let t3 = try s.insertTag(uuid: "c0000000-0000-4000-8000-000000000003", name: "Beach", zone: "s1")
        try s.link(photo: p1, tag: t1)
        try s.link(photo: p1, tag: t1)
        try s.link(photo: p2, tag: t2)
        try s.link(photo: p3, tag: t3)
        try s.link(photo: p1, tag: t3)
        try s.linkPhotos(ofTag: t2, toTag: t1)
        for (photo, value, author) in [(p1, 5, "ann"), (p1, 4, nil), (p2, 2, "bob")] {
            _ = try s.insertRating(
                uuid: "d000000\(value)-0000-4000-8000-00000000000\(photo)", photo: photo,
                value: try XCTUnwrap(RatingValue(rawValue: value)), author: author)
        }
        read("rating of author", try s.rating(ofPhoto: p1, author: "ann") as Any)
        read("rating of nobody", try s.rating(ofPhoto: p1, author: "zed") as Any)
        read(
            "participant 1",
            try s.insertParticipant(
                uuid: "e0000000-0000-4000-8000-000000000001", share: "s1", email: Email(rawValue: "o@example.com"),
                role: .owner, permission: .readWrite, acceptance: .accepted, ignoringExisting: false))
        read(
            "participant again",
            try s.insertParticipant(
                uuid: "e0000000-0000-4000-8000-000000000002", share: "s1", email: Email(rawValue: "o@example.com"),
                role: .owner, permission: .readWrite, acceptance: .accepted, ignoringExisting: true))
        let token = try s.appendHistoryTransaction(
            timestamp: "2026-01-01T00:00:00.000Z", author: "ann", context: .import)
        try s.appendHistoryChanges(
            [
                HistoryChange(entity: "Photo", objectID: "p1", type: .insert, zone: "default"),
                HistoryChange(entity: "Tag", objectID: "x", type: .update, updated: ["name", "zone"], zone: "default"),
                HistoryChange(entity: "Tag", objectID: "y", type: .delete, tombstone: [("name", "n"), ("uuid", "u")])
            ], token: token)
        try s.appendDeleteChangesSetWise(.rating, .photo(p1), token: token)
        try s.appendDeleteChangesSetWise(.photo, .zone("s1"), token: token)
        read("delete changes", try s.deleteChanges(.photo, .zone("default")))
        read("has rows", [try s.hasRows(.rating, .photo(p2)), try s.hasRows(.rating, .photo(p3))])
        let second = try s.appendHistoryTransaction(
            timestamp: "2026-02-01T00:00:00.000Z", author: "bob", context: .rate)
        try s.appendHistoryChanges([HistoryChange(entity: "Rating", objectID: "r", type: .insert)], token: second)
        try s.setHistoryConsumerToken("sync", token)
        try s.setHistoryConsumerToken("sync", second)
        try s.setHistoryConsumerToken("backup", token)

        // Reads.
        func photos(_ q: PhotoQuery) throws -> [String] {
            var names: [String] = []
            try s.forEachPhoto(matching: q) { photo in
                // Tag names and ratings read with the row (PostgreSQL; nil on SQLite) must be
                // the store's own per-photo answers; compared without them.
                if let tags = photo.tagNames { XCTAssertEqual(tags, try s.tagNames(ofPhoto: photo.rowID)) }
                if let ratings = photo.ratingValues {
                    XCTAssertEqual(ratings, try s.ratingValues(ofPhoto: photo.rowID))
                }
                if let authors = photo.ratingAuthors {
                    XCTAssertEqual(authors, try s.ratings(ofPhoto: photo.rowID).map(\.author))
                }
                var row = photo
                row.tagNames = nil
                row.ratingValues = nil
                row.ratingAuthors = nil
                names.append("\(row)")
            }
            return names
        }
        read("all", try photos(PhotoQuery()))
        read(
            "tag",
            try photos(
                {
                    var q = PhotoQuery(); q.tagNames = ["Beach"]; return q
                }()))
        read(
            "min rating 4",
            try photos(
                {
                    var q = PhotoQuery(); q.minRating = 4; return q
                }()))
        read(
            "min rating 3",
            try photos(
                {
                    var q = PhotoQuery(); q.minRating = 3; return q
                }()))
        read(
            "zone",
            try photos(
                {
                    var q = PhotoQuery(); q.zones = ["s1"]; return q
                }()))
        read(
            "since local",
            try photos(
                {
                    var q = PhotoQuery(); q.since = .local("2025-06-07T08:00:00"); return q
                }()))
        read(
            "since instant",
            try photos(
                {
                    var q = PhotoQuery()
                    q.since = .instant(utc: "2025-06-07T06:30:00.000", assumedOffsetMinutes: 60)
                    return q
                }()))
        read(
            "until instant",
            try photos(
                {
                    var q = PhotoQuery()
                    q.until = .instant(utc: "2026-01-02T03:04:05.678", assumedOffsetMinutes: 0)
                    return q
                }()))
        for sort in PhotoQuery.Sort.allCases {
            for descending in [false, true] {
                read(
                    "sort \(sort) \(descending)",
                    try photos(
                        {
                            var q = PhotoQuery(); q.sort = sort; q.descending = descending; return q
                        }()))
            }
        }
        read(
            "untagged unrated",
            try photos(
                {
                    var q = PhotoQuery(); q.untagged = true; return q
                }()))
        read(
            "unrated",
            try photos(
                {
                    var q = PhotoQuery(); q.unrated = true; return q
                }()))
        read(
            "formats",
            try photos(
                {
                    var q = PhotoQuery(); q.formats = ["jpeg", "png"]; return q
                }()))
        read(
            "no formats match",
            try photos(
                {
                    var q = PhotoQuery(); q.formats = ["webp"]; return q
                }()))
        read(
            "tag alternatives",
            try photos(
                {
                    var q = PhotoQuery(); q.tagNameAlternatives = [["beach", "Sea"], ["Beach"]]; return q
                }()))
        read(
            "empty alternatives",
            try photos(
                {
                    var q = PhotoQuery(); q.tagNameAlternatives = [[]]; return q
                }()))
        read("photo", try s.photo(uniqueName: "p1") as Any)
        read("tag names", try s.tagNames(ofPhoto: p1))
        read("rating values", try s.ratingValues(ofPhoto: p1))
        read("location", try s.photoLocation(p3) as Any)
        read("thumbnail", try s.thumbnail(ofPhoto: p1) as Any)
        read("file refs", try s.fileReferences(ofPhoto: p2))
        read("exists", [try s.photoExists(p1), try s.photoExists(999), try s.hasPhotoData(p1), try s.hasThumbnail(p3)])
        read(
            "data exists",
            [
                try s.photoDataExists(sha256: sha(1), fileReference: nil),
                try s.photoDataExists(sha256: sha(1), fileReference: "zz"),
                try s.photoDataExists(sha256: sha(9), fileReference: nil)
            ])
        read(
            "exact key",
            [try s.exactKey(.photoUniqueName, "P1"), try s.exactKey(.shareID, "S1"), try s.exactKey(.zoneID, "nope")])
        read("prefix", try s.keys(.photoUniqueName, withPrefix: "p", limit: 10))
        read("prefix wildcard", try s.keys(.zoneID, withPrefix: "_", limit: 10))
        read("zone exists", [try s.zoneExists("work"), try s.zoneExists("none")])
        read("tag named", try s.tag(named: "Beach", zone: "default") as Any)
        read("tags named", try s.tags(named: "Beach", zone: nil))
        read("tags in zone", try s.tags(inZone: "default"))
        read("tag list", try s.tagList(zone: nil))
        read("tags of photo", try s.tags(ofPhoto: p1))
        read("has tag", [try s.photo(p1, hasTagNamed: "Beach"), try s.photo(p2, hasTagNamed: "Sea")])
        read("photos of tag", try s.photos(ofTag: t1))
        read("ratings", try s.ratings(ofPhoto: p1))
        read("shares", try s.shares())
        read("participants", try s.participants(ofShare: "s1"))
        var history: [HistoryTransaction] = []
        try s.forEachHistoryTransaction(matching: HistoryFilter()) { history.append($0) }
        read("history", history)
        var filtered: [HistoryTransaction] = []
        try s.forEachHistoryTransaction(
            matching: {
                var f = HistoryFilter(); f.entities = [.tag]; f.excludedAuthors = ["bob"]; return f
            }()
        ) { filtered.append($0) }
        read("history filtered", filtered)
        var timed: [HistoryTransaction] = []
        try s.forEachHistoryTransaction(
            matching: {
                var f = HistoryFilter()
                f.sinceTimestamp = "2026-01-15T00:00:00Z"
                f.untilTimestamp = "2026-03-01T00:00:00Z"
                return f
            }()
        ) { timed.append($0) }
        read("history by time", timed)
        read("issued", try s.issuedHistoryToken())
        read("consumers", try s.historyConsumers())
        read("lowest consumer", try s.lowestHistoryConsumer() as Any)
        read("last before", try s.lastHistoryToken(before: "2026-01-15T00:00:00.000Z"))
        read("cut size", try s.historySize(of: HistoryCut(throughToken: second, before: "2026-01-15T00:00:00.000Z")))
        read("cross zone", try s.crossZoneTagLinks())
        read("sharing originals", try s.photosSharingOriginals())
        read("all tags", try s.allTags())
        read("recorded originals", try s.recordedOriginals())
        let names = try s.recordedOriginals().map(\.photo.uniqueName) + ["no such photo"]
        read(
            "deletion counts",
            try s.ratingAndTagLinkCounts(ofPhotos: names).sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" })
        var heads: [String] = []
        try s.forEachThumbnailHead(headBytes: 3) { heads.append("\($0)") }
        read("thumbnail heads", heads)
        read("thumbnail data", try names.map { try s.thumbnailData(photo: $0) })
        read("counts", [try s.photoCount(), try s.recordedOriginalCount()])
        read("without thumbnail", try s.photosWithoutThumbnail())
        var thumbnails: [String] = []
        try s.forEachThumbnail { thumbnails.append("\($0)") }
        read("thumbnails", thumbnails)
        var inserted: [String] = []
        try s.forEachTagInserted(after: 0) { inserted.append("\($0) \($1)") }
        read("tags inserted", inserted)
        let beach = StoredTag(
            rowID: t1, uuid: "b0000000-0000-4000-8000-000000000001", name: "Beach", zone: ZoneID(rawValue: "default"))
        let lowerBeach = StoredTag(
            rowID: t2, uuid: "a0000000-0000-4000-8000-000000000002", name: "beach", zone: ZoneID(rawValue: "default"))
        read("relink", try s.relinkCounts([TagMerge(winner: beach, losers: [lowerBeach])]))
        read("zone contents", try s.zoneContents(ZoneID(rawValue: "s1")))
        read("zone files", try s.fileReferences(inZone: ZoneID(rawValue: "default")))
        read("merge photos", try s.mergeSourcePhotos(schemaVersion: PostgresSchema.currentVersion))
        read("merge zones", try s.mergeSourceZones())
        read("merge shares", try s.mergeSourceShares())
        read("merge participants", try s.mergeSourceParticipants(schemaVersion: 4))
        read("merge photo", try s.mergeSourcePhoto("p1", schemaVersion: 4) as Any)
        read("merge thumbnail", try s.mergeSourceThumbnail(of: "p1") as Any)
        read("merge ratings", try s.mergeSourceRatings(of: "p1", schemaVersion: 5))
        read("merge tags", try s.mergeSourceTags())
        read("merge links", try s.mergeSourceTagLinks())
        read("matching", [try s.matchingPhoto(uniqueName: "zz", sha256: sha(2), scope: .zone("default")) as Any])
        read("imported", try s.importedOriginal(sha256: sha(1), in: .zone("default")) as Any)
        read(
            "has original",
            [
                try s.hasOriginal(sha256: sha(1), in: .zone("default")),
                try s.hasOriginal(sha256: sha(7), in: .zone("default"))
            ])
        read("stats", try Self.comparable(s.catalogStats()))

        // Writes that remove, then the reads they change.
        try s.unlink(photo: p1, tag: t3)
        read("unlink named", try s.unlink(photo: p1, tagsNamed: "Beach", zone: "default"))
        try s.renameTag(t2, to: "Sea")
        try s.setTitle(ofShare: "s1", to: "Trip 2")
        try s.setPublicPermission(ofShare: "s1", to: .readOnly)
        read(
            "relinked",
            try s.relinkTag(
                photo: "p1", zone: "default", from: "c0000000-0000-4000-8000-000000000003", toTagNamed: "Beach",
                newUUID: "f0000000-0000-4000-8000-000000000001") as Any)
        read("replaced", try s.replaceFileReference(photo: "p2", from: "ab/" + sha(2), to: "cd/x") as Any)
        read("stored thumbnail", try s.storeThumbnail(photo: "P3", data: [1, 2, 3], width: 2, height: 2) as Any)
        try s.deleteZone(ZoneID(rawValue: "s1"))
        try s.deleteHistory(HistoryCut(throughToken: token))
        read("removed consumer", [try s.removeHistoryConsumer("backup"), try s.removeHistoryConsumer("backup")])
        try s.setValue(ofRating: 1, to: try XCTUnwrap(RatingValue(rawValue: 1)))
        read("set value", try s.ratings(ofPhoto: p1))
        try s.deleteRating(id: 1)
        try s.deletePhoto(p2)
        read("stats after", try Self.comparable(s.catalogStats()))
        read("all after", try photos(PhotoQuery()))
        read("tag list after", try s.tagList(zone: nil))
        read("issued after", try s.issuedHistoryToken())

        // The set-wise merge of `dedupe-tags`: counts, history rows, links and tags after it.
        let p5 = try insertPhoto(("p5", sha(5), nil, "default", nil, nil))
        try s.link(photo: p5, tag: t2)
        try s.link(photo: p1, tag: t2)
        var merge = TagMerge(winner: beach, losers: [lowerBeach])
        read("merge counts", try s.relinkCounts([merge]))
        merge.photosRelinked = try s.relinkCounts([merge])[0]
        let mergeToken = try s.appendHistoryTransaction(
            timestamp: "2026-04-01T00:00:00.000Z", author: "dedupe-tags", context: .dedupeTags)
        try s.appendTagMergeChangesSetWise([merge], token: mergeToken)
        try s.mergeTags([merge])
        var merged: [HistoryTransaction] = []
        try s.forEachHistoryTransaction(matching: HistoryFilter()) { if $0.token == mergeToken { merged.append($0) } }
        read("merge history", merged)
        read("merge links", [try s.tags(ofPhoto: p1), try s.tags(ofPhoto: p5)])
        read("merge tags", try s.tagList(zone: nil))
        return out
    }
}

/// Scans that page through large tables see every row once, in order, across page boundaries.
final class PagedScanTests: PostgresTestCase {
    func testEveryThumbnailIsVisitedOnceAcrossPages() throws {
        let count = PostgresDatabase.pageRows * 2 + 3
        try db.transaction {
            let writer = PostgresPhotoWriter(db)
            for n in 0..<count {
                _ = try writer.insert(
                    photo("p\(n)"), sha256: sha(n), byteSize: 1, fileReference: "r",
                    thumbnail: (data: [UInt8(n % 256), UInt8(n / 256)], width: 1, height: 1))
            }
        }
        var seen: [Int] = []
        try db.forEachThumbnail { seen.append(Int($0.data[0]) + 256 * Int($0.data[1])) }
        XCTAssertEqual(seen, Array(0..<count))
    }
}
