import Foundation
import XCTest
import PhotosTestSupport
import PhotosSQLite

/// `import --tag` tags every photo the files name, also those that were duplicates (already
/// in the library, or twice in one run): a user expects the tag on the photo whatever. Run
/// with the binary.
final class ImportTagOnDuplicatesTests: BinaryTestCase {
    override var label: String { "photos-import-tag-duplicates" }
    var lib: String { dir + "/lib" }

    func db() throws -> TestCatalog { try TestCatalog(root: lib, readOnly: true) }
    /// `display name: tags` per photo, by display name.
    func tagged() throws -> [String] {
        try db().statement(
            """
            SELECT p.display_name || ': ' || coalesce((SELECT group_concat(name, ',') FROM (SELECT t.name FROM photo_tag pt
            JOIN tag t ON t.id = pt.tag_id WHERE pt.photo_id = p.id ORDER BY t.name)), '') FROM photo p ORDER BY p.display_name
            """
        ).map { $0.string(0) }
    }

    func testDuplicatesGetTheTagToo() throws {
        let first = try run(["--library", lib, "import", "-q", samplesDir + "/storm.jpg", samplesDir + "/kite.png"])
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertEqual(try tagged(), ["kite.png: ", "storm.jpg: "])

        // storm.jpg again (a duplicate of the library) and twice in one run, with path.jpg new.
        try FileManager.default.createDirectory(atPath: dir + "/again", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: samplesDir + "/storm.jpg", toPath: dir + "/again/storm-copy.jpg")
        let again = try run(
            [
                "--library", lib, "import", "--json", "--tag", "Trip", "--tag", "2026", samplesDir + "/storm.jpg",
                dir + "/again", samplesDir + "/path.jpg"
            ])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertTrue(again.stdout.contains(#""imported":1,"duplicates":2,"#), again.stdout)
        XCTAssertEqual(try tagged(), ["kite.png: ", "path.jpg: 2026,Trip", "storm.jpg: 2026,Trip"])
        XCTAssertEqual(try db().scalarInt("SELECT count(*) FROM photo"), 3, "no photo was added for a duplicate")

        // Again: nothing changes, and no history is recorded for photos that have the tags.
        let count = try db().scalarInt("SELECT count(*) FROM history_transaction")
        XCTAssertEqual(
            try run(["--library", lib, "import", "-q", "--tag", "Trip", samplesDir + "/storm.jpg"]).status, 0)
        XCTAssertEqual(try db().scalarInt("SELECT count(*) FROM history_transaction"), count)

        // A dry run tags nothing.
        XCTAssertEqual(
            try run(["--library", lib, "import", "-q", "--dry-run", "--tag", "Dry", samplesDir + "/kite.png"]).status, 0
        )
        XCTAssertEqual(try tagged().first, "kite.png: ")
    }
}
