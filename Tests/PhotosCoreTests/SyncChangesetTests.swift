import Foundation
import PhotosCore
import PhotosModel
import PhotosSQLite
import PhotosTestSupport
import XCTest

/// Changesets between peers: identity, idempotence, deletions, dedupe, gaps and untrusted input
/// (issue 11 items 1, 2, 4).
final class SyncChangesetTests: SyncTestCase {
    func testLibraryIDIsStableAndInStats() throws {
        let a = try library("A")
        let id = try a.libraryID()
        XCTAssertEqual(id.count, 36)
        XCTAssertEqual(id, id.lowercased())
        let reopened = try library("A")
        XCTAssertEqual(try reopened.libraryID(), id)
        XCTAssertEqual(try reopened.stats().libraryID, id)
        XCTAssertTrue(try reopened.stats().json.serialized().contains("\"libraryId\":\"\(id)\""))
        XCTAssertNotEqual(try library("B").libraryID(), id)
    }

    func testChangesetCarriesPhotosTagsRatingsAndOriginals() throws {
        let a = try library("A")
        let names = try importPhotos(a, count: 3, tags: ["Trip"])
        _ = try a.setRating(try XCTUnwrap(RatingValue(rawValue: 4)), of: try a.resolvePhoto(names[0]), author: .default)
        let b = try library("B")
        let cs = try export(a)
        XCTAssertEqual(filesUnder(cs + "/originals").count, 3)
        let report = try b.applyChangeset(at: cs)
        XCTAssertEqual(report.originalsCopied, 3)
        XCTAssertEqual(try CanonicalDump.of(b.root), try CanonicalDump.of(a.root))
        try assertVerifyClean(b)
    }

    func testApplyingTwiceChangesNothing() throws {
        let a = try library("A")
        try importPhotos(a, count: 2, tags: ["Beach"])
        let b = try library("B")
        let cs = try export(a)
        _ = try b.applyChangeset(at: cs)
        let dump = try LibrarySnapshot.dumpCatalog(b.root)
        let files = LibrarySnapshot.fileTree(b.root + "/ExternalData")
        let again = try b.applyChangeset(at: cs)
        XCTAssertTrue(again.alreadyApplied)
        XCTAssertEqual(try LibrarySnapshot.dumpCatalog(b.root), dump)
        XCTAssertEqual(LibrarySnapshot.fileTree(b.root + "/ExternalData"), files)
    }

    func testDeletionsTravelAndDeletedPhotoNeverComesBack() throws {
        let a = try library("A"), b = try library("B")
        let names = try importPhotos(a, count: 2)
        _ = try b.applyChangeset(at: try export(a))
        try b.deletePhotos([try b.resolvePhoto(names[0])], author: .default)
        // A concurrent (later) edit of the deleted photo on A: the delete still wins.
        _ = try a.addTag(try TagName(parsing: "Late"), to: [try a.resolvePhoto(names[0])], author: .default)
        _ = try a.sync(from: b)
        _ = try b.sync(from: a)
        for lib in [a, b] {
            XCTAssertEqual(try photos(lib).map(\.uniqueName), [names[1]], lib.root)
            try assertVerifyClean(lib)
        }
        XCTAssertEqual(try CanonicalDump.of(a.root), try CanonicalDump.of(b.root))
        XCTAssertEqual(filesUnder(a.root + "/ExternalData").count, 1)
    }

    func testDedupedTagNeverReturns() throws {
        let a = try library("A"), b = try library("B")
        let pa = try importPhotos(a, count: 1, tags: ["Trip"])
        let pb = try importPhotos(b, count: 1, tags: ["Trip"])
        _ = try a.sync(from: b)
        _ = try b.sync(from: a)
        for _ in 0..<2 {
            _ = try a.sync(from: b)
            _ = try b.sync(from: a)
        }
        for lib in [a, b] {
            let trips = try lib.tags().filter { $0.name == "Trip" }
            XCTAssertEqual(trips.count, 1, lib.root)
            XCTAssertEqual(trips.first?.photoCount, 2)
            for name in pa + pb { XCTAssertEqual(try lib.resolvePhoto(name).tags, ["Trip"]) }
        }
        XCTAssertEqual(try CanonicalDump.of(a.root), try CanonicalDump.of(b.root))
    }

    func testRenameOnOnePeerAndTagOnTheOtherBothArrive() throws {
        let a = try library("A"), b = try library("B")
        let names = try importPhotos(a, count: 2, tags: ["Trip"])
        _ = try b.sync(from: a)
        _ = try b.renameTag(try TagName(parsing: "Trip"), to: try TagName(parsing: "Journey"), author: .default)
        _ = try a.addTag(try TagName(parsing: "Sea"), to: [try a.resolvePhoto(names[1])], author: .default)
        _ = try a.sync(from: b)
        _ = try b.sync(from: a)
        XCTAssertEqual(try CanonicalDump.of(a.root), try CanonicalDump.of(b.root))
        XCTAssertEqual(try a.resolvePhoto(names[1]).tags, ["Journey", "Sea"])
    }

    func testGapIsRefusedNamingTheMissingRange() throws {
        let a = try library("A"), b = try library("B")
        try importPhotos(a, count: 1)
        let first = try export(a)
        try importPhotos(a, count: 1)
        let state = try a.exportChangeset(to: dir + "/full", since: 0)
        try importPhotos(a, count: 1)
        let later = try export(a, since: state.toToken)
        let before = try LibrarySnapshot.dumpCatalog(b.root)
        let (code, message) = status { _ = try b.applyChangeset(at: later) }
        XCTAssertEqual(code, .refused)
        XCTAssertTrue(message.contains("changes 1…\(state.toToken) are missing"), message)
        XCTAssertEqual(try LibrarySnapshot.dumpCatalog(b.root), before)
        _ = try b.applyChangeset(at: first)
        XCTAssertEqual(status { _ = try b.applyChangeset(at: later) }.0, .refused)
        _ = try b.applyChangeset(at: dir + "/full")
        _ = try b.applyChangeset(at: later)
        XCTAssertEqual(try photos(b).count, 3)
    }

    // MARK: untrusted input

    /// Applies a tampered copy of a good changeset and checks it is refused with 65 and the
    /// library (database and external data) is unchanged.
    private func assertRefused(
        _ tamper: (String) throws -> Void, mentioning words: String, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let a = try library("A"), b = try library("B")
        let names = try importPhotos(a, count: 2, tags: ["Trip"])
        _ = try b.applyChangeset(at: try export(a))
        _ = try a.addTag(try TagName(parsing: "More"), to: [try a.resolvePhoto(names[0])], author: .default)
        try importPhotos(a, count: 1)
        let cs = try export(a, since: 0)
        try tamper(cs)
        let dump = try LibrarySnapshot.dumpCatalog(b.root)
        let files = LibrarySnapshot.fileTree(b.root + "/ExternalData")
        let (code, message) = status { _ = try b.applyChangeset(at: cs) }
        XCTAssertEqual(code, .refused, message, file: file, line: line)
        XCTAssertTrue(message.contains(words), message, file: file, line: line)
        XCTAssertEqual(try LibrarySnapshot.dumpCatalog(b.root), dump, file: file, line: line)
        XCTAssertEqual(LibrarySnapshot.fileTree(b.root + "/ExternalData"), files, file: file, line: line)
    }

    private func edit(_ cs: String, _ sql: String) throws {
        let db = try Database(path: cs + "/changeset.sqlite")
        try db.execute("PRAGMA journal_mode = DELETE")
        try db.execute(sql)
    }

    func testChangedOriginalBytesAreRefused() throws {
        try assertRefused(
            { cs in
                let file = cs + "/originals/" + (try XCTUnwrap(filesUnder(cs + "/originals").first))
                var bytes = [UInt8](try XCTUnwrap(FileManager.default.contents(atPath: file)))
                bytes[bytes.count / 2] ^= 0x55
                try Data(bytes).write(to: URL(fileURLWithPath: file))
            }, mentioning: "do not have the SHA-256")
    }

    func testUUIDPointingIntoAnotherZoneIsRefused() throws {
        try assertRefused(
            { cs in
                try edit(cs, "UPDATE entry SET value = 'elsewhere' WHERE entity = 'Tag' AND attribute = 'zone'")
            }, mentioning: "belongs to zone default here")
    }

    func testPathWithDotDotIsRefused() throws {
        try assertRefused(
            { cs in
                try edit(cs, "UPDATE original SET path = 'originals/../../' || sha256")
            }, mentioning: "its path must be originals/")
    }

    func testUnknownEntityAndBadValuesAreRefused() throws {
        try assertRefused(
            { cs in
                try edit(cs, "UPDATE entry SET value = '9' WHERE entity = 'Photo' AND attribute = 'orientation'")
            }, mentioning: "orientation is not a whole number in 1...8")
    }

    func testMissingChangesetIs66AndAFileIs65() throws {
        let b = try library("B")
        XCTAssertEqual(status { _ = try b.applyChangeset(at: dir + "/nothing") }.0, .noChangeset)
        _ = FileManager.default.createFile(atPath: dir + "/plain", contents: Data("x".utf8))
        XCTAssertEqual(status { _ = try b.applyChangeset(at: dir + "/plain") }.0, .refused)
    }

    func testOwnChangesetIsRefused() throws {
        let a = try library("A")
        try importPhotos(a, count: 1)
        let cs = try export(a)
        let (code, message) = status { _ = try a.applyChangeset(at: cs) }
        XCTAssertEqual(code, .refused)
        // The cause, and where such a changeset comes from (issue 31 item 7).
        XCTAssertTrue(
            message.contains("changeset \(cs) refused: its library id \(try a.libraryID()) is this library's own"),
            message)
        XCTAssertTrue(message.contains("a copied library folder"), message)
    }
}

/// History compaction and sync (issue 11 item 5): compaction first folds every local change into
/// the sync state, so a peer that has acknowledged nothing still gets every change, forced or not.
final class SyncCompactionTests: SyncTestCase {
    func testForcedCompactionLosesNothingAPeerHasNotAcknowledged() throws {
        let a = try library("A"), b = try library("B")
        let names = try importPhotos(a, count: 2, tags: ["Trip"])
        _ = try b.sync(from: a)
        _ = try a.addTag(try TagName(parsing: "Late"), to: [try a.resolvePhoto(names[0])], author: .default)
        try a.deletePhotos([try a.resolvePhoto(names[1])], author: .default)
        let report = try a.compactHistory(.date(Date().addingTimeInterval(3600)), force: true)
        XCTAssertGreaterThan(report.transactions, 0)
        _ = try b.sync(from: a)
        XCTAssertEqual(try CanonicalDump.of(b.root), try CanonicalDump.of(a.root))
        XCTAssertEqual(try b.resolvePhoto(names[0]).tags, ["Late", "Trip"])
        XCTAssertEqual(try photos(b).count, 1)
    }
}

/// A zone shared with a library travels between it and the zone's owner only (`share export`),
/// never to the library's own peers, which are no participants of it.
final class SharedZoneIsolationTests: SyncTestCase {
    func testZonesSharedWithALibraryDoNotTravelToItsPeers() throws {
        let owner = try library("owner"), ann = try library("ann"), peer = try library("peer")
        let names = try importPhotos(owner, count: 1)
        let share = try owner.createShare(photos: [try owner.resolvePhoto(names[0])], author: .default)
        let email = try Email(parsing: "ann@example.org")
        try owner.invite(email, to: share, permission: .readOnly, author: .default)
        _ = try owner.exportShare(try owner.resolveSharedZone(share.id), for: email, to: dir + "/to-ann")
        _ = try ann.acceptShare(at: dir + "/to-ann")
        XCTAssertEqual(try photos(ann).map(\.uniqueName), names)
        XCTAssertEqual(try ann.shares().map(\.scope), [.shared])
        try importPhotos(ann, count: 1)
        _ = try peer.sync(from: ann)
        XCTAssertEqual(try photos(peer).count, 1, "ann's own photo only")
        XCTAssertEqual(try peer.shares().count, 0)
        try assertVerifyClean(peer)
    }

    func testOwnersPurgeEndsTheShareOnTheParticipantsNextApply() throws {
        let owner = try library("owner"), ann = try library("ann")
        let names = try importPhotos(owner, count: 2, tags: ["Trip"])
        let share = try owner.createShare(photos: try names.map { try owner.resolvePhoto($0) }, author: .default)
        let email = try Email(parsing: "ann@example.org")
        try owner.invite(email, to: share, permission: .readWrite, author: .default)
        _ = try owner.exportShare(try owner.resolveSharedZone(share.id), for: email, to: dir + "/to-ann-1")
        _ = try ann.acceptShare(at: dir + "/to-ann-1")
        XCTAssertEqual(try photos(ann).count, 2)
        _ = try owner.purge(zone: ZoneID(rawValue: share.id))
        // The share is gone here; its id still names it for the participant's changeset.
        _ = try owner.exportShare(try owner.resolveSharedZone(share.id), for: email, to: dir + "/to-ann-2")
        _ = try ann.applyChangeset(at: dir + "/to-ann-2")
        XCTAssertEqual(try photos(ann).count, 0)
        XCTAssertEqual(try ann.shares().count, 0)
        XCTAssertEqual(filesUnder(ann.root + "/ExternalData"), [])
        try assertVerifyClean(ann)
    }
}

/// A range a library cannot serve (a peer acknowledged a token beyond its newest one: it was
/// restored from an older backup) gets every change instead, and the peer applies it although
/// its tokens look applied already.
final class SyncUnservedRangeTests: SyncTestCase {
    func testALibraryRestoredFromABackupStillReachesItsPeer() throws {
        let fm = FileManager.default
        var a = try library("A")
        let b = try library("B")
        let names = try importPhotos(a, count: 1)
        _ = try b.sync(from: a)
        try TestDatabase.copyLibrary(dir + "/A", to: dir + "/A-backup")
        _ = try a.addTag(try TagName(parsing: "Lost"), to: [try a.resolvePhoto(names[0])], author: .default)
        _ = try a.addTag(try TagName(parsing: "Lost2"), to: [try a.resolvePhoto(names[0])], author: .default)
        _ = try b.sync(from: a)
        let applied = try b.appliedToken(sender: try a.libraryID())
        // A is restored from the backup: its change tokens are behind what B applied.
        try fm.removeItem(atPath: dir + "/A")
        try TestDatabase.copyLibrary(dir + "/A-backup", to: dir + "/A")
        a = try library("A")
        _ = try a.addTag(try TagName(parsing: "New"), to: [try a.resolvePhoto(names[0])], author: .default)
        let report = try a.exportChangeset(to: dir + "/restored", since: applied)
        XCTAssertEqual(report.fromToken, applied)
        XCTAssertGreaterThan(report.toToken, applied, "tokens after a restore are above those handed out before")
        let applying = try b.applyChangeset(at: dir + "/restored")
        XCTAssertFalse(applying.alreadyApplied)
        XCTAssertTrue(try b.resolvePhoto(names[0]).tags.contains("New"))
        // A token beyond the newest gets everything, and says so.
        let beyond = try a.exportChangeset(to: dir + "/beyond", since: Int64.max / 2)
        XCTAssertEqual(beyond.unservedToken, Int64.max / 2)
        XCTAssertEqual(beyond.fromToken, 0)
        XCTAssertGreaterThan(beyond.objects, 0)
        XCTAssertTrue(try b.applyChangeset(at: dir + "/beyond").alreadyApplied)
    }
}
