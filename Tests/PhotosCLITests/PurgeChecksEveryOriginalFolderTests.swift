import Foundation
import XCTest
import PhotosTestSupport

/// `purge --share` checks, before it deletes anything, that the folder of every original it
/// would remove is writable — each folder once, however many originals it holds: a share whose
/// originals sit in two folders, one of which this user may not write, is refused with 77
/// naming that folder, its rows and files all kept.
final class PurgeChecksEveryOriginalFolderTests: BinaryTestCase {
    override var label: String { "photos-purge-folders" }
    var lib: String { dir + "/lib" }

    func testAShareWithOneUnwritableFolderAmongSeveralIsRefused() throws {
        guard geteuid() == 0 else { throw XCTSkip("needs root to hand the library to nobody") }
        let inputs = ["storm.jpg", "path.jpg", "kite.png"].map { samplesDir + "/" + $0 }
        XCTAssertEqual(try run(["--library", lib, "import", "-q"] + inputs).status, 0)
        let catalog = try TestCatalog(root: lib, readOnly: true)
        let photos = try catalog.rows(
            "SELECT p.unique_name, d.file_ref FROM photo p JOIN photo_data d ON d.photo_id = p.id ORDER BY d.file_ref")
        XCTAssertEqual(photos.count, 3)
        let names = photos.compactMap { $0[0] }
        let folders = Set(photos.compactMap { $0[1]?.split(separator: "/").first.map(String.init) })
        XCTAssertEqual(folders.count, 3, "three originals in three folders")
        XCTAssertEqual(try run(["--library", lib, "share", "create", "-q"] + names).status, 0)
        let share = try XCTUnwrap(try TestCatalog(root: lib, readOnly: true).scalarString("SELECT id FROM share"))
        // Everything is nobody's; the folder of the last original (in sorted order) is read-only.
        chmod(dir, 0o755)
        let all = [lib] + (FileManager.default.subpaths(atPath: lib) ?? []).map { lib + "/" + $0 }
        for path in all { chown(path, 65534, 65534) }
        let locked = lib + "/ExternalData/" + (photos[2][1] ?? "").split(separator: "/")[0]
        chmod(locked, 0o555)
        defer { chmod(locked, 0o755) }
        let files = (FileManager.default.subpaths(atPath: lib + "/ExternalData") ?? []).sorted()
        let before = try LibrarySnapshot.dumpCatalog(lib)

        for args in [["purge", "--share", share, "--dry-run"], ["purge", "--share", share]] {
            let r = try asReader(["--library", lib, "--wait", "0"] + args)
            XCTAssertEqual(r.status, 77, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(locked) && r.stderr.contains("nothing was deleted"), r.stderr)
            XCTAssertEqual(try LibrarySnapshot.dumpCatalog(lib), before, "\(args) changed rows")
            XCTAssertEqual((FileManager.default.subpaths(atPath: lib + "/ExternalData") ?? []).sorted(), files)
        }
        // With the folder writable again the same purge removes all three.
        chmod(locked, 0o755)
        let r = try asReader(["--library", lib, "--wait", "0", "purge", "--share", share])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(try TestCatalog(root: lib, readOnly: true).scalarInt("SELECT count(*) FROM photo_data"), 0)
    }
}
