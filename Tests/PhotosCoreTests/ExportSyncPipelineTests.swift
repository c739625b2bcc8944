import Foundation
import PhotosFiles
import PhotosSQLite
import PhotosTestSupport
import XCTest

@testable import PhotosCore

/// Export's pipeline: batch N's syncfs runs while batch N+1 is written, and batch N's export
/// state rows are recorded only after that syncfs returned (a recorded file is durable); a
/// batch whose sync fails is not recorded, and the next run finds its files by their bytes.
final class ExportSyncPipelineTests: ImportTestCase {
    /// What the fake sync saw at each call.
    final class Seen: @unchecked Sendable {
        let lock = NSLock()
        var calls = 0
        /// (committed rows, originals on disk) when each sync was about to be issued.
        var atSync: [[Int]] = []
        /// The path each sync was asked for.
        var paths: [String] = []
        func next() -> Int {
            lock.withLock {
                calls += 1; return calls
            }
        }
        func add(_ values: [Int]) { lock.withLock { atSync.append(values) } }
        func add(path: String) { lock.withLock { paths.append(path) } }
    }

    /// `count` distinct small JPEGs in `tmp/in`, imported into a new library.
    func importPhotos(_ count: Int) throws -> Library {
        for i in 0..<count {
            let bytes = try MetadataFixture.jpeg(
                seed: i, segments: [MetadataFixture.segment(0xFE, Array("photo \(i)".utf8))])
            _ = try tmp.write("in/\(i).jpg", bytes)
        }
        let library = try makeLibrary()
        XCTAssertEqual(try runImport(library, [tmp.file("in")]).imported, count)
        return library
    }

    static func originals(in dest: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: dest)) ?? []).filter { $0.hasSuffix(".jpg") }.sorted()
    }

    static func committedPaths(_ dest: String) -> [String] {
        guard let db = try? Database(path: dest + "/" + ExportState.fileName, readOnly: true, busyTimeout: 5),
            let joined = try? db.scalarString(
                "SELECT group_concat(path, '|') FROM (SELECT path FROM export_file ORDER BY path)")
        else { return [] }
        return joined.split(separator: "|").map(String.init).sorted()
    }

    func testEachBatchIsWrittenBeforeItsSyncAndRecordedOnlyAfterIt() throws {
        let library = try importPhotos(10)
        let dest = tmp.file("out")
        let seen = Seen()
        var options = ExportOptions(destination: dest)
        options.jobs = 2
        options.batchSize = 4
        options.sidecar = .none
        let exporter = Exporter(library: library, options: options)
        exporter.syncFileSystem = { path, willSync in
            seen.add(path: path)
            try Durability.syncFileSystem(containing: path) {
                // The batch's files are all in place, the next batch's not yet begun, and
                // only the earlier batches are recorded.
                seen.add([
                    ExportSyncPipelineTests.committedPaths(dest).count,
                    ExportSyncPipelineTests.originals(in: dest).count
                ])
                willSync()
            }
        }
        let summary = try exporter.run()
        XCTAssertEqual(summary.written, 10, "\(summary.failures)")
        XCTAssertEqual(seen.atSync, [[0, 4], [4, 8], [8, 10]])
        XCTAssertEqual(seen.paths, [dest, dest, dest])
        XCTAssertEqual(ExportSyncPipelineTests.committedPaths(dest), (0..<10).map { "\($0).jpg" }.sorted())
        for i in 0..<10 {
            XCTAssertEqual(sha256(ofFile: dest + "/\(i).jpg"), sha256(ofFile: tmp.file("in/\(i).jpg")))
        }
    }

    func testABatchWhoseSyncFailsIsNotRecordedAndTheNextRunCompletesIt() throws {
        let library = try importPhotos(10)
        let dest = tmp.file("out")
        let seen = Seen()
        var options = ExportOptions(destination: dest)
        options.jobs = 2
        options.batchSize = 4
        options.sidecar = .none
        let exporter = Exporter(library: library, options: options)
        exporter.syncFileSystem = { path, willSync in
            if seen.next() == 2 { throw FileError(.io, "cannot sync \(path): syncfs: I/O error", errno: EIO) }
            try Durability.syncFileSystem(containing: path, willSync: willSync)
        }
        XCTAssertThrowsError(try exporter.run()) { error in
            guard let interrupted = error as? Interrupted<ExportSummary> else {
                return XCTFail("expected Interrupted, got \(error)")
            }
            // Only the first batch (its sync returned) counts and is recorded.
            XCTAssertEqual(interrupted.report.written, 4)
            XCTAssertEqual((interrupted.error as? FileError)?.kind, .io)
        }
        // The first batch's four photos (in uniqueName order), each on disk with its bytes.
        let recorded = ExportSyncPipelineTests.committedPaths(dest)
        XCTAssertEqual(recorded.count, 4)
        for path in recorded {
            XCTAssertEqual(sha256(ofFile: dest + "/" + path), sha256(ofFile: tmp.file("in/" + path)))
        }
        // The later batches' files were written (one was written while the failed sync ran)
        // but are not recorded.
        XCTAssertEqual(ExportSyncPipelineTests.originals(in: dest).count, 10)

        // The same export again: the unrecorded files are found by their bytes, none is
        // written twice under another name, and every one is recorded.
        let again = try Exporter(library: library, options: options).run()
        XCTAssertEqual(again.failed, 0, "\(again.failures)")
        XCTAssertEqual(again.written + again.skipped, 10)
        XCTAssertEqual(ExportSyncPipelineTests.originals(in: dest), (0..<10).map { "\($0).jpg" }.sorted())
        XCTAssertEqual(ExportSyncPipelineTests.committedPaths(dest), (0..<10).map { "\($0).jpg" }.sorted())
        XCTAssertEqual(filesUnder(dest, hidden: true).filter { $0.contains(Exporter.temporaryPrefix) }, [])
        for i in 0..<10 {
            XCTAssertEqual(sha256(ofFile: dest + "/\(i).jpg"), sha256(ofFile: tmp.file("in/\(i).jpg")))
        }
    }
}
