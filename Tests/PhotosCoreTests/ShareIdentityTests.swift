import Foundation
import PhotosCore
import PhotosModel
import PhotosTestSupport
import XCTest

/// Issue #29 item 1 "Identity", on the backend of the run (SQLite, or PostgreSQL with
/// `PHOTOS_TEST_DATABASE_URL`): a library knows who it is — its owner address (`identity set`)
/// in its own zones, its participant in a share accepted here — so two people's ratings of one
/// photo stay two ratings in every library, with default settings (no `--author`, no
/// `$PHOTOS_AUTHOR`).
final class ShareIdentityTests: SyncTestCase {
    /// `author=value` of each rating of the photo, sorted.
    private func ratings(_ lib: Library, _ name: String) throws -> [String] {
        try lib.ratings(of: try lib.resolvePhoto(name)).map { "\($0.author ?? "-")=\($0.value)" }.sorted()
    }

    /// The authors of the history transactions after `token`, in token order, with their context.
    private func authors(_ lib: Library, after token: Int64) throws -> [String] {
        var filter = HistoryFilter()
        filter.sinceToken = token
        var result: [String] = []
        try lib.forEachHistoryTransaction(matching: filter) { result.append("\($0.author) \($0.context)") }
        return result
    }

    /// The scenario of the issue: the owner (identity owner@example.org) shares a photo with ann
    /// (read-write) and bea (read-only); the owner rates 4, ann rates 5 on her own library;
    /// changesets go both ways: every library has owner@example.org=4 and ann@example.org=5,
    /// mean 5 (4.5 rounded half up).
    func testOwnerAndParticipantRatingsStayTwoRatingsEverywhere() throws {
        let owner = try library("owner"), ann = try library("ann"), bea = try library("bea")
        XCTAssertNil(try owner.setOwnerAddress(try Email(parsing: "Owner@Example.org")))
        XCTAssertEqual(try owner.ownerAddress()?.rawValue, "owner@example.org")
        let names = try importPhotos(owner, count: 1)
        let share = try owner.createShare(
            photos: [try owner.resolvePhoto(names[0])], owner: try owner.ownerAddress(), author: .default)
        let annEmail = try Email(parsing: "ann@example.org"), beaEmail = try Email(parsing: "bea@example.org")
        try owner.invite(annEmail, to: share, permission: .readWrite, author: .default)
        try owner.invite(beaEmail, to: share, permission: .readOnly, author: .default)
        _ = try owner.exportShare(try owner.resolveSharedZone(share.id), for: annEmail, to: dir + "/to-ann-1")
        _ = try ann.acceptShare(at: dir + "/to-ann-1")
        _ = try owner.exportShare(try owner.resolveSharedZone(share.id), for: beaEmail, to: dir + "/to-bea-1")
        _ = try bea.acceptShare(at: dir + "/to-bea-1")
        XCTAssertEqual(
            try ann.participantIdentities().map { "\($0.share) \($0.participant)" }, ["\(share.id) ann@example.org"])

        let ownerBefore = try owner.currentHistoryToken()
        let (mine, _) = try owner.setRating(
            try XCTUnwrap(RatingValue(rawValue: 4)), of: try owner.resolvePhoto(names[0]), author: .default)
        XCTAssertEqual(mine.author, "owner@example.org", "the owner's zones: the owner address")
        XCTAssertEqual(try authors(owner, after: ownerBefore), ["owner@example.org rate"])
        let (hers, _) = try ann.setRating(
            try XCTUnwrap(RatingValue(rawValue: 5)), of: try ann.resolvePhoto(names[0]), author: .default)
        XCTAssertEqual(hers.author, "ann@example.org", "a shared zone: this library's participant")

        _ = try ann.exportShare(try ann.resolveSharedZone(share.id), for: nil, to: dir + "/to-owner")
        _ = try owner.applyChangeset(at: dir + "/to-owner")
        _ = try owner.exportShare(try owner.resolveSharedZone(share.id), for: annEmail, to: dir + "/to-ann-2")
        _ = try ann.applyChangeset(at: dir + "/to-ann-2")
        _ = try owner.exportShare(try owner.resolveSharedZone(share.id), for: beaEmail, to: dir + "/to-bea-2")
        _ = try bea.applyChangeset(at: dir + "/to-bea-2")

        for lib in [owner, ann, bea] {
            XCTAssertEqual(try ratings(lib, names[0]), ["ann@example.org=5", "owner@example.org=4"], lib.root)
            XCTAssertEqual(try lib.resolvePhoto(names[0]).rating, 5, "mean 4.5 rounded half up: \(lib.root)")
        }

        // --author still overrides in a shared zone, and so does a run's --owner in the owner's.
        let (given, _) = try ann.setRating(
            try XCTUnwrap(RatingValue(rawValue: 2)), of: try ann.resolvePhoto(names[0]), author: "bea")
        XCTAssertEqual(given.author, "bea")
        let (run, _) = try owner.setRating(
            try XCTUnwrap(RatingValue(rawValue: 3)), of: try owner.resolvePhoto(names[0]),
            author: HistoryAuthor(owner: "other@example.org"))
        XCTAssertEqual(run.author, "other@example.org")
        for lib in [owner, ann, bea] { try assertVerifyClean(lib) }
    }

    /// A run that touches two zones of two authors (ann rates her own photo and the shared one
    /// in one `rate`) writes one history transaction per author, in the order of their first
    /// change; clearing the identity brings back `photos`; ratings made before keep their author.
    func testOneRunInTwoZonesWritesOneTransactionPerAuthor() throws {
        let owner = try library("owner"), ann = try library("ann")
        let shared = try importPhotos(owner, count: 1)
        let share = try owner.createShare(photos: [try owner.resolvePhoto(shared[0])], author: .default)
        let annEmail = try Email(parsing: "ann@example.org")
        try owner.invite(annEmail, to: share, permission: .readWrite, author: .default)
        _ = try owner.exportShare(try owner.resolveSharedZone(share.id), for: annEmail, to: dir + "/to-ann")
        _ = try ann.acceptShare(at: dir + "/to-ann")
        let own = try importPhotos(ann, count: 1)

        // Before an identity: her own zone is authored photos, the shared one by her participant.
        let (old, _) = try ann.setRating(
            try XCTUnwrap(RatingValue(rawValue: 1)), of: try ann.resolvePhoto(own[0]), author: .default)
        XCTAssertEqual(old.author, "photos")
        try ann.setOwnerAddress(try Email(parsing: "ann@home.example"))

        let before = try ann.currentHistoryToken()
        let results = try ann.setRatings(
            try XCTUnwrap(RatingValue(rawValue: 3)),
            of: [try ann.resolvePhoto(own[0]), try ann.resolvePhoto(shared[0])], author: .default)
        XCTAssertEqual(results.map { $0.rating.author }, ["ann@home.example", "ann@example.org"])
        XCTAssertEqual(try authors(ann, after: before), ["ann@home.example rate", "ann@example.org rate"])
        var filter = HistoryFilter()
        filter.sinceToken = before
        var zones: [String: Set<String>] = [:]
        try ann.forEachHistoryTransaction(matching: filter) { t in
            zones[t.author] = Set(t.changes.compactMap(\.zone))
        }
        XCTAssertEqual(zones, ["ann@home.example": ["default"], "ann@example.org": [share.id]])
        XCTAssertEqual(try ratings(ann, own[0]), ["ann@home.example=3", "photos=1"], "the old rating keeps its author")

        XCTAssertEqual(try ann.clearOwnerAddress()?.rawValue, "ann@home.example")
        XCTAssertNil(try ann.clearOwnerAddress())
        let (again, _) = try ann.setRating(
            try XCTUnwrap(RatingValue(rawValue: 5)), of: try ann.resolvePhoto(own[0]), author: .default)
        XCTAssertEqual(again.author, "photos")
        XCTAssertEqual(try ratings(ann, own[0]), ["ann@home.example=3", "photos=5"])
        try assertVerifyClean(ann)
    }
}
