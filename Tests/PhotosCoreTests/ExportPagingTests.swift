import Foundation
import PhotosModel
import PhotosTestSupport
import XCTest

@testable import PhotosCore

/// `photos export` reads the library a page at a time (keyset pages in uniqueName order) and
/// keeps only the names taken so far: the files, their names (collisions across pages
/// included) and the dry run's lines are the same as when every photo is named at once (one
/// page holding the whole library). Runs on both backends.
final class ExportPagingTests: SyncTestCase {
    private static let count = 300

    /// Runs an export of `library` into `dest` with `pageSize` photos a page (batches of 3).
    /// - Returns: the dry run's lines (empty for a real run) and the summary.
    private func export(
        _ library: Library, to dest: String, pageSize: Int, template: String, dryRun: Bool,
        update: Bool = false, cleanup: Bool = false, only: Set<String>? = nil
    ) throws -> (lines: [String], summary: ExportSummary) {
        var options = ExportOptions(destination: dest)
        options.template = try ExportNameTemplate(parsing: template)
        options.dryRun = dryRun
        options.update = update
        options.cleanup = cleanup
        options.batchSize = 3
        options.jobs = 2
        options.filter.uniqueNames = only
        let exporter = Exporter(library: library, options: options)
        exporter.pageSize = pageSize
        var lines: [String] = []
        exporter.onPlannedFile = { lines.append($0) }
        let summary = try exporter.run()
        XCTAssertEqual(summary.failed, 0, summary.failures.map(\.reason).joined(separator: "; "))
        return (lines, summary)
    }

    /// Every visible file under `root` with its SHA-256.
    private func tree(_ root: String) -> [String] {
        filesUnder(root).map { $0 + " " + sha256(ofFile: root + "/" + $0) }
    }

    func testPagedExportNamesAndWritesWhatOnePageDoes() throws {
        let lib = try library("L")
        let names = try importPhotos(lib, count: Self.count).sorted()
        for template in ["{name}", "same", "{capture:%Y}/same"] {
            let paged = try export(lib, to: dir + "/dry", pageSize: 7, template: template, dryRun: true).lines
            let whole = try export(lib, to: dir + "/dry", pageSize: 100_000, template: template, dryRun: true).lines
            XCTAssertEqual(paged, whole, template)
            XCTAssertEqual(paged.count, 2 * Self.count, "an original and its XMP sidecar a photo")
            if template == "same" {
                // Every photo collides with every earlier one, across pages: the n-th in
                // uniqueName order takes `same (n).jpg`.
                let expected = (0..<Self.count).flatMap { n -> [String] in
                    let name = n == 0 ? "same.jpg" : "same (\(n)).jpg"
                    return [name, name + ".xmp"]
                }
                XCTAssertEqual(paged, expected)
            }
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/dry"), "a dry run creates nothing")

        // Real exports: the same files with the same bytes.
        let a = try export(lib, to: dir + "/paged", pageSize: 7, template: "same", dryRun: false).summary
        let b = try export(lib, to: dir + "/whole", pageSize: 100_000, template: "same", dryRun: false).summary
        XCTAssertEqual([a.written, a.skipped], [Self.count, 0])
        XCTAssertEqual([b.written, b.skipped], [Self.count, 0])
        let pagedTree = tree(dir + "/paged")
        XCTAssertEqual(pagedTree.count, 2 * Self.count)
        XCTAssertEqual(pagedTree, tree(dir + "/whole"))

        // --update without the first photo, whose files are gone: every other photo keeps its
        // recorded name (reserved by a first pass over all pages) instead of moving down to the
        // free `same.jpg`, so nothing is written.
        for gone in ["same.jpg", "same.jpg.xmp"] { try FileManager.default.removeItem(atPath: dir + "/paged/" + gone) }
        let rest = Set(names.dropFirst())
        let updated = try export(
            lib, to: dir + "/paged", pageSize: 7, template: "same", dryRun: false, update: true, cleanup: true,
            only: rest
        ).summary
        XCTAssertEqual([updated.written, updated.updated, updated.skipped], [0, 0, Self.count - 1])
        XCTAssertEqual(updated.removed, 0)
        XCTAssertEqual(
            filesUnder(dir + "/paged"),
            (1..<Self.count).flatMap { ["same (\($0)).jpg", "same (\($0)).jpg.xmp"] }.sorted())
    }
}
