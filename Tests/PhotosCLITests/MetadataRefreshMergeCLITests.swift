import Foundation
import XCTest
import PhotosTestSupport

/// Issue 31 item 4: `import --refresh-metadata` applies only what changed in the file since it
/// was last read (at import or the last refresh), says each change, and never removes what the
/// library added (a tag, another author's rating).
final class MetadataRefreshMergeCLITests: BinaryTestCase {
    override var label: String { "photos-meta-merge" }

    func sidecar(rating: Int?, subjects: [String], date: String? = nil) -> String {
        let attributes =
            (rating.map { " xmp:Rating=\"\($0)\"" } ?? "") + (date.map { " photoshop:DateCreated=\"\($0)\"" } ?? "")
        let bag = subjects.map { "<rdf:li>\($0)</rdf:li>" }.joined()
        return """
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
            <rdf:Description rdf:about="" xmlns:photoshop="http://ns.adobe.com/photoshop/1.0/"
             xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/"\(attributes)>
            <dc:subject><rdf:Bag>\(bag)</rdf:Bag></dc:subject></rdf:Description></rdf:RDF></x:xmpmeta>
            """
    }

    func write(_ text: String, to path: String) {
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(text.utf8)))
    }

    func photo(_ lib: String) throws -> [String: Any] {
        let list = try run(["--library", lib, "list", "--json"])
        let lines = list.stdout.split(separator: "\n")
        XCTAssertEqual(lines.count, 1, list.stdout)
        return try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(try XCTUnwrap(lines.first).utf8)) as? [String: Any])
    }

    /// The issue's example: a library tag and Ann's rating survive a refresh of an edited
    /// sidecar (Insect → Bug), which adds Bug and removes Insect, and says so (text, --json,
    /// --dry-run).
    func testRefreshKeepsWhatTheLibraryAddedAndSaysEachChange() throws {
        let input = dir + "/in", lib = dir + "/lib"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: samplesDir + "/kite.png", toPath: input + "/kite.png")
        write(sidecar(rating: 4, subjects: ["Insect", "Nature"]), to: input + "/kite.png.xmp")
        XCTAssertEqual(try run(["--library", lib, "import", input, "-q"]).status, 0)
        let name = try XCTUnwrap(try photo(lib)["uniqueName"] as? String)
        XCTAssertEqual(try run(["--library", lib, "tag", "add", "Best of 2024", name, "-q"]).status, 0)
        XCTAssertEqual(try run(["--library", lib, "--author", "ann", "rate", name, "2", "-q"]).status, 0)
        XCTAssertEqual(RatingsJSON.values(try photo(lib)), [4, 2])

        write(sidecar(rating: 4, subjects: ["Bug", "Nature"]), to: input + "/kite.png.xmp")
        let dry = try run(["--library", lib, "import", "--refresh-metadata", "--dry-run", input])
        XCTAssertEqual(dry.status, 0, dry.stderr)
        XCTAssertTrue(
            dry.stdout.contains(input + "/kite.png (\(name)): would change +tag Bug, \u{2212}tag Insect"), dry.stdout)
        XCTAssertEqual(Set(try XCTUnwrap(try photo(lib)["tags"] as? [String])), ["Best of 2024", "Insect", "Nature"])

        let text = try run(["--library", lib, "import", "--refresh-metadata", input])
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertTrue(text.stdout.contains(input + "/kite.png (\(name)): +tag Bug, \u{2212}tag Insect"), text.stdout)
        var kite = try photo(lib)
        XCTAssertEqual(Set(try XCTUnwrap(kite["tags"] as? [String])), ["Best of 2024", "Bug", "Nature"])
        XCTAssertEqual(RatingsJSON.values(kite), [4, 2], "Ann's rating stays")

        // The file's rating changes: the file's own (anonymous) rating follows, Ann's stays.
        write(sidecar(rating: 5, subjects: ["Bug", "Nature"]), to: input + "/kite.png.xmp")
        let rated = try json(try run(["--library", lib, "import", "--refresh-metadata", input, "--json"]).stdout)
        XCTAssertEqual(rated["refreshed"] as? Int, 1)
        let changes = try XCTUnwrap(rated["metadataChanges"] as? [[String: Any]])
        XCTAssertEqual(changes.count, 1)
        XCTAssertEqual(changes.first?["changes"] as? [String], ["rating 4\u{2192}5"])
        XCTAssertEqual(changes.first?["uniqueName"] as? String, name)
        kite = try photo(lib)
        XCTAssertEqual(RatingsJSON.values(kite), [5, 2])

        // A sidecar left behind says nothing: nothing changes.
        try FileManager.default.removeItem(atPath: input + "/kite.png.xmp")
        let gone = try json(try run(["--library", lib, "import", "--refresh-metadata", input, "--json"]).stdout)
        XCTAssertEqual(gone["refreshed"] as? Int, 0)
        XCTAssertEqual(Set(try XCTUnwrap(try photo(lib)["tags"] as? [String])), ["Best of 2024", "Bug", "Nature"])
        XCTAssertEqual(RatingsJSON.values(try photo(lib)), [5, 2])

        // The file clears its rating (xmp:Rating 0) and every keyword (an empty dc:subject): the
        // file's go, the library's stay.
        write(sidecar(rating: 0, subjects: []), to: input + "/kite.png.xmp")
        let dropped = try json(try run(["--library", lib, "import", "--refresh-metadata", input, "--json"]).stdout)
        let dropChanges = try XCTUnwrap((dropped["metadataChanges"] as? [[String: Any]])?.first)
        XCTAssertEqual(Set(try XCTUnwrap(dropChanges["tagsRemoved"] as? [String])), ["Bug", "Nature"])
        kite = try photo(lib)
        XCTAssertEqual(kite["tags"] as? [String], ["Best of 2024"])
        XCTAssertEqual(RatingsJSON.values(kite), [2])

        // Nothing changed in the file since: nothing is applied, nothing listed.
        let again = try json(try run(["--library", lib, "import", "--refresh-metadata", input, "--json"]).stdout)
        XCTAssertEqual(again["refreshed"] as? Int, 0)
        XCTAssertEqual((again["metadataChanges"] as? [Any])?.count, 0)
    }

    /// A tag the library removed stays removed while the file does not change that keyword;
    /// a tag the library added with the name of a keyword the file then drops is the file's
    /// (it was there at import).
    func testTagsRemovedInTheLibraryAreNotBroughtBackByAnUnchangedFile() throws {
        let input = dir + "/in", lib = dir + "/lib"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: samplesDir + "/storm.jpg", toPath: input + "/storm.jpg")
        write(sidecar(rating: nil, subjects: ["Sky", "Rain"]), to: input + "/storm.jpg.xmp")
        XCTAssertEqual(try run(["--library", lib, "import", input, "-q"]).status, 0)
        let name = try XCTUnwrap(try photo(lib)["uniqueName"] as? String)
        XCTAssertEqual(try run(["--library", lib, "tag", "remove", "Rain", name, "-q"]).status, 0)
        write(sidecar(rating: nil, subjects: ["Sky", "Rain", "Wind"]), to: input + "/storm.jpg.xmp")
        let out = try json(try run(["--library", lib, "import", "--refresh-metadata", input, "--json"]).stdout)
        XCTAssertEqual(
            (out["metadataChanges"] as? [[String: Any]])?.first?["changes"] as? [String], ["+tag Wind"])
        XCTAssertEqual(Set(try XCTUnwrap(try photo(lib)["tags"] as? [String])), ["Sky", "Wind"])
    }

    /// A photo imported before the file's state was recorded (schema 7; its row deleted here to
    /// stand for one): a refresh only adds — the file's tags it lacks, its rating when the
    /// photo has no anonymous rating — and removes nothing; then the state is recorded.
    func testWithoutRecordedFileStateARefreshOnlyAdds() throws {
        let input = dir + "/in", lib = dir + "/lib"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: samplesDir + "/kite.png", toPath: input + "/kite.png")
        write(sidecar(rating: nil, subjects: ["Insect", "Nature"]), to: input + "/kite.png.xmp")
        XCTAssertEqual(try run(["--library", lib, "import", input, "-q"]).status, 0)
        let name = try XCTUnwrap(try photo(lib)["uniqueName"] as? String)
        XCTAssertEqual(try run(["--library", lib, "--author", "ann", "rate", name, "2", "-q"]).status, 0)
        do {
            let catalog = try TestCatalog(root: lib)
            XCTAssertEqual(
                try catalog.scalarInt("SELECT count(*) FROM photo_file_state WHERE file_tags IS NOT NULL"), 1)
            try catalog.run("DELETE FROM photo_file_state")
        }
        write(sidecar(rating: 3, subjects: ["Bug", "Nature"]), to: input + "/kite.png.xmp")
        let out = try json(try run(["--library", lib, "import", "--refresh-metadata", input, "--json"]).stdout)
        XCTAssertEqual(
            (out["metadataChanges"] as? [[String: Any]])?.first?["changes"] as? [String],
            ["+tag Bug", "rating none\u{2192}3"])
        var kite = try photo(lib)
        XCTAssertEqual(Set(try XCTUnwrap(kite["tags"] as? [String])), ["Insect", "Bug", "Nature"], "nothing removed")
        XCTAssertEqual(RatingsJSON.values(kite), [2, 3])
        let catalog = try TestCatalog(root: lib)
        XCTAssertEqual(
            try catalog.scalarString("SELECT file_tags FROM photo_file_state"), "Bug\nNature", "recorded now")
        XCTAssertEqual(try catalog.scalarInt("SELECT file_rating FROM photo_file_state"), 3)
        // From now on the file's changes apply both ways.
        write(sidecar(rating: 3, subjects: ["Nature"]), to: input + "/kite.png.xmp")
        XCTAssertEqual(try run(["--library", lib, "import", "--refresh-metadata", input, "-q"]).status, 0)
        kite = try photo(lib)
        XCTAssertEqual(Set(try XCTUnwrap(kite["tags"] as? [String])), ["Insect", "Nature"])
    }
}
