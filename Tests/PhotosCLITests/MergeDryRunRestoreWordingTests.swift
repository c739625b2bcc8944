import Foundation
import XCTest
import PhotosTestSupport
@testable import PhotosCLI
import PhotosSQLite

/// Issue 9 items 1 and 8 (variant): `merge --dry-run` that would restore a lost original said
/// "1 missing or damaged originals restored" although it restored nothing; it now says "to
/// restore", and the library keeps its bytes and rows.
final class MergeDryRunRestoreWordingTests: TemporaryFolderTestCase {
    override var label: String { "photos-i9-merge-dry" }

    func testDryRunMergeSaysWhatItWouldRestore() throws {
        let a = dir + "/a", b = dir + "/b"
        for lib in [a, b] {
            XCTAssertEqual(photos(["--library", lib, "import", "-q", samplesDir + "/storm.jpg"]).status, 0)
        }
        let ref = try XCTUnwrap(
            try TestCatalog(root: b).scalarString("SELECT file_ref FROM photo_data"))
        try FileManager.default.removeItem(atPath: b + "/ExternalData/" + ref)
        let dry = photos(["--library", b, "merge", "--from", a, "--dry-run"])
        XCTAssertEqual(dry.status, 0, dry.stderr)
        XCTAssertTrue(dry.stdout.contains("1 missing or damaged originals to restore"), dry.stdout)
        XCTAssertFalse(FileManager.default.fileExists(atPath: b + "/ExternalData/" + ref))
        let real = photos(["--library", b, "merge", "--from", a])
        XCTAssertTrue(real.stdout.contains("1 missing or damaged originals restored"), real.stdout)
        XCTAssertEqual(
            FileManager.default.contents(atPath: b + "/ExternalData/" + ref),
            FileManager.default.contents(atPath: samplesDir + "/storm.jpg"))
    }
}
