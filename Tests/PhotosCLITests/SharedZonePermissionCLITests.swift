import Foundation
import PhotosSQLite
import PhotosTestSupport
import XCTest

@testable import PhotosCLI

/// Writes to a zone of scope `shared` (issue 11 item 3): a zone that no accepted changeset
/// brought (set to shared by hand, as the issue found it) has no known permission, so every
/// write command exits 77 naming the share and writes nothing.
final class SharedZonePermissionCLITests: TemporaryFolderTestCase {
    override var label: String { "photos-shared-permission" }

    func testEveryWriteToAZoneSharedByHandExits77AndWritesNothing() throws {
        let lib = dir + "/lib"
        XCTAssertEqual(photos(["--library", lib, "import", "-q", "--tag", "Trip", samplesDir + "/storm.jpg"]).status, 0)
        let db = try TestCatalog(root: lib)
        let name = try XCTUnwrap(try db.scalarString("SELECT unique_name FROM photo"))
        XCTAssertEqual(photos(["--library", lib, "rate", "-q", name, "3"]).status, 0)
        XCTAssertEqual(photos(["--library", lib, "share", "create", "-q", "--title", "Theirs", name]).status, 0)
        let share = try XCTUnwrap(try db.scalarString("SELECT id FROM share"))
        try db.execute("UPDATE zone SET scope = 'shared' WHERE id <> 'default'")
        let rating = try XCTUnwrap(try db.scalarString("SELECT id FROM rating"))
        let before = try LibrarySnapshot.dumpCatalog(lib)
        let files = LibrarySnapshot.fileTree(lib + "/ExternalData")
        for args in [
            ["tag", "add", "X", name], ["tag", "remove", "Trip", name], ["tag", "rename", "Trip", "Y"],
            ["tag", "delete", "Trip", "--zone", share], ["rate", name, "2"], ["rating", "delete", rating],
            ["delete", name], ["import", "--share", share, samplesDir + "/path.jpg"],
            ["share", "add", share, name], ["share", "invite", share, "eve@example.org"],
            ["share", "set", share, "--title", "Mine"], ["share", "remove", share, name],
            ["share", "remove", "Theirs", name, "--dry-run"]
        ] {
            let r = photos(["--library", lib] + args)
            XCTAssertEqual(r.status, 77, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(share), "\(args): \(r.stderr)")
        }
        XCTAssertEqual(try LibrarySnapshot.dumpCatalog(lib), before)
        XCTAssertEqual(LibrarySnapshot.fileTree(lib + "/ExternalData"), files)
    }
}
