import Foundation
import PhotosModel
import PhotosPostgreSQL
import PhotosSQLite
import PhotosTestSupport
import XCTest

/// `SyncStore` answers the same on PostgreSQL as on SQLite: one scripted sequence of sync
/// writes (state, entries, applied and acknowledged tokens, memberships, objects materialized by
/// identity) through the protocol on both backends, then every read, compared value for value.
final class SyncStoreParityTests: PostgresTestCase {
    typealias Stores = SyncStore & HistoryStore

    private let shareZone = "a1000000-0000-4000-8000-000000000001"
    private let tagA = "b0000000-0000-4000-8000-000000000001"
    private let tagB = "b0000000-0000-4000-8000-000000000002"
    private let peer = "c0000000-0000-4000-8000-000000000009"

    func testTheSyncStoreReadsTheSameAsOnSQLite() throws {
        let sqlite = try migratedSQLiteDatabase()
        let onSQLite = try script(sqlite) { body in try sqlite.transaction { try body() } }
        let pg = db!
        let onPostgres = try script(pg) { body in try pg.transaction(.exclusive) { try body() } }
        XCTAssertEqual(onSQLite.count, onPostgres.count)
        XCTAssertGreaterThan(onSQLite.count, 40)
        for (index, (a, b)) in zip(onSQLite, onPostgres).enumerated() {
            XCTAssertEqual(b, a, "read \(index) differs")
        }
    }

    /// Issue 31 A1: one photo per original holds per zone (the apply's rule), so the store
    /// keeps a photo of a share with the original of a private photo: two rows, one SHA-256.
    func testAPhotoOfAnotherZoneMayHaveTheSameOriginal() throws {
        try db.execute("INSERT INTO zone (id, name, scope) VALUES ('trip', 'trip', 'private')")
        try db.transaction(.exclusive) {
            _ = try db.insertPhoto(values("p1", sha(1)), fileReference: "f", thumbnail: nil)
            _ = try db.insertPhoto(values("p2", sha(1), zone: "trip"), fileReference: "f", thumbnail: nil)
        }
        XCTAssertEqual(try db.catalogObjects(.photo).sorted(), ["p1", "p2"])
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM photo_data WHERE sha256 = '\(sha(1))'"), 2)
    }

    private func values(_ name: String, _ sha: String, zone: String = "default") -> SyncPhotoValues {
        SyncPhotoValues(
            uniqueName: name, displayName: name + ".jpg", importedAt: "2026-01-02T03:04:05.678Z",
            captureDate: name == "p1" ? "2025-06-07T08:09:10" : nil, captureOffset: name == "p1" ? -300 : nil,
            captureSource: name == "p1" ? "exif" : nil, width: 40, height: 30, format: .jpeg, orientation: .right,
            zone: ZoneID(rawValue: zone), sha256: sha, byteSize: 1000 + name.count)
    }

    private func entry(_ entity: SyncEntity, _ id: String, _ attribute: String, _ value: String?, zone: String?)
        -> SyncEntry
    {
        SyncEntry(
            entity: entity, objectID: id, attribute: attribute, value: value,
            stamp: SyncStamp(time: "2026-03-0\(attribute.count % 9 + 1)T00:00:00.000Z", library: peer), zone: zone)
    }

    /// Attributes as `name=value` in name order (a dictionary's description has no fixed order).
    private static func sorted(_ attributes: [String: String]?) -> String {
        attributes.map { $0.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ", ") }
            ?? "none"
    }

    /// The scripted writes, then every read as text.
    private func script(_ s: any Stores, inTransaction: (() throws -> Void) throws -> Void) throws -> [String] {
        var out: [String] = []
        func read(_ label: String, _ value: Any) { out.append(label + ": " + String(describing: value)) }
        try inTransaction {
            let state = try s.syncState()
            read(
                "library id is a lowercase UUID",
                state.libraryID == state.libraryID.lowercased() && state.libraryID.count == 36)
            read("tokens", [state.changeToken, state.reconciledHistoryToken])
            try s.setSyncTokens(changeToken: 7, reconciledHistoryToken: 3)
            let after = try s.syncState()
            read("tokens after", [after.changeToken, after.reconciledHistoryToken])

            // Entries: insert, replace (same key), a NULL value, link entries, a tombstone.
            try s.putSyncEntry(entry(.photo, "p1", "displayName", "one.jpg", zone: "default"), token: 1)
            try s.putSyncEntry(entry(.photo, "p1", "displayName", "uno.jpg", zone: "default"), token: 4)
            try s.putSyncEntry(entry(.photo, "p1", "captureDate", nil, zone: "default"), token: 2)
            try s.putSyncEntry(entry(.photoTag, "p1/" + tagA, "present", "1", zone: "default"), token: 3)
            try s.putSyncEntry(entry(.photoTag, "p1/" + tagB, "present", "0", zone: "default"), token: 5)
            try s.putSyncEntry(entry(.photoTag, "p10/" + tagA, "present", "1", zone: "default"), token: 5)
            try s.putSyncEntry(entry(.photoTag, "p0/" + tagA, "present", "1", zone: "default"), token: 5)
            try s.putSyncEntry(entry(.tag, tagB, "name", "Sea", zone: shareZone), token: 6)
            try s.putSyncEntry(entry(.tag, tagB, SyncEntity.deleted, "1", zone: shareZone), token: 7)
            try s.putSyncEntry(entry(.tag, tagA, "name", "Beach", zone: "default"), token: 6)
        }
        read("entries p1", try s.syncEntries(.photo, "p1"))
        read("entries none", try s.syncEntries(.photo, "nobody"))
        read("link entries p1", try s.syncLinkEntries(ofPhoto: "p1"))
        var all: [SyncEntry] = []
        try s.forEachSyncEntry(after: 0, zone: nil) { all.append($0) }
        read("all entries", all)
        var later: [SyncEntry] = []
        try s.forEachSyncEntry(after: 4, zone: shareZone) { later.append($0) }
        read("zone entries after 4", later)
        read("live tags", try s.liveSyncObjects(.tag))
        read("live photos", try s.liveSyncObjects(.photo))

        // History.
        read("newest token empty", try s.newestHistoryToken())
        read("oldest token empty", try s.oldestHistoryToken() as Any)
        try inTransaction {
            let t1 = try s.appendHistoryTransaction(
                timestamp: "2026-01-01T00:00:00.000Z", author: "ann", context: .import)
            try s.appendHistoryChanges(
                [
                    HistoryChange(entity: "Photo", objectID: "p1", type: .insert, zone: "default"),
                    HistoryChange(entity: "Tag", objectID: tagA, type: .insert, zone: "default")
                ], token: t1)
            let t2 = try s.appendHistoryTransaction(
                timestamp: "2026-01-02T00:00:00.000Z", author: "sync", context: .sync)
            try s.appendHistoryChanges(
                [HistoryChange(entity: "Photo", objectID: "p1", type: .update, updated: ["zone"], zone: "default")],
                token: t2)
            let t3 = try s.appendHistoryTransaction(
                timestamp: "2026-01-03T00:00:00.000Z", author: "bob", context: .tagAdd)
            try s.appendHistoryChanges(
                [HistoryChange(entity: "Photo", objectID: "p1", type: .update, updated: ["tags"], zone: "default")],
                token: t3)
        }
        read("newest token", try s.newestHistoryToken() > 0)
        let oldest = try XCTUnwrap(try s.oldestHistoryToken())
        read("history objects", try s.historyObjects(after: 0, excludingContext: "sync").map { "\($0)" })
        read(
            "history objects after first", try s.historyObjects(after: oldest, excludingContext: "sync").map { "\($0)" }
        )
        read(
            "newest timestamps",
            Self.sorted(
                try s.newestHistoryTimestamps(entity: "Photo", objectIDs: ["p1", "zz"], excludingContext: "tag add")))
        read(
            "newest timestamps none",
            Self.sorted(try s.newestHistoryTimestamps(entity: "Photo", objectIDs: ["zz"], excludingContext: "sync")))

        // Applied ranges, acknowledgements (kept when lower), memberships.
        try inTransaction {
            try s.setAppliedToken(sender: peer, scope: "library", token: 5)
            try s.setAppliedToken(sender: peer, scope: "library", token: 9)
            try s.setAppliedToken(sender: peer, scope: shareZone, token: 2)
            try s.setAcknowledgedToken(peer: peer, scope: "library", token: 8)
            try s.setAcknowledgedToken(peer: peer, scope: "library", token: 3)
            try s.setMembership(SyncMembership(zone: shareZone, email: "me@example.com", owner: peer, leftAt: nil))
            try s.setMembership(
                SyncMembership(
                    zone: shareZone, email: "me@example.com", owner: peer, leftAt: "2026-04-01T00:00:00.000Z"))
            try s.setMembership(SyncMembership(zone: "z2", email: "you@example.com", owner: peer, leftAt: nil))
        }
        read("applied", try s.appliedToken(sender: peer, scope: "library") as Any)
        read("applied none", try s.appliedToken(sender: "x", scope: "library") as Any)
        read("applied tokens", try s.appliedTokens().map { "\($0)" })
        read("acknowledged kept", try s.acknowledgedToken(peer: peer, scope: "library") as Any)
        read("acknowledged none", try s.acknowledgedToken(peer: peer, scope: shareZone) as Any)
        read("membership", try s.membership(zone: shareZone) as Any)
        read("membership none", try s.membership(zone: "nowhere") as Any)
        read("memberships", try s.memberships())

        // Materializing objects by identity.
        try inTransaction {
            try s.putZone(shareZone, scope: "private")
            try s.putZone(shareZone, scope: "shared")
            try s.putShare(id: shareZone, title: "Trip", created: "2026-01-01T00:00:00.000Z", publicPermission: "none")
            try s.putShare(
                id: shareZone, title: "Trip 2", created: "2027-01-01T00:00:00.000Z", publicPermission: "read-only")
            try s.putParticipant(
                uuid: "e0000000-0000-4000-8000-000000000002", share: shareZone, email: "p@example.com",
                role: "private-user", permission: "read-only", acceptance: "pending")
            // Same address, smaller uuid: it replaces the other; a larger one is ignored.
            try s.putParticipant(
                uuid: "e0000000-0000-4000-8000-000000000001", share: shareZone, email: "p@example.com",
                role: "private-user", permission: "read-write", acceptance: "accepted")
            try s.putParticipant(
                uuid: "e0000000-0000-4000-8000-000000000003", share: shareZone, email: "p@example.com",
                role: "private-user", permission: "read-only", acceptance: "removed")
            try s.putParticipant(
                uuid: "e0000000-0000-4000-8000-000000000004", share: shareZone, email: "q@example.com",
                role: "private-user", permission: "read-only", acceptance: "pending")
            _ = try s.insertPhoto(
                values("p1", sha(1)), fileReference: "ab/" + sha(1), thumbnail: ([1, 2, 0, 255], 4, 3))
            _ = try s.insertPhoto(values("p2", sha(2), zone: shareZone), fileReference: "ab/" + sha(2), thumbnail: nil)
            _ = try s.insertPhoto(values("p3", sha(3)), fileReference: "ab/" + sha(3), thumbnail: nil)
            try s.putTag(uuid: tagA, name: "Beach", zone: "default")
            try s.putTag(uuid: tagA, name: "beach", zone: "default")
            try s.putTag(uuid: tagB, name: "Sea", zone: shareZone)
            read("link", try s.setLink(photo: "p1", tag: tagA, present: true))
            read("link again", try s.setLink(photo: "p1", tag: tagA, present: true))
            read("link missing", try s.setLink(photo: "nobody", tag: tagA, present: true))
            read("link p2", try s.setLink(photo: "p2", tag: tagB, present: true))
            read("link p3", try s.setLink(photo: "p3", tag: tagA, present: true))
            read("unlink p3", try s.setLink(photo: "p3", tag: tagA, present: false))
            read("unlink again", try s.setLink(photo: "p3", tag: tagA, present: false))
            try s.putRating(uuid: "d0000000-0000-4000-8000-000000000001", photo: "p1", value: 4, author: "ann")
            try s.putRating(uuid: "d0000000-0000-4000-8000-000000000001", photo: "p1", value: 5, author: "ann")
            try s.putRating(uuid: "d0000000-0000-4000-8000-000000000002", photo: "p1", value: 2, author: nil)
            try s.putRating(uuid: "d0000000-0000-4000-8000-000000000003", photo: "nobody", value: 2, author: nil)
            try s.setPhotoZone("p3", zone: shareZone)
        }
        for entity in SyncEntity.allCases {
            let objects = try s.catalogObjects(entity)
            read("objects \(entity)", objects)
            read("in zone \(entity)", try s.catalogObjects(entity, inZone: shareZone))
            for id in objects { read("attributes \(entity) \(id)", Self.sorted(try s.catalogAttributes(entity, id))) }
            read("attributes \(entity) none", Self.sorted(try s.catalogAttributes(entity, "nobody")))
            for id in objects { read("row id \(entity) \(id)", try s.rowID(entity, id) != nil) }
        }
        read(
            "tags of p1",
            try s.tagUUIDs(ofPhotos: ["p1", "zz"]).sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" })
        read("rating of ann", try s.rating(ofPhoto: "p1", author: "ann") as Any)
        read("rating of nobody", try s.rating(ofPhoto: "p1", author: "zed") as Any)

        // Deleting by identity, then a whole zone.
        try inTransaction {
            try s.deleteObject(.rating, "d0000000-0000-4000-8000-000000000002")
            try s.deleteObject(.tag, tagA)
            try s.deleteObject(.share, shareZone)
            try s.deleteParticipant(uuid: "e0000000-0000-4000-8000-000000000004")
            try s.deleteObject(.photo, "p1")
        }
        for entity in SyncEntity.allCases { read("objects after delete \(entity)", try s.catalogObjects(entity)) }
        try inTransaction { read("zone files", try s.deleteZoneContents(shareZone).sorted()) }
        for entity in SyncEntity.allCases { read("objects after zone \(entity)", try s.catalogObjects(entity)) }
        read("share attributes after zone", Self.sorted(try s.catalogAttributes(.share, shareZone)))
        return out
    }
}
