import Foundation
import PhotosModel
import XCTest

@testable import PhotosCore

/// A tag whose name `lr:hierarchicalSubject` cannot carry unchanged — one with `|` (the
/// separator there), or with empty or padded `/` levels (`A//B`, `A / B`, `/A`) — is exported
/// whole in `dc:subject` only and reads back with the same name, beside hierarchical tags too.
/// Before, `A|B` next to `x/y` read back as `A|B` and an extra `A/B`, `X/A|B` as `A|B` and
/// `X/A/B`, `A / B` as `A/B`.
final class SidecarTagNamesRoundTripTests: XCTestCase {
    static func photo(tags: [String]) -> PhotoRecord {
        PhotoRecord(
            rowID: 1, uniqueName: "0A1B2C3D-0000-0000-0000-000000000001", displayName: "p.jpg",
            sha256: String(repeating: "a", count: 64), byteSize: 1, fileReference: "aa/aa", format: .jpeg,
            width: 1, height: 1, orientation: .up, captureDate: nil, importedAt: "2026-01-02T03:04:05Z",
            thumbnailWidth: 1, thumbnailHeight: 1, tags: tags, ratings: [], zone: "default", scope: .private)
    }

    func roundTrip(_ tags: [String], file: StaticString = #filePath, line: UInt = #line) throws {
        let text = XMPWriter.sidecar(for: Self.photo(tags: tags))
        let back = try XMPSidecar.parse(Data(text.utf8), path: "p.xmp")
        XCTAssertEqual(back.subjects.sorted(), tags.sorted(), "\(tags):\n\(text)", file: file, line: line)
    }

    func testTagsWithTheHierarchySeparatorOrEmptyLevelsKeepTheirNames() throws {
        try roundTrip(["A|B", "x/y"])
        try roundTrip(["X/A|B"])
        try roundTrip(["X/A|B", "A|B", "Places/France/Paris", "Paris"])
        try roundTrip(["A / B", "B", "Q/B"])
        try roundTrip(["A//B", "x/y"])
        try roundTrip(["/A", "A/", "A"])
        try roundTrip(["Lightroom | Keyword", "beach"])
    }

    /// What is written: such a tag whole in dc:subject, never split into lr:hierarchicalSubject.
    func testSuchATagIsWrittenWholeAsAFlatKeyword() {
        let text = XMPWriter.sidecar(for: Self.photo(tags: ["X/A|B", "A / B", "x/y"]))
        XCTAssertTrue(text.contains("<rdf:li>X/A|B</rdf:li>"), text)
        XCTAssertTrue(text.contains("<rdf:li>A / B</rdf:li>"), text)
        XCTAssertTrue(text.contains("<rdf:li>x|y</rdf:li>"), text)
        XCTAssertFalse(text.contains("X|A|B"), text)
        XCTAssertFalse(text.contains("<rdf:li>A|B</rdf:li>"), text)
        XCTAssertFalse(text.contains("<rdf:li>A|B</rdf:li>"), text)
    }

    /// Tags that are paths as the reader reads them are still written as before.
    func testOrdinaryHierarchicalTagsAreUnchanged() throws {
        XCTAssertTrue(XMPWriter.isPath("Places/France/Paris"))
        XCTAssertTrue(XMPWriter.isPath("beach"))
        for tag in ["A|B", "A / B", "A//B", "/A", "A/", "a/ b"] { XCTAssertFalse(XMPWriter.isPath(tag), tag) }
        try roundTrip(["Places/France/Paris", "Paris", "beach"])
    }
}

/// A tag that is an ancestor of another (`Places` beside `Places/France`) survives the round
/// trip: `photos:tags` lists the tags exactly, and is read while the standard lists agree with
/// it. Before, `Places` was dropped as one of the ancestor paths Lightroom and digiKam list.
/// A sidecar edited since in another tool (that list no longer agrees) reads as before.
final class SidecarAncestorTagRoundTripTests: XCTestCase {
    func parse(_ text: String) throws -> [String] {
        try XMPSidecar.parse(Data(text.utf8), path: "p.xmp").subjects.sorted()
    }

    func testAnAncestorTagOfTheSamePhotoIsKept() throws {
        for tags in [
            ["Places", "Places/France"], ["Places", "Places/France", "Places/France/Paris", "Paris"],
            ["A/B", "A/B/C", "x"]
        ] {
            let text = XMPWriter.sidecar(for: SidecarTagNamesRoundTripTests.photo(tags: tags))
            XCTAssertTrue(text.contains("<photos:tags>"), text)
            XCTAssertEqual(try parse(text), tags.sorted(), text)
        }
        let plain = XMPWriter.sidecar(for: SidecarTagNamesRoundTripTests.photo(tags: ["Places/France", "beach"]))
        XCTAssertFalse(plain.contains("photos:tags"), "only when some tag is another's ancestor")
    }

    func testAnEditedSidecarReadsItsStandardLists() throws {
        let text = XMPWriter.sidecar(for: SidecarTagNamesRoundTripTests.photo(tags: ["Places", "Places/France"]))
        // Another tool renamed the keyword: lr/dc changed, photos:tags left behind.
        let renamed = text.replacingOccurrences(
            of: "<rdf:li>Places|France</rdf:li>", with: "<rdf:li>Places|Spain</rdf:li>"
        )
        .replacingOccurrences(of: "<rdf:li>France</rdf:li>", with: "<rdf:li>Spain</rdf:li>")
        XCTAssertEqual(try parse(renamed), ["Places/Spain"])
        // A keyword added.
        let added = text.replacingOccurrences(
            of: "<rdf:li>France</rdf:li>", with: "<rdf:li>France</rdf:li><rdf:li>new</rdf:li>")
        XCTAssertEqual(try parse(added), ["Places/France", "new"])
        // A photos:tags entry that is neither listed nor an ancestor (hand-made) is not believed.
        let forged = text.replacingOccurrences(
            of: "<photos:tags>\n    <rdf:Bag>", with: "<photos:tags>\n    <rdf:Bag><rdf:li>forged</rdf:li>")
        XCTAssertEqual(try parse(forged), ["Places/France"])
    }
}
