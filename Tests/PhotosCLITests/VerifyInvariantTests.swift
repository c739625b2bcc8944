import Foundation
import XCTest
import PhotosTestSupport
@testable import PhotosCLI
import PhotosCore
import PhotosSQLite

/// Issue 9 item 11 (variants): verify checks every invariant the library relies on and
/// `--repair` fixes what it safely can.
/// - Two photos with the same SHA-256 (import and merge rely on one photo per original's
///   bytes) passed verify; now `duplicate-photo`, reported and never repaired.
/// - A tag link crossing zones was reported but `--repair` left it; now it is relinked to the
///   same-named tag of the photo's zone (created when absent), recorded in history.
final class VerifyInvariantTests: TemporaryFolderTestCase {
    override var label: String { "photos-i9-invariants" }
    var lib: String { dir + "/lib" }
    override func setUpWithError() throws {
        try super.setUpWithError()
        XCTAssertEqual(
            run(["import", "-q", "--tag", "Sky", samplesDir + "/storm.jpg", samplesDir + "/path.jpg"]).status, 0)
    }
    func run(_ args: [String]) -> RunResult { photos(["--library", lib] + args) }
    func db() throws -> TestCatalog { try TestCatalog(root: lib) }

    func testDuplicatePhotoIsReportedNotRepaired() throws {
        // Two photos of one original in one zone (on PostgreSQL too since migration 7, issue 31 A1).
        let d = try db()
        let id = try d.insert(
            "INSERT INTO photo (unique_name, display_name, imported_at, width, height, format, orientation, zone_id) SELECT 'AAAAAAAA-0000-4000-8000-000000000000', 'copy.jpg', imported_at, width, height, format, orientation, zone_id FROM photo WHERE display_name = 'storm.jpg'"
        )
        try d.run(
            "INSERT INTO photo_data (photo_id, sha256, byte_size, file_ref) SELECT ?, sha256, byte_size, file_ref FROM photo_data d JOIN photo p ON p.id = d.photo_id WHERE p.display_name = 'storm.jpg'",
            [id])
        try d.run(
            "INSERT INTO thumbnail (photo_id, data, width, height) SELECT ?, data, t.width, t.height FROM thumbnail t JOIN photo p ON p.id = t.photo_id WHERE p.display_name = 'storm.jpg'",
            [id])
        let v = run(["verify"])
        XCTAssertEqual(v.status, 1)
        XCTAssertTrue(
            v.stdout.contains("duplicate-photo")
                && v.stdout.contains("AAAAAAAA-0000-4000-8000-000000000000 (copy.jpg)"), v.stdout)
        let r = run(["verify", "--repair"])
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(try db().scalarInt("SELECT count(*) FROM photo"), 3)
        // Deleting the copy keeps the shared original; the library is then clean.
        XCTAssertEqual(run(["delete", "AAAAAAAA"]).status, 0)
        XCTAssertEqual(run(["verify"]).status, 0)
    }

    /// A displayName with a NUL byte was cut short by `list` and export ("a" for
    /// "a\0b/../../evil.jpg", exported without extension) and passed verify.
    func testImpossibleDisplayNamesAreReported() throws {
        let d = try db()
        // PostgreSQL text cannot hold a NUL byte (PostgreSQL docs §8.3): that name exists only on SQLite.
        let withNUL = d.backend == .sqlite
        if withNUL {
            try d.execute(
                "UPDATE photo SET display_name = 'a' || char(0) || 'b/../../evil.jpg' WHERE display_name = 'storm.jpg'")
        }
        try d.execute("UPDATE photo SET display_name = '..' WHERE display_name = 'path.jpg'")
        let v = run(["verify"])
        XCTAssertEqual(v.status, 1)
        if withNUL {
            XCTAssertTrue(
                v.stdout.contains(#"has the file name "a\u0000b/../../evil.jpg", which no file can have"#), v.stdout)
        }
        XCTAssertTrue(v.stdout.contains(#"has the file name "..", which no file can have"#), v.stdout)
        XCTAssertEqual(v.stdout.components(separatedBy: "bad-display-name").count - 1, withNUL ? 2 : 1, v.stdout)
        // A newline is a legal (if odd) file name character: not a problem.
        try d.run("UPDATE photo SET display_name = ? WHERE display_name = '..'", ["a\nb.jpg"])
        XCTAssertEqual(
            run(["verify"]).stdout.components(separatedBy: "bad-display-name").count - 1, withNUL ? 1 : 0)
    }

    func testCrossZoneLinkIsRelinked() throws {
        let d = try db()
        try d.run("INSERT INTO zone (id, name, scope) VALUES ('zz', 'zz', 'private')")
        try d.run(
            "INSERT INTO tag (uuid, name, zone_id) VALUES ('11111111-1111-4111-8111-111111111111', 'Sky', 'zz'), ('22222222-2222-4222-8222-222222222222', 'New', 'zz')"
        )
        for uuid in ["11111111-1111-4111-8111-111111111111", "22222222-2222-4222-8222-222222222222"] {
            try d.run(
                "INSERT INTO photo_tag (photo_id, tag_id) SELECT p.id, t.id FROM photo p, tag t WHERE p.display_name = 'path.jpg' AND t.uuid = ?",
                [uuid])
        }
        let skyUUID = try XCTUnwrap(
            try d.scalarString("SELECT uuid FROM tag WHERE zone_id = 'default' AND name = 'Sky'"))
        let dry = run(["verify", "--repair", "--dry-run"])
        XCTAssertEqual(dry.status, 1)
        XCTAssertEqual(dry.stdout.components(separatedBy: "would repair: link photo").count - 1, 2, dry.stdout)
        let r = run(["verify", "--repair"])
        XCTAssertEqual(r.status, 0, r.stdout)
        let links = try db().statement(
            "SELECT t.name, t.zone_id, t.uuid FROM photo_tag pt JOIN photo p ON p.id = pt.photo_id JOIN tag t ON t.id = pt.tag_id WHERE p.display_name = 'path.jpg' ORDER BY t.name"
        )
        .map { [$0.string(0), $0.string(1), $0.string(2)] }
        XCTAssertEqual(links.count, 2)
        XCTAssertEqual(links[0][0...1], ["New", "default"])
        XCTAssertEqual(links[1], ["Sky", "default", skyUUID])
        XCTAssertEqual(run(["verify"]).status, 0)
        let history = run(["history", "--json"]).stdout.split(separator: "\n").last.map(String.init) ?? ""
        XCTAssertTrue(
            history.contains("\"author\":\"verify\"") && history.contains("\"context\":\"verify --repair\""), history)
        // One shape for a tag link, whoever writes it: an update of `tags` on the Photo (as
        // `tag add` records it), plus the insert of the tag it had to create.
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(history.utf8)) as? [String: Any])
        let changes = try XCTUnwrap(object["changes"] as? [[String: Any]]).map {
            "\($0["entity"]!) \($0["type"]!) \(($0["updated"] as? [String]) ?? [])"
        }
        XCTAssertEqual(changes.sorted(), ["Photo update [\"tags\"]", "Tag insert []"], "\(changes)")
    }
}
