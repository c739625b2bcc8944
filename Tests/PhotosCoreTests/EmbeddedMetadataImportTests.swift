import Foundation
import XCTest
import PhotosTestSupport
import PhotosImaging
@testable import PhotosCore

/// Issue 9 item 5: keywords and rating embedded in the image (XMP in JPEG APP1 and PNG iTXt,
/// IPTC Keywords in JPEG APP13) are imported as tags and rating, merged with the sidecar's.
final class EmbeddedMetadataImportTests: XCTestCase {
    var tmp: TempDir!
    override func setUpWithError() throws { tmp = try TempDir() }
    override func tearDown() { tmp.cleanup() }

    /// Imports `files` (name → bytes; a `.xmp` name is a sidecar) and returns each photo's
    /// (tags, ratings) rows, by displayName.
    func importRows(_ files: [String: [UInt8]]) throws -> [String: (tags: [String], ratings: [Int])] {
        for (name, bytes) in files { _ = try tmp.write("in/" + name, bytes) }
        let library = try Library(root: tmp.file("lib"), create: true)
        var options = ImportOptions(paths: [tmp.file("in")])
        options.jobs = 2
        let summary = try Importer(library: library, libraryRoot: tmp.file("lib"), options: options).run()
        XCTAssertEqual(summary.failed, 0, "\(summary.failures)")
        var rows: [String: (tags: [String], ratings: [Int])] = [:]
        for (id, name) in try library.catalog.statement("SELECT id, display_name FROM photo").map({
            ($0.int64(0), $0.string(1))
        }) {
            let tags = try library.catalog.statement(
                "SELECT t.name FROM photo_tag pt JOIN tag t ON t.id = pt.tag_id WHERE pt.photo_id = ? ORDER BY t.name"
            ).map([id]) { $0.string(0) }
            let ratings = try library.catalog.statement("SELECT value FROM rating WHERE photo_id = ? ORDER BY id").map([
                id
            ]) { $0.int(0) }
            rows[name] = (tags, ratings)
        }
        return rows
    }

    func testJPEGWithEmbeddedXMPSubjectsAndRating() throws {
        let jpeg = try MetadataFixture.jpeg(segments: [
            MetadataFixture.xmpSegment(MetadataFixture.packet(subjects: ["Alpha", "Beta &amp; Co"], rating: "4"))
        ])
        let rows = try importRows(["a.jpg": jpeg])
        XCTAssertEqual(rows["a.jpg"]?.tags, ["Alpha", "Beta & Co"])
        XCTAssertEqual(rows["a.jpg"]?.ratings, [4])
    }

    func testPNGWithITXtXMP() throws {
        let png = MetadataFixture.png(xmp: MetadataFixture.packet(subjects: ["Kite"], rating: "3"))
        let late = MetadataFixture.png(
            xmp: MetadataFixture.packet(subjects: ["Late"], rating: "2"), seed: 1, afterIDAT: true)
        let text = MetadataFixture.png(
            xmp: MetadataFixture.packet(subjects: ["Text"], rating: "1"), seed: 2, chunkType: "tEXt")
        let rows = try importRows(["k.png": png, "late.png": late, "text.png": text])
        XCTAssertEqual(rows["k.png"]?.tags, ["Kite"])
        XCTAssertEqual(rows["k.png"]?.ratings, [3])
        XCTAssertEqual(rows["late.png"]?.tags, ["Late"], "an iTXt after IDAT counts too")
        XCTAssertEqual(rows["late.png"]?.ratings, [2])
        XCTAssertEqual(rows["text.png"]?.tags, ["Text"], "older writers' tEXt XML:com.adobe.xmp")
        XCTAssertEqual(rows["text.png"]?.ratings, [1])
    }

    func testJPEGWithIPTCKeywords() throws {
        let utf8 = try MetadataFixture.jpeg(seed: 1, segments: [MetadataFixture.iptcSegment(["Sea", "Café"])])
        // Without 1:90, bytes that are not UTF-8 are ISO 8859-1 (0xE9 = é).
        let latin1 = try MetadataFixture.jpeg(
            seed: 2, segments: [MetadataFixture.iptcSegment([], utf8: false, raw: [[0x4E, 0x69, 0xE9, 0x63, 0x65]])])
        let rows = try importRows(["u.jpg": utf8, "l.jpg": latin1])
        XCTAssertEqual(rows["u.jpg"]?.tags, ["Café", "Sea"])
        XCTAssertEqual(rows["u.jpg"]?.ratings, [])
        XCTAssertEqual(rows["l.jpg"]?.tags, ["Niéce"])
    }

    /// Keywords are unioned (sidecar, embedded XMP, IPTC); the sidecar's rating wins, a
    /// sidecar Rating of 0 included; an embedded −1 (rejected) is no rating.
    func testSidecarAndEmbeddedMerge() throws {
        let both = try MetadataFixture.jpeg(
            seed: 3,
            segments: [
                MetadataFixture.xmpSegment(MetadataFixture.packet(subjects: ["Embedded", "Shared"], rating: "5")),
                MetadataFixture.iptcSegment(["Iptc", "Shared"])
            ])
        let zeroSidecar = try MetadataFixture.jpeg(
            seed: 4, segments: [MetadataFixture.xmpSegment(MetadataFixture.packet(rating: "5"))])
        let rejected = try MetadataFixture.jpeg(
            seed: 5, segments: [MetadataFixture.xmpSegment(MetadataFixture.packet(subjects: ["R"], rating: "-1"))])
        let rows = try importRows([
            "b.jpg": both, "b.jpg.xmp": Array(MetadataFixture.packet(subjects: ["Side", "Shared"], rating: "2").utf8),
            "z.jpg": zeroSidecar, "z.xmp": Array(MetadataFixture.packet(rating: "0").utf8),
            "r.jpg": rejected
        ])
        XCTAssertEqual(rows["b.jpg"]?.tags, ["Embedded", "Iptc", "Shared", "Side"])
        XCTAssertEqual(rows["b.jpg"]?.ratings, [2], "the sidecar's rating wins over the embedded one")
        XCTAssertEqual(rows["z.jpg"]?.ratings, [], "a sidecar saying 0 (unrated) wins too")
        XCTAssertEqual(rows["r.jpg"]?.ratings, [], "-1 (rejected) is not imported as a rating")
        XCTAssertEqual(rows["r.jpg"]?.tags, ["R"])
    }

    /// Malformed or lying metadata never stops an import nor reads outside the file.
    func testDamagedMetadataIsIgnoredNotTrusted() throws {
        // APP13 whose 8BIM size and IIM length claim more than is there.
        var lying = MetadataFixture.iptcSegment(["Whole"])
        lying[lying.count - 5 - 2] = 0x7F // the keyword's IIM length high byte
        let iptc = try MetadataFixture.jpeg(seed: 6, segments: [lying])
        let badXMP = try MetadataFixture.jpeg(seed: 7, segments: [MetadataFixture.xmpSegment("<x:xmpmeta><unclosed")])
        // PNG iTXt whose length field claims 2 GB.
        var png = MetadataFixture.png(xmp: MetadataFixture.packet(subjects: ["Never"]), seed: 8)
        let itxt = 8 + 25
        png[itxt] = 0x7F; png[itxt + 1] = 0xFF; png[itxt + 2] = 0xFF; png[itxt + 3] = 0xFF
        XCTAssertNil(png.withUnsafeBytes { EmbeddedMetadata.read(png: $0, exif: ExifMetadata()) }.xmp)
        let rows = try importRows(["i.jpg": iptc, "x.jpg": badXMP])
        XCTAssertEqual(rows["i.jpg"]?.tags, [])
        XCTAssertEqual(rows["x.jpg"]?.tags, [])
    }

    /// Export writes the XMP sidecar; importing the export reproduces tags, rating and date.
    func testExportImportRoundTrip() throws {
        let jpeg = try MetadataFixture.jpeg(
            seed: 9,
            segments: [
                MetadataFixture.exifSegment(exif: [0x9003: "2024:12:31 23:30:00", 0x9011: "-05:00"]),
                MetadataFixture.xmpSegment(MetadataFixture.packet(subjects: ["Round"], rating: "4"))
            ])
        _ = try tmp.write("in/t.jpg", jpeg)
        let library = try Library(root: tmp.file("lib"), create: true)
        _ = try Importer(
            library: library, libraryRoot: tmp.file("lib"), options: ImportOptions(paths: [tmp.file("in")])
        ).run()
        _ = try Exporter(library: library, options: ExportOptions(destination: tmp.file("out"))).run()
        let sidecar = try XCTUnwrap(String(contentsOfFile: tmp.file("out/t.jpg.xmp"), encoding: .utf8))
        XCTAssertTrue(sidecar.contains("photoshop:DateCreated=\"2024-12-31T23:30:00-05:00\""), sidecar)
        let other = try Library(root: tmp.file("lib2"), create: true)
        _ = try Importer(
            library: other, libraryRoot: tmp.file("lib2"), options: ImportOptions(paths: [tmp.file("out")])
        ).run()
        var photos: [PhotoRecord] = []
        try other.forEachPhoto(matching: PhotoFilter()) { photos.append($0) }
        XCTAssertEqual(photos.map(\.tags), [["Round"]])
        XCTAssertEqual(photos.map(\.ratings), [[4]])
        XCTAssertEqual(photos.map(\.captureDate), ["2024-12-31T23:30:00-05:00"])
    }
}
