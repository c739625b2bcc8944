import Foundation
import PhotosModel
import PhotosTestSupport
import XCTest

@testable import PhotosCore

/// The progress an export reports counts up to the number of photos it exports (after the
/// filter), whether the total was counted by a pass of its own or, with `--update`, by the
/// pass that reserves the recorded names. Runs on both backends.
final class ExportProgressTotalTests: SyncTestCase {
    /// Exports `only` (nil: every photo) of `library` into `dest`, 4 photos a page.
    /// - Returns: every (done, total) the export reported, and the summary.
    private func export(_ library: Library, to dest: String, update: Bool, only: Set<String>?) throws -> (
        progress: [[Int]], summary: ExportSummary
    ) {
        var options = ExportOptions(destination: dest)
        options.update = update
        options.batchSize = 3
        options.jobs = 2
        options.filter.uniqueNames = only
        let exporter = Exporter(library: library, options: options)
        exporter.pageSize = 4
        var progress: [[Int]] = []
        exporter.onProgress = { progress.append([$0, $1]) }
        let summary = try exporter.run()
        XCTAssertEqual(summary.failed, 0, summary.failures.map(\.reason).joined(separator: "; "))
        return (progress, summary)
    }

    func testTheTotalIsThePhotosExportedWithAndWithoutUpdate() throws {
        let lib = try library("L")
        let names = try importPhotos(lib, count: 11).sorted()
        let some = Set(names.prefix(7))

        let first = try export(lib, to: dir + "/out", update: false, only: some)
        XCTAssertEqual(first.summary.written, 7)
        XCTAssertEqual(Set(first.progress.map { $0[1] }), [7], "every report has the filtered total")
        XCTAssertEqual(first.progress.last, [7, 7])

        // --update over an export state: the reservation pass counts; nothing to write.
        let again = try export(lib, to: dir + "/out", update: true, only: some)
        XCTAssertEqual([again.summary.written, again.summary.skipped], [0, 7])
        XCTAssertEqual(Set(again.progress.map { $0[1] }), [7])
        XCTAssertEqual(again.progress.last, [7, 7])

        // All photos with --update: the four new ones are written, the total is 11.
        let all = try export(lib, to: dir + "/out", update: true, only: nil)
        XCTAssertEqual([all.summary.written, all.summary.skipped], [4, 7])
        XCTAssertEqual(Set(all.progress.map { $0[1] }), [11])
        XCTAssertEqual(all.progress.last, [11, 11])
    }
}
