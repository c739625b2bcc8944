import Foundation
import PhotosTestSupport
import XCTest

/// A move to PostgreSQL killed between its switch and the renaming of the old `photos.sqlite`
/// leaves that file, full, in a PostgreSQL library's folder. Moving back is refused (73, the
/// file untouched) with a message that says what the file is and what to do, not "copy into a
/// new database" (the SQLite target's place is fixed).
final class CatalogMoveOntoALeftOverSQLiteCatalogTests: BinaryTestCase {
    override var label: String { "photos-move-leftover" }

    private var drops: [@Sendable () -> Void] = []

    override func tearDown() {
        for drop in drops { drop() }
        drops = []
        super.tearDown()
    }

    func testALeftOverSQLiteCatalogIsNamedAndKept() throws {
        let made = try TestDatabase.makeSchema()
        drops.append(made.drop)
        let lib = dir + "/lib"
        // A SQLite library whatever the run's backend (the move needs the server as well).
        XCTAssertEqual(try runAsGiven(["--library", lib, "import", "-q", samplesDir]).status, 0)
        guard FileManager.default.fileExists(atPath: lib + "/photos.sqlite") else {
            throw SetUpFailure("the import made no SQLite catalog in \(lib)")
        }
        XCTAssertEqual(try run(["--library", lib, "-q", "catalog", "move", "--to", made.connectionString]).status, 0)
        let kept = try XCTUnwrap(
            try FileManager.default.contentsOfDirectory(atPath: lib).first {
                $0.hasPrefix("photos.sqlite.moved-") && !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm")
            })
        // The state a kill -9 after the switch leaves: the old catalog still named photos.sqlite.
        try FileManager.default.copyItem(atPath: lib + "/" + kept, toPath: lib + "/photos.sqlite")
        let before = try LibrarySnapshot.dumpDatabase(lib + "/photos.sqlite")
        let r = try run(["--library", lib, "catalog", "move", "--to", "sqlite"])
        XCTAssertEqual(r.status, 73, r.stderr)
        XCTAssertTrue(r.stderr.contains("photos.sqlite is not empty"), r.stderr)
        XCTAssertTrue(r.stderr.contains("is not this library's catalog"), r.stderr)
        XCTAssertTrue(r.stderr.contains("Rename it aside"), r.stderr)
        XCTAssertEqual(try LibrarySnapshot.dumpDatabase(lib + "/photos.sqlite"), before)
        XCTAssertTrue(FileManager.default.fileExists(atPath: lib + "/catalog.postgresql"))
        XCTAssertEqual(rename(lib + "/photos.sqlite", lib + "/photos.sqlite.moved-old"), 0)
        let back = try run(["--library", lib, "-q", "catalog", "move", "--to", "sqlite"])
        XCTAssertEqual(back.status, 0, back.stderr)
        let list = try run(["--library", lib, "list", "--json"])
        XCTAssertEqual(list.stdout.split(separator: "\n").count, 6, list.stderr)
    }
}
