import Foundation
import XCTest
import PhotosTestSupport
@testable import PhotosCLI
import PhotosSQLite

/// The refusals of `purge`, `history consumers` and `history` are typed in Core
/// (`MaintenanceError`) and worded in one place (`ErrorReporting`, `// MARK: maintenance`):
/// the exact lines and exit statuses users see, which issue 10 keeps byte-identical.
final class MaintenanceErrorWordingTests: TemporaryFolderTestCase {
    override var label: String { "photos-maint-words" }
    var lib: String { dir + "/lib" }
    override func setUpWithError() throws {
        try super.setUpWithError()
        XCTAssertEqual(photos(["--library", lib, "init"]).status, 0)
    }

    /// Adds zones shared with this library (as a merge could bring) with these ids.
    private func addZones(_ ids: [String]) throws {
        let db = try TestCatalog(root: lib)
        for id in ids { try db.run("INSERT INTO zone (id, name, scope) VALUES (?, ?, 'shared')", [id, id]) }
    }

    func testPurgeRefusalsKeepTheirWordsAndStatuses() throws {
        try addZones((1...12).map { String(format: "abcd%04d", $0) } + ["wxyz0001"])
        let ambiguous = photos(["--library", lib, "purge", "--share", "abcd"])
        XCTAssertEqual(ambiguous.status, 65)
        XCTAssertEqual(
            ambiguous.stderr,
            "photos purge: error: share prefix 'abcd' is ambiguous: "
                + (1...10).map { String(format: "abcd%04d", $0) }.joined(separator: ", ") + ", …\n",
            "the first 10 of the candidates, then …")
        let two = photos(["--library", lib, "purge", "--share", "abcd001", "--dry-run"])
        XCTAssertEqual(
            two.stderr, "photos purge: error: share prefix 'abcd001' is ambiguous: abcd0010, abcd0011, abcd0012\n")
        XCTAssertEqual(two.status, 65)
        let short = photos(["--library", lib, "purge", "--share", "wxy"])
        // A prefix shorter than 4 characters is a bad argument, 64, as in every command (issue 14).
        XCTAssertEqual(short.status, 64)
        XCTAssertTrue(
            short.stderr.hasPrefix("photos purge: error: share 'wxy': an id prefix needs at least 4 characters\n"),
            short.stderr)
        let none = photos(["--library", lib, "purge", "--share", "nope-nope"])
        XCTAssertEqual(none.status, 66)
        XCTAssertEqual(none.stderr, "photos purge: error: no share or zone 'nope-nope' in the library\n")
        for spelling in ["default", "DEFAULT", "defa"] {
            let refused = photos(["--library", lib, "purge", "--share", spelling])
            XCTAssertEqual(refused.status, 64, spelling)
            XCTAssertTrue(
                refused.stderr.hasPrefix(
                    "photos purge: error: the default zone cannot be purged (delete its photos with 'photos delete')\n"),
                "\(spelling): \(refused.stderr)")
        }
        // A unique prefix in another case resolves to the stored id.
        let found = photos(["--library", lib, "purge", "--share", "WXYZ", "--dry-run"])
        XCTAssertEqual(found.status, 0, found.stderr)
        XCTAssertEqual(
            found.stdout, "Would purge zone wxyz0001: 0 photos, 0 ratings, 0 tags, 0 participants, 0 shares\n")
        let db = try TestCatalog(root: lib)
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM zone"), 14, "nothing purged by a refusal or a dry run")
    }

    func testRemovingAnUnknownConsumerIs66() throws {
        let missing = photos(["--library", lib, "history", "consumers", "--remove", "nope"])
        XCTAssertEqual(missing.status, 66)
        XCTAssertEqual(missing.stderr, "photos history consumers: error: no history consumer 'nope'\n")
        XCTAssertEqual(photos(["--library", lib, "history", "--consumer", "c1", "--advance", "-q"]).status, 0)
        let removed = photos(["--library", lib, "history", "consumers", "--remove", "c1"])
        XCTAssertEqual(removed.status, 0, removed.stderr)
        XCTAssertEqual(photos(["--library", lib, "history", "consumers"]).stdout, "NAME  TOKEN\n", "a header only")
    }

    /// `--entity` and `--zone` reach the store as `HistoryEntity` and `ZoneID`: each filter
    /// keeps exactly its changes, and a transaction left without changes is dropped.
    func testHistoryEntityAndZoneFiltersSelectTheirChanges() throws {
        XCTAssertEqual(
            photos([
                "--library", lib, "import", "-q", "--tag", "Sky", samplesDir + "/storm.jpg", samplesDir + "/kite.png"
            ]).status, 0)
        let names = photos(["--library", lib, "list", "--json"]).stdout.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["uniqueName"] as? String
        }
        XCTAssertEqual(names.count, 2)
        XCTAssertEqual(photos(["--library", lib, "share", "create", names[0], "-q"]).status, 0)
        let shareID = try XCTUnwrap(try TestCatalog(root: lib).scalarString("SELECT id FROM share"))
        func changes(_ args: [String]) throws -> [[String: Any]] {
            let out = photos(["--library", lib, "history", "--json"] + args)
            XCTAssertEqual(out.status, 0, out.stderr)
            return try out.stdout.split(separator: "\n").flatMap { line in
                try XCTUnwrap(
                    (try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["changes"]
                        as? [[String: Any]])
            }
        }
        let inShare = try changes(["--zone", shareID])
        XCTAssertFalse(inShare.isEmpty)
        XCTAssertTrue(inShare.allSatisfy { $0["zone"] as? String == shareID })
        XCTAssertEqual(
            Set(inShare.compactMap { $0["entity"] as? String }), ["Share", "Photo", "PhotoData", "Thumbnail", "Tag"],
            "the move touches the photo with its data and thumbnail")
        let tagsInShare = try changes(["--zone", shareID, "--entity", "tag"])
        XCTAssertEqual(
            tagsInShare.map { $0["type"] as? String }, ["insert"], "the share's own Sky, created by the move")
        let ratings = photos(["--library", lib, "history", "--json", "--entity", "Rating"])
        XCTAssertEqual(ratings.stdout, "", "no transaction has a Rating change")
        // An unknown zone is 66 in every command (issue 14; it listed nothing and exited 0).
        XCTAssertEqual(photos(["--library", lib, "history", "--zone", "no-such-zone"]).status, 66)
        let bad = photos(["--library", lib, "history", "--entity", "Zone"])
        XCTAssertEqual(bad.status, 64)
        XCTAssertTrue(
            bad.stderr.contains(
                "--entity takes one of Photo, PhotoData, Thumbnail, Tag, Rating, Share, Participant, not 'Zone'"),
            bad.stderr)
    }
}
