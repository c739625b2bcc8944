import Foundation
import PhotosCore
import PhotosModel
import PhotosSQLite
import PhotosTestSupport
import XCTest

/// Issue 31 item 21: one date parser for every date option — `history --since` refused
/// `2024-12-31Z`, which `list --since` took — and tag names that are not UTF-8 text refused
/// wherever they come from.
final class OneDateParserTests: XCTestCase {
    /// Every form either option takes, the other takes too, at the same instant.
    func testHistoryDatesTakeEveryFormListDatesTake() throws {
        let forms = [
            "2024-12-31", "2024-12-31Z", "2024-12-31+05:00", "2024-12-31-0330", "2024-12-31T12:00",
            "2024-12-31T12:00Z", "2024-12-31T12:00:30", "2024-12-31T12:00:30Z", "2024-12-31T12:00:30.250Z",
            "2024-12-31T12:00:30+02:00", "2024-12-31 12:00:30", " 2024-12-31T12:00:30Z "
        ]
        for form in forms {
            XCTAssertNotNil(CaptureBound.parse(form), form)
            XCTAssertNotNil(ISODate.parse(form), form)
        }
        let refused = ["2024-13-01", "2024-02-30", "someday", "2024-05-01T12:30:00Zjunk", "2024-05-01T25:00", "2024"]
        for form in refused {
            XCTAssertNil(CaptureBound.parse(form), form)
            XCTAssertNil(ISODate.parse(form), form)
        }
        func instant(_ text: String) throws -> String { ISODate.string(from: try XCTUnwrap(ISODate.parse(text)).date) }
        XCTAssertEqual(try instant("2024-12-31Z"), "2024-12-31T00:00:00Z")
        XCTAssertEqual(try instant("2024-12-31+05:00"), "2024-12-30T19:00:00Z")
        XCTAssertEqual(try instant("2024-12-31T12:00"), "2024-12-31T12:00:00Z")
        XCTAssertEqual(try instant("2024-12-31T12:00:30+02:00"), "2024-12-31T10:00:30Z")
        XCTAssertEqual(ISODate.parse("2024-12-31Z")?.dayOnly, true)
        XCTAssertEqual(ISODate.parse("2024-12-31T00:00Z")?.dayOnly, false)
        // Milliseconds are kept (the sync clock reads stamps with them).
        let ms = try XCTUnwrap(ISODate.parse("2024-12-31T12:00:30.250Z")).date.timeIntervalSince1970
        XCTAssertEqual(ms, 1_735_646_430.25, accuracy: 0.0005)
    }
}

final class TagNameNotUTF8Tests: SyncTestCase {
    /// U+FFFD, what a decoder puts for bytes that are not UTF-8, is refused in a tag name.
    func testAReplacementCharacterIsRefused() {
        XCTAssertThrowsError(try TagName(parsing: "Caf\u{FFFD}")) { error in
            XCTAssertEqual(error as? ValueError, .tagNameNotUTF8(shown: "\"Caf\u{FFFD}\""))
        }
        XCTAssertEqual(try TagName(parsing: "Café").rawValue, "Café")
    }

    /// A changeset whose tag name is stored as bytes that are not UTF-8 is refused with 65,
    /// naming the changeset and the tag, nothing written.
    func testAChangesetTagNameThatIsNotUTF8IsRefused() throws {
        let a = try library("A"), b = try library("B")
        try importPhotos(a, count: 1, tags: ["Trip"])
        let cs = try export(a)
        let db = try Database(path: cs + "/changeset.sqlite")
        try db.execute("PRAGMA journal_mode = DELETE")
        try db.execute("UPDATE entry SET value = CAST(X'436166E9' AS TEXT) WHERE entity = 'Tag' AND attribute = 'name'")
        db.close()
        let dump = try LibrarySnapshot.dumpCatalog(b.root)
        let (code, message) = status { _ = try b.applyChangeset(at: cs) }
        XCTAssertEqual(code, .refused, message)
        XCTAssertTrue(message.contains("changeset \(cs) refused: Tag"), message)
        XCTAssertTrue(message.contains("name is not a normalized tag name"), message)
        XCTAssertEqual(try LibrarySnapshot.dumpCatalog(b.root), dump)
    }

    /// The XMP check itself: a packet's first byte that is not UTF-8 is found; UTF-16 packets
    /// are left to the toolkit.
    func testAnXMPPacketThatIsNotUTF8IsRefusedNamingTheFile() {
        let packet = Data(Array("<x:xmpmeta>Insect".utf8) + [0xE9] + Array("</x:xmpmeta>".utf8))
        XCTAssertThrowsError(try XMPSidecar.parse(packet, path: "/in/a.xmp")) { error in
            XCTAssertEqual(error as? SidecarError, .notUTF8(path: "/in/a.xmp", offset: 17))
            XCTAssertEqual(
                "\(error)", "/in/a.xmp: XMP packet is not UTF-8 text (byte 17 starts no UTF-8 character); not read")
        }
        // Overlong, surrogate and truncated forms.
        for bad: [UInt8] in [[0xC0, 0x80], [0xED, 0xA0, 0x80], [0xE2, 0x82], [0xF4, 0x90, 0x80, 0x80]] {
            XCTAssertThrowsError(try XMPSidecar.parse(Data(Array("<a>".utf8) + bad), path: "p"))
        }
    }
}
