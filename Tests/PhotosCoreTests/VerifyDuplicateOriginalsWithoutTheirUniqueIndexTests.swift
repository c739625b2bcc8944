import Foundation
import XCTest
import PhotosTestSupport
import PhotosModel
@testable import PhotosCore

/// verify's duplicate-original check (two photos with one SHA-256) is skipped on PostgreSQL only
/// while the server enforces a unique index on `photo_data.sha256` alone; an index that does not
/// forbid the duplicate (partial, on two columns, not unique) leaves the check to the rows. On
/// either backend (SQLite's schema has no such constraint: the rows are always grouped).
final class VerifyDuplicateOriginalsWithoutTheirUniqueIndexTests: XCTestCase {
    var tmp: TempDir!
    override func setUpWithError() throws { tmp = try TempDir() }
    override func tearDown() { tmp.cleanup() }

    func testIndexesThatAllowTheDuplicateDoNotHideIt() throws {
        let library = try Library(root: tmp.file("lib"), create: true)
        var options = ImportOptions(paths: [samplesDir + "/storm.jpg", samplesDir + "/path.jpg"])
        options.jobs = 1
        _ = try Importer(library: library, libraryRoot: tmp.file("lib"), options: options).run()
        XCTAssertEqual(try library.verify(quick: true).problems.map(\.kind), [], "sound")
        let shas = try library.catalog.statement("SELECT sha256 FROM photo_data ORDER BY id").map { $0.string(0) }
        XCTAssertEqual(shas.count, 2)
        try library.catalog.allowDuplicateOriginals()
        try library.catalog.execute(
            "CREATE UNIQUE INDEX photo_data_sha256_partial ON photo_data (sha256) WHERE byte_size < 0")
        try library.catalog.execute("CREATE UNIQUE INDEX photo_data_sha256_and_id ON photo_data (sha256, id)")
        try library.catalog.execute("CREATE INDEX photo_data_sha256_plain ON photo_data (sha256)")
        try library.catalog.run("UPDATE photo_data SET sha256 = ? WHERE sha256 = ?", [shas[0], shas[1]])
        let problems = try library.verify(quick: true).problems
        let duplicates = problems.filter { $0.kind == .duplicatePhoto }
        XCTAssertEqual(duplicates.count, 1, "\(problems.map(\.detail))")
        if case .photos(let sha, let photos)? = duplicates.first?.subject {
            XCTAssertEqual(sha, shas[0])
            XCTAssertEqual(photos.count, 2)
        } else {
            XCTFail("a duplicate names its SHA-256 and both photos: \(duplicates)")
        }
    }
}
