import Foundation
import XCTest
import PhotosTestSupport

/// Metadata both ways through the binary: import → tag (hierarchical too) and rate → export
/// with XMP sidecars → import into a new library keeps the uniqueNames, tags, rating and the
/// capture time with its offset.
final class MetadataRoundTripCLITests: BinaryTestCase {
    override var label: String { "photos-meta-roundtrip" }

    /// `list --json` of `library`, by uniqueName.
    func photos(_ library: String) throws -> [String: [String: Any]] {
        let list = try run(["--library", library, "list", "--json"])
        XCTAssertEqual(list.status, 0, list.stderr)
        var result: [String: [String: Any]] = [:]
        for line in list.stdout.split(separator: "\n") {
            let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            result[try XCTUnwrap(object["uniqueName"] as? String)] = object
        }
        return result
    }

    func write(_ text: String, to path: String) {
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(text.utf8)))
    }

    func testExportThenImportIntoANewLibraryKeepsIdentityTagsRatingAndCaptureTime() throws {
        let input = dir + "/in", lib = dir + "/lib", out = dir + "/out", lib2 = dir + "/lib2"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        for name in ["kite.png", "storm.jpg"] {
            try FileManager.default.copyItem(atPath: samplesDir + "/" + name, toPath: input + "/" + name)
        }
        // kite.png has no EXIF: its capture time (with a +09:30 offset and milliseconds) comes
        // from this sidecar.
        write(
            """
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
            <rdf:Description rdf:about="" xmlns:photoshop="http://ns.adobe.com/photoshop/1.0/"
             photoshop:DateCreated="2021-03-04T05:06:07.250+09:30"/></rdf:RDF></x:xmpmeta>
            """, to: input + "/kite.png.xmp")
        XCTAssertEqual(try run(["--library", lib, "import", input, "-q"]).status, 0)
        let before = try photos(lib)
        let kite = try XCTUnwrap(before.first { $0.value["displayName"] as? String == "kite.png" }?.key)
        let storm = try XCTUnwrap(before.first { $0.value["displayName"] as? String == "storm.jpg" }?.key)
        for tag in ["Places/France/Paris", "Paris", "beach"] {
            XCTAssertEqual(try run(["--library", lib, "tag", "add", tag, kite, "-q"]).status, 0)
        }
        XCTAssertEqual(try run(["--library", lib, "tag", "add", "People/Anna", storm, "-q"]).status, 0)
        XCTAssertEqual(try run(["--library", lib, "rate", kite, "4", "-q"]).status, 0)
        XCTAssertEqual(try run(["--library", lib, "rate", kite, "5", "-q"]).status, 0)
        XCTAssertEqual(try run(["--library", lib, "rate", storm, "2", "-q"]).status, 0)
        XCTAssertEqual(try run(["--library", lib, "export", out, "--sidecar", "xmp", "-q"]).status, 0)
        let sidecar = try String(contentsOfFile: out + "/kite.png.xmp", encoding: .utf8)
        XCTAssertTrue(sidecar.contains("exif:DateTimeOriginal=\"2021-03-04T05:06:07.250+09:30\""), sidecar)
        XCTAssertTrue(sidecar.contains("<rdf:li>Places|France|Paris</rdf:li>"), sidecar)
        XCTAssertTrue(sidecar.contains("photos:uniqueName=\"\(kite)\""), sidecar)

        let imported = try run(["--library", lib2, "import", out, "--json"])
        XCTAssertEqual(imported.status, 0, imported.stderr)
        XCTAssertTrue(imported.stdout.contains("\"imported\":2"), imported.stdout)
        let after = try photos(lib2)
        XCTAssertEqual(Set(after.keys), [kite, storm], "same uniqueNames")
        let k = try XCTUnwrap(after[kite]), s = try XCTUnwrap(after[storm])
        XCTAssertEqual(Set(try XCTUnwrap(k["tags"] as? [String])), ["Places/France/Paris", "Paris", "beach"])
        XCTAssertEqual(RatingsJSON.values(k), [5], "the displayed rating: mean 4.5 rounded half up")
        XCTAssertEqual(k["captureDate"] as? String, "2021-03-04T05:06:07.250+09:30")
        XCTAssertEqual(k["captureOffset"] as? Int, 570)
        XCTAssertEqual(s["tags"] as? [String], ["People/Anna"])
        XCTAssertEqual(RatingsJSON.values(s), [2])
        XCTAssertEqual(s["captureDate"] as? String, "2008-04-20T19:12:06", "EXIF time without offset stays so")
    }

    /// A uniqueName already taken in the target library is not reused: the photo gets a new one.
    func testTakenUniqueNameIsNotReused() throws {
        let out = dir + "/out", lib = dir + "/lib"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let taken = "0A1B2C3D-4E5F-4071-8293-A4B5C6D7E8F9"
        let jpeg = try XCTUnwrap(FileManager.default.contents(atPath: samplesDir + "/storm.jpg"))
        XCTAssertTrue(FileManager.default.createFile(atPath: out + "/a.jpg", contents: jpeg))
        // Different bytes (a byte after EOI), the same uniqueName in its sidecar.
        XCTAssertTrue(FileManager.default.createFile(atPath: out + "/b.jpg", contents: jpeg + Data([0])))
        for name in ["a.jpg", "b.jpg"] {
            write(
                """
                <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
                <rdf:Description rdf:about="" xmlns:photos="https://photos.invalid/ns/1.0/"
                 photos:uniqueName="\(taken)"/></rdf:RDF></x:xmpmeta>
                """, to: out + "/\(name).xmp")
        }
        XCTAssertEqual(try run(["--library", lib, "import", out, "-q", "--jobs", "1"]).status, 0)
        let all = try photos(lib)
        XCTAssertEqual(all.count, 2)
        XCTAssertNotNil(all[taken], "the first takes the free uniqueName")
        let other = try XCTUnwrap(all.keys.first { $0 != taken })
        XCTAssertNotNil(UUID(uuidString: other), "the second a fresh UUID: \(other)")
    }
}

/// The JSON sidecar (`export --sidecar json`) keeps identity as well.
final class MetadataRoundTripJSONCLITests: BinaryTestCase {
    override var label: String { "photos-meta-roundtrip-json" }

    func testJSONSidecarRestoresTheUniqueName() throws {
        let input = dir + "/in", lib = dir + "/lib", out = dir + "/out", lib2 = dir + "/lib2"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: samplesDir + "/storm.jpg", toPath: input + "/storm.jpg")
        XCTAssertEqual(try run(["--library", lib, "import", input, "-q"]).status, 0)
        let listed = try run(["--library", lib, "list", "--json"]).stdout
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(listed.utf8)) as? [String: Any])
        let name = try XCTUnwrap(object["uniqueName"] as? String)
        XCTAssertEqual(try run(["--library", lib, "tag", "add", "A/B", name, "-q"]).status, 0)
        XCTAssertEqual(try run(["--library", lib, "export", out, "--sidecar", "json", "-q"]).status, 0)
        XCTAssertEqual(try run(["--library", lib2, "import", out, "-q"]).status, 0)
        let again = try run(["--library", lib2, "list", "--json"]).stdout
        let back = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(again.utf8)) as? [String: Any])
        XCTAssertEqual(back["uniqueName"] as? String, name)
        XCTAssertEqual(back["tags"] as? [String], ["A/B"])
    }
}
