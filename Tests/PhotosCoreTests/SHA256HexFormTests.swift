import PhotosFiles
import XCTest

@testable import PhotosCore

/// One rule says what a recorded SHA-256 looks like — 64 lowercase hex digits, as
/// `SHA256Hasher.finalizeHex` writes it — for verify's content addresses and for changesets.
final class SHA256HexFormTests: XCTestCase {
    func testOnlySixtyFourLowercaseHexDigitsAreASHA256() throws {
        let digest = try [UInt8]("photos".utf8).withUnsafeBytes { try SHA256Hasher.hex(of: $0) }
        let cases: [(String, Bool)] = [
            (digest, true),
            (String(repeating: "0", count: 64), true),
            (String(repeating: "f", count: 64), true),
            (digest.uppercased(), false),
            (String(digest.dropLast()), false),
            (digest + "0", false),
            (String(digest.dropLast()) + "g", false),
            (String(digest.dropLast()) + "é", false),
            (String(digest.dropLast(2)) + "\u{0}a", false),
            ("", false)
        ]
        for (text, expected) in cases {
            XCTAssertEqual(isSHA256Hex(text), expected, text.debugDescription)
            XCTAssertEqual(SyncValues.isSHA256(text), expected, text.debugDescription)
        }
    }
}
