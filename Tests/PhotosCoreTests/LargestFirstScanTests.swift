import Foundation
import PhotosTestSupport
import XCTest

@testable import PhotosFiles

/// `FileScanner.stream(_:largestFirst:)`, what `photos import --jobs N` (N > 1) takes files
/// from: each batch found ahead is handed out largest first, files of one size in walk order;
/// a batch never waits for files walked after it.
final class LargestFirstScanTests: TemporaryFolderTestCase {
    override var label: String { "photos-largest-first" }

    func write(_ relative: String, bytes: Int) throws {
        let path = dir + "/" + relative
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(count: bytes)))
    }

    func drain(_ walk: FileScanner.Walk) -> [String] {
        var out: [String] = []
        while let f = walk.next() { out.append(f) }
        return out
    }

    func testABatchIsHandedOutLargestFirstAndEqualSizesInWalkOrder() throws {
        try write("t/a", bytes: 10)
        try write("t/b", bytes: 300)
        try write("t/c/d", bytes: 10)
        try write("t/c/e", bytes: 2000)
        try write("t/f", bytes: 300)
        try write("g", bytes: 50)
        let walk = try FileScanner().stream([dir + "/t", dir + "/g"], largestFirst: true)
        XCTAssertEqual(
            drain(walk), ["t/c/e", "t/b", "t/f", "g", "t/a", "t/c/d"].map { dir + "/" + $0 })
        // The default stays the walk's own (name) order.
        XCTAssertEqual(
            drain(try FileScanner().stream([dir + "/t", dir + "/g"])),
            ["t/a", "t/b", "t/c/d", "t/c/e", "t/f", "g"].map { dir + "/" + $0 })
    }

    /// Sizes are compared within one batch only: a large file in the second batch comes after
    /// every file of the first.
    func testOnlyFilesOfOneBatchAreReordered() throws {
        let count = FileScanner.Walk.batchSize + 2
        for i in 0..<count { try write(String(format: "t/f%05d", i), bytes: i == count - 1 ? 100 : i % 3) }
        let all = drain(try FileScanner().stream([dir + "/t"], largestFirst: true))
        XCTAssertEqual(all.count, count)
        let first = Array(all.prefix(FileScanner.Walk.batchSize))
        let expected = (0..<FileScanner.Walk.batchSize).sorted { a, b in a % 3 != b % 3 ? a % 3 > b % 3 : a < b }
        XCTAssertEqual(first, expected.map { dir + String(format: "/t/f%05d", $0) })
        XCTAssertEqual(
            Array(all.suffix(2)), [count - 1, count - 2].map { dir + String(format: "/t/f%05d", $0) },
            "the second batch: its 100-byte file first")
    }
}
