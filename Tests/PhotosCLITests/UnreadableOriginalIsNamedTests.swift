import Foundation
import XCTest
import PhotosTestSupport

/// Every command that reads a library's original (through `ImageFile`) names it when it is not
/// a regular file: `sync --export` (which fails) and `thumbnails --rebuild` (that photo fails), not a
/// bare "not a regular file" (`merge --from`: MergeUnreadableOriginalNamesTheFileTests).
final class UnreadableOriginalIsNamedTests: TemporaryFolderTestCase {
    override var label: String { "photos-unreadable-original-named" }
    var lib: String { dir + "/lib" }

    func importAndReplaceTheOriginalByAFolder() throws -> String {
        try importStormReplacingItsOriginalByAFolder(library: lib)
    }

    func testSyncExportNamesTheOriginal() throws {
        let original = try importAndReplaceTheOriginalByAFolder()
        let result = photos(["--library", lib, "sync", "--export", dir + "/changeset"])
        XCTAssertNotEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stderr.contains(original + ": not a regular file (a folder)"), result.stderr)
    }

    func testThumbnailRebuildNamesTheOriginal() throws {
        let original = try importAndReplaceTheOriginalByAFolder()
        let result = photos(["--library", lib, "thumbnails", "--rebuild"])
        XCTAssertNotEqual(result.status, 0, result.stderr)
        XCTAssertTrue(
            (result.stdout + result.stderr).contains(original + ": not a regular file (a folder)"),
            result.stdout + result.stderr)
    }
}

extension TemporaryFolderTestCase {
    /// Imports Samples/storm.jpg into `library` and replaces its original in external data by a
    /// folder (an original that is not a regular file).
    /// - Returns: the original's path.
    func importStormReplacingItsOriginalByAFolder(library: String) throws -> String {
        XCTAssertEqual(photos(["--library", library, "import", "-q", samplesDir + "/storm.jpg"]).status, 0)
        let listed = photos(["--library", library, "list", "--json"]).stdout
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(listed.utf8)) as? [String: Any], listed)
        let sha = try XCTUnwrap(object["sha256"] as? String)
        let original = library + "/ExternalData/" + String(sha.prefix(2)) + "/" + sha
        try FileManager.default.removeItem(atPath: original)
        try FileManager.default.createDirectory(atPath: original, withIntermediateDirectories: false)
        return original
    }
}
