import Foundation
import PhotosFiles
import PhotosTestSupport
import XCTest

@testable import PhotosCore

/// `verify --quick` stats the originals on its `jobs` threads, relative to the external data
/// folder, and reports what it found in the rows' order, whatever the number of threads.
final class VerifyQuickStatOrderTests: ImportTestCase {
    func testEveryThreadCountReportsTheSameOriginalProblemsInRowOrder() throws {
        let library = try importedLibrary(photos: 12, seed: 300)
        let store = library.catalog
        let rows = try store.statement("SELECT id, file_ref, byte_size FROM photo_data ORDER BY id").map {
            (id: $0.int(0), ref: $0.string(1), size: $0.int(2))
        }
        let root = library.externalData.root
        // Row 2: lost; row 4: one byte longer; row 7: a folder in its place; row 9: recorded
        // under another reference while its file is at its address; row 11: lost too.
        XCTAssertEqual(unlink(root + "/" + rows[2].ref), 0)
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: root + "/" + rows[4].ref))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data([0]))
        try handle.close()
        XCTAssertEqual(unlink(root + "/" + rows[7].ref), 0)
        XCTAssertEqual(mkdir(root + "/" + rows[7].ref, 0o755), 0)
        try store.run("UPDATE photo_data SET file_ref = ? WHERE id = ?", ["zz/elsewhere", rows[9].id])
        XCTAssertEqual(unlink(root + "/" + rows[11].ref), 0)

        let expected: [(VerifyProblem.Kind, String)] = [
            (.missingFile, rows[2].ref), (.sizeMismatch, "has \(rows[4].size + 1) bytes, recorded \(rows[4].size)"),
            (.sizeMismatch, "is not a regular file (a folder)"), (.badFileReference, "recorded as zz/elsewhere"),
            (.missingFile, rows[11].ref)
        ]
        var reports: [[String]] = []
        for jobs in [1, 2, 7] {
            let problems = try library.verify(quick: true, jobs: jobs).problems
            XCTAssertEqual(problems.map(\.kind), expected.map(\.0), "jobs \(jobs)")
            for (problem, (_, text)) in zip(problems, expected) {
                XCTAssertTrue(problem.detail.contains(text), "jobs \(jobs): \(problem.detail)")
            }
            reports.append(problems.map { "\($0.kind) \($0.detail) \(String(describing: $0.repair))" })
        }
        XCTAssertEqual(reports[1], reports[0])
        XCTAssertEqual(reports[2], reports[0])
        // The misrecorded original is there: its repair points the row back at it.
        let fix = try library.verify(quick: true, jobs: 2).problems.first { $0.kind == .badFileReference }
        XCTAssertEqual(
            fix?.repair.map { "\($0)" }.map { $0.hasSuffix("at its original \(rows[9].ref) instead of zz/elsewhere") },
            true)
    }
}
