import Foundation
import PhotosCore
import PhotosModel
import PhotosSQLite
import PhotosTestSupport
import XCTest

/// An entry reaches a zone not only through the zone it is stamped with: a tombstone names an
/// object by uuid, a rating names its photo, a link names a photo and a tag. A changeset whose
/// entries reach a zone its sender may not write (another zone than the share's; a zone shared
/// with this library, through a whole-library changeset) is refused with 65, nothing written.
final class ChangesetZoneReachTests: SyncTestCase {
    private func edit(_ cs: String, _ sql: String) throws {
        let db = try Database(path: cs + "/changeset.sqlite")
        try db.execute("PRAGMA journal_mode = DELETE")
        try db.execute(sql)
    }

    private func assertRefusedUnchanged(
        _ library: Library, _ cs: String, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let dump = try LibrarySnapshot.dumpCatalog(library.root)
        let (code, message) = status { _ = try library.applyChangeset(at: cs) }
        XCTAssertEqual(code, .refused, message, file: file, line: line)
        XCTAssertTrue(message.contains("reaches zone"), message, file: file, line: line)
        XCTAssertEqual(try LibrarySnapshot.dumpCatalog(library.root), dump, file: file, line: line)
    }

    /// A read-write participant's changeset back to the owner, tampered with `sql` (`$ZONE`,
    /// `$PHOTO`, `$TAG`: the share's zone, the owner's private photo and private tag).
    private func participantChangeset(_ sql: String) throws -> (owner: Library, cs: String, privateTag: String) {
        let owner = try library("owner"), ann = try library("ann")
        let privatePhoto = try importPhotos(owner, count: 1, tags: ["Private"])[0]
        let shared = try importPhotos(owner, count: 1)
        let share = try owner.createShare(photos: [try owner.resolvePhoto(shared[0])], author: .default)
        let email = try Email(parsing: "ann@example.org")
        try owner.invite(email, to: share, permission: .readWrite, author: .default)
        _ = try owner.exportShare(try owner.resolveSharedZone(share.id), for: email, to: dir + "/to-ann")
        _ = try ann.acceptShare(at: dir + "/to-ann")
        _ = try ann.addTag(try TagName(parsing: "Trip"), to: [try ann.resolvePhoto(shared[0])], author: .default)
        let cs = dir + "/from-ann"
        _ = try ann.exportShare(try ann.resolveSharedZone(share.id), for: nil, to: cs)
        let privateTag = try XCTUnwrap(try owner.tags().first { $0.name == "Private" }).uuid
        let filled = sql.replacingOccurrences(of: "$ZONE", with: share.id)
            .replacingOccurrences(of: "$PHOTO", with: privatePhoto).replacingOccurrences(of: "$TAG", with: privateTag)
        try edit(cs, filled)
        return (owner, cs, privateTag)
    }

    func testParticipantsTombstoneOfAnOwnersPrivateTagIsRefused() throws {
        let (owner, cs, privateTag) = try participantChangeset(
            "INSERT INTO entry SELECT 'Tag', '$TAG', 'deleted', '1', stamp_time, stamp_library, zone_id FROM entry WHERE stamp_library = (SELECT value FROM header WHERE key = 'sender') LIMIT 1"
        )
        try assertRefusedUnchanged(owner, cs)
        XCTAssertTrue(try owner.tags().contains { $0.uuid == privateTag })
    }

    func testParticipantsRatingOfAnOwnersPrivatePhotoIsRefused() throws {
        let rating = "0c6e9a52-1111-4222-8333-444455556666"
        let (owner, cs, _) = try participantChangeset(
            """
            INSERT INTO entry SELECT 'Rating', '\(rating)', 'photo', '$PHOTO', stamp_time, stamp_library, zone_id
              FROM entry WHERE stamp_library = (SELECT value FROM header WHERE key = 'sender') LIMIT 1;
            INSERT INTO entry SELECT 'Rating', '\(rating)', 'value', '5', stamp_time, stamp_library, zone_id
              FROM entry WHERE stamp_library = (SELECT value FROM header WHERE key = 'sender') LIMIT 1;
            INSERT INTO entry SELECT 'Rating', '\(rating)', 'author', 'mallory', stamp_time, stamp_library, zone_id
              FROM entry WHERE stamp_library = (SELECT value FROM header WHERE key = 'sender') LIMIT 1;
            """)
        try assertRefusedUnchanged(owner, cs)
    }

    func testParticipantsLinkOfAnOwnersPrivatePhotoAndTagIsRefused() throws {
        let (owner, cs, _) = try participantChangeset(
            "INSERT INTO entry SELECT 'PhotoTag', '$PHOTO/$TAG', 'present', '0', stamp_time, stamp_library, zone_id FROM entry WHERE stamp_library = (SELECT value FROM header WHERE key = 'sender') LIMIT 1"
        )
        try assertRefusedUnchanged(owner, cs)
    }

    /// A peer's whole-library changeset that puts a tag into a zone shared with this library.
    func testWholeLibraryChangesetCannotWriteIntoAZoneSharedWithThisLibrary() throws {
        let owner = try library("owner"), ann = try library("ann"), peer = try library("peer")
        let names = try importPhotos(owner, count: 1)
        let share = try owner.createShare(photos: [try owner.resolvePhoto(names[0])], author: .default)
        let email = try Email(parsing: "ann@example.org")
        try owner.invite(email, to: share, permission: .readOnly, author: .default)
        _ = try owner.exportShare(try owner.resolveSharedZone(share.id), for: email, to: dir + "/to-ann")
        _ = try ann.acceptShare(at: dir + "/to-ann")
        try importPhotos(peer, count: 1, tags: ["Injected"])
        let cs = try export(peer)
        try edit(
            cs,
            "UPDATE entry SET zone_id = '\(share.id)' WHERE entity = 'Tag';"
                + "UPDATE entry SET value = '\(share.id)' WHERE entity = 'Tag' AND attribute = 'zone'")
        try assertRefusedUnchanged(ann, cs)
        XCTAssertEqual(try ann.tags().map(\.name), [])
    }
}
