import Foundation
import PhotosModel
import PhotosTestSupport
import XCTest

@testable import PhotosCore

/// verify reads the catalog in one snapshot and lists the external data folders after it: an
/// import (or merge) that commits in between has its originals on disk and its rows outside the
/// snapshot. Such a file is no orphan — it is referenced by the time verify reports — so it is
/// looked up again in the catalog as it is now before being reported (and never removed by
/// `--repair`); a file that is unreferenced now too is still reported, on both backends.
final class VerifyOrphansCommittedDuringTheCheckTests: ImportTestCase {
    /// Runs verify (or `verify --repair`) on `library` and, once it has checked its first
    /// original (inside its snapshot), imports `samplesDir/storm.jpg` with another `Library`
    /// of the same folder, which commits.
    private func verifyWhileAnImportCommits(_ library: Library, repair: Bool) throws -> VerifyReport {
        let other = try Library(root: tmp.file("lib"), create: false)
        var imported = false
        let report = try library.verify(quick: true, repair: repair, jobs: 1) { _, _, _ in
            guard !imported else { return }
            imported = true
            var options = ImportOptions(paths: [samplesDir + "/storm.jpg"])
            options.jobs = 1
            let summary = try? Importer(library: other, libraryRoot: self.tmp.file("lib"), options: options).run()
            XCTAssertEqual(summary?.imported, 1)
        }
        XCTAssertTrue(imported, "the import ran inside verify's snapshot")
        return report
    }

    func testAnOriginalCommittedAfterTheSnapshotIsNoOrphan() throws {
        let library = try makeLibrary()
        XCTAssertEqual(try runImport(library, [samplesDir + "/path.jpg", samplesDir + "/ladybird.jpg"]).imported, 2)
        let report = try verifyWhileAnImportCommits(library, repair: false)
        XCTAssertEqual(report.problems.map(\.detail), [])
        XCTAssertEqual(report.photos, 2, "the snapshot's photos")
        XCTAssertEqual(report.files, 3, "storm.jpg's original listed")
        XCTAssertEqual(try library.verify(quick: true).photos, 3)
    }

    func testRepairKeepsItAndAStillUnreferencedFileIsStillAnOrphan() throws {
        let library = try makeLibrary()
        XCTAssertEqual(try runImport(library, [samplesDir + "/path.jpg"]).imported, 1)
        let stray = "ab/ab" + String(repeating: "7", count: 62)
        _ = try tmp.write("lib/ExternalData/" + stray, [1, 2, 3])
        let report = try verifyWhileAnImportCommits(library, repair: true)
        XCTAssertEqual(report.problems.map(\.kind), ["orphan-file"])
        XCTAssertEqual(report.problems.first?.subject, .file(reference: stray))
        XCTAssertTrue(report.isClean, "the stray file removed")
        let after = try library.verify()
        XCTAssertEqual(after.problems.map(\.detail), [])
        XCTAssertEqual(after.photos, 2, "storm.jpg's original kept")
    }
}
