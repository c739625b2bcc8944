import Foundation
import XCTest
import PhotosTestSupport

/// Hidden variant of issue 9 items 2 and 5: an XMP sidecar under the 4 MiB limit whose nodes
/// are many and small. 175,000 one-word keywords in 4 MiB made the XMP Toolkit's trees cost
/// ~120 MB per worker (263 MB peak with --jobs 2), each keyword became a tag (10 s, and
/// minutes with the former list scan per keyword); 49,000 attributes took 8.6 s to parse.
final class XMPSidecarNodeBoundTests: BinaryTestCase {
    override var label: String { "photos-xmp-bounds" }

    static func sidecar(keywords: Int) -> String {
        var items = ""
        for i in 0..<keywords { items += "<rdf:li>k\(i)</rdf:li>" }
        return """
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\
            <rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmp:Rating="3">\
            <dc:subject><rdf:Bag>\(items)</rdf:Bag></dc:subject></rdf:Description></rdf:RDF></x:xmpmeta>
            """
    }

    func testSidecarsOfManySmallNodesStayBounded() throws {
        let input = dir + "/in"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        let samples = packageRoot + "/Samples"
        let images = ["storm.jpg", "ladybird.jpg", "path.jpg"]
        try requireSamples(images)
        // Two dense sidecars of just under 4 MiB: refused before parsing, naming the count.
        for (i, image) in images.prefix(2).enumerated() {
            try FileManager.default.copyItem(atPath: samples + "/" + image, toPath: input + "/dense\(i).jpg")
            let text = Self.sidecar(keywords: 175_000)
            XCTAssertLessThanOrEqual(text.utf8.count, 4 << 20)
            try text.write(toFile: input + "/dense\(i).jpg.xmp", atomically: true, encoding: .utf8)
        }
        // 19,000 keywords (under the node limit): read, the first 1000 become tags.
        try FileManager.default.copyItem(atPath: samples + "/" + images[2], toPath: input + "/many.jpg")
        try Self.sidecar(keywords: 19_000).write(toFile: input + "/many.jpg.xmp", atomically: true, encoding: .utf8)

        let start = Date()
        let result = try runMeasured(["--library", dir + "/lib", "import", "-q", "--jobs", "2", input])
        let seconds = Date().timeIntervalSince(start)
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertGreaterThan(result.maxRSSKB, 0)
        XCTAssertLessThan(result.maxRSSKB, DecodeMemoryBoundTests.limitKB, "peak RSS \(result.maxRSSKB) KB")
        for i in 0..<2 {
            XCTAssertTrue(
                result.stderr.contains(
                    "dense\(i).jpg: error: \(input)/dense\(i).jpg.xmp: XMP packet of 175011 elements and attributes is over the 20000 read; not read"
                ),
                result.stderr)
        }
        let list = try run(["--library", dir + "/lib", "--json", "list"])
        let lines = list.stdout.split(separator: "\n")
        XCTAssertEqual(lines.count, 1, list.stdout)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
        let tags = try XCTUnwrap(object["tags"] as? [String])
        XCTAssertEqual(tags.count, 1000)
        XCTAssertEqual(Set(tags), Set((0..<1000).map { "k\($0)" }))
        XCTAssertEqual(object["rating"] as? Int, 3)
        print("peak RSS \(result.maxRSSKB / 1024) MB, \(String(format: "%.1f", seconds)) s")
    }

    /// JSON sidecars (`photos export --sidecar json`) of just under 4 MiB made of tiny values:
    /// Foundation's tree made two of them peak at 166 MB with --jobs 2. Refused before
    /// parsing; a sidecar with 1500 tags is read (its first 1000 become tags).
    func testJSONSidecarsOfManyValuesStayBounded() throws {
        let input = dir + "/in"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        let samples = packageRoot + "/Samples"
        try requireSamples(["storm.jpg", "ladybird.jpg", "path.jpg"])
        try FileManager.default.copyItem(atPath: samples + "/storm.jpg", toPath: input + "/strings.jpg")
        try FileManager.default.copyItem(atPath: samples + "/ladybird.jpg", toPath: input + "/zeros.jpg")
        try FileManager.default.copyItem(atPath: samples + "/path.jpg", toPath: input + "/fine.jpg")
        let strings =
            "{\"tags\":[" + Array(repeating: "\"a\"", count: ((4 << 20) - 12) / 4).joined(separator: ",") + "]}"
        let zeros = "{\"tags\":[" + Array(repeating: "0", count: ((4 << 20) - 12) / 2).joined(separator: ",") + "]}"
        XCTAssertLessThanOrEqual(strings.utf8.count, 4 << 20)
        XCTAssertLessThanOrEqual(zeros.utf8.count, 4 << 20)
        try strings.write(toFile: input + "/strings.jpg.json", atomically: true, encoding: .utf8)
        try zeros.write(toFile: input + "/zeros.jpg.json", atomically: true, encoding: .utf8)
        let fine = "{\"tags\":[" + (0..<1500).map { "\"t,\\\"\($0)\"" }.joined(separator: ",") + "],\"rating\":4}"
        try fine.write(toFile: input + "/fine.jpg.json", atomically: true, encoding: .utf8)

        let result = try runMeasured(["--library", dir + "/lib", "import", "-q", "--jobs", "2", input])
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertLessThan(result.maxRSSKB, DecodeMemoryBoundTests.limitKB, "peak RSS \(result.maxRSSKB) KB")
        XCTAssertTrue(
            result.stderr.contains("strings.jpg.json: JSON sidecar of 1048575 values is over the 20000 read; not read"),
            result.stderr)
        XCTAssertTrue(
            result.stderr.contains("zeros.jpg.json: JSON sidecar of 2097148 values is over the 20000 read; not read"),
            result.stderr)
        let list = try run(["--library", dir + "/lib", "--json", "list"])
        let lines = list.stdout.split(separator: "\n")
        XCTAssertEqual(lines.count, 1, list.stdout)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
        XCTAssertEqual(Set(try XCTUnwrap(object["tags"] as? [String])), Set((0..<1000).map { "t,\"\($0)" }))
        XCTAssertEqual(object["rating"] as? Int, 4)
        print("peak RSS \(result.maxRSSKB / 1024) MB")
    }
}
