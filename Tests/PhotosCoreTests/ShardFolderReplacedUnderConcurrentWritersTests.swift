import Foundation
import PhotosTestSupport
import Synchronization
import XCTest

@testable import PhotosFiles

/// A file put where a shard folder belongs while several of import's workers write into that
/// shard: every worker's original is still written (one of them moves the file aside and makes
/// the folder; the others use that folder), none fails because another got there first.
final class ShardFolderReplacedUnderConcurrentWritersTests: TemporaryFolderTestCase {
    func testEveryWriterSucceedsWhenAFileTakesTheShardFoldersPlace() throws {
        let store = ExternalDataStore(root: dir + "/ExternalData")
        try FileManager.default.createDirectory(atPath: store.root, withIntermediateDirectories: false)
        let writers = 8
        for round in 0..<1000 {
            // Each round: the shard folder (made earlier, known to the store) goes away and a
            // file takes its place; then several writers write into it at once.
            let shard = store.root + "/ab"
            if FileManager.default.fileExists(atPath: shard) {
                try FileManager.default.moveItem(atPath: shard, toPath: dir + "/away-\(round)")
            }
            try Data("in the way \(round)".utf8).write(to: URL(fileURLWithPath: shard))
            let failures = Mutex<[String]>([])
            DispatchQueue.concurrentPerform(iterations: writers) { i in
                let bytes = Array("photo \(round) \(i)".utf8)
                do {
                    _ = try bytes.withUnsafeBytes {
                        try store.write($0, reference: "ab/ab\(round)-\(i)", durability: .deferred)
                    }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
            XCTAssertEqual(failures.withLock { $0 }, [], "round \(round)")
            for i in 0..<writers {
                XCTAssertEqual(
                    FileManager.default.contents(atPath: shard + "/ab\(round)-\(i)"),
                    Data("photo \(round) \(i)".utf8), "round \(round) writer \(i)")
            }
        }
    }
}
