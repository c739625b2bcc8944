import Foundation
import XCTest
import PhotosTestSupport

/// `photos:uniqueName` is a UUID, and a UUID's hexadecimal digits are case-insensitive (RFC
/// 9562 §4): a sidecar naming another photo's uniqueName in lower case is that photo's
/// identity, so a new photo does not take it (before, it did: two photos `EBBE…` and `ebbe…`,
/// and every prefix of them ambiguous); a free one is restored in the library's upper case.
final class SidecarUniqueNameCaseTests: BinaryTestCase {
    override var label: String { "photos-uniquename-case" }

    func sidecar(_ uniqueName: String, to path: String) {
        let text = """
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
            <rdf:Description rdf:about="" xmlns:photos="https://photos.invalid/ns/1.0/"
             photos:uniqueName="\(uniqueName)"/></rdf:RDF></x:xmpmeta>
            """
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(text.utf8)))
    }

    func uniqueNames(_ library: String) throws -> [String: String] {
        let list = try run(["--library", library, "list", "--json"])
        XCTAssertEqual(list.status, 0, list.stderr)
        var result: [String: String] = [:]
        for line in list.stdout.split(separator: "\n") {
            let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            result[try XCTUnwrap(object["displayName"] as? String)] = try XCTUnwrap(object["uniqueName"] as? String)
        }
        return result
    }

    func testAnotherPhotosUniqueNameInLowerCaseIsNotTaken() throws {
        let first = dir + "/first", second = dir + "/second", lib = dir + "/lib"
        for folder in [first, second] {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }
        let taken = "EBBE7434-1A57-4A2C-B348-233B80280B96"
        try FileManager.default.copyItem(atPath: samplesDir + "/storm.jpg", toPath: first + "/a.jpg")
        sidecar(taken, to: first + "/a.jpg.xmp")
        XCTAssertEqual(try run(["--library", lib, "import", first, "-q"]).status, 0)
        XCTAssertEqual(try uniqueNames(lib)["a.jpg"], taken)

        try FileManager.default.copyItem(atPath: samplesDir + "/path.jpg", toPath: second + "/b.jpg")
        sidecar(" " + taken.lowercased() + " ", to: second + "/b.jpg.xmp")
        XCTAssertEqual(try run(["--library", lib, "import", second, "-q"]).status, 0)
        let names = try uniqueNames(lib)
        let b = try XCTUnwrap(names["b.jpg"])
        XCTAssertNotEqual(b.uppercased(), taken, "b.jpg must not take a.jpg's identity in another case")
        XCTAssertEqual(b, b.uppercased())
        let shown = try run(["--library", lib, "show", "ebbe7434"])
        XCTAssertEqual(shown.status, 0, "the prefix names one photo: \(shown.stderr)")
        XCTAssertTrue(shown.stdout.contains("a.jpg"), shown.stdout)
    }

    func testAFreeUniqueNameInLowerCaseIsRestoredInUpperCase() throws {
        let input = dir + "/in", lib = dir + "/lib"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: samplesDir + "/storm.jpg", toPath: input + "/a.jpg")
        sidecar("0a1b2c3d-4e5f-4071-8293-a4b5c6d7e8f9", to: input + "/a.jpg.xmp")
        XCTAssertEqual(try run(["--library", lib, "import", input, "-q"]).status, 0)
        XCTAssertEqual(try uniqueNames(lib)["a.jpg"], "0A1B2C3D-4E5F-4071-8293-A4B5C6D7E8F9")
    }
}
