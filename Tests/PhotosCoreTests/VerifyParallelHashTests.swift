import Foundation
import PhotosFiles
import PhotosSQLite
import PhotosTestSupport
import XCTest

@testable import PhotosCore

/// `verify` hashes the originals and decodes the thumbnails on `jobs` threads (issue 15 items 3
/// and 5) and reports the same problems, in the same order, whatever the number of threads.
final class VerifyParallelHashTests: ImportTestCase {
    func testEveryThreadCountFindsTheSameDamagedOriginalsInTheSameOrder() throws {
        for i in 0..<12 {
            let bytes = try MetadataFixture.jpeg(
                seed: i, segments: [MetadataFixture.segment(0xFE, Array("verify \(i)".utf8))])
            _ = try tmp.write("in/\(i).jpg", bytes)
        }
        let library = try makeLibrary()
        XCTAssertEqual(try runImport(library, [tmp.file("in")]).imported, 12)
        let root = library.externalData.root
        let references = library.externalData.allReferences().sorted()
        // Same-size damage (only a hash finds it) in three originals and one lost: the size
        // check's problem sits between the hash problems.
        for ref in [references[1], references[6], references[11]] {
            var bytes = try Data(contentsOf: URL(fileURLWithPath: root + "/" + ref))
            bytes[bytes.count - 3] ^= 0x55
            try bytes.write(to: URL(fileURLWithPath: root + "/" + ref))
        }
        XCTAssertEqual(unlink(root + "/" + references[3]), 0)

        var reports: [[String]] = []
        for jobs in [1, 2, 5, 64] {
            let report = try library.verify(jobs: jobs)
            reports.append(report.problems.map { "\($0.kind) \($0.detail)" })
        }
        let kinds = try library.verify(jobs: 3).problems.map(\.kind)
        XCTAssertEqual(kinds.filter { $0 == .hashMismatch }.count, 3)
        XCTAssertEqual(kinds.filter { $0 == .missingFile }.count, 1)
        XCTAssertEqual(kinds.count, 4, "\(reports[0])")
        for report in reports.dropFirst() { XCTAssertEqual(report, reports[0]) }
        // The hash problems name the damaged originals, and in the order of the rows.
        let serial = try library.verify(jobs: 1).problems
        let damaged = serial.filter { $0.kind == .hashMismatch }.map(\.detail)
        for ref in [references[1], references[6], references[11]] {
            XCTAssertEqual(damaged.filter { $0.contains(ref) }.count, 1, "\(ref): \(damaged)")
        }
        // --quick hashes nothing: only the lost original.
        XCTAssertEqual(try library.verify(quick: true, jobs: 2).problems.map(\.kind), [.missingFile])
    }

    func testHashFilesKeepsTheOrderAndReportsUnreadableFiles() throws {
        var paths: [String] = []
        var expected: [String?] = []
        for i in 0..<20 {
            if i % 7 == 3 {
                paths.append(tmp.file("absent-\(i)"))
                expected.append(nil)
                continue
            }
            let bytes = Array(repeating: UInt8(i), count: 1000 + i * 4099)
            paths.append(try tmp.write("f\(i)", bytes))
            expected.append(try bytes.withUnsafeBytes { try SHA256Hasher.hex(of: $0) })
        }
        for jobs in [1, 4] {
            let got = Library.hashFiles(paths, jobs: jobs).map { try? $0.get() }
            XCTAssertEqual(got, expected, "jobs \(jobs)")
        }
    }

    func testDamagedThumbnailsAreFoundInRowOrderWhateverTheThreadCount() throws {
        let library = try importedLibrary(photos: 10, seed: 100)
        let store = library.catalog
        // Thumbnails 2, 5 and 9 (by row): not a JPEG, cut short, and a sound JPEG of the wrong size.
        let ids = try store.statement("SELECT id FROM thumbnail ORDER BY id").map { $0.int(0) }
        try store.run("UPDATE thumbnail SET data = ? WHERE id = ?", [[0x00, 0x11, 0x22, 0x33] as [UInt8], ids[2]])
        try store.run("UPDATE thumbnail SET data = substr(data, 1, 40) WHERE id = ?", [ids[5]])
        try store.run("UPDATE thumbnail SET width = width - 1 WHERE id = ?", [ids[9]])
        let names = try store.statement(
            "SELECT p.unique_name FROM thumbnail t JOIN photo p ON p.id = t.photo_id ORDER BY t.id"
        )
        .map { $0.string(0) }
        var lists: [[String]] = []
        for jobs in [1, 2, 7] {
            let report = try library.verify(quick: true, jobs: jobs)
            XCTAssertEqual(report.thumbnails, 10)
            lists.append(report.problems.map { "\($0.kind) \($0.detail)" })
            XCTAssertEqual(
                report.problems.filter { $0.kind == .damagedThumbnail }.compactMap(\.subject.photoUniqueName),
                [names[2], names[5], names[9]])
        }
        XCTAssertEqual(lists[0].count, 3, "\(lists[0])")
        XCTAssertEqual(lists[1], lists[0])
        XCTAssertEqual(lists[2], lists[0])
    }

    func testConcurrentMapKeepsTheOrder() {
        let items = Array(0..<1000)
        for jobs in [1, 3, 16] {
            XCTAssertEqual(Library.concurrentMap(items, jobs: jobs) { $0 * $0 + 1 }, items.map { $0 * $0 + 1 })
        }
        XCTAssertEqual(Library.concurrentMap([Int](), jobs: 4) { $0 }, [])
    }
}
