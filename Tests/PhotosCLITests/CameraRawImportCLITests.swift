import Foundation
import XCTest
import PhotosTestSupport

/// Issue 24 item 1 through the binary: RAW files import as `raw` photos (`list --format raw`), a
/// damaged RAW fails alone with its reason and exit 1 while the rest is imported, and a RAW's
/// sidecar in either naming form is read.
final class CameraRawImportCLITests: BinaryTestCase {
    func testRawImportHostileFilesFailAloneAndListByFormat() throws {
        let corpus = try requireCorpus()
        let dir = self.dir
        try FileManager.default.createDirectory(atPath: dir + "/in", withIntermediateDirectories: true)
        func copy(_ source: String, as name: String) throws {
            try FileManager.default.copyItem(atPath: source, toPath: dir + "/" + name)
        }
        func write(_ name: String, _ bytes: [UInt8]) throws {
            try Data(bytes).write(to: URL(fileURLWithPath: dir + "/" + name))
        }
        let raw = corpus + "/camera-formats/raw/"
        try copy(raw + "exiftool_FujiFilm.raf", as: "in/a.raf")
        try copy(raw + "exiftool_Panasonic.rw2", as: "in/b.rw2")
        try copy(samplesDir + "/ladybird.jpg", as: "in/c.jpg")
        let dng = try XCTUnwrap(FileManager.default.contents(atPath: raw + "exiftool_DNG.dng"))
        // Truncated in its IFD0: still a DNG by its first bytes, not one LibRaw or our reader can use.
        try write("in/d-truncated.dng", Array(dng.prefix(200)))
        // A name that claims RAW over bytes that are not one.
        try write("in/e-text.nef", Array("not a raw file at all, just text".utf8))
        // darktable's sidecar naming (NAME.EXT.xmp) for the RAF, Lightroom's (NAME.xmp) for the RW2.
        let xmp = { (tag: String) in
            """
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
            <rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:subject><rdf:Bag>
            <rdf:li>\(tag)</rdf:li></rdf:Bag></dc:subject></rdf:Description></rdf:RDF></x:xmpmeta>
            """
        }
        try write("in/a.raf.xmp", Array(xmp("fuji").utf8))
        try write("in/b.xmp", Array(xmp("lumix").utf8))
        let run = try self.run(["--library", "\(dir)/lib", "import", "\(dir)/in"])
        XCTAssertEqual(run.status, 1, run.stderr)
        XCTAssertTrue(run.stderr.contains("\(dir)/in/d-truncated.dng: error: "), run.stderr)
        XCTAssertTrue(run.stderr.contains("\(dir)/in/e-text.nef: error: not a JPEG"), run.stderr)
        XCTAssertTrue(run.stdout.contains("Imported 3 photos") || run.stderr.contains("Imported 3 photos"), run.stdout)
        let list = try self.run(["--library", "\(dir)/lib", "list", "--format", "raw", "--json"])
        XCTAssertEqual(list.status, 0, list.stderr)
        let whole = try? JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]]
        let rows =
            whole
            ?? list.stdout.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
        let byName = Dictionary(
            uniqueKeysWithValues: rows.compactMap { row in
                (row["displayName"] as? String).map { ($0, row) }
            })
        XCTAssertEqual(Set(byName.keys), ["a.raf", "b.rw2"])
        XCTAssertEqual(byName["a.raf"]?["width"] as? Int, 3584)
        XCTAssertEqual(byName["a.raf"]?["height"] as? Int, 3583)
        XCTAssertEqual(byName["a.raf"]?["captureDate"] as? String, "2007-05-22T13:58:30")
        XCTAssertEqual(byName["a.raf"]?["tags"] as? [String], ["fuji"])
        XCTAssertEqual(byName["b.rw2"]?["width"] as? Int, 3664)
        XCTAssertEqual(byName["b.rw2"]?["captureDate"] as? String, "2008-08-06T15:21:56")
        XCTAssertEqual(byName["b.rw2"]?["tags"] as? [String], ["lumix"])
    }
}
