import Foundation
import PhotosFiles
import PhotosTestSupport
import XCTest

@testable import PhotosCore

/// Issue 31 A11: a full `verify` hashes the originals of each chunk of 1,024 rows before it reads
/// the next chunk, instead of queuing every file of the catalog to hash after the scan (about
/// 1 KB a photo: 156 MB peak RSS at 100,000 photos, ~1 GB at 1,000,000; now 58 MB). Seen from
/// outside: when the first progress report arrives (after the first hashes), the originals of
/// later chunks have not been looked at yet, so an original removed at that moment is reported
/// missing; with the former queue it had been found already and then could not be read.
final class VerifyStreamsItsOriginalsTests: ImportTestCase {
    func testOriginalsOfALaterChunkAreLookedAtAfterTheFirstHashes() throws {
        // The rows are made with SQLite's printf; the scan under test is the same Core code on
        // both backends (only `forEachRecordedOriginal` differs, and it streams on both).
        try TestDatabase.requireSQLite(because: "the 1,100 rows are written with SQLite SQL (printf)")
        let library = try importedLibrary(photos: 1, seed: 910)
        let catalog = library.catalog
        let extra = Library.originalChunk + 76
        try catalog.run(
            """
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(extra))
            INSERT INTO photo (unique_name, display_name, imported_at, width, height, format, zone_id)
            SELECT printf('0A1B2C3D-0000-4000-8000-%012d', i), 'IMG_' || i || '.jpg', '2026-01-02T03:04:05Z',
                   1, 1, 'jpeg', (SELECT zone_id FROM photo LIMIT 1) FROM n
            """)
        try catalog.run(
            """
            INSERT INTO photo_data (photo_id, sha256, byte_size, file_ref)
            SELECT id, printf('%064x', id), 1, substr(printf('%064x', id), 1, 2) || '/' || printf('%064x', id)
            FROM photo WHERE unique_name LIKE '0A1B2C3D-%' ORDER BY id
            """)
        let rows = try catalog.statement("SELECT file_ref FROM photo_data ORDER BY id").map { $0.string(0) }
        XCTAssertEqual(rows.count, extra + 1)
        let root = library.externalData.root
        for ref in rows.dropFirst() {
            let folder = (root + "/" + ref as NSString).deletingLastPathComponent
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            XCTAssertTrue(FileManager.default.createFile(atPath: root + "/" + ref, contents: Data([7])), ref)
        }
        let last = try XCTUnwrap(rows.last)
        var calls = 0
        var firstDone = -1
        let report = try library.verify(quick: false, jobs: 1) { done, total, _ in
            calls += 1
            guard calls == 1 else { return }
            firstDone = done
            XCTAssertEqual(total, extra + 1)
            XCTAssertEqual(unlink(root + "/" + last), 0)
        }
        XCTAssertGreaterThan(firstDone, 0)
        XCTAssertLessThanOrEqual(firstDone, Library.originalChunk)
        let lastProblems = report.problems.filter { $0.detail.contains(last) }
        XCTAssertEqual(lastProblems.map(\.kind), [.missingFile], lastProblems.map(\.detail).joined(separator: "\n"))
        // Every other added original has one byte of the wrong content: a hash mismatch each,
        // in row order.
        let mismatches = report.problems.filter { $0.kind == .hashMismatch }
        XCTAssertEqual(mismatches.count, extra - 1)
        XCTAssertEqual(
            mismatches.map { $0.detail.contains(rows[1]) }.first, true, "the first added row's problem comes first")
        XCTAssertEqual(report.files, extra, "the one removed is not listed")
    }
}
