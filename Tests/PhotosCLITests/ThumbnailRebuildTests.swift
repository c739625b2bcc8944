import Foundation
import XCTest
import PhotosTestSupport

/// `photos thumbnails --rebuild [PHOTO…]`: thumbnails made again from the originals in
/// parallel equal, byte for byte, those a fresh import with the same options stores; each is
/// recorded in history; a photo whose original is gone keeps its thumbnail and is named.
final class ThumbnailRebuildTests: BinaryTestCase {
    override var label: String { "photos-thumbnails" }

    /// sha256 → (uniqueName, thumbnail bytes) of every photo of `library`.
    private func thumbnails(_ library: String) throws -> [String: (name: String, bytes: Data)] {
        let listed = try run(["--library", library, "--json", "list"])
        XCTAssertEqual(listed.status, 0, listed.stderr)
        var result: [String: (name: String, bytes: Data)] = [:]
        for line in listed.stdout.split(separator: "\n") {
            let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let name = try XCTUnwrap(object["uniqueName"] as? String)
            let sha = try XCTUnwrap(object["sha256"] as? String)
            let file = dir + "/thumb-\(name).jpg"
            XCTAssertEqual(try run(["--library", library, "thumbnail", name, "-o", file, "-q"]).status, 0)
            result[sha] = (name, try Data(contentsOf: URL(fileURLWithPath: file)))
        }
        return result
    }

    func testRebuiltThumbnailsEqualAFreshImportsWithTheSameQuality() throws {
        let (input, count) = try makeInput(copies: 3)
        let library = dir + "/lib", fresh = dir + "/fresh"
        XCTAssertEqual(try run(["--library", library, "import", input, "-q"]).status, 0)
        let before = try thumbnails(library)
        XCTAssertEqual(before.count, count)

        let rebuilt = try run(["--library", library, "thumbnails", "--rebuild", "--thumbnail-quality", "50", "-j", "3"])
        XCTAssertEqual(rebuilt.status, 0, rebuilt.stderr)
        XCTAssertEqual(rebuilt.stdout, "Rebuilt \(count) thumbnails, 0 failed\n")
        XCTAssertEqual(
            try run(["--library", fresh, "import", input, "-q", "--thumbnail-quality", "50"]).status, 0)
        let after = try thumbnails(library), expected = try thumbnails(fresh)
        XCTAssertEqual(Set(after.keys), Set(expected.keys))
        for (sha, thumbnail) in after {
            XCTAssertEqual(thumbnail.bytes, expected[sha]?.bytes, "photo \(thumbnail.name)")
            XCTAssertNotEqual(thumbnail.bytes, before[sha]?.bytes, "quality 50 differs from 85: it was rebuilt")
        }
        XCTAssertEqual(try run(["--library", library, "verify"]).status, 0)
    }

    func testEachRebuildIsRecordedInHistoryAndADryRunStoresNothing() throws {
        let library = dir + "/lib"
        XCTAssertEqual(try run(["--library", library, "import", samplesDir, "-q"]).status, 0)
        let before = try thumbnails(library)
        let one = try XCTUnwrap(before.values.map(\.name).sorted().first)

        let dry = try run(["--library", library, "thumbnails", "--rebuild", "--dry-run", "--thumbnail-quality", "30"])
        XCTAssertEqual(dry.stdout, "Would rebuild \(before.count) thumbnails, 0 failed\n")
        XCTAssertEqual(try thumbnails(library).mapValues(\.bytes), before.mapValues(\.bytes))

        let token = try run(["--library", library, "--json", "history"]).stdout.split(separator: "\n").count
        XCTAssertEqual(
            try run(["--library", library, "thumbnails", "--rebuild", one, "--thumbnail-quality", "30"]).status, 0)
        let history = try run(["--library", library, "--json", "history"]).stdout.split(separator: "\n")
        XCTAssertEqual(history.count, token + 1, "one transaction")
        let last = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(try XCTUnwrap(history.last).utf8)) as? [String: Any])
        XCTAssertEqual(last["author"] as? String, "thumbnails")
        XCTAssertEqual(last["context"] as? String, "thumbnails --rebuild")
        let changes = try XCTUnwrap(last["changes"] as? [[String: Any]])
        XCTAssertEqual(changes.count, 1)
        XCTAssertEqual(changes.first?["entity"] as? String, "Thumbnail")
        XCTAssertEqual(changes.first?["type"] as? String, "update")
        let after = try thumbnails(library)
        XCTAssertEqual(after.values.filter { before.values.map(\.bytes).contains($0.bytes) }.count, before.count - 1)
    }

    func testAPhotoWhoseOriginalIsGoneKeepsItsThumbnailAndIsNamed() throws {
        let library = dir + "/lib"
        XCTAssertEqual(try run(["--library", library, "import", samplesDir, "-q"]).status, 0)
        let before = try thumbnails(library)
        let (sha, gone) = try XCTUnwrap(before.sorted { $0.key < $1.key }.first)
        try FileManager.default.removeItem(atPath: "\(library)/ExternalData/\(sha.prefix(2))/\(sha)")
        let result = try run(["--library", library, "thumbnails", "--rebuild", "--thumbnail-quality", "40"])
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(result.stderr.hasPrefix("\(gone.name) ("), result.stderr)
        XCTAssertEqual(result.stdout, "Rebuilt \(before.count - 1) thumbnails, 1 failed\n")
        XCTAssertEqual(try thumbnails(library)[sha]?.bytes, gone.bytes)
        XCTAssertEqual(try run(["--library", library, "thumbnails"]).status, 64, "--rebuild is required")
    }
}
