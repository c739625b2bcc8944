import Foundation
import PhotosCore
import PhotosTestSupport
import XCTest

/// `ImportOptions.listSkippedAndDuplicates`: off (import without --verbose), a run keeps the
/// counts of skipped and duplicate files but not their paths, so its memory does not grow with
/// the number of such files; on, the paths are listed as before.
final class ImportPathListsTests: ImportTestCase {
    func testCountsWithoutPathListsWhenNotAsked() throws {
        let library = try makeLibrary()
        _ = try tmp.copy(samplesDir + "/storm.jpg", as: "in/a/storm.jpg")
        _ = try tmp.copy(samplesDir + "/storm.jpg", as: "in/b/storm-again.jpg")
        _ = try tmp.write("in/notes.txt", Array("not a photo".utf8))
        let quiet = try runImport(library, [tmp.file("in")]) { $0.listSkippedAndDuplicates = false }
        XCTAssertEqual([quiet.imported, quiet.duplicates, quiet.skipped], [1, 1, 1])
        XCTAssertEqual(quiet.skippedPaths, [])
        XCTAssertEqual(quiet.duplicatePaths, [])

        let listed = try runImport(library, [tmp.file("in")])
        XCTAssertEqual([listed.imported, listed.duplicates, listed.skipped], [0, 2, 1])
        XCTAssertEqual(listed.skippedPaths, [tmp.file("in/notes.txt")])
        XCTAssertEqual(
            Set(listed.duplicatePaths), [tmp.file("in/a/storm.jpg"), tmp.file("in/b/storm-again.jpg")])
    }
}
