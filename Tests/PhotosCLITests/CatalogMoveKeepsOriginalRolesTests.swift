import Foundation
import PhotosCore
import PhotosPostgreSQL
import PhotosTestSupport
import XCTest

/// Issue 24 item 2: `catalog move` keeps every original of a photo with its role and format:
/// a photo with a `raw` original beside its primary has both rows in the new catalog.
final class CatalogMoveKeepsOriginalRolesTests: BinaryTestCase {
    override var label: String { "photos-move-roles" }

    private var drops: [@Sendable () -> Void] = []

    override func tearDown() {
        for drop in drops { drop() }
        drops = []
        super.tearDown()
    }

    private func originals(_ lib: String) throws -> [[String?]] {
        try Library(root: lib, create: false).catalog.rows(
            """
            SELECT p.unique_name, d.role, d.sha256, d.byte_size, d.format, d.file_ref FROM photo_data d
            JOIN photo p ON p.id = d.photo_id ORDER BY p.unique_name, d.role
            """)
    }

    func testCatalogMoveKeepsTheRawOriginalsRow() throws {
        let made = try TestDatabase.makeSchema()
        drops.append(made.drop)
        let lib = dir + "/lib"
        XCTAssertEqual(try run(["--library", lib, "import", "-q", samplesDir + "/storm.jpg"]).status, 0)
        let sha = String(repeating: "ab", count: 32)
        try Library(root: lib, create: false).catalog.run(
            """
            INSERT INTO photo_data (photo_id, sha256, byte_size, file_ref, role, format)
            SELECT id, ?, 7, ?, 'raw', 'raw' FROM photo
            """, [sha, "ab/" + sha])
        let before = try originals(lib)
        XCTAssertEqual(before.map { $0[1] }, ["primary", "raw"])
        let r = try run(["--library", lib, "catalog", "move", "--to", made.connectionString])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(try originals(lib), before)
    }
}
