import Foundation
import PhotosTestSupport
import XCTest

/// Issue 31 item A9: a tag name stored decomposed (NFD, as another program or an old version
/// wrote it) is the same tag as its NFC form for every lookup by name (`tag add`, `tag remove`,
/// `tag rename`, `tag delete`, `list --tag`, `import --tag`), `dedupe-tags` merges it with its NFC
/// twin, and `verify --repair` normalises it, merging as dedupe does (the smallest uuid stays,
/// photos re-pointed, history recorded). The NFD name is written straight into the catalog, on
/// the backend of the run (`PHOTOS_TEST_DATABASE_URL`).
final class DecomposedTagNameTests: TemporaryFolderTestCase {
    override var label: String { "photos-nfd-tags" }
    var lib: String { dir + "/lib" }

    /// "Café" with a combining acute accent (U+0065 U+0301), and its NFC form (U+00E9).
    let nfd = "Cafe\u{301}"
    let nfc = "Caf\u{E9}"
    let smallUUID = "00000000-0000-4000-8000-000000000001"
    let largeUUID = "ffffffff-ffff-4fff-bfff-ffffffffffff"

    @discardableResult
    func ok(_ args: [String], file: StaticString = #filePath, line: UInt = #line) -> String {
        let r = photos(["--library", lib] + args)
        XCTAssertEqual(r.status, 0, "\(args): \(r.stderr)", file: file, line: line)
        return r.stdout
    }

    func jsonLines(_ text: String) throws -> [[String: Any]] {
        try text.split(separator: "\n").map {
            try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any], String($0))
        }
    }

    /// Imports two photos and tags the first with an NFD "Café" of uuid `uuid`, written
    /// straight into the catalog. Returns the photos' uniqueNames.
    func prepare(uuid: String) throws -> [String] {
        ok(["import", "-q", samplesDir + "/storm.jpg", samplesDir + "/path.jpg"])
        let names = try jsonLines(ok(["list", "--json"])).compactMap { $0["uniqueName"] as? String }.sorted()
        let catalog = try TestCatalog(root: lib)
        let tag = try catalog.insert("INSERT INTO tag (uuid, name, zone_id) VALUES (?, ?, 'default')", [uuid, nfd])
        let photo = try XCTUnwrap(try catalog.scalarInt("SELECT id FROM photo WHERE unique_name = ?", [names[0]]))
        try catalog.run("INSERT INTO photo_tag (photo_id, tag_id) VALUES (?, ?)", [photo, tag])
        return names
    }

    /// Every tag as (uuid, name as Unicode scalars in hex), by uuid.
    func tags() throws -> [[String]] {
        try TestCatalog(root: lib).rows("SELECT uuid, name FROM tag ORDER BY uuid").map { row in
            [row[0] ?? "", (row[1] ?? "").unicodeScalars.map { String($0.value, radix: 16) }.joined(separator: " ")]
        }
    }

    func hex(_ s: String) -> String { s.unicodeScalars.map { String($0.value, radix: 16) }.joined(separator: " ") }

    func testTagCommandsFindTheDecomposedTag() throws {
        let names = try prepare(uuid: largeUUID)
        // list --tag finds the photo of the NFD tag.
        let listed = try jsonLines(ok(["list", "--json", "--tag", nfc])).compactMap { $0["uniqueName"] as? String }
        XCTAssertEqual(listed, [names[0]])
        // tag add links the second photo to the same tag: no second Café.
        ok(["tag", "add", "-q", nfc, names[1]])
        XCTAssertEqual(try tags(), [[largeUUID, hex(nfd)]])
        XCTAssertEqual(
            try jsonLines(ok(["list", "--json", "--tag", nfc])).compactMap { $0["uniqueName"] as? String }.sorted(),
            names)
        // import --tag too.
        ok(["import", "-q", "--tag", nfc, samplesDir + "/kite.png"])
        XCTAssertEqual(try tags(), [[largeUUID, hex(nfd)]])
        XCTAssertEqual(try jsonLines(ok(["list", "--json", "--tag", nfc])).count, 3)
        // tag remove unlinks it.
        ok(["tag", "remove", "-q", nfc, names[1]])
        XCTAssertEqual(try jsonLines(ok(["list", "--json", "--tag", nfc])).count, 2)
        // tag rename renames it (to the NFC form of the new name).
        ok(["tag", "rename", "-q", nfc, "Bar"])
        XCTAssertEqual(try tags(), [[largeUUID, hex("Bar")]])
        // tag delete of an NFD tag.
        try TestCatalog(root: lib).run("UPDATE tag SET name = ?", [nfd])
        ok(["tag", "delete", "--yes", "-q", nfc])
        XCTAssertEqual(try tags(), [])
        XCTAssertEqual(try TestCatalog(root: lib).scalarInt("SELECT count(*) FROM photo_tag"), 0)
    }

    func testDedupeMergesTheDecomposedTagWithItsNFCTwin() throws {
        let names = try prepare(uuid: smallUUID)
        // A second Café (NFC, another uuid) on the second photo, as `tag add Café` made before.
        let catalog = try TestCatalog(root: lib)
        let tag = try catalog.insert(
            "INSERT INTO tag (uuid, name, zone_id) VALUES (?, ?, 'default')", [largeUUID, nfc])
        let photo = try XCTUnwrap(try catalog.scalarInt("SELECT id FROM photo WHERE unique_name = ?", [names[1]]))
        try catalog.run("INSERT INTO photo_tag (photo_id, tag_id) VALUES (?, ?)", [photo, tag])
        let report = try XCTUnwrap(try jsonLines(ok(["--json", "dedupe-tags"])).first)
        XCTAssertEqual(report["merged"] as? Int, 1, "\(report)")
        // The smallest uuid stays, with both photos and the NFC name.
        XCTAssertEqual(try tags(), [[smallUUID, hex(nfc)]])
        XCTAssertTrue(ok(["verify"]).contains("0 problems"))
        XCTAssertEqual(
            try jsonLines(ok(["list", "--json", "--tag", nfc])).compactMap { $0["uniqueName"] as? String }.sorted(),
            names)
    }

    func testVerifyRepairNormalisesAndMergesAsDedupeDoes() throws {
        let names = try prepare(uuid: smallUUID)
        let catalog = try TestCatalog(root: lib)
        let tag = try catalog.insert(
            "INSERT INTO tag (uuid, name, zone_id) VALUES (?, ?, 'default')", [largeUUID, nfc])
        let photo = try XCTUnwrap(try catalog.scalarInt("SELECT id FROM photo WHERE unique_name = ?", [names[1]]))
        try catalog.run("INSERT INTO photo_tag (photo_id, tag_id) VALUES (?, ?)", [photo, tag])
        let found = photos(["--library", lib, "--json", "verify"])
        XCTAssertNotEqual(found.status, 0)
        let report = try XCTUnwrap(try jsonLines(found.stdout).last)
        let problems = try XCTUnwrap(report["details"] as? [[String: Any]], "\(report)")
        let bad = try XCTUnwrap(problems.first { $0["kind"] as? String == "bad-tag-name" }, "\(report)")
        XCTAssertNotNil(bad["repair"] as? String, "\(bad)")
        let dryRun = photos(["--library", lib, "verify", "--repair", "--dry-run"])
        XCTAssertTrue(dryRun.stdout.contains(smallUUID), dryRun.stdout)
        XCTAssertEqual(try tags(), [[smallUUID, hex(nfd)], [largeUUID, hex(nfc)]])
        ok(["verify", "--repair", "--yes"])
        // The smallest uuid stays, with the NFC name and both photos; the other is deleted.
        XCTAssertEqual(try tags(), [[smallUUID, hex(nfc)]])
        XCTAssertEqual(
            try jsonLines(ok(["list", "--json", "--tag", nfc])).compactMap { $0["uniqueName"] as? String }.sorted(),
            names)
        // History records the rename, the loser's delete and the photo's tag update.
        let changes = try catalog.rows(
            """
            SELECT c.entity, c.object_id, c.type FROM history_change c JOIN history_transaction t ON t.token = c.token
            WHERE t.context = 'verify --repair' ORDER BY c.entity, c.object_id
            """)
        XCTAssertEqual(
            changes,
            [["Photo", names[1], "update"], ["Tag", smallUUID, "update"], ["Tag", largeUUID, "delete"]])
        XCTAssertTrue(ok(["verify"]).contains("0 problems"))
        // tag add Café now makes no second Café.
        ok(["tag", "add", "-q", nfc, names[0]])
        XCTAssertEqual(try tags().map { $0[0] }, [smallUUID])
    }

    /// A lone NFD tag (no NFC twin) is renamed in place by the repair, keeping its uuid and photos.
    func testVerifyRepairRenamesALoneDecomposedTag() throws {
        let names = try prepare(uuid: largeUUID)
        ok(["verify", "--repair", "--yes"])
        XCTAssertEqual(try tags(), [[largeUUID, hex(nfc)]])
        XCTAssertEqual(
            try jsonLines(ok(["list", "--json", "--tag", nfc])).compactMap { $0["uniqueName"] as? String },
            [names[0]])
        XCTAssertTrue(ok(["verify"]).contains("0 problems"))
    }

    /// A changeset from a library holding a decomposed name carries it in NFC (the one form a
    /// changeset may carry), so the peer takes it (exit 0) as the same tag, stored in NFC.
    func testSyncSendsTheNameInNFC() throws {
        let names = try prepare(uuid: largeUUID)
        let peer = dir + "/peer"
        XCTAssertEqual(photos(["--library", peer, "init", "-q"]).status, 0)
        let pulled = photos(["--library", peer, "sync", "-q", "--from", lib])
        XCTAssertEqual(pulled.status, 0, pulled.stderr)
        let there = try TestCatalog(root: peer).rows("SELECT uuid, name FROM tag ORDER BY uuid").map { row in
            [row[0] ?? "", hex(row[1] ?? "")]
        }
        XCTAssertEqual(there, [[largeUUID, hex(nfc)]])
        let listed = photos(["--library", peer, "list", "--json", "--tag", nfc]).stdout
        XCTAssertEqual(try jsonLines(listed).compactMap { $0["uniqueName"] as? String }, [names[0]])
        // Pulled back: nothing changes here (the names compare equal in NFC).
        XCTAssertEqual(photos(["--library", lib, "sync", "-q", "--from", peer]).status, 0)
        XCTAssertEqual(try tags(), [[largeUUID, hex(nfd)]])
    }

    /// `share create` replaces a photo's tags by the same-named tags of the share's zone: the one
    /// it makes for a decomposed name is named in NFC, and a second photo finds it.
    func testAShareMakesItsTagInNFC() throws {
        let names = try prepare(uuid: largeUUID)
        let created = photos(["--library", lib, "--json", "share", "create", "--title", "S", names[0]])
        XCTAssertEqual(created.status, 0, created.stderr)
        let share = try XCTUnwrap(try jsonLines(created.stdout).first?["id"] as? String)
        let inShare = try TestCatalog(root: lib).rows("SELECT name FROM tag WHERE zone_id = ?", [share])
        XCTAssertEqual(inShare.map { hex($0[0] ?? "") }, [hex(nfc)])
        ok(["share", "add", "-q", share, names[1]])
        ok(["tag", "add", "-q", nfc, names[1]])
        XCTAssertEqual(try TestCatalog(root: lib).scalarInt("SELECT count(*) FROM tag WHERE zone_id = ?", [share]), 1)
    }

    /// `merge --from` a library holding a decomposed name: the tag comes over (same uuid) in NFC.
    func testMergeStoresTheOtherLibrarysNameInNFC() throws {
        let names = try prepare(uuid: largeUUID)
        let other = dir + "/other"
        XCTAssertEqual(photos(["--library", other, "init", "-q"]).status, 0)
        let merged = photos(["--library", other, "merge", "-q", "--from", lib])
        XCTAssertEqual(merged.status, 0, merged.stderr)
        let there = try TestCatalog(root: other).rows("SELECT uuid, name FROM tag").map {
            [$0[0] ?? "", hex($0[1] ?? "")]
        }
        XCTAssertEqual(there, [[largeUUID, hex(nfc)]])
        let listed = photos(["--library", other, "list", "--json", "--tag", nfc]).stdout
        XCTAssertEqual(try jsonLines(listed).compactMap { $0["uniqueName"] as? String }, [names[0]])
    }
}
