import Foundation
import XCTest
import PhotosTestSupport

/// `merge --from` whose other library's original cannot be read (replaced by a folder) ends
/// with exit 66 and a message naming that original, not a bare "not a regular file".
final class MergeUnreadableOriginalNamesTheFileTests: TemporaryFolderTestCase {
    override var label: String { "photos-merge-unreadable-original" }

    func testAnOriginalReplacedByAFolderIsNamed() throws {
        let other = dir + "/other", lib = dir + "/lib"
        let original = try importStormReplacingItsOriginalByAFolder(library: other)
        XCTAssertEqual(photos(["--library", lib, "init"]).status, 0)

        let result = photos(["--library", lib, "merge", "--from", other])
        XCTAssertEqual(result.status, 66, result.stderr)
        XCTAssertTrue(result.stderr.contains(original + ": not a regular file"), result.stderr)
        XCTAssertEqual(photos(["--library", lib, "list", "--json"]).stdout, "", "nothing merged")
    }
}
