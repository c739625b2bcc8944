import Foundation
import PhotosCore
import PhotosModel
import PhotosTestSupport
import XCTest

/// Libraries side by side in one temporary folder, for the sync tests: distinct JPEGs made from
/// a sample, in-process imports, changesets between them and canonical dumps.
class SyncTestCase: TemporaryFolderTestCase {
    override var label: String { "photos-sync" }

    private var made = 0

    /// Opens (creating) library `name` in the test's folder.
    func library(_ name: String) throws -> Library { try Library(root: dir + "/" + name, create: true) }

    /// A JPEG of its own SHA-256 and image data: `Samples/storm.jpg` with bytes after EOI.
    func distinctJPEG() throws -> String {
        made += 1
        let sample = try XCTUnwrap(FileManager.default.contents(atPath: samplesDir + "/storm.jpg"))
        let bytes = [UInt8](sample) + Array("photos-sync-\(made)".utf8)
        try FileManager.default.createDirectory(atPath: dir + "/in", withIntermediateDirectories: true)
        let path = dir + "/in/photo-\(made).jpg"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Imports `count` new distinct photos into `library`. - Returns: their uniqueNames.
    @discardableResult
    func importPhotos(_ library: Library, count: Int = 1, tags: [String] = []) throws -> [String] {
        let before = Set(try photos(library).map(\.uniqueName))
        var options = ImportOptions(paths: try (0..<count).map { _ in try distinctJPEG() })
        options.jobs = 1
        options.tags = tags
        let summary = try Importer(library: library, libraryRoot: library.root, options: options).run()
        XCTAssertEqual(summary.imported, count)
        return try photos(library).map(\.uniqueName).filter { !before.contains($0) }
    }

    /// Every photo of `library`.
    func photos(_ library: Library) throws -> [PhotoRecord] {
        var all: [PhotoRecord] = []
        try library.forEachPhoto(matching: PhotoFilter()) { all.append($0) }
        return all
    }

    /// Writes a changeset of `from` (after `since`) to a new folder. - Returns: its path.
    func export(_ from: Library, since: Int64 = 0) throws -> String {
        made += 1
        let path = dir + "/changeset-\(made)"
        _ = try from.exportChangeset(to: path, since: since)
        return path
    }

    /// The kind of the `SyncError` `body` throws (nil for none or another error) and its message.
    func status(_ body: () throws -> Void) -> (SyncError.Kind?, String) {
        do {
            try body()
            return (nil, "")
        } catch let e as SyncError {
            return (e.kind, e.message)
        } catch {
            return (nil, "\(error)")
        }
    }

    /// Asserts `verify` finds nothing in `library`.
    func assertVerifyClean(_ library: Library, file: StaticString = #filePath, line: UInt = #line) throws {
        let report = try library.verify()
        XCTAssertEqual(
            report.problems.map { "\($0.kind) \($0.detail)" }, [], "verify of \(library.root)", file: file, line: line)
    }
}
