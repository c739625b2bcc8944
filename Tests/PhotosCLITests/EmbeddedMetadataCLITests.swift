import Foundation
import XCTest
import PhotosTestSupport

/// Issue 9 item 5 through the binary: embedded XMP is imported, and the XMP Toolkit's own
/// error printing (exempi writes every toolkit error to std::cerr) never reaches the user.
final class EmbeddedMetadataCLITests: BinaryTestCase {
    override var label: String { "photos-embedded" }

    /// storm.jpg with an APP1 XMP packet inserted after SOI.
    func storm(xmp: String) throws -> Data {
        let payload = Array("http://ns.adobe.com/xap/1.0/\0".utf8) + Array(xmp.utf8)
        let segment: [UInt8] =
            [0xFF, 0xE1, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload
        let bytes = try XCTUnwrap(FileManager.default.contents(atPath: samplesDir + "/storm.jpg"))
        return Data(bytes.prefix(2)) + Data(segment) + bytes.dropFirst(2)
    }

    func testEmbeddedXMPImportsQuietly() throws {
        let input = dir + "/in", lib = dir + "/lib"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        let good = """
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\
            <rdf:Description rdf:about="" xmlns:xap="http://ns.adobe.com/xap/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/" xap:Rating="4">\
            <dc:subject><rdf:Bag><rdf:li>Storm</rdf:li></rdf:Bag></dc:subject></rdf:Description></rdf:RDF></x:xmpmeta>
            """
        XCTAssertTrue(FileManager.default.createFile(atPath: input + "/good.jpg", contents: try storm(xmp: good)))
        XCTAssertTrue(
            FileManager.default.createFile(
                atPath: input + "/bad.jpg", contents: try storm(xmp: "<x:xmpmeta><rdf:RDF></x:xmpmeta>")))
        XCTAssertEqual(try run(["--library", lib, "init"]).status, 0)
        let imported = try run(["--library", lib, "import", input, "-q"])
        XCTAssertEqual(imported.status, 0)
        // One line of ours naming the file (issue 31 item 13: a packet left out is said so),
        // nothing of the toolkit's own error output.
        XCTAssertEqual(
            imported.stderr,
            "photos import: warning: \(input)/bad.jpg: not a readable XMP packet: malformed XML (XMP Toolkit error -201, XMPErr_BadXML) (the packet embedded in the image); imported without it\n"
        )
        let list = try run(["--library", lib, "list", "--json", "--tag", "Storm"])
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(object["displayName"] as? String, "good.jpg")
        XCTAssertEqual(RatingsJSON.values(object), [4])
    }
}
