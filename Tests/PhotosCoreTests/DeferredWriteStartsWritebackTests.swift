import Foundation
import PhotosFiles
import PhotosTestSupport
import XCTest

@testable import PhotosCore

/// A deferred (group-durability) write of a large file starts its write-back at once, without
/// waiting (`DurabilityStats.startWriteback`, sync_file_range(2) SYNC_FILE_RANGE_WRITE), so the
/// batch's one syncfs only waits for what is still in flight; a file under
/// `DurabilityStats.writebackThreshold` bytes is left to that syncfs (which submits the batch's
/// small writes together); an immediate write fsyncs instead and a dry run writes nothing. The
/// bytes written are the bytes given either way.
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
        XCTAssertEqual(DurabilityStats.writebackCount - writebacks, 1, "an empty file is left to the syncfs")
        XCTAssertEqual(FileManager.default.contents(atPath: store.path(for: "ab/empty")), Data())
    }

    func testOnlyFilesOfAtLeastTheThresholdStartTheirWriteback() throws {
        let store = ExternalDataStore(root: tmp.file("store"))
        try FileManager.default.createDirectory(atPath: store.root, withIntermediateDirectories: true)
        let threshold = DurabilityStats.writebackThreshold
        XCTAssertEqual(threshold, 256 << 10)
        let writebacks = DurabilityStats.writebackCount
        for (name, size) in [("below", threshold - 1), ("at", threshold), ("small", 18_000)] {
            let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            XCTAssertTrue(
                try bytes.withUnsafeBytes { try store.write($0, reference: "cd/\(name)", durability: .deferred) })
            XCTAssertEqual(FileManager.default.contents(atPath: store.path(for: "cd/\(name)")), Data(bytes))
        }
        XCTAssertEqual(DurabilityStats.writebackCount - writebacks, 1, "only the file of exactly the threshold")
    }

    func testImportStartsOneWritebackPerLargeOriginalAndKeepsTheirBytes() throws {
        let count = 7
        var inputs: [[UInt8]] = []
        for i in 0..<count {
            // Three of them of 300 KB (five 60,000-byte comments), over the write-back threshold.
            let padding = i < 3 ? [UInt8](repeating: UInt8(i), count: 60_000) : []
            let bytes = try MetadataFixture.jpeg(
                seed: i,
                segments: [MetadataFixture.segment(0xFE, Array("writeback \(i)".utf8))]
                    + (padding.isEmpty ? [] : Array(repeating: MetadataFixture.segment(0xFE, padding), count: 5)))
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
        XCTAssertEqual(DurabilityStats.writebackCount - writebacks, 3, "the three large originals")
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
