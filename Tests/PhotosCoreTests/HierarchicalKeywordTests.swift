import Foundation
import XCTest
@testable import PhotosCore

/// Hierarchical keywords as digiKam and Lightroom write them import as tags `A/B/C`, and the
/// sidecar `photos export` writes reads back to the same tags, rating, capture time and
/// uniqueName (`XMPSidecar+Identity.swift`, `XMPWriter`).
final class HierarchicalKeywordTests: XCTestCase {
    private func packet(_ body: String, attributes: String = "") -> Data {
        Data(
            """
            <x:xmpmeta xmlns:x="adobe:ns:meta/">
             <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
              <rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/"
                xmlns:lr="http://ns.adobe.com/lightroom/1.0/" xmlns:digiKam="http://www.digikam.org/ns/1.0/"
                xmlns:photos="https://photos.invalid/ns/1.0/" \(attributes)>
            \(body)
              </rdf:Description>
             </rdf:RDF>
            </x:xmpmeta>
            """.utf8)
    }

    private func bag(_ name: String, _ items: [String], kind: String = "Bag") -> String {
        "<\(name)><rdf:\(kind)>" + items.map { "<rdf:li>\($0)</rdf:li>" }.joined() + "</rdf:\(kind)></\(name)>"
    }

    /// digiKam 8 writes each tag's path in digiKam:TagsList (an rdf:Seq, `/` between levels), the
    /// ancestors as paths of their own, and every level flat in dc:subject.
    func testDigiKamTagsList() throws {
        let s = try XMPSidecar.parse(
            packet(
                bag("dc:subject", ["Places", "France", "Paris", "Anna", "sunset"])
                    + bag(
                        "digiKam:TagsList",
                        ["Places", "Places/France", "Places/France/Paris", "People/Anna", "sunset"], kind: "Seq")),
            path: "d.xmp")
        XCTAssertEqual(s.subjects, ["sunset", "Places/France/Paris", "People/Anna"])
        XCTAssertTrue(s.hasKeywords)
    }

    /// Lightroom Classic writes lr:hierarchicalSubject with `|` between levels and every keyword
    /// listed, top-level ones as one level; its levels are trimmed, empty levels dropped.
    func testLightroomHierarchicalSubject() throws {
        let s = try XMPSidecar.parse(
            packet(
                bag("dc:subject", ["Animals", "Birds", "Robin", "garden"])
                    + bag(
                        "lr:hierarchicalSubject", ["Animals", "Animals|Birds", " Animals | Birds || Robin ", "garden"])),
            path: "l.xmp")
        XCTAssertEqual(s.subjects, ["garden", "Animals/Birds/Robin"])
    }

    /// Windows Photo Gallery's MicrosoftPhoto:LastKeywordXMP (`/`) and Media Pro's
    /// mediapro:CatalogSets (`|`) read the same way.
    func testMicrosoftPhotoAndMediaProPaths() throws {
        let data = packet(
            bag("MicrosoftPhoto:LastKeywordXMP", ["Events/2024/Wedding"])
                + bag("mediapro:CatalogSets", ["Events|2024|Wedding", "Trips|Rome"]),
            attributes:
                "xmlns:MicrosoftPhoto=\"http://ns.microsoft.com/photo/1.0/\" xmlns:mediapro=\"http://ns.iview-multimedia.com/mediapro/1.0/\""
        )
        XCTAssertEqual(try XMPSidecar.parse(data, path: "m.xmp").subjects, ["Events/2024/Wedding", "Trips/Rome"])
    }

    /// A flat dc:subject keyword that is no level of a path stays a tag of its own.
    func testFlatKeywordsBesidePathsStay() {
        XCTAssertEqual(
            XMPSidecar.hierarchicalKeywords(
                flat: ["Paris", "Travel", "France"], paths: [["Places", "France", "Paris"], ["Paris"]], limit: 10),
            ["Travel", "Paris", "Places/France/Paris"])
        XCTAssertEqual(
            XMPSidecar.hierarchicalKeywords(flat: ["a", "b", "c"], paths: [], limit: 2), ["a", "b"], "limit holds")
    }

    /// An empty dc:subject bag is keywords present (a file whose keywords were all removed);
    /// no keyword property at all is not.
    func testEmptyBagCountsAsKeywordsPresent() throws {
        XCTAssertTrue(try XMPSidecar.parse(packet("<dc:subject><rdf:Bag/></dc:subject>"), path: "e.xmp").hasKeywords)
        XCTAssertFalse(
            try XMPSidecar.parse(packet("", attributes: "dc:format=\"image/jpeg\""), path: "f.xmp").hasKeywords)
    }

    /// A JSON sidecar's `tags` array, an empty one too, counts as keywords present.
    func testJSONTagsArrayCountsAsKeywordsPresent() throws {
        XCTAssertTrue(try XMPSidecar.parseJSON(Data("{\"tags\":[]}".utf8), path: "e.json").hasKeywords)
        XCTAssertFalse(try XMPSidecar.parseJSON(Data("{\"rating\":2}".utf8), path: "f.json").hasKeywords)
    }

    /// photos:uniqueName is read only when it is a UUID, as written.
    func testUniqueNameMustBeAUUID() throws {
        let id = "0A1B2C3D-4E5F-4071-8293-A4B5C6D7E8F9"
        XCTAssertEqual(
            try XMPSidecar.parse(packet("", attributes: "photos:uniqueName=\" \(id) \""), path: "u.xmp").uniqueName, id)
        for bad in ["not-a-uuid", "", "0A1B2C3D4E5F40718293A4B5C6D7E8F9", "../../etc/passwd"] {
            XCTAssertNil(
                try XMPSidecar.parse(packet("", attributes: "photos:uniqueName=\"\(bad)\""), path: "u.xmp").uniqueName,
                bad)
        }
    }

    /// The sidecar export writes: both dates with the offset, dc:subject with every level (issue
    /// 32 item 1: the ancestors too, as Lightroom's default),
    /// lr:hierarchicalSubject with every tag, the displayed rating; read back it gives the same.
    func testExportedSidecarReadsBackTheSameTags() throws {
        var p = PhotoRecord(
            rowID: 1, uniqueName: "0A1B2C3D-0000-0000-0000-000000000001", displayName: "p.jpg",
            sha256: String(repeating: "a", count: 64), byteSize: 1, fileReference: "aa/aa", format: .jpeg,
            width: 1, height: 1, orientation: .up, captureDate: nil, importedAt: "2026-01-02T03:04:05Z",
            thumbnailWidth: 1, thumbnailHeight: 1, tags: [], ratings: [], zone: "default", scope: .private)
        p.tags = ["Paris", "Places/France/Paris", "beach"]
        p.ratings = [2, 3]
        p.captureDate = "2021-03-04T05:06:07.250+09:30"
        let text = XMPWriter.sidecar(for: p)
        XCTAssertTrue(text.contains("photoshop:DateCreated=\"2021-03-04T05:06:07.250+09:30\""), text)
        XCTAssertTrue(text.contains("exif:DateTimeOriginal=\"2021-03-04T05:06:07.250+09:30\""), text)
        XCTAssertTrue(text.contains("xmp:Rating=\"3\""), "mean 2.5 rounds half up to 3")
        XCTAssertTrue(
            text.contains(
                "<dc:subject>\n    <rdf:Bag>\n     <rdf:li>Paris</rdf:li>\n     <rdf:li>Places</rdf:li>\n     <rdf:li>France</rdf:li>\n     <rdf:li>beach</rdf:li>\n    </rdf:Bag>"
            ),
            text)
        XCTAssertTrue(text.contains("<rdf:li>Places|France|Paris</rdf:li>"), text)
        let back = try XMPSidecar.parse(Data(text.utf8), path: "p.xmp")
        XCTAssertEqual(Set(back.subjects), Set(p.tags))
        XCTAssertEqual(back.rating, 3)
        XCTAssertEqual(back.captureTime?.iso, "2021-03-04T05:06:07.250+09:30")
        XCTAssertEqual(back.uniqueName, p.uniqueName)
        p.tags = ["beach"]
        XCTAssertFalse(XMPWriter.sidecar(for: p).contains("lightroom"), "no lr: without a tag with '/'")
    }

    /// Issue 32 item 1: `dc:subject` carries the ancestors and the leaf of a hierarchical tag
    /// (Lightroom's default, so PhotoPrism, which reads `dc:subject` alone, keeps `Places` and
    /// `France`), and the file reads back as the one hierarchical tag.
    func testExportedSubjectHasAncestorsAndReadsBackAsOneTag() throws {
        var p = PhotoRecord(
            rowID: 1, uniqueName: "0A1B2C3D-0000-0000-0000-000000000002", displayName: "p.jpg",
            sha256: String(repeating: "b", count: 64), byteSize: 1, fileReference: "bb/bb", format: .jpeg,
            width: 1, height: 1, orientation: .up, captureDate: nil, importedAt: "2026-01-02T03:04:05Z",
            thumbnailWidth: 1, thumbnailHeight: 1, tags: [], ratings: [], zone: "default", scope: .private)
        p.tags = ["Places/France/Paris"]
        let text = XMPWriter.sidecar(for: p)
        XCTAssertTrue(
            text.contains(
                "<dc:subject>\n    <rdf:Bag>\n     <rdf:li>Places</rdf:li>\n     <rdf:li>France</rdf:li>\n     <rdf:li>Paris</rdf:li>\n    </rdf:Bag>"
            ), text)
        XCTAssertEqual(try XMPSidecar.parse(Data(text.utf8), path: "p.xmp").subjects, ["Places/France/Paris"])
    }

    /// Issue 32 item 1, the digiKam case: `TagsList=Places/Italy/Rome` with the leaf in IPTC
    /// Keywords (`Rome`) is the one tag `Places/Italy/Rome`, not also a stray `Rome`; an IPTC
    /// keyword that is no level of a path stays.
    func testIPTCKeywordThatIsALevelOfAPathIsNoTagOfItsOwn() throws {
        let embedded = try XMPSidecar.parse(
            packet(bag("digiKam:TagsList", ["Places/Italy/Rome"], kind: "Seq")), path: "e.xmp")
        XCTAssertEqual(embedded.subjects, ["Places/Italy/Rome"])
        let merged = XMPSidecar.merged(sidecar: nil, embedded: embedded, iptcKeywords: ["Rome"])
        XCTAssertEqual(merged?.subjects, ["Places/Italy/Rome"])
        let withOther = XMPSidecar.merged(sidecar: nil, embedded: embedded, iptcKeywords: ["Rome", "Italy", "sea"])
        XCTAssertEqual(withOther?.subjects, ["Places/Italy/Rome", "sea"])
        XCTAssertEqual(
            XMPSidecar.merged(sidecar: nil, embedded: nil, iptcKeywords: ["Rome"])?.subjects, ["Rome"],
            "without a path, an IPTC keyword is a tag")
    }
}
