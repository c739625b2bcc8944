import Foundation
import XCTest
import PhotosTestSupport

/// An exported sidecar states the photo's whole metadata, so a keyword or rating removed in the
/// library but still embedded in the original (XMP in JPEG APP1) stays removed through export →
/// import. Before, the sidecar had no `dc:subject` and no `xmp:Rating` when the photo had no
/// tags or ratings, and import unioned the original's embedded keywords with the sidecar's:
/// the removed keyword `old` and rating 4 came back in the new library.
final class ExportSidecarStatesWholeMetadataTests: BinaryTestCase {
    override var label: String { "photos-export-whole-metadata" }

    /// storm.jpg with an XMP APP1 segment (Adobe XMP Part 3 §1.1.3) after SOI.
    func jpegWithEmbeddedXMP(keywords: [String], rating: Int) throws -> Data {
        let jpeg = try XCTUnwrap(FileManager.default.contents(atPath: samplesDir + "/storm.jpg"))
        let items = keywords.map { "<rdf:li>\($0)</rdf:li>" }.joined()
        let packet = """
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
            <rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/"
             xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmp:Rating="\(rating)"><dc:subject><rdf:Bag>\(items)</rdf:Bag>
            </dc:subject></rdf:Description></rdf:RDF></x:xmpmeta>
            """
        let payload = Data("http://ns.adobe.com/xap/1.0/\0".utf8) + Data(packet.utf8)
        let length = payload.count + 2
        return jpeg.prefix(2) + Data([0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)]) + payload
            + jpeg.dropFirst(2)
    }

    func photo(_ library: String) throws -> [String: Any] {
        let list = try run(["--library", library, "list", "--json"])
        XCTAssertEqual(list.status, 0, list.stderr)
        let line = try XCTUnwrap(list.stdout.split(separator: "\n").first)
        return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    func testKeywordsAndRatingRemovedInTheLibraryStayRemoved() throws {
        let input = dir + "/in", lib = dir + "/lib", out = dir + "/out", lib2 = dir + "/lib2"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        XCTAssertTrue(
            FileManager.default.createFile(
                atPath: input + "/a.jpg", contents: try jpegWithEmbeddedXMP(keywords: ["old", "kept"], rating: 4)))
        XCTAssertEqual(try run(["--library", lib, "import", input, "-q"]).status, 0)
        let imported = try photo(lib)
        let id = try XCTUnwrap(imported["uniqueName"] as? String)
        XCTAssertEqual(Set(try XCTUnwrap(imported["tags"] as? [String])), ["old", "kept"])
        XCTAssertEqual(RatingsJSON.values(imported), [4])

        XCTAssertEqual(try run(["--library", lib, "tag", "remove", "old", id, "-q"]).status, 0)
        let ratings = try run(["--library", lib, "rating", "list", id, "--json"])
        let rating = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(ratings.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(
            try run(["--library", lib, "rating", "delete", "\(try XCTUnwrap(rating["id"] as? Int))", "-q"]).status, 0)
        XCTAssertEqual(try run(["--library", lib, "export", out, "-q"]).status, 0)
        let sidecar = try String(contentsOfFile: out + "/a.jpg.xmp", encoding: .utf8)
        XCTAssertTrue(sidecar.contains("xmp:Rating=\"0\""), sidecar)

        XCTAssertEqual(try run(["--library", lib2, "import", out, "-q"]).status, 0)
        let back = try photo(lib2)
        XCTAssertEqual(back["uniqueName"] as? String, id)
        XCTAssertEqual(back["tags"] as? [String], ["kept"])
        XCTAssertEqual(RatingsJSON.values(back), [])

        // With no tags left at all: an empty dc:subject, and still none come back.
        XCTAssertEqual(try run(["--library", lib, "tag", "remove", "kept", id, "-q"]).status, 0)
        XCTAssertEqual(try run(["--library", lib, "export", dir + "/out2", "-q"]).status, 0)
        let empty = try String(contentsOfFile: dir + "/out2/a.jpg.xmp", encoding: .utf8)
        XCTAssertTrue(empty.contains("<dc:subject>"), empty)
        XCTAssertEqual(try run(["--library", dir + "/lib3", "import", dir + "/out2", "-q"]).status, 0)
        XCTAssertEqual(try photo(dir + "/lib3")["tags"] as? [String], [])
    }

    /// A sidecar of another tool (no photos:uniqueName) is still unioned with the embedded
    /// keywords, as before (issue 9 item 5).
    func testAnotherToolsSidecarIsStillUnioned() throws {
        let input = dir + "/in", lib = dir + "/lib"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        XCTAssertTrue(
            FileManager.default.createFile(
                atPath: input + "/a.jpg", contents: try jpegWithEmbeddedXMP(keywords: ["embedded"], rating: 2)))
        let sidecar = """
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
            <rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:subject><rdf:Bag>
            <rdf:li>side</rdf:li></rdf:Bag></dc:subject></rdf:Description></rdf:RDF></x:xmpmeta>
            """
        XCTAssertTrue(FileManager.default.createFile(atPath: input + "/a.jpg.xmp", contents: Data(sidecar.utf8)))
        XCTAssertEqual(try run(["--library", lib, "import", input, "-q"]).status, 0)
        let p = try photo(lib)
        XCTAssertEqual(Set(try XCTUnwrap(p["tags"] as? [String])), ["side", "embedded"])
        XCTAssertEqual(RatingsJSON.values(p), [2])
    }
}
