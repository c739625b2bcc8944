import Foundation
import PhotosCore
import PhotosModel
import PhotosTestSupport
import XCTest

/// What `dedupe-tags --all` writes, row for row: the links that move, the tags that go, and
/// the history changes of its one transaction in order (SPEC §5; one change per object per
/// transaction, as Core Data's persistent history merges them). Per group (ordered by zone and
/// NFC name), per loser (smallest uuid first): a Photo update of `tags` for each of the
/// loser's photos not recorded earlier in the transaction (by unique name), then the loser's
/// Tag delete with its tombstone; after the group's losers, the winner's Tag update of
/// `photos` when a link moved to it. Runs on both backends.
final class DedupeHistoryOrderTests: SyncTestCase {
    private func uuid(_ n: Int) -> String { String(format: "00000000-0000-4000-8000-%012d", n) }

    func testDedupeAllWritesTheLinksTagsAndHistoryOfTheRowWiseMerge() throws {
        let lib = try library("L")
        _ = try importPhotos(lib, count: 6)
        let names = try lib.catalog.statement("SELECT unique_name FROM photo ORDER BY unique_name").map {
            $0.string(0)
        }
        XCTAssertEqual(names.count, 6)
        let nfd = "Cafe\u{0301}", nfc = "Caf\u{00E9}"
        // Tags: Sky 1 (winner), 2, 3; Sea 4 (winner), 5; Café 6 (NFC, winner), 7 (stored NFD); Tree 8.
        let tags: [(Int, String)] = [
            (3, "Sky"), (1, "Sky"), (2, "Sky"), (5, "Sea"), (4, "Sea"), (7, nfd), (6, nfc), (8, "Tree")
        ]
        for (n, name) in tags {
            try lib.catalog.run("INSERT INTO tag (uuid, name, zone_id) VALUES (?, ?, 'default')", [uuid(n), name])
        }
        // Links by photo (index into the sorted unique names) and tag number.
        let links: [(Int, Int)] = [
            (0, 2), (1, 2), (2, 2), (2, 3), (3, 3), (1, 1), // Sky: 0, 2, 3 move; 1 already has the winner
            (0, 5), (4, 5), (0, 4), (4, 4), // Sea: nothing moves
            (5, 7), // Café: 5 moves
            (0, 8) // Tree: no duplicate
        ]
        for (photo, tag) in links {
            try lib.catalog.run(
                "INSERT INTO photo_tag (photo_id, tag_id) SELECT p.id, t.id FROM photo p, tag t WHERE p.unique_name = ? AND t.uuid = ?",
                [names[photo], uuid(tag)])
        }
        let before = try lib.currentHistoryToken()

        let report = try lib.dedupeTags(all: true)

        XCTAssertEqual(report.groups.map(\.name), [nfc, "Sea", "Sky"])
        XCTAssertEqual(report.groups.map(\.winner), [uuid(6), uuid(4), uuid(1)])
        XCTAssertEqual(report.groups.map(\.losers), [[uuid(7)], [uuid(5)], [uuid(2), uuid(3)]])
        XCTAssertEqual(report.groups.map(\.photosRelinked), [1, 0, 3])
        XCTAssertEqual(
            try lib.catalog.statement("SELECT uuid FROM tag ORDER BY uuid").map { $0.string(0) },
            [uuid(1), uuid(4), uuid(6), uuid(8)])
        let linked = try lib.catalog.statement(
            "SELECT p.unique_name, t.uuid FROM photo_tag pt JOIN photo p ON p.id = pt.photo_id JOIN tag t ON t.id = pt.tag_id ORDER BY 1, 2"
        ).map { "\($0.string(0)) \($0.string(1))" }
        XCTAssertEqual(
            linked,
            [
                "\(names[0]) \(uuid(1))", "\(names[0]) \(uuid(4))", "\(names[0]) \(uuid(8))", "\(names[1]) \(uuid(1))",
                "\(names[2]) \(uuid(1))", "\(names[3]) \(uuid(1))", "\(names[4]) \(uuid(4))", "\(names[5]) \(uuid(6))"
            ])

        let token = try XCTUnwrap(
            try lib.catalog.scalarInt("SELECT max(token) FROM history_transaction WHERE token > ?", [before]))
        XCTAssertEqual(
            try lib.catalog.scalarInt("SELECT count(*) FROM history_transaction WHERE token > ?", [before]), 1)
        let changes = try lib.catalog.statement(
            "SELECT entity, object_id, type, updated, tombstone, zone_id FROM history_change WHERE token = ? ORDER BY id"
        ).map([token]) { row in
            (0..<6).map { row.isNull($0) ? "-" : row.string($0) }.joined(separator: " ")
        }
        func photo(_ i: Int) -> String { "Photo \(names[i]) update [\"tags\"] - default" }
        func deleted(_ n: Int, _ name: String) -> String {
            "Tag \(uuid(n)) delete - {\"name\":\"\(name)\",\"uuid\":\"\(uuid(n))\"} default"
        }
        func winner(_ n: Int) -> String { "Tag \(uuid(n)) update [\"photos\"] - default" }
        XCTAssertEqual(
            changes,
            [
                photo(5), deleted(7, nfd), winner(6), // Café
                photo(0), photo(4), deleted(5, "Sea"), // Sea: no link moved, no winner update
                photo(1), photo(2), deleted(2, "Sky"), // Sky, loser 2: photo 0 already recorded
                photo(3), deleted(3, "Sky"), winner(1) // loser 3: photo 2 already recorded
            ])
        XCTAssertTrue(try lib.verify().isClean)
    }
}
