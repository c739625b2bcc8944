import Foundation
import Synchronization
import XCTest
import PhotosTestSupport
@testable import PhotosCore

/// Issue 9 item 5: XMP is read as XMP, by namespace URI, whatever prefix or RDF form wrote it.
final class XMPByNamespaceTests: XCTestCase {
    private func packet(_ namespaces: String, _ body: String, attributes: String = "") -> Data {
        Data(
            """
            <?xpacket begin="\u{FEFF}" id="W5M0MpCehiHzreSzNTczkc9d"?>
            <x:xmpmeta xmlns:x="adobe:ns:meta/">
             <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
              <rdf:Description rdf:about="" \(namespaces) \(attributes)>
            \(body)
              </rdf:Description>
             </rdf:RDF>
            </x:xmpmeta>
            <?xpacket end="w"?>
            """.utf8)
    }

    private func read(_ data: Data, _ file: StaticString = #filePath, _ line: UInt = #line) throws -> XMPSidecar {
        try XMPSidecar.parse(data, path: "t.xmp")
    }

    /// The issue's example: the older Adobe prefix `xap:` for the XMP basic namespace.
    func testXapPrefixRatingAttribute() throws {
        let s = try read(packet("xmlns:xap=\"http://ns.adobe.com/xap/1.0/\"", "", attributes: "xap:Rating=\"4\""))
        XCTAssertEqual(s.rating, 4)
    }

    func testAnyPrefixBoundToTheNamespaceCounts() throws {
        let s = try read(
            packet(
                "xmlns:foo=\"http://ns.adobe.com/xap/1.0/\" xmlns:k=\"http://purl.org/dc/elements/1.1/\"",
                "<k:subject><rdf:Bag><rdf:li>Alpha</rdf:li></rdf:Bag></k:subject><foo:Rating>2</foo:Rating>"))
        XCTAssertEqual(s, XMPSidecar(subjects: ["Alpha"], rating: 2))
    }

    func testPrefixXmpBoundToAnotherNamespaceDoesNotCount() throws {
        let s = try read(
            packet(
                "xmlns:xmp=\"http://example.com/not-xmp/\" xmlns:dc=\"http://example.com/not-dc/\"",
                "<dc:subject><rdf:Bag><rdf:li>Wrong</rdf:li></rdf:Bag></dc:subject>", attributes: "xmp:Rating=\"5\""))
        XCTAssertNil(s.rating)
        XCTAssertFalse(s.hasRating)
        XCTAssertEqual(s.subjects, [])
    }

    func testElementFormAndSeqAndAlt() throws {
        let ns = "xmlns:xmp=\"http://ns.adobe.com/xap/1.0/\" xmlns:dc=\"http://purl.org/dc/elements/1.1/\""
        XCTAssertEqual(
            try read(
                packet(
                    ns,
                    "<xmp:Rating>3</xmp:Rating><dc:subject><rdf:Seq><rdf:li>B</rdf:li><rdf:li>A</rdf:li></rdf:Seq></dc:subject>"
                )),
            XMPSidecar(subjects: ["B", "A"], rating: 3))
        XCTAssertEqual(
            try read(
                packet(ns, "<dc:subject><rdf:Alt><rdf:li xml:lang=\"x-default\">Only</rdf:li></rdf:Alt></dc:subject>")
            ).subjects, ["Only"])
        // A simple value where a Bag belongs (some writers): one keyword.
        XCTAssertEqual(try read(packet(ns, "", attributes: "dc:subject=\"Lone\"")).subjects, ["Lone"])
        // Namespaces declared on rdf:RDF and inherited.
        let inherited = Data(
            """
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:q="http://ns.adobe.com/xap/1.0/">\
            <rdf:Description rdf:about=""><q:Rating> 4 </q:Rating></rdf:Description></rdf:RDF></x:xmpmeta>
            """.utf8)
        XCTAssertEqual(try read(inherited).rating, 4)
        // rdf:value form of a simple property (Part 1 §7.9.2.5 qualifiers) and rdf:resource-less element.
        XCTAssertEqual(
            try read(packet(ns, "<xmp:Rating rdf:parseType=\"Resource\"><rdf:value>5</rdf:value></xmp:Rating>")).rating,
            5)
    }

    func testCharacterReferencesAndCDATA() throws {
        let ns = "xmlns:xmp=\"http://ns.adobe.com/xap/1.0/\" xmlns:dc=\"http://purl.org/dc/elements/1.1/\""
        let s = try read(
            packet(
                ns,
                "<dc:subject><rdf:Bag><rdf:li>Caf&#xE9; &amp; Bar</rdf:li><rdf:li><![CDATA[<Sea> & Sky]]></rdf:li><rdf:li>   </rdf:li></rdf:Bag></dc:subject><xmp:Rating>&#52;</xmp:Rating>"
            ))
        XCTAssertEqual(s, XMPSidecar(subjects: ["Café & Bar", "<Sea> & Sky"], rating: 4))
    }

    func testSeveralDescriptionBlocks() throws {
        let data = Data(
            """
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
             <rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:subject><rdf:Bag><rdf:li>One</rdf:li></rdf:Bag></dc:subject></rdf:Description>
             <rdf:Description rdf:about="" xmlns:xap="http://ns.adobe.com/xap/1.0/" xap:Rating="1"/>
             <rdf:Description rdf:about="" xmlns:photoshop="http://ns.adobe.com/photoshop/1.0/" photoshop:DateCreated="2024-12-31T23:30:00-05:00"/>
            </rdf:RDF></x:xmpmeta>
            """.utf8)
        let s = try read(data)
        XCTAssertEqual(s.subjects, ["One"])
        XCTAssertEqual(s.rating, 1)
        XCTAssertEqual(s.captureTime, CaptureTime(local: "2024-12-31T23:30:00", offsetMinutes: -300, source: "xmp"))
    }

    /// The `x:xmpmeta` wrapper is optional (Part 1 §7.3.3); UTF-16 with a BOM is XML too.
    func testBareRDFWithoutXmpmetaAndUTF16() throws {
        let text =
            "<rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\"><rdf:Description rdf:about=\"\" xmlns:xmp=\"http://ns.adobe.com/xap/1.0/\" xmp:Rating=\"5\"/></rdf:RDF>"
        XCTAssertEqual(try read(Data(text.utf8)).rating, 5)
        XCTAssertEqual(try read(Data(("<?xml version=\"1.0\"?>\n" + text).utf8)).rating, 5)
        var utf16 = Data([0xFE, 0xFF])
        utf16.append(("<x:xmpmeta xmlns:x=\"adobe:ns:meta/\">" + text + "</x:xmpmeta>").data(using: .utf16BigEndian)!)
        XCTAssertEqual(try read(utf16).rating, 5)
    }

    /// A property given twice (as Capture One writes photoshop:LegacyIPTCDigest) makes the
    /// toolkit refuse the whole packet; it is read again with the first of each kept.
    func testDuplicatePropertiesKeepTheFirst() throws {
        let data = Data(
            """
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
             <rdf:Description xmlns:photoshop="http://ns.adobe.com/photoshop/1.0/">
              <photoshop:LegacyIPTCDigest>2C16</photoshop:LegacyIPTCDigest>
              <photoshop:DateCreated>2015-07-21T16:17:44</photoshop:DateCreated>
              <photoshop:LegacyIPTCDigest>2C16</photoshop:LegacyIPTCDigest>
             </rdf:Description>
             <rdf:Description xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmp:Rating="2"/>
             <rdf:Description xmlns:xap="http://ns.adobe.com/xap/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/">
              <xap:Rating>5</xap:Rating><dc:subject><rdf:Bag><rdf:li>Dup</rdf:li></rdf:Bag></dc:subject>
             </rdf:Description>
            </rdf:RDF></x:xmpmeta>
            """.utf8)
        let s = try read(data)
        XCTAssertEqual(s.rating, 2, "the first xmp:Rating (an attribute) wins")
        XCTAssertEqual(s.subjects, ["Dup"])
        XCTAssertEqual(s.captureTime?.iso, "2015-07-21T16:17:44")
        // The EXIF form of a date copied into XMP as it was.
        let exifForm = packet(
            "xmlns:exif=\"http://ns.adobe.com/exif/1.0/\"",
            "<exif:DateTimeOriginal>2015:07:21 16:17:44</exif:DateTimeOriginal>")
        XCTAssertEqual(try read(exifForm).captureTime?.iso, "2015-07-21T16:17:44")
        // Blocks about different resources (rdf:about): read as one.
        let abouts = Data(
            """
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\
            <rdf:Description rdf:about="uuid:1" xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmp:Rating="3"/>\
            <rdf:Description rdf:about="uuid:2" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:subject><rdf:Bag><rdf:li>About</rdf:li></rdf:Bag></dc:subject></rdf:Description>\
            </rdf:RDF></x:xmpmeta>
            """.utf8)
        XCTAssertEqual(try read(abouts), XMPSidecar(subjects: ["About"], rating: 3))
        // A property given twice in another namespace still costs nothing else.
        let other = packet(
            "xmlns:xmp=\"http://ns.adobe.com/xap/1.0/\" xmlns:o=\"urn:other\"",
            "<o:thing>1</o:thing><o:thing>2</o:thing>", attributes: "xmp:Rating=\"5\"")
        XCTAssertEqual(try read(other).rating, 5)
    }

    func testRatingValues() throws {
        func rating(_ v: String) throws -> (Int?, Bool) {
            let s = try read(
                packet("xmlns:xmp=\"http://ns.adobe.com/xap/1.0/\"", "", attributes: "xmp:Rating=\"\(v)\""))
            return (s.rating, s.hasRating)
        }
        XCTAssertEqual(try rating("5").0, 5)
        XCTAssertEqual(try rating("2.5").0, 3, "rounded half up")
        XCTAssertEqual(try rating("0").0, nil, "0 = unrated")
        XCTAssertEqual(try rating("0").1, true)
        XCTAssertEqual(try rating("-1").0, nil, "-1 = rejected: not imported as a rating")
        XCTAssertEqual(try rating("6").0, nil)
        XCTAssertEqual(try rating("many").0, nil)
    }

    func testMalformedAndTruncatedPacketsAreRefusedNamingTheFile() {
        for bad in [
            "<x:xmpmeta", "", "<rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\"><rdf:Description>",
            "not xml at all <"
        ] {
            XCTAssertThrowsError(try XMPSidecar.parse(Data(bad.utf8), path: "broken.xmp"), bad) { error in
                guard case .malformedPacket(let path, _)? = error as? SidecarError else {
                    return XCTFail("\(bad): \(error)")
                }
                XCTAssertEqual(path, "broken.xmp", bad)
                XCTAssertTrue("\(error)".hasPrefix("broken.xmp: "), "\(error)")
            }
        }
    }

    func testOversizedSidecarIsRefusedBeforeReading() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let image = dir.file("big.jpg")
        XCTAssertTrue(FileManager.default.createFile(atPath: image, contents: Data([0xFF, 0xD8])))
        let sidecar = dir.file("big.jpg.xmp")
        XCTAssertTrue(FileManager.default.createFile(atPath: sidecar, contents: nil))
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: sidecar))
        try handle.truncate(atOffset: UInt64(XMPSidecar.maxBytes + 1)) // sparse: nothing to read anyway
        try handle.close()
        XCTAssertThrowsError(try XMPSidecar.load(for: image)) { error in
            XCTAssertEqual(
                error as? SidecarError,
                .fileTooLarge(path: sidecar, bytes: XMPSidecar.maxBytes + 1, maximum: XMPSidecar.maxBytes))
            XCTAssertTrue("\(error)".contains(sidecar), "\(error)")
            XCTAssertTrue("\(error)".contains("larger than the 4 MiB"), "\(error)")
        }
    }

    func testParallelParsingGivesTheSameResult() throws {
        let data = packet(
            "xmlns:xap=\"http://ns.adobe.com/xap/1.0/\" xmlns:dc=\"http://purl.org/dc/elements/1.1/\"",
            "<dc:subject><rdf:Bag><rdf:li>P</rdf:li><rdf:li>Q</rdf:li></rdf:Bag></dc:subject>",
            attributes: "xap:Rating=\"2\"")
        // Every other one repeats a property, so the XML rewrite runs in parallel too.
        let repeated = packet(
            "xmlns:xap=\"http://ns.adobe.com/xap/1.0/\" xmlns:dc=\"http://purl.org/dc/elements/1.1/\"",
            "<dc:subject><rdf:Bag><rdf:li>P</rdf:li><rdf:li>Q</rdf:li></rdf:Bag></dc:subject><xap:Rating>2</xap:Rating><xap:Rating>2</xap:Rating>"
        )
        let results = Array(repeating: XMPSidecar?.none, count: 64)
        let box = Box(results)
        DispatchQueue.concurrentPerform(iterations: 64) { i in
            let s = try? XMPSidecar.parse(i % 2 == 0 ? data : repeated, path: "p.xmp")
            box.set(i, s)
        }
        XCTAssertEqual(
            Set(box.values.map { $0.map { "\($0.subjects)|\(String(describing: $0.rating))" } ?? "nil" }),
            ["[\"P\", \"Q\"]|Optional(2)"])
    }

    func testMergingSidecarAndEmbedded() {
        let sidecar = XMPSidecar(subjects: ["A"], rating: 2)
        let embedded = XMPSidecar(subjects: ["B", "A"], rating: 5)
        XCTAssertEqual(
            XMPSidecar.merged(sidecar: sidecar, embedded: embedded, iptcKeywords: ["C", "B"]),
            XMPSidecar(subjects: ["A", "B", "C"], rating: 2))
        // A sidecar saying 0 (unrated) overrides the embedded rating.
        let unrated = XMPSidecar(subjects: [], rating: nil, hasRating: true)
        XCTAssertNil(XMPSidecar.merged(sidecar: unrated, embedded: embedded, iptcKeywords: [])?.rating)
        XCTAssertEqual(XMPSidecar.merged(sidecar: nil, embedded: embedded, iptcKeywords: [])?.rating, 5)
        XCTAssertNil(XMPSidecar.merged(sidecar: nil, embedded: nil, iptcKeywords: []))
    }
}

private final class Box: Sendable {
    private let items: Mutex<[XMPSidecar?]>
    init(_ items: [XMPSidecar?]) { self.items = Mutex(items) }
    func set(_ i: Int, _ v: XMPSidecar?) { items.withLock { $0[i] = v } }
    var values: [XMPSidecar?] { items.withLock { $0 } }
}
