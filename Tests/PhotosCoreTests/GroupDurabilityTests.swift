import Foundation
import XCTest
import PhotosTestSupport
import PhotosFiles
@testable import PhotosCore
import PhotosSQLite

/// Issue 15 item 1: import makes the originals of a batch durable together (one syncfs of the
/// external data's file system) before the batch's rows commit, instead of two fsyncs per file.
final class GroupDurabilityTests: XCTestCase {
    var tmp: TempDir!
    override func setUpWithError() throws { tmp = try TempDir() }
    override func tearDown() {
        DurabilityStats.recordEvents(false)
        tmp.cleanup()
    }

    /// What the observer saw at one syncfs, inside the batch's transaction.
    final class Seen: @unchecked Sendable {
        let lock = NSLock()
        var rowsAtSync: [Int] = []
        var missingAtSync: [String] = []
    }

    func testOneSyncPerBatchBeforeItsRowsCommitAndNoFsyncPerFile() throws {
        let count = 130 // batches of 64, 64 and 2
        for i in 0..<count {
            let bytes = try MetadataFixture.jpeg(
                seed: i, segments: [MetadataFixture.segment(0xFE, Array("file \(i)".utf8))])
            _ = try tmp.write("in/\(i).jpg", bytes)
        }
        let library = try Library(root: tmp.file("lib"), create: true)
        let root = library.externalData.root
        let seen = Seen()
        nonisolated(unsafe) let db = library.catalog
        // Called on the writer's thread inside the batch's write transaction: the rows it sees
        // are the ones about to commit; each must have its original renamed into place already.
        DurabilityStats.recordEvents(true) { event in
            guard case .syncfs(let path) = event, path == root else { return }
            let refs = (try? db.statement("SELECT file_ref FROM photo_data").map { $0.string(0) }) ?? []
            let missing = refs.filter { !FileManager.default.fileExists(atPath: root + "/" + $0) }
            seen.lock.withLock {
                seen.rowsAtSync.append(refs.count)
                seen.missingAtSync += missing
            }
        }
        var options = ImportOptions(paths: [tmp.file("in")])
        options.jobs = 2
        options.batchSize = 64 // three batches of this tree (the default, 256, makes one)
        options.batchSeconds = 1000 // batches end by size only
        let summary = try Importer(library: library, libraryRoot: tmp.file("lib"), options: options).run()
        let events = DurabilityStats.events.filter { event in
            switch event {
            case .fsync: return true
            case .syncfs(let path), .commit(let path): return path == root
            }
        }
        DurabilityStats.recordEvents(false)

        XCTAssertEqual(summary.imported, count, "\(summary.failures)")
        XCTAssertEqual(try library.catalog.scalarInt("SELECT count(*) FROM photo_data"), count)
        // Exactly one syncfs, then the commit, per batch; no fsync at all for the originals.
        let batches = 3
        XCTAssertEqual(
            events, Array(repeating: [DurabilityStats.Event.syncfs(root), .commit(root)], count: batches).flatMap { $0 }
        )
        XCTAssertLessThanOrEqual(events.filter { $0 != .commit(root) }.count, 4 * batches)
        // At each sync the batch's rows (and the earlier ones) name originals already in place.
        XCTAssertEqual(seen.rowsAtSync, [64, 128, 130])
        XCTAssertEqual(seen.missingAtSync, [])
    }

    func testDryRunSyncsNothing() throws {
        for i in 0..<3 {
            _ = try tmp.write("in/\(i).jpg", try MetadataFixture.jpeg(seed: i))
        }
        let library = try Library(root: tmp.file("lib"), create: true)
        DurabilityStats.recordEvents(true)
        var options = ImportOptions(paths: [tmp.file("in")])
        options.dryRun = true
        let summary = try Importer(library: library, libraryRoot: tmp.file("lib"), options: options).run()
        let syncs = DurabilityStats.events.filter { $0 != .commit(library.externalData.root) }
        DurabilityStats.recordEvents(false)
        XCTAssertEqual(summary.imported, 3)
        XCTAssertEqual(syncs, [])
        XCTAssertEqual(library.externalData.allReferences(), [])
    }

    func testExplicitDurabilityStillFsyncsFileAndFolder() throws {
        let store = ExternalDataStore(root: tmp.file("store"))
        try FileManager.default.createDirectory(atPath: store.root, withIntermediateDirectories: true)
        let before = DurabilityStats.fsyncCount
        let bytes: [UInt8] = [1, 2, 3]
        XCTAssertTrue(try bytes.withUnsafeBytes { try store.write($0, reference: "ab/abc") })
        XCTAssertEqual(DurabilityStats.fsyncCount - before, 2) // the file and its folder
        XCTAssertTrue(try bytes.withUnsafeBytes { try store.write($0, reference: "ab/abd", durability: .deferred) })
        XCTAssertEqual(DurabilityStats.fsyncCount - before, 2)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: store.path(for: "ab/abd"))), Data(bytes))
    }
}
