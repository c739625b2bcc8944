import Foundation
import PhotosCore
import PhotosImaging
import PhotosTestSupport
import XCTest

/// Issue 27 items 1 and 2 through the binary, on both backends: import records each photo's
/// signature; `duplicates` groups a corpus photo with its half-size recompressed copy and not
/// with a different photo, keeps the larger for the documented reason, says how many photos
/// lack a signature until `thumbnails --rebuild` computes them, and refuses a bad threshold
/// with 64.
final class DuplicatesCLITests: BinaryTestCase {
    override var label: String { "photos-duplicates" }

    func testACopyGroupsWithItsSourceAndTheLargerIsKept() throws {
        let bench = try requireCorpus() + "/bench"
        let lib = dir + "/lib", input = dir + "/in"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        let source = bench + "/plasma_Kite_2560x1600.jpg"
        try FileManager.default.copyItem(atPath: source, toPath: input + "/kite.jpg")
        try FileManager.default.copyItem(atPath: bench + "/mate_Aqua.jpg", toPath: input + "/aqua.jpg")
        let bytes = try XCTUnwrap(FileManager.default.contents(atPath: source).map { [UInt8]($0) })
        let decoded = try bytes.withUnsafeBytes {
            try ImageDecoder.decode($0, format: .jpeg, targetEdge: 1280, maxPixels: 100_000_000)
        }
        let half = try Resampler.areaAverage(decoded.pixels, width: 1280, height: 800)
        let copy = try ImageDecoder.encodeJPEG(half, quality: 60)
        XCTAssertTrue(FileManager.default.createFile(atPath: input + "/kite-copy.jpg", contents: Data(copy)))
        let imported = try run(["--library", lib, "import", "-q", input])
        XCTAssertEqual(imported.status, 0, imported.stderr)
        let catalog = try TestCatalog(root: lib)
        XCTAssertEqual(try catalog.scalarInt("SELECT count(*) FROM photo_signature WHERE algorithm = 1"), 3)
        XCTAssertEqual(try catalog.scalarInt("SELECT count(*) FROM photo_signature WHERE low_information = 1"), 0)

        func groups(_ args: [String] = []) throws -> [[String: Any]] {
            let listed = try run(["--library", lib, "duplicates", "--json"] + args)
            XCTAssertEqual(listed.status, 0, listed.stderr)
            return try listed.stdout.split(separator: "\n").map {
                try XCTUnwrap(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
            }
        }
        let found = try groups()
        XCTAssertEqual(found.count, 1)
        let group = try XCTUnwrap(found.first)
        let members = try XCTUnwrap(group["members"] as? [[String: Any]])
        XCTAssertEqual(members.compactMap { $0["displayName"] as? String }, ["kite.jpg", "kite-copy.jpg"])
        XCTAssertEqual(members.compactMap { $0["width"] as? Int }, [2560, 1280])
        XCTAssertEqual(members.first?["distance"] as? Int, 0)
        XCTAssertLessThanOrEqual(try XCTUnwrap(members.last?["distance"] as? Int), DuplicateThreshold.sameHashDistance)
        XCTAssertEqual(group["reason"] as? String, "more pixels (2560×1600 against 1280×800)")
        XCTAssertEqual(group["keeper"] as? String, members.first?["uniqueName"] as? String)
        // The filters of `list` select what is compared.
        XCTAssertEqual(try groups(["--name", "aqua*"]).count, 0)
        // The text form names the keeper and the reason.
        let text = try run(["--library", lib, "duplicates"])
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertTrue(text.stdout.hasPrefix("group 1: 2 photos, distance "), text.stdout)
        XCTAssertTrue(text.stdout.contains(": more pixels (2560×1600 against 1280×800)\n"), text.stdout)
        XCTAssertTrue(text.stderr.contains("1 group of 2 photos at --threshold same"), text.stderr)

        // Photos imported before signatures: counted, and `thumbnails --rebuild` computes them.
        try catalog.run("DELETE FROM photo_signature")
        let none = try run(["--library", lib, "duplicates", "--json"])
        XCTAssertEqual(none.status, 0, none.stderr)
        XCTAssertEqual(none.stdout, "")
        XCTAssertTrue(
            none.stderr.contains(
                "3 photos of 3 have no signature and were not compared; 'photos thumbnails --rebuild' computes them"),
            none.stderr)
        let rebuilt = try run(["--library", lib, "thumbnails", "--rebuild", "-q"])
        XCTAssertEqual(rebuilt.status, 0, rebuilt.stderr)
        XCTAssertEqual(try catalog.scalarInt("SELECT count(*) FROM photo_signature"), 3)
        XCTAssertEqual(try groups().count, 1)

        for bad in ["nearly", "33", "1.5"] {
            let refused = try run(["--library", lib, "duplicates", "--threshold", bad])
            XCTAssertEqual(refused.status, 64, bad)
            XCTAssertTrue(refused.stderr.contains("--threshold"), refused.stderr)
            XCTAssertEqual(refused.stdout, "")
        }
    }

    /// Multi-index hashing finds exactly the pairs a scan of every pair finds (random hashes
    /// with planted neighbours at distances 0…16), at every radius.
    func testHammingIndexFindsWhatAFullScanFinds() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return state
        }
        var hashes: [UInt64] = []
        for _ in 0..<400 {
            let h = next()
            hashes.append(h)
            var near = h
            for _ in 0..<(next() % 17) { near ^= 1 << (next() % 64) }
            hashes.append(near)
        }
        for radius in [0, 3, 4, 8, 10, 16] {
            var expected: [String] = []
            for i in 0..<hashes.count {
                for j in (i + 1)..<hashes.count where (hashes[i] ^ hashes[j]).nonzeroBitCount <= radius {
                    expected.append("\(i)-\(j)")
                }
            }
            let found = HammingIndex.pairs(hashes, within: radius).map { "\($0.i)-\($0.j)" }
            XCTAssertEqual(found, expected, "radius \(radius)")
            XCTAssertGreaterThan(found.count, radius >= 8 ? 200 : 0)
        }
    }
}
