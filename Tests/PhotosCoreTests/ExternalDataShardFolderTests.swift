import Foundation
import PhotosTestSupport
import XCTest

@testable import PhotosFiles

/// The external data store makes sure of a shard folder once per process, not before every
/// original; what happens to the folder afterwards (removed empty by another process, a file put
/// in its place) and a folder in an original's place are still handled on the next write.
final class ExternalDataShardFolderTests: TemporaryFolderTestCase {
    private var store: ExternalDataStore!

    override func setUpWithError() throws {
        try super.setUpWithError()
        store = ExternalDataStore(root: dir + "/ExternalData")
        try FileManager.default.createDirectory(atPath: store.root, withIntermediateDirectories: false)
    }

    private func write(_ text: String, _ reference: String) throws {
        let bytes = Array(text.utf8)
        XCTAssertTrue(try bytes.withUnsafeBytes { try store.write($0, reference: reference, durability: .deferred) })
    }

    private func contents(_ reference: String) -> String? {
        FileManager.default.contents(atPath: store.path(for: reference)).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Names in the store's top folder and in `shard`, leftovers included.
    private func names(_ folder: String = "") throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: store.root + (folder.isEmpty ? "" : "/" + folder)).sorted()
    }

    func testAShardFolderRemovedAfterAWriteIsMadeAgain() throws {
        try write("first", "ab/ab01")
        try FileManager.default.removeItem(atPath: store.root + "/ab")
        try write("second", "ab/ab02")
        XCTAssertEqual(contents("ab/ab02"), "second")
        XCTAssertEqual(try names("ab"), ["ab02"])
    }

    func testAFileInPlaceOfAShardFolderMadeEarlierIsMovedAside() throws {
        try write("first", "cd/cd01")
        try FileManager.default.removeItem(atPath: store.root + "/cd")
        try Data("in the way".utf8).write(to: URL(fileURLWithPath: store.root + "/cd"))
        try write("second", "cd/cd02")
        XCTAssertEqual(contents("cd/cd02"), "second")
        let aside = try names().filter { $0.hasPrefix(".tmp-displaced-") }
        XCTAssertEqual(aside.count, 1)
        XCTAssertEqual(
            FileManager.default.contents(atPath: store.root + "/" + aside[0]), Data("in the way".utf8))
    }

    func testAnEmptyFolderInAnOriginalsPlaceIsReplacedByTheFile() throws {
        try write("first", "ef/ef01")
        try FileManager.default.createDirectory(atPath: store.root + "/ef/ef02", withIntermediateDirectories: false)
        try write("second", "ef/ef02")
        XCTAssertEqual(contents("ef/ef02"), "second")
        XCTAssertEqual(try names("ef"), ["ef01", "ef02"], "no temporary file left")
    }

    func testAFolderWithFilesInAnOriginalsPlaceIsRefusedAndKept() throws {
        try write("first", "0a/0a01")
        try FileManager.default.createDirectory(atPath: store.root + "/0a/0a02", withIntermediateDirectories: false)
        try Data("mine".utf8).write(to: URL(fileURLWithPath: store.root + "/0a/0a02/note"))
        let bytes = Array("second".utf8)
        XCTAssertThrowsError(try bytes.withUnsafeBytes { try store.write($0, reference: "0a/0a02") }) { error in
            XCTAssertEqual((error as? FileError)?.kind, .cannotCreate)
            XCTAssertTrue("\(error)".contains("a folder is in its place"), "\(error)")
        }
        XCTAssertEqual(FileManager.default.contents(atPath: store.root + "/0a/0a02/note"), Data("mine".utf8))
        XCTAssertEqual(try names("0a"), ["0a01", "0a02"], "no temporary file left")
    }

    func testTemporaryNamesAreUniqueAndCarryTheProcessID() {
        var seen = Set<String>()
        for _ in 0..<10_000 { seen.insert(TemporaryName.next()) }
        XCTAssertEqual(seen.count, 10_000)
        XCTAssertTrue(seen.allSatisfy { $0.hasPrefix("\(getpid())-") })
    }

    func testManyWritesFromSeveralThreadsLeaveEachFileWholeAndNoTemporaryFile() throws {
        let count = 512
        let store = self.store!
        DispatchQueue.concurrentPerform(iterations: count) { i in
            let hex = String(format: "%02x", i % 256)
            let bytes = Array("photo \(i)".utf8)
            _ = try? bytes.withUnsafeBytes {
                try store.write($0, reference: "\(hex)/\(hex)\(i)", durability: .deferred)
            }
        }
        for i in 0..<count {
            let hex = String(format: "%02x", i % 256)
            XCTAssertEqual(contents("\(hex)/\(hex)\(i)"), "photo \(i)")
        }
        let shards = try names()
        XCTAssertEqual(shards.count, 256)
        for shard in shards { XCTAssertEqual(try names(shard).filter { $0.hasPrefix(".tmp-") }, []) }
    }
}
