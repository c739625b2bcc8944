import Foundation
import PhotosCore
import PhotosModel
import PhotosSQLite
import PhotosTestSupport
import XCTest

/// `dedupe-tags` merges duplicates only in the private store (SYNC.md "Duplicates": the app
/// deduplicates "only in the private store (owners have full access there; participants may
/// not)"). In a participant's library the zone of an accepted share is left to its owner and
/// reported; the owner, whose share zone is in its private store, merges there.
final class DedupeLeavesSharedStoreTests: SyncTestCase {
    /// Owner and a read-write participant who accepted a share of one photo tagged "Trip";
    /// each library then gets a second "Trip" in the share's zone with a random uuid (older data).
    private func sharedDuplicates() throws -> (owner: Library, ann: Library, zone: String) {
        let owner = try library("owner"), ann = try library("ann")
        _ = try importPhotos(owner, count: 1, tags: ["Home"])
        let shared = try importPhotos(owner, count: 1, tags: ["Trip"])
        let share = try owner.createShare(photos: [try owner.resolvePhoto(shared[0])], author: .default)
        let email = try Email(parsing: "ann@example.org")
        try owner.invite(email, to: share, permission: .readWrite, author: .default)
        _ = try owner.exportShare(try owner.resolveSharedZone(share.id), for: email, to: dir + "/to-ann")
        _ = try ann.acceptShare(at: dir + "/to-ann")
        for lib in [owner, ann] {
            try lib.catalog.run(
                "INSERT INTO tag (uuid, name, zone_id) VALUES ('00000000-0000-4000-8000-000000000001', 'Trip', ?)",
                [share.id])
            XCTAssertEqual(
                try lib.catalog.scalarInt("SELECT count(*) FROM tag WHERE name = 'Trip' AND zone_id = ?", [share.id]), 2
            )
        }
        return (owner, ann, share.id)
    }

    func testAParticipantLeavesTheSharedZonesDuplicatesToTheOwner() throws {
        let (_, ann, zone) = try sharedDuplicates()
        // A duplicate in ann's own private store is merged in the same run.
        _ = try importPhotos(ann, count: 1, tags: ["Mine"])
        try ann.catalog.run(
            "INSERT INTO tag (uuid, name, zone_id) VALUES ('00000000-0000-4000-8000-000000000002', 'Mine', 'default')")
        let before = try ann.catalog.scalarInt("SELECT count(*) FROM history_transaction")
        let report = try ann.dedupeTags(all: true)
        XCTAssertEqual(report.groups.map(\.zone.rawValue), ["default"])
        XCTAssertEqual(report.groups.map(\.name), ["Mine"])
        XCTAssertEqual(report.leftToOwners.map(\.zone.rawValue), [zone])
        XCTAssertEqual(report.leftToOwners.map(\.name), ["Trip"])
        XCTAssertEqual(
            try ann.catalog.scalarInt("SELECT count(*) FROM tag WHERE name = 'Trip' AND zone_id = ?", [zone]), 2)
        XCTAssertEqual(try ann.catalog.scalarInt("SELECT count(*) FROM tag WHERE name = 'Mine'"), 1)
        XCTAssertEqual(try ann.catalog.scalarInt("SELECT count(*) FROM history_transaction"), (before ?? 0) + 1)
        XCTAssertEqual(
            try ann.catalog.scalarInt(
                "SELECT count(*) FROM history_change WHERE entity = 'Tag' AND type = 'delete' AND zone_id = ?", [zone]),
            0)
    }

    func testTheOwnerMergesTheShareZonesDuplicates() throws {
        let (owner, _, zone) = try sharedDuplicates()
        let report = try owner.dedupeTags(all: true)
        XCTAssertEqual(report.groups.map(\.zone.rawValue), [zone])
        XCTAssertEqual(report.groups.first?.winner, "00000000-0000-4000-8000-000000000001", "smallest uuid wins")
        XCTAssertEqual(report.leftToOwners, [])
        XCTAssertEqual(
            try owner.catalog.scalarInt("SELECT count(*) FROM tag WHERE name = 'Trip' AND zone_id = ?", [zone]), 1)
    }
}
