import Foundation
import PhotosCore
import PhotosModel
import PhotosTestSupport
import XCTest

/// `share export --for` is the owner's: a participant's changeset goes back to the owner and
/// speaks for the participant itself, so `--for` another address is a usage error (64) and
/// writes nothing, and `--for` its own address is the same as none.
final class ParticipantExportForTests: SyncTestCase {
    func testParticipantCannotExportForAnotherParticipant() throws {
        let owner = try library("owner"), bob = try library("bob")
        let names = try importPhotos(owner, count: 1)
        let share = try owner.createShare(photos: [try owner.resolvePhoto(names[0])], author: .default)
        let bobEmail = try Email(parsing: "bob@example.org"), ann = try Email(parsing: "ann@example.org")
        try owner.invite(bobEmail, to: share, permission: .readWrite, author: .default)
        try owner.invite(ann, to: share, permission: .readWrite, author: .default)
        _ = try owner.exportShare(try owner.resolveSharedZone(share.id), for: bobEmail, to: dir + "/to-bob")
        _ = try bob.acceptShare(at: dir + "/to-bob")
        let (code, message) = status {
            _ = try bob.exportShare(try bob.resolveSharedZone(share.id), for: ann, to: dir + "/as-ann")
        }
        XCTAssertEqual(code, .misuse, message)
        XCTAssertTrue(message.contains("--for ann@example.org is the owner's option"), message)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/as-ann"))
        _ = try bob.exportShare(try bob.resolveSharedZone(share.id), for: bobEmail, to: dir + "/as-bob")
        _ = try owner.applyChangeset(at: dir + "/as-bob")
        let participants = try XCTUnwrap(try owner.shares().first { $0.id == share.id }).participants
        XCTAssertEqual(
            participants.map { "\($0.email) \($0.acceptance)" }.sorted(),
            ["ann@example.org pending", "bob@example.org accepted"])
    }
}
