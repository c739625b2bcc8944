import Foundation
import PhotosTestSupport
import Synchronization
import XCTest

@testable import PhotosFiles

/// A file put where a shard folder belongs while two imports (two stores over one folder, each
/// with folders of its own made sure of, as two processes have) write into that shard at once:
/// neither moves aside the folder the other has just made (with the other's originals in it),
/// and every original is written.
final class ShardFolderReplacedUnderTwoImportsTests: TemporaryFolderTestCase {
    func testNoImportMovesAsideTheFolderTheOtherMade() throws {
        let root = dir + "/ExternalData"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: false)
        let stores = [ExternalDataStore(root: root), ExternalDataStore(root: root)]
        let writers = 8
        for round in 0..<400 {
            let shard = root + "/ab"
            if FileManager.default.fileExists(atPath: shard) {
                try FileManager.default.moveItem(atPath: shard, toPath: dir + "/away-\(round)")
            }
            try Data("in the way \(round)".utf8).write(to: URL(fileURLWithPath: shard))
            let failures = Mutex<[String]>([])
            DispatchQueue.concurrentPerform(iterations: writers) { i in
                let bytes = Array("photo \(round) \(i)".utf8)
                do {
                    _ = try bytes.withUnsafeBytes {
                        try stores[i % 2].write($0, reference: "ab/ab\(round)-\(i)", durability: .deferred)
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
            // Only the file that was in the way was moved aside: never a folder.
            for name in try FileManager.default.contentsOfDirectory(atPath: root)
            where name.hasPrefix(".tmp-displaced-") {
                var isFolder: ObjCBool = false
                XCTAssertTrue(FileManager.default.fileExists(atPath: root + "/" + name, isDirectory: &isFolder))
                XCTAssertFalse(isFolder.boolValue, "\(name) is a folder moved aside (round \(round))")
            }
            if failures.withLock({ !$0.isEmpty }) { break }
        }
    }
}
