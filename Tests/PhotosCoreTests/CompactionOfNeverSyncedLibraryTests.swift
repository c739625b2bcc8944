import Foundation
import PhotosModel
import PhotosTestSupport
import XCTest

@testable import PhotosCore

/// `history compact` reconciles the sync state first only when something has read it: a library
/// that never exported, applied, shared or synced has no consumer that could miss a change, and
/// its first reconcile compares every object with the catalog whatever history still holds.
final class CompactionOfNeverSyncedLibraryTests: SyncTestCase {
    private struct Rollback: Error {}

    /// A never-synced library: photos with tags and ratings, one deleted, a share with a
    /// participant. - Returns: the share and its photos' uniqueNames.
    private func populate(_ a: Library) throws -> (ShareInfo, [String]) {
        let names = try importPhotos(a, count: 5, tags: ["Trip"])
        _ = try a.addTag(try TagName(parsing: "Dog"), to: [try a.resolvePhoto(names[0])], author: .default)
        _ = try a.setRating(try XCTUnwrap(RatingValue(rawValue: 4)), of: try a.resolvePhoto(names[1]), author: "ann")
        let share = try a.createShare(
            photos: [try a.resolvePhoto(names[2]), try a.resolvePhoto(names[3])], author: .default)
        try a.invite(try Email(parsing: "ann@example.org"), to: share, permission: .readOnly, author: .default)
        try a.deletePhotos([try a.resolvePhoto(names[4])], author: .default)
        return (share, [names[2], names[3]])
    }

    /// What a reconcile now would put in the sync state, without stamps (entity, object,
    /// attribute, value, zone), rolled back.
    private func reconciledValues(_ library: Library) throws -> [String] {
        var values: [String] = []
        do {
            try library.write {
                var reconciler = try SyncReconciler(store: library.syncStore)
                _ = try reconciler.run()
                try library.syncStore.forEachSyncEntry(after: 0, zone: nil) { e in
                    values.append(
                        [e.entity.rawValue, e.objectID, e.attribute, e.value ?? "NULL", e.zone ?? "NULL"]
                            .joined(separator: "|"))
                }
                throw Rollback()
            }
        } catch is Rollback {}
        return values
    }

    private func syncEntryCount(_ library: Library) throws -> Int {
        try XCTUnwrap(try TestCatalog(library).scalarInt("SELECT count(*) FROM sync_entry"))
    }

    func testCompactingANeverSyncedLibraryWritesNoSyncStateAndLosesNothing() throws {
        let a = try library("A"), b = try library("B"), ann = try library("ann")
        let (share, shared) = try populate(a)
        let expected = try reconciledValues(a)
        XCTAssertGreaterThan(expected.count, 20)
        XCTAssertEqual(try syncEntryCount(a), 0)

        let report = try a.compactHistory(.date(Date().addingTimeInterval(3600)), force: true)
        XCTAssertGreaterThan(report.transactions, 0)
        XCTAssertEqual(try syncEntryCount(a), 0, "compaction of a never-synced library reconciles nothing")
        let state = try a.write { try a.syncStore.syncState() }
        XCTAssertEqual(state.changeToken, 0)
        XCTAssertEqual(state.reconciledHistoryToken, 0)

        // The first reconcile after it finds the same objects and values as one before it.
        XCTAssertEqual(try reconciledValues(a), expected)
        // And the changesets carry every object: a peer ends up with the same library…
        _ = try b.sync(from: a)
        XCTAssertEqual(try CanonicalDump.of(b.root), try CanonicalDump.of(a.root))
        XCTAssertEqual(try photos(b).count, 4)
        // …and the participant with the shared zone's photos.
        let email = try Email(parsing: "ann@example.org")
        _ = try a.exportShare(try a.resolveSharedZone(share.id), for: email, to: dir + "/to-ann")
        _ = try ann.acceptShare(at: dir + "/to-ann")
        XCTAssertEqual(try photos(ann).map(\.uniqueName).sorted(), shared.sorted())
        try assertVerifyClean(ann)
    }

    func testALibraryThatSyncedOnceStillReconcilesBeforeCompacting() throws {
        let a = try library("A"), b = try library("B")
        let names = try importPhotos(a, count: 2, tags: ["Trip"])
        _ = try b.sync(from: a)
        _ = try a.addTag(try TagName(parsing: "Late"), to: [try a.resolvePhoto(names[0])], author: .default)
        let newest = try a.write { try a.syncStore.newestHistoryToken() }
        let linksBefore = try TestCatalog(a).scalarInt(
            "SELECT count(*) FROM sync_entry WHERE entity = 'PhotoTag' AND value = '1'")

        _ = try a.compactHistory(.date(Date().addingTimeInterval(3600)), force: true)
        XCTAssertEqual(try a.write { try a.syncStore.syncState() }.reconciledHistoryToken, newest)
        let linksAfter = try TestCatalog(a).scalarInt(
            "SELECT count(*) FROM sync_entry WHERE entity = 'PhotoTag' AND value = '1'")
        XCTAssertEqual(linksAfter, linksBefore.map { $0 + 1 }, "the new link was reconciled before compaction")
    }

    func testALibraryThatOnlyAppliedAChangesetStillReconcilesBeforeCompacting() throws {
        let a = try library("A"), b = try library("B")
        try importPhotos(a, count: 1)
        _ = try b.sync(from: a)
        try importPhotos(b, count: 1)
        _ = try b.compactHistory(.date(Date().addingTimeInterval(3600)), force: true)
        let photoRows = try TestCatalog(b).scalarInt(
            "SELECT count(DISTINCT object_id) FROM sync_entry WHERE entity = 'Photo'")
        XCTAssertEqual(photoRows, 2, "b's own photo joined the sync state before its history went")
    }
}
