import Foundation
import XCTest
import PhotosTestSupport

/// `photos import --refresh-metadata`: files already in the library have their sidecars and
/// embedded metadata read again, and what changed is applied and recorded in history.
final class MetadataRefreshCLITests: BinaryTestCase {
    override var label: String { "photos-meta-refresh" }

    func sidecar(_ attributes: String, _ body: String = "") -> String {
        """
        <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
        <rdf:Description rdf:about="" xmlns:photoshop="http://ns.adobe.com/photoshop/1.0/"
         xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/"
         xmlns:digiKam="http://www.digikam.org/ns/1.0/" \(attributes)>\(body)</rdf:Description></rdf:RDF></x:xmpmeta>
        """
    }

    func write(_ text: String, to path: String) {
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(text.utf8)))
    }

    func listed(_ lib: String, _ displayName: String) throws -> [String: Any] {
        let list = try run(["--library", lib, "list", "--json"])
        for line in list.stdout.split(separator: "\n") {
            let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            if object["displayName"] as? String == displayName { return object }
        }
        XCTFail("\(displayName) not listed")
        return [:]
    }

    func history(_ lib: String) throws -> [[String: Any]] {
        let h = try run(["--library", lib, "history", "--json"])
        return try h.stdout.split(separator: "\n").map {
            try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    func testRefreshAppliesWhatChangedAndRecordsIt() throws {
        let input = dir + "/in", lib = dir + "/lib"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: samplesDir + "/kite.png", toPath: input + "/kite.png")
        try FileManager.default.copyItem(atPath: samplesDir + "/storm.jpg", toPath: input + "/storm.jpg")
        write(
            sidecar(
                "photoshop:DateCreated=\"2021-03-04T05:06:07+09:00\" xmp:Rating=\"2\"",
                "<dc:subject><rdf:Bag><rdf:li>old</rdf:li><rdf:li>keep</rdf:li></rdf:Bag></dc:subject>"),
            to: input + "/kite.png.xmp")
        XCTAssertEqual(try run(["--library", lib, "import", input, "-q"]).status, 0)
        var kite = try listed(lib, "kite.png")
        XCTAssertEqual(Set(try XCTUnwrap(kite["tags"] as? [String])), ["old", "keep"])
        let tokensBefore = try history(lib).count

        // digiKam edited the sidecar: new date and zone, rating 4, a hierarchical tag, "old" gone.
        write(
            sidecar(
                "photoshop:DateCreated=\"2022-12-31T23:59:58-05:00\" xmp:Rating=\"4\"",
                "<dc:subject><rdf:Bag><rdf:li>keep</rdf:li><rdf:li>Anna</rdf:li></rdf:Bag></dc:subject>"
                    + "<digiKam:TagsList><rdf:Seq><rdf:li>keep</rdf:li><rdf:li>People/Anna</rdf:li></rdf:Seq></digiKam:TagsList>"
            ), to: input + "/kite.png.xmp")
        let plain = try run(["--library", lib, "import", input, "--json"])
        XCTAssertTrue(plain.stdout.contains("\"duplicates\":2"), plain.stdout)
        XCTAssertFalse(plain.stdout.contains("refreshed"), "without the option nothing is re-read")
        XCTAssertEqual(try history(lib).count, tokensBefore)

        let refresh = try run(["--library", lib, "import", "--refresh-metadata", input, "--json"])
        XCTAssertEqual(refresh.status, 0, refresh.stderr)
        XCTAssertTrue(refresh.stdout.contains("\"duplicates\":2"), refresh.stdout)
        XCTAssertTrue(refresh.stdout.contains("\"refreshed\":1"), refresh.stdout)
        kite = try listed(lib, "kite.png")
        XCTAssertEqual(Set(try XCTUnwrap(kite["tags"] as? [String])), ["keep", "People/Anna"])
        XCTAssertEqual(RatingsJSON.values(kite), [4])
        XCTAssertEqual(kite["captureDate"] as? String, "2022-12-31T23:59:58-05:00")
        XCTAssertEqual(kite["captureOffset"] as? Int, -300)
        let storm = try listed(lib, "storm.jpg")
        XCTAssertEqual(storm["captureDate"] as? String, "2008-04-20T19:12:06", "no sidecar: unchanged")

        let transactions = try history(lib)
        XCTAssertEqual(transactions.count, tokensBefore + 1, "one history transaction")
        let last = try XCTUnwrap(transactions.last)
        XCTAssertEqual(last["context"] as? String, "import --refresh-metadata")
        let changes = try XCTUnwrap(last["changes"] as? [[String: Any]])
        let update = try XCTUnwrap(changes.first { $0["entity"] as? String == "Photo" })
        XCTAssertEqual(update["id"] as? String, kite["uniqueName"] as? String)
        XCTAssertEqual(update["type"] as? String, "update")
        XCTAssertEqual(Set(try XCTUnwrap(update["updated"] as? [String])), ["captureDate", "tags", "ratings"])
        // The file's rating (the anonymous one import made) changes value: no delete, no insert.
        XCTAssertEqual(changes.filter { $0["entity"] as? String == "Rating" }.map { $0["type"] as? String }, ["update"])
        XCTAssertEqual(changes.filter { $0["entity"] as? String == "Tag" }.map { $0["type"] as? String }, ["insert"])

        // Nothing changed since: nothing is applied or recorded.
        let again = try run(["--library", lib, "import", "--refresh-metadata", input, "--json"])
        XCTAssertTrue(again.stdout.contains("\"refreshed\":0"), again.stdout)
        XCTAssertEqual(try history(lib).count, tokensBefore + 1)
    }

    /// Metadata embedded in the file (XMP in JPEG APP1) is read again too, and only its changes
    /// apply (issue 31 item 4): a tag removed in the library does not come back from an
    /// unchanged file, a rating added in the library stays; a keyword the file then gains is
    /// added.
    func testEmbeddedMetadataIsReadAgain() throws {
        let input = dir + "/in", lib = dir + "/lib"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        let xmp = sidecar(
            "xmp:Rating=\"5\"",
            "<digiKam:TagsList><rdf:Seq><rdf:li>Weather/Storm</rdf:li></rdf:Seq></digiKam:TagsList>")
        let payload = Array("http://ns.adobe.com/xap/1.0/\0".utf8) + Array(xmp.utf8)
        let app1: [UInt8] = [0xFF, 0xE1, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload
        let jpeg = try XCTUnwrap(FileManager.default.contents(atPath: samplesDir + "/storm.jpg"))
        XCTAssertTrue(
            FileManager.default.createFile(
                atPath: input + "/storm.jpg", contents: Data(jpeg.prefix(2)) + Data(app1) + jpeg.dropFirst(2)))
        XCTAssertEqual(try run(["--library", lib, "import", input, "-q"]).status, 0)
        var storm = try listed(lib, "storm.jpg")
        XCTAssertEqual(storm["tags"] as? [String], ["Weather/Storm"])
        XCTAssertEqual(RatingsJSON.values(storm), [5])
        let name = try XCTUnwrap(storm["uniqueName"] as? String)
        XCTAssertEqual(try run(["--library", lib, "tag", "remove", "Weather/Storm", name, "-q"]).status, 0)
        XCTAssertEqual(try run(["--library", lib, "rate", name, "1", "-q"]).status, 0)
        let refresh = try run(["--library", lib, "import", "--refresh-metadata", input, "--json"])
        XCTAssertTrue(refresh.stdout.contains("\"refreshed\":0"), refresh.stdout)
        storm = try listed(lib, "storm.jpg")
        XCTAssertEqual(storm["tags"] as? [String], [], "removed in the library, unchanged in the file")
        XCTAssertEqual(RatingsJSON.values(storm), [5, 1], "the library's rating stays")
    }

    /// A malformed or oversized sidecar is a failure naming the sidecar; the other files'
    /// metadata is still refreshed and nothing of the bad file's photo changes.
    func testBadSidecarsFailPerFileAndTheRestIsRefreshed() throws {
        let input = dir + "/in", lib = dir + "/lib"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        let jpeg = try XCTUnwrap(FileManager.default.contents(atPath: samplesDir + "/storm.jpg"))
        for (i, name) in ["good", "malformed", "huge"].enumerated() {
            XCTAssertTrue(
                FileManager.default.createFile(atPath: input + "/\(name).jpg", contents: jpeg + Data([UInt8(i)])))
        }
        XCTAssertEqual(try run(["--library", lib, "import", input, "-q"]).status, 0)
        write(sidecar("xmp:Rating=\"3\""), to: input + "/good.jpg.xmp")
        write(sidecar("xmp:Rating=\"3\"", "<dc:subject><rdf:Bag><rdf:li>x</rdf:Bag>"), to: input + "/malformed.jpg.xmp")
        write(String(repeating: " ", count: (4 << 20) + 1), to: input + "/huge.jpg.xmp")
        let refresh = try run(["--library", lib, "import", "--refresh-metadata", input, "--json"])
        XCTAssertEqual(refresh.status, 1, refresh.stdout + refresh.stderr)
        XCTAssertTrue(refresh.stdout.contains("\"refreshed\":1"), refresh.stdout)
        XCTAssertTrue(refresh.stdout.contains("\"failed\":2"), refresh.stdout)
        XCTAssertTrue(refresh.stderr.contains(input + "/malformed.jpg.xmp: not a readable XMP packet"), refresh.stderr)
        XCTAssertTrue(refresh.stderr.contains(input + "/huge.jpg.xmp: sidecar of 4194305 bytes"), refresh.stderr)
        XCTAssertEqual(RatingsJSON.values(try listed(lib, "good.jpg")), [3])
        XCTAssertEqual(RatingsJSON.values(try listed(lib, "malformed.jpg")), [])
        XCTAssertEqual(RatingsJSON.values(try listed(lib, "huge.jpg")), [])
    }
}
