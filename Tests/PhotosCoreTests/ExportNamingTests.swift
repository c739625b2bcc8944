import Foundation
import XCTest
@testable import PhotosCore
import PhotosImaging

final class ExportNamingTests: XCTestCase {
    func photo(_ displayName: String, capture: String? = "2014-04-05T10:20:30Z", format: String = "jpeg") -> PhotoRecord
    {
        PhotoRecord(
            rowID: 1, uniqueName: "0A1B2C3D-0000-0000-0000-000000000001", displayName: displayName,
            sha256: String(repeating: "a", count: 64), byteSize: 1, fileReference: "aa/aa",
            format: ImageFormat(rawValue: format) ?? .jpeg,
            width: 1, height: 1, orientation: .up, captureDate: capture, importedAt: "2026-01-02T03:04:05Z",
            thumbnailWidth: 1, thumbnailHeight: 1, tags: [], ratings: [], zone: "default", scope: .private)
    }

    func testSanitizeKeepsEverythingInsideAndVisible() {
        XCTAssertEqual(ExportNaming.sanitize("IMG_0001.JPG"), "IMG_0001.JPG")
        XCTAssertEqual(ExportNaming.sanitize("../../etc/passwd"), "etc/passwd")
        XCTAssertEqual(ExportNaming.sanitize("/abs/olute.jpg"), "abs/olute.jpg")
        XCTAssertEqual(ExportNaming.sanitize("a/./b//../c.jpg"), "a/b/c.jpg")
        XCTAssertEqual(ExportNaming.sanitize("evil\nname\u{0}x\u{7F}.jpg"), "evil_name_x_.jpg")
        XCTAssertEqual(ExportNaming.sanitize(".photos-export.sqlite"), "_photos-export.sqlite")
        XCTAssertEqual(ExportNaming.sanitize("2024/.hidden.jpg"), "2024/_hidden.jpg")
        XCTAssertNil(ExportNaming.sanitize(""))
        XCTAssertNil(ExportNaming.sanitize("../.././/"))
        XCTAssertNil(ExportNaming.sanitize("  "))
        // NFC: e + combining acute becomes é (U+00E9).
        XCTAssertEqual(
            ExportNaming.sanitize("Cafe\u{301}.jpg")?.unicodeScalars.map(\.value),
            "Caf\u{E9}.jpg".unicodeScalars.map(\.value))
        let long = String(repeating: "é", count: 300) + ".jpeg"
        let short = ExportNaming.sanitize(long) ?? ""
        XCTAssertLessThanOrEqual(short.utf8.count, ExportNaming.maxComponentBytes)
        XCTAssertTrue(short.hasSuffix("é.jpeg"))
    }

    func testVariantsAndCompanions() {
        XCTAssertEqual(ExportNaming.variant("IMG_0001.JPG", 0), "IMG_0001.JPG")
        XCTAssertEqual(ExportNaming.variant("IMG_0001.JPG", 1), "IMG_0001 (1).JPG")
        XCTAssertEqual(ExportNaming.variant("2024/05/a.b.png", 12), "2024/05/a.b (12).png")
        XCTAssertEqual(ExportNaming.variant("noext", 2), "noext (2)")
        XCTAssertTrue(ExportNaming.isVariant("IMG_0001 (3).JPG", of: "IMG_0001.JPG"))
        XCTAssertTrue(ExportNaming.isVariant("IMG_0001.JPG", of: "IMG_0001.JPG"))
        XCTAssertFalse(ExportNaming.isVariant("IMG_0001 (x).JPG", of: "IMG_0001.JPG"))
        XCTAssertFalse(ExportNaming.isVariant("IMG_0001 (0).JPG", of: "IMG_0001.JPG"))
        XCTAssertFalse(ExportNaming.isVariant("IMG_0002.JPG", of: "IMG_0001.JPG"))
        let c = ExportNaming.companions(of: "a/IMG.JPG")
        XCTAssertEqual(c.xmp, "a/IMG.JPG.xmp")
        XCTAssertEqual(c.json, "a/IMG.JPG.json")
        XCTAssertEqual(c.thumbnail, "a/IMG.thumb.jpg")
    }

    func testTemplates() throws {
        let p = photo("IMG_0001.JPG")
        XCTAssertEqual(ExportNameTemplate.default.render(p), "IMG_0001.JPG")
        XCTAssertEqual(try ExportNameTemplate(parsing: "{capture:%Y/%m}/{name}").render(p), "2014/04/IMG_0001.JPG")
        XCTAssertEqual(
            try ExportNameTemplate(parsing: "{capture:%Y%m%d-%H%M%S}_{stem}.{ext}").render(p),
            "20140405-102030_IMG_0001.JPG")
        XCTAssertEqual(
            try ExportNameTemplate(parsing: "{imported:%Y}/{share}/{uniqueName}").render(p),
            "2026/default/0A1B2C3D-0000-0000-0000-000000000001.JPG", "'.{ext}' is appended without {name} or {ext}")
        XCTAssertEqual(
            try ExportNameTemplate(parsing: "{capture}/{name}").render(photo("x.png", capture: nil, format: "png")),
            "2026-01-02/x.png", "no capture date: the import date")
        XCTAssertEqual(
            try ExportNameTemplate(parsing: "{stem}.{ext}").render(photo("noext", format: "png")), "noext.png")
        let expected: [(String, ExportError)] = [
            ("{nme}", .unknownField("nme")), ("{name", .unclosedField(template: "{name")),
            ("", .emptyTemplate), ("{capture%Y}", .unknownField("capture%Y"))
        ]
        for (bad, error) in expected {
            XCTAssertThrowsError(try ExportNameTemplate(parsing: bad), bad) {
                XCTAssertEqual($0 as? ExportError, error)
            }
        }
    }

    func testXMPIsEscapedAndReadsBack() throws {
        var p = photo("a.jpg")
        p.tags = ["Café & <Friends>", "\"quoted\" 'tag'", "Nature"]
        p.ratings = [4, 5]
        let text = XMPWriter.sidecar(for: p)
        XCTAssertTrue(text.contains("<rdf:li>Café &amp; &lt;Friends&gt;</rdf:li>"))
        XCTAssertTrue(text.contains("xmp:Rating=\"5\""), "mean 4.5 rounds half up to 5")
        XCTAssertTrue(text.contains("photos:uniqueName=\"\(p.uniqueName)\""))
        let back = try XMPSidecar.parse(Data(text.utf8), path: "a.jpg.xmp")
        let date = CaptureTime(local: "2014-04-05T10:20:30", offsetMinutes: 0, source: "xmp")
        XCTAssertEqual(back, XMPSidecar(subjects: p.tags, rating: 5, captureTime: date, uniqueName: p.uniqueName))
        p.tags = []
        p.ratings = []
        XCTAssertEqual(
            try XMPSidecar.parse(Data(XMPWriter.sidecar(for: p).utf8), path: "b.xmp"),
            XMPSidecar(hasRating: true, captureTime: date, uniqueName: p.uniqueName, hasKeywords: true),
            "no tags and no ratings are stated (an empty dc:subject, xmp:Rating 0)")
        p.captureDate = nil
        XCTAssertEqual(
            try XMPSidecar.parse(Data(XMPWriter.sidecar(for: p).utf8), path: "c.xmp"),
            XMPSidecar(hasRating: true, uniqueName: p.uniqueName, hasKeywords: true))
        XCTAssertEqual(XMPWriter.escape("a\u{1}b\tc"), "a\u{FFFD}b&#x9;c")
    }

    func testJSONSidecarReadsBack() throws {
        var p = photo("a.jpg")
        p.tags = ["Insect", "Nature"]
        p.ratings = [3, 4]
        let sidecar = try XMPSidecar.parseJSON(Data(p.json.serialized().utf8), path: "a.jpg.json")
        XCTAssertEqual(
            sidecar,
            XMPSidecar(
                subjects: ["Insect", "Nature"], rating: 4,
                captureTime: CaptureTime.fromISO(try XCTUnwrap(p.captureDate), source: "json"),
                uniqueName: p.uniqueName))
        var titled = XMPSidecar()
        titled.title = "x"
        XCTAssertEqual(try XMPSidecar.parseJSON(Data("{\"title\":\"x\"}".utf8), path: "t.json"), titled)
        XCTAssertEqual(
            try XMPSidecar.parseJSON(Data("{\"tags\":\"x\",\"rating\":1}".utf8), path: "t.json"), XMPSidecar(rating: 1))
        XCTAssertEqual(try XMPSidecar.parseJSON(Data("{\"rating\":true}".utf8), path: "t.json"), XMPSidecar())
        XCTAssertThrowsError(try XMPSidecar.parseJSON(Data("[1,2".utf8), path: "bad.json"))
        XCTAssertThrowsError(try XMPSidecar.parseJSON(Data("[1,2]".utf8), path: "bad.json"))
    }

    /// Issue 32 item 6: `{share}`, `{shareId}`, `{author}` and a `--per-tag` copy's `{tag}`
    /// come from the template's context; `list --template` appends no `.{ext}`.
    func testTemplateContextFields() throws {
        var p = photo("IMG_0001.JPG")
        let template = try ExportNameTemplate(parsing: "{share}|{shareId}|{author}|{tag}")
        let context = ExportNameContext(
            shareTitles: ["zone-1": "Paris/2024", "default": "never used"],
            authors: [p.uniqueName: "ann@example.org"])
        XCTAssertEqual(template.render(p, context: context), "default|default|ann@example.org|untagged.JPG")
        p.zone = "zone-1"
        p.tags = ["Sea", "Beach"]
        XCTAssertEqual(
            template.render(p, context: context), "Paris_2024|zone-1|ann@example.org|Beach.JPG",
            "the share's title with '/' as '_'; the first tag in sort order")
        var copy = context
        copy.tag = "Places/Paris"
        XCTAssertEqual(template.render(p, context: copy), "Paris_2024|zone-1|ann@example.org|Places/Paris.JPG")
        p.zone = "zone-2"
        XCTAssertEqual(
            template.render(p, context: ExportNameContext()), "zone-2|zone-2|unknown|Beach.JPG",
            "a zone without a share title keeps its id; an insert no longer in history is 'unknown'")
        XCTAssertEqual(
            template.render(p, context: ExportNameContext(authors: [p.uniqueName: "a/b"])),
            "zone-2|zone-2|a_b|Beach.JPG")

        XCTAssertEqual(try ExportNameTemplate(parsing: "{stem}").render(p), "IMG_0001.JPG")
        XCTAssertEqual(try ExportNameTemplate(parsing: "{stem}", appendingExtension: false).render(p), "IMG_0001")
        XCTAssertEqual(
            try ExportNameTemplate(parsing: "{rating} {title}", appendingExtension: false).render(p), "0 untitled")
        XCTAssertThrowsError(try ExportNameTemplate(parsing: "{authors}", appendingExtension: false)) {
            XCTAssertEqual($0 as? ExportError, .unknownField("authors"))
        }

        let fields = try ExportNameTemplate(parsing: "{tag}/{author}/{share}")
        XCTAssertEqual([fields.usesTag, fields.usesAuthor, fields.usesShareTitle], [true, true, true])
        let none = try ExportNameTemplate(parsing: "{shareId}/{name}")
        XCTAssertEqual([none.usesTag, none.usesAuthor, none.usesShareTitle], [false, false, false])
    }

    /// `--per-tag`: one copy per tag in sort order (a repeated name once), one `untagged` copy
    /// of a photo without tags, each named with its own tag.
    func testPerTagCopiesAreNamedByTheirTag() throws {
        var tagged = photo("IMG_0001.JPG")
        tagged.tags = ["Sea", "Beach", "Places/France"]
        var bare = photo("kite.png", format: "png")
        bare.uniqueName = "0A1B2C3D-0000-0000-0000-000000000002"
        let root = NSTemporaryDirectory() + "photos-no-such-folder-" + UUID().uuidString
        var planner = Planner(root: root, state: nil, trustState: false, perTag: true)
        XCTAssertEqual(
            planner.copies([tagged, bare]).map { "\($0.photo.displayName) \($0.tag ?? "-")" },
            ["IMG_0001.JPG Beach", "IMG_0001.JPG Places/France", "IMG_0001.JPG Sea", "kite.png -"])
        let plan = planner.plan([tagged, bare], template: try ExportNameTemplate(parsing: "{tag}/{name}"))
        XCTAssertEqual(
            plan.items.map(\.path),
            ["Beach/IMG_0001.JPG", "Places/France/IMG_0001.JPG", "Sea/IMG_0001.JPG", "untagged/kite.png"])
        XCTAssertEqual(plan.items.map(\.tag), ["Beach", "Places/France", "Sea", nil])
        var single = Planner(root: root, state: nil, trustState: false)
        XCTAssertEqual(
            single.plan([tagged, bare], template: try ExportNameTemplate(parsing: "{tag}/{name}")).items.map(\.path),
            ["Beach/IMG_0001.JPG", "untagged/kite.png"], "without --per-tag: the first tag only")
    }
}
