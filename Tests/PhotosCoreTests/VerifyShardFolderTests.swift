import Foundation
import PhotosFiles
import PhotosTestSupport
import XCTest

@testable import PhotosCore

/// `verify` stats each original relative to its shard folder's descriptor
/// (`Library.ShardFolders`): a shard folder that is a link to a folder elsewhere is followed as
/// the path is, and one that is a file, or missing, makes its originals missing as the path's
/// resolution says (ENOTDIR, ENOENT), the others untouched.
final class VerifyShardFolderTests: ImportTestCase {
    func testShardFoldersResolveAsTheirPaths() throws {
        let library = try importedLibrary(photos: 6, seed: 880)
        let root = library.externalData.root
        let refs = try library.catalog.statement("SELECT file_ref FROM photo_data ORDER BY id").map { $0.string(0) }
        let shards = Array(Set(refs.map { String($0.prefix(2)) })).sorted()
        XCTAssertGreaterThanOrEqual(shards.count, 3, "six photos in at least three shards")
        func missing() throws -> [String] {
            try library.verify(quick: true).problems.filter { $0.kind == .missingFile }.compactMap {
                $0.subject.photoUniqueName
            }.sorted()
        }
        func names(inShard shard: String) throws -> [String] {
            try library.catalog.statement(
                "SELECT p.unique_name FROM photo p JOIN photo_data d ON d.photo_id = p.id WHERE substr(d.file_ref, 1, 2) = ?"
            ).map([shard]) { $0.string(0) }.sorted()
        }
        XCTAssertEqual(try library.verify(quick: true).problems.map(\.detail), [])
        // The first shard moved out and linked back: followed, nothing missing.
        let away = tmp.file("away")
        XCTAssertEqual(rename(root + "/" + shards[0], away), 0)
        XCTAssertEqual(symlink(away, root + "/" + shards[0]), 0)
        XCTAssertEqual(try library.verify(quick: true).problems.map(\.detail), [])
        // The second shard replaced by a file: its photos are missing, as with the path.
        XCTAssertEqual(rename(root + "/" + shards[1], tmp.file("away2")), 0)
        XCTAssertTrue(FileManager.default.createFile(atPath: root + "/" + shards[1], contents: Data([1])))
        XCTAssertEqual(try missing(), try names(inShard: shards[1]))
        // The third shard gone too.
        XCTAssertEqual(rename(root + "/" + shards[2], tmp.file("away3")), 0)
        XCTAssertEqual(try missing(), try (names(inShard: shards[1]) + names(inShard: shards[2])).sorted())
    }
}
