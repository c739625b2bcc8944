import Foundation
import XCTest
import PhotosTestSupport

/// `merge --from` whose other library's original cannot be read (replaced by a folder) ends
/// with exit 66 and a message naming that original, not a bare "not a regular file".
final class MergeUnreadableOriginalNamesTheFileTests: TemporaryFolderTestCase {
    override var label: String { "photos-merge-unreadable-original" }

    func testAnOriginalReplacedByAFolderIsNamed() throws {
        let other = dir + "/other", lib = dir + "/lib"
        XCTAssertEqual(photos(["--library", other, "import", "-q", samplesDir + "/storm.jpg"]).status, 0)
        XCTAssertEqual(photos(["--library", lib, "init"]).status, 0)
        let listed = photos(["--library", other, "list", "--json"]).stdout
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(listed.utf8)) as? [String: Any], listed)
        let sha = try XCTUnwrap(object["sha256"] as? String)
        let original = other + "/ExternalData/" + String(sha.prefix(2)) + "/" + sha
        try FileManager.default.removeItem(atPath: original)
        try FileManager.default.createDirectory(atPath: original, withIntermediateDirectories: false)

        let result = photos(["--library", lib, "merge", "--from", other])
        XCTAssertEqual(result.status, 66, result.stderr)
        XCTAssertTrue(result.stderr.contains(original + ": not a regular file"), result.stderr)
        XCTAssertEqual(photos(["--library", lib, "list", "--json"]).stdout, "", "nothing merged")
    }
}
