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
        // One row per photo and tag (the tags joined here: the backends' aggregate functions differ).
        let rows = try db().statement(
            """
            SELECT p.id, p.display_name, t.name FROM photo p LEFT JOIN photo_tag pt ON pt.photo_id = p.id
            LEFT JOIN tag t ON t.id = pt.tag_id ORDER BY p.display_name, p.id, t.name
            """
        ).map { (id: $0.int64(0), name: $0.string(1), tag: $0.optionalString(2)) }
        var lines: [(id: Int64, line: String, tags: [String])] = []
        for row in rows {
            if lines.last?.id != row.id { lines.append((row.id, row.name, [])) }
            if let tag = row.tag { lines[lines.count - 1].tags.append(tag) }
        }
        return lines.map { $0.line + ": " + $0.tags.joined(separator: ",") }
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
        XCTAssertTrue(again.stdout.contains(#""imported":1,"paired":0,"joined":0,"duplicates":2,"#), again.stdout)
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
