import Foundation
import XCTest
import PhotosTestSupport
import PhotosFiles
import PhotosModel
@testable import PhotosCore
import PhotosSQLite

/// Issue 10: verify's problems carry their subject as a value (repairs are matched by it), and
/// its checks read through `VerifyStore` with the same results as the SQL they replaced.
final class VerifySubjectValueTests: XCTestCase {
    var tmp: TempDir!
    override func setUpWithError() throws { tmp = try TempDir() }
    override func tearDown() { tmp.cleanup() }

    func importedLibrary() throws -> (Library, storm: PhotoRecord, path: PhotoRecord) {
        let library = try Library(root: tmp.file("lib"), create: true)
        var options = ImportOptions(paths: [samplesDir + "/storm.jpg", samplesDir + "/path.jpg"])
        options.jobs = 1
        _ = try Importer(library: library, libraryRoot: tmp.file("lib"), options: options).run()
        let storm = try library.resolvePhoto(
            try XCTUnwrap(
                library.catalog.scalarString("SELECT unique_name FROM photo WHERE display_name = 'storm.jpg'"))
        )
        let path = try library.resolvePhoto(
            try XCTUnwrap(library.catalog.scalarString("SELECT unique_name FROM photo WHERE display_name = 'path.jpg'"))
        )
        return (library, storm, path)
    }

    func testAMissingOriginalAndItsMissingThumbnailShareTheSubjectAndTheDeletion() throws {
        let (library, storm, _) = try importedLibrary()
        try FileManager.default.removeItem(atPath: library.externalData.path(for: storm.fileReference))
        try library.catalog.run(
            "DELETE FROM thumbnail WHERE photo_id = (SELECT id FROM photo WHERE unique_name = ?)", [storm.uniqueName])
        let report = try library.verify()
        let subject = VerifySubject.photo(PhotoName(uniqueName: storm.uniqueName, displayName: "storm.jpg"))
        XCTAssertEqual(report.problems.map(\.kind).sorted(), ["missing-file", "missing-thumbnail"])
        XCTAssertEqual(report.problems.map(\.subject), [subject, subject])
        let deletion = VerifyRepair.deletePhoto(
            uniqueName: storm.uniqueName, displayName: "storm.jpg", ratings: 0, tags: 0, zone: "default")
        // The thumbnail cannot be made from a missing original: its repair is the photo's deletion.
        XCTAssertEqual(report.problems.map(\.repair), [deletion, deletion])
        XCTAssertEqual(report.repairs, [deletion])
    }

    func testDuplicatePhotosAreGroupedInRowOrderWithTheirSubject() throws {
        let (library, storm, path) = try importedLibrary()
        try library.catalog.allowDuplicateOriginals()
        try library.catalog.run("UPDATE photo_data SET sha256 = ? WHERE sha256 = ?", [storm.sha256, path.sha256])
        let duplicates = try library.verify(quick: true).problems.filter { $0.kind == .duplicatePhoto }
        XCTAssertEqual(duplicates.count, 1)
        // Row order of photo_data: storm.jpg was imported first (jobs 1, argument order).
        let names = try library.catalog.statement(
            "SELECT p.unique_name, p.display_name FROM photo_data d JOIN photo p ON p.id = d.photo_id ORDER BY d.id"
        )
        .map { PhotoName(uniqueName: $0.string(0), displayName: $0.string(1)) }
        XCTAssertEqual(duplicates.first?.subject, .photos(sha256: storm.sha256, names))
        let shown = names.map { "\($0.uniqueName) (\($0.displayName))" }.joined(separator: ", ")
        XCTAssertEqual(
            duplicates.first?.detail,
            "photos \"\(shown)\" have the same SHA-256 \(storm.sha256); delete the one not wanted with 'photos delete'")
    }

    func testAnOrphanAndABadTagNameNameTheirFileAndTag() throws {
        let (library, _, _) = try importedLibrary()
        let reference = "ab/" + String(repeating: "ab", count: 32)
        let orphan = library.externalData.path(for: reference)
        try FileManager.default.createDirectory(
            atPath: (orphan as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: orphan, contents: Data([1, 2, 3]))
        let uuid = UUID().uuidString.lowercased()
        try library.catalog.run("INSERT INTO tag (uuid, name, zone_id) VALUES (?, ' Sky', 'default')", [uuid])
        let problems = try library.verify(quick: true).problems
        XCTAssertEqual(problems.first { $0.kind == .orphanFile }?.subject, .file(reference: reference))
        XCTAssertEqual(problems.first { $0.kind == .orphanFile }?.repair, .removeFile(reference: reference))
        XCTAssertEqual(
            problems.first { $0.kind == .badTagName }?.subject, .tag(uuid: uuid, name: " Sky", zone: "default"))
    }
}
