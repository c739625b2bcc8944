import Foundation
import PhotosCore
import PhotosModel
import PhotosTestSupport
import XCTest

/// Issue #29 item 1: a rating made in a zone of scope `shared` is authored by this library's
/// participant in that share, so two people's ratings of one photo stay two ratings in every
/// library, with default settings (no `--author`, no `$PHOTOS_AUTHOR`).
final class ShareIdentityTests: SyncTestCase {
    func testOwnerAndParticipantRatingsStayTwoRatingsEverywhere() throws {
        let owner = try library("owner"), ann = try library("ann")
        let names = try importPhotos(owner, count: 1)
        let share = try owner.createShare(photos: [try owner.resolvePhoto(names[0])], author: .default)
        let email = try Email(parsing: "ann@example.org")
        try owner.invite(email, to: share, permission: .readWrite, author: .default)
        _ = try owner.exportShare(try owner.resolveSharedZone(share.id), for: email, to: dir + "/to-ann-1")
        _ = try ann.acceptShare(at: dir + "/to-ann-1")

        let (mine, _) = try owner.setRating(
            try XCTUnwrap(RatingValue(rawValue: 4)), of: try owner.resolvePhoto(names[0]), author: .default)
        XCTAssertEqual(mine.author, "photos", "the owner's zones: no participant, the default author")
        let (hers, _) = try ann.setRating(
            try XCTUnwrap(RatingValue(rawValue: 5)), of: try ann.resolvePhoto(names[0]), author: .default)
        XCTAssertEqual(hers.author, "ann@example.org", "a shared zone: this library's participant")

        _ = try ann.exportShare(try ann.resolveSharedZone(share.id), for: nil, to: dir + "/to-owner")
        _ = try owner.applyChangeset(at: dir + "/to-owner")
        _ = try owner.exportShare(try owner.resolveSharedZone(share.id), for: email, to: dir + "/to-ann-2")
        _ = try ann.applyChangeset(at: dir + "/to-ann-2")

        for lib in [owner, ann] {
            let photo = try lib.resolvePhoto(names[0])
            let ratings = try lib.ratings(of: photo).map { "\($0.author ?? "-")=\($0.value)" }.sorted()
            XCTAssertEqual(ratings, ["ann@example.org=5", "photos=4"], lib.root)
            XCTAssertEqual(photo.rating, 5, "mean 4.5 rounded half up")
        }

        // --author still overrides in a shared zone.
        let (given, _) = try ann.setRating(
            try XCTUnwrap(RatingValue(rawValue: 2)), of: try ann.resolvePhoto(names[0]), author: "bea")
        XCTAssertEqual(given.author, "bea")
        try assertVerifyClean(owner)
        try assertVerifyClean(ann)
    }
}
