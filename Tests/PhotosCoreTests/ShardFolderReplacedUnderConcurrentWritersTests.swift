import Foundation
import PhotosTestSupport
import Synchronization
import XCTest

@testable import PhotosFiles

/// A file put where a shard folder belongs while several writers write into that shard at once:
/// import's workers sharing one store, or two imports (two stores over one folder, each with the
/// folders it made sure of, as two processes have). Every original is written (one writer moves
/// the file aside and makes the folder, the others use that folder), none fails because another
/// got there first, and only the file in the way is ever moved aside, never the folder another
/// writer has just made with its originals in it.
final class ShardFolderReplacedUnderConcurrentWritersTests: TemporaryFolderTestCase {
    /// `rounds` times: the shard folder goes away and a file takes its place, then eight writers
    /// (taking `stores` in turn) write into it at once.
    private func writeRounds(_ rounds: Int, stores: [ExternalDataStore]) throws {
        let root = stores[0].root
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: false)
        let writers = 8
        let shard = root + "/ab"
        for round in 0..<rounds {
            if FileManager.default.fileExists(atPath: shard) {
                try FileManager.default.moveItem(atPath: shard, toPath: dir + "/away-\(round)")
            }
            try Data("in the way \(round)".utf8).write(to: URL(fileURLWithPath: shard))
            let failures = Mutex<[String]>([])
            DispatchQueue.concurrentPerform(iterations: writers) { i in
                let bytes = Array("photo \(round) \(i)".utf8)
                do {
                    _ = try bytes.withUnsafeBytes {
                        try stores[i % stores.count].write($0, reference: "ab/ab\(round)-\(i)", durability: .deferred)
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
            for name in try FileManager.default.contentsOfDirectory(atPath: root)
            where name.hasPrefix(".tmp-displaced-") {
                var isFolder: ObjCBool = false
                XCTAssertTrue(FileManager.default.fileExists(atPath: root + "/" + name, isDirectory: &isFolder))
                XCTAssertFalse(isFolder.boolValue, "\(name) is a folder moved aside (round \(round))")
            }
            if failures.withLock({ !$0.isEmpty }) { break }
        }
    }

    func testEveryWriterSucceedsWhenAFileTakesTheShardFoldersPlace() throws {
        try writeRounds(1000, stores: [ExternalDataStore(root: dir + "/ExternalData")])
    }

    func testNoImportMovesAsideTheFolderTheOtherMade() throws {
        let root = dir + "/ExternalData"
        try writeRounds(400, stores: [ExternalDataStore(root: root), ExternalDataStore(root: root)])
    }
}
