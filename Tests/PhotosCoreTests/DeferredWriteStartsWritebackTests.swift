import Foundation
import PhotosFiles
import PhotosTestSupport
import XCTest

@testable import PhotosCore

/// A deferred (group-durability) write starts its file's write-back at once, without waiting
/// (`DurabilityStats.startWriteback`, sync_file_range(2) SYNC_FILE_RANGE_WRITE), so the batch's one
/// syncfs only waits for what is still in flight; an immediate write fsyncs instead and a dry
/// run writes nothing. The bytes written are the bytes given either way.
final class DeferredWriteStartsWritebackTests: XCTestCase {
    var tmp: TempDir!
    override func setUpWithError() throws { tmp = try TempDir() }
    override func tearDown() { tmp.cleanup() }

    func testDeferredWriteStartsOneWritebackAndNoFsync() throws {
        let store = ExternalDataStore(root: tmp.file("store"))
        try FileManager.default.createDirectory(atPath: store.root, withIntermediateDirectories: true)
        // 3 MiB + 5 bytes: more than one page and not a whole number of them.
        let bytes = (0..<(3 << 20 + 5)).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 11) }
        let (fsyncs, writebacks) = (DurabilityStats.fsyncCount, DurabilityStats.writebackCount)
        XCTAssertTrue(
            try bytes.withUnsafeBytes { try store.write($0, reference: "ab/deferred", durability: .deferred) })
        XCTAssertEqual(DurabilityStats.writebackCount - writebacks, 1)
        XCTAssertEqual(DurabilityStats.fsyncCount - fsyncs, 0)
        XCTAssertEqual(FileManager.default.contents(atPath: store.path(for: "ab/deferred")), Data(bytes))

        XCTAssertTrue(try bytes.withUnsafeBytes { try store.write($0, reference: "ab/immediate") })
        XCTAssertEqual(DurabilityStats.writebackCount - writebacks, 1, "an immediate write fsyncs instead")
        XCTAssertEqual(DurabilityStats.fsyncCount - fsyncs, 2) // the file and its folder
        XCTAssertEqual(FileManager.default.contents(atPath: store.path(for: "ab/immediate")), Data(bytes))

        let empty: [UInt8] = []
        XCTAssertTrue(try empty.withUnsafeBytes { try store.write($0, reference: "ab/empty", durability: .deferred) })
        XCTAssertEqual(DurabilityStats.writebackCount - writebacks, 2)
        XCTAssertEqual(FileManager.default.contents(atPath: store.path(for: "ab/empty")), Data())
    }

    func testImportStartsOneWritebackPerOriginalAndKeepsTheirBytes() throws {
        let count = 7
        var inputs: [[UInt8]] = []
        for i in 0..<count {
            let bytes = try MetadataFixture.jpeg(
                seed: i, segments: [MetadataFixture.segment(0xFE, Array("writeback \(i)".utf8))])
            _ = try tmp.write("in/\(i).jpg", bytes)
            inputs.append(bytes)
        }
        // Two identical files: the duplicate writes no original, so starts no write-back.
        _ = try tmp.write("in/copy.jpg", inputs[0])
        let library = try Library(root: tmp.file("lib"), create: true)
        var options = ImportOptions(paths: [tmp.file("in")])
        options.jobs = 2
        let (fsyncs, writebacks) = (DurabilityStats.fsyncCount, DurabilityStats.writebackCount)
        let summary = try Importer(library: library, libraryRoot: tmp.file("lib"), options: options).run()
        XCTAssertEqual(summary.imported, count, "\(summary.failures)")
        XCTAssertEqual(summary.duplicates, 1)
        XCTAssertEqual(DurabilityStats.writebackCount - writebacks, count)
        XCTAssertEqual(DurabilityStats.fsyncCount - fsyncs, 0)
        for bytes in inputs {
            let reference = ExternalDataStore.reference(for: try bytes.withUnsafeBytes { try SHA256Hasher.hex(of: $0) })
            XCTAssertEqual(FileManager.default.contents(atPath: library.externalData.path(for: reference)), Data(bytes))
        }
    }

    func testDryRunStartsNoWriteback() throws {
        for i in 0..<3 { _ = try tmp.write("in/\(i).jpg", try MetadataFixture.jpeg(seed: i)) }
        let library = try Library(root: tmp.file("lib"), create: true)
        var options = ImportOptions(paths: [tmp.file("in")])
        options.dryRun = true
        let writebacks = DurabilityStats.writebackCount
        let summary = try Importer(library: library, libraryRoot: tmp.file("lib"), options: options).run()
        XCTAssertEqual(summary.imported, 3)
        XCTAssertEqual(DurabilityStats.writebackCount - writebacks, 0)
    }
}
