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
