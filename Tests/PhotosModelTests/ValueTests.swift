import XCTest
import PhotosModel

/// Issue 10 item 3: values are parsed once, at the edge, into types that cannot hold a wrong
/// value; each refusal is a typed `ValueError` that says whether the text was malformed (64)
/// or well-formed but wrong (65).
final class ValueTests: XCTestCase {
    func testRatingValue() throws {
        XCTAssertEqual(RatingValue.range.map { RatingValue(rawValue: $0)?.rawValue }, [1, 2, 3, 4, 5])
        for bad in [0, 6, -1, Int.max] { XCTAssertNil(RatingValue(rawValue: bad)) }
        XCTAssertEqual(try RatingValue(parsing: " 4 ").rawValue, 4)
        let cases: [(String, ValueError)] = [
            ("4.5", .ratingNotANumber("4.5")), ("", .ratingNotANumber("")), ("four", .ratingNotANumber("four")),
            ("0", .ratingOutOfRange("0")), ("-3", .ratingOutOfRange("-3")),
            ("99999999999999999999", .ratingOutOfRange("99999999999999999999"))
        ]
        for (text, expected) in cases {
            XCTAssertThrowsError(try RatingValue(parsing: text), text) {
                XCTAssertEqual($0 as? ValueError, expected, text)
            }
        }
        XCTAssertTrue(ValueError.ratingNotANumber("x").isMalformed)
        XCTAssertFalse(ValueError.ratingOutOfRange("9").isMalformed)
        XCTAssertEqual("\(ValueError.ratingOutOfRange("9"))", "rating 9 is out of range; a rating is 1 to 5")
    }

    func testEmail() throws {
        XCTAssertEqual(try Email(parsing: "  Ann@Example.ORG\n").rawValue, "ann@example.org")
        let cases: [(String, String)] = [
            ("bob", "e-mail address \"bob\" must contain exactly one @"),
            ("a@b@c", "e-mail address \"a@b@c\" must contain exactly one @"),
            ("@x.org", "e-mail address \"@x.org\" needs a name before and a domain after the @"),
            ("bob smith@x.org", "e-mail address \"bob smith@x.org\" contains spaces or control characters"),
            ("bob@x\u{7}.org", "e-mail address \"bob@x\\u0007.org\" contains spaces or control characters")
        ]
        for (text, message) in cases {
            XCTAssertThrowsError(try Email(parsing: text), text) {
                XCTAssertEqual("\($0)", message)
                XCTAssertEqual(($0 as? ValueError)?.isMalformed, false)
            }
        }
    }

    func testShareTitleAndPermission() throws {
        XCTAssertEqual(try ShareTitle(parsing: "  Cafe\u{301} ").rawValue, "Caf\u{E9}", "trimmed and NFC")
        XCTAssertThrowsError(try ShareTitle(parsing: " \n ")) { XCTAssertEqual($0 as? ValueError, .shareTitleEmpty) }
        XCTAssertThrowsError(try ShareTitle(parsing: "a\u{1B}b")) {
            XCTAssertEqual(($0 as? ValueError)?.isMalformed, false)
        }
        XCTAssertEqual(ShareTitle.defaultTitle(iso: "2026-11-29T14:03:12Z").rawValue, "Share-2026-11-29 14:03:12")
        XCTAssertEqual(try SharePermission(parsing: "Read-Write", allowNone: false), .readWrite)
        XCTAssertEqual(try SharePermission(parsing: "none", allowNone: true), SharePermission.none)
        XCTAssertThrowsError(try SharePermission(parsing: "none", allowNone: false)) {
            XCTAssertEqual($0 as? ValueError, .permission("none", accepted: ["read-only", "read-write"]))
            XCTAssertEqual(($0 as? ValueError)?.isMalformed, true)
        }
        XCTAssertEqual(ParticipantRole.allCases.map(\.rawValue), ["owner", "private-user", "public-user"])
        XCTAssertEqual(Acceptance.allCases.map(\.rawValue), ["unknown", "pending", "accepted", "removed"])
    }

    func testHistoryObjectsAreNamedByStableIdentity() {
        XCTAssertEqual(HistoryObject.photoData(photo: "P").entity, .photoData)
        XCTAssertEqual(HistoryObject.photoData(photo: "P").objectID, "P")
        XCTAssertEqual(HistoryObject.rating(uuid: "u").entity.rawValue, "Rating")
        XCTAssertEqual(HistoryEntity.allCases.map(\.tombstoneKeys.count), [2, 2, 1, 2, 2, 2, 2])
        let uuid = newObjectUUID()
        XCTAssertEqual(uuid, uuid.lowercased())
        XCTAssertNotNil(UUID(uuidString: uuid))
    }
}
