import XCTest
@testable import PhotosCLI
import PhotosCore
import PhotosModel

/// Issue 10: the catalog's typed errors (`LibraryError.notFound/.ambiguous/.prefixTooShort`,
/// `ShareError`) are worded in ErrorReporting's `// MARK: catalog` block, byte-identical to the
/// messages Core's `PhotosError`s carried before, with the same exit statuses.
final class CatalogErrorReportingTests: XCTestCase {
    func report(_ error: Error) -> (ExitStatus, String) {
        let r = ErrorReporting.report(for: error, libraryPath: "/l")
        return (r.status, r.message)
    }

    func assertReport(
        _ error: Error, _ status: ExitStatus, _ message: String, file: StaticString = #filePath, line: UInt = #line
    ) {
        let (s, m) = report(error)
        XCTAssertEqual(s, status, message, file: file, line: line)
        XCTAssertEqual(m, message, file: file, line: line)
        // Thrown inside a write transaction, an error comes back through `LibraryError.wrap`.
        let (ws, wm) = report(LibraryError.wrap(error, library: "/l"))
        XCTAssertEqual(ws, status, "wrapped: " + message, file: file, line: line)
        XCTAssertEqual(wm, message, file: file, line: line)
    }

    func testNotFoundIs66WithTheMessagesOfBefore() {
        assertReport(LibraryError.notFound(.photo("zzzz")), .noInput, "no photo 'zzzz' in the library")
        assertReport(LibraryError.notFound(.share("abcd")), .noInput, "no share 'abcd' in the library")
        assertReport(LibraryError.notFound(.rating(42)), .noInput, "no rating with id 42 in the library")
        assertReport(
            LibraryError.notFound(.zone(ZoneID(rawValue: "nowhere"))), .noInput, "no zone 'nowhere' in the library")
        assertReport(LibraryError.notFound(.tag("Café", zone: nil)), .noInput, "no tag 'Café' in the library")
        assertReport(
            LibraryError.notFound(.tag("Sky", zone: ZoneID(rawValue: "z1"))), .noInput,
            "no tag 'Sky' in zone 'z1' in the library")
        assertReport(
            LibraryError.notFound(.tagInPhotoZones("Sky", zoneCount: 1)), .noInput,
            "no tag 'Sky' in the zone of these photos")
        assertReport(
            LibraryError.notFound(.tagInPhotoZones("Sky", zoneCount: 2)), .noInput,
            "no tag 'Sky' in the zones of these photos")
        assertReport(
            LibraryError.notFound(.participant(Email(rawValue: "bob@example.com"), share: "s1")), .noInput,
            "bob@example.com is not a participant of share s1")
    }

    /// A too short prefix is a bad argument value, 64 (issue 14); an ambiguous one stays 65.
    func testPrefixErrorsAre65AndListAtMostTenCandidates() {
        assertReport(
            LibraryError.prefixTooShort(.photo, argument: "abc", minimum: 4), .usage,
            "photo 'abc': a uniqueName prefix needs at least 4 characters")
        assertReport(
            LibraryError.prefixTooShort(.share, argument: "ab", minimum: 4), .usage,
            "share 'ab': an id prefix needs at least 4 characters")
        assertReport(
            LibraryError.ambiguous(.photo, argument: "abcd", candidates: ["ABCD1 (a.jpg)", "ABCD2 (b.jpg)"]),
            .dataError,
            "photo prefix 'abcd' is ambiguous: ABCD1 (a.jpg), ABCD2 (b.jpg)")
        let eleven = (0..<11).map { "s\($0) (T)" }
        assertReport(
            LibraryError.ambiguous(.share, argument: "s", candidates: eleven), .dataError,
            "share prefix 's' is ambiguous: " + eleven.prefix(10).joined(separator: ", ") + ", …")
        let ten = Array(eleven.prefix(10))
        assertReport(
            LibraryError.ambiguous(.share, argument: "s", candidates: ten), .dataError,
            "share prefix 's' is ambiguous: " + ten.joined(separator: ", "))
    }

    func testTagNamesAreParsedOnceWithTheMessagesOfBefore() throws {
        XCTAssertEqual(try TagName(parsing: "  Cafe\u{301} ").rawValue, "Caf\u{E9}")
        XCTAssertThrowsError(try TagName(parsing: " \n\t ")) { self.assertReport($0, .usage, "tag name is empty") }
        XCTAssertThrowsError(try TagName(parsing: " a\u{7}b ")) {
            self.assertReport($0, .usage, #"tag name "a\u0007b" contains control characters"#)
        }
        // Format characters (Cf) are text: the zero-width joiner of an emoji sequence is kept.
        XCTAssertEqual(try TagName(parsing: "👨\u{200D}👩").rawValue, "👨\u{200D}👩")
    }

    func testShareErrors() {
        let bob = Email(rawValue: "bob@example.com")
        assertReport(ShareError.noPhotos, .usage, "share create needs at least one photo")
        assertReport(
            ShareError.participantPermissionNone, .usage,
            "a participant's permission is read-only or read-write, not none")
        assertReport(ShareError.ownerInvited(bob, share: "s1"), .dataError, "bob@example.com is the owner of share s1")
        assertReport(
            ShareError.ownerRemoved(bob, share: "s1"), .dataError,
            "bob@example.com is the owner of share s1 and cannot be removed (purge the share instead)")
        assertReport(
            ShareError.notOwned(share: "s1"), .noPermission,
            "share s1 was shared with this library by someone else; only its owner can change it")
        assertReport(
            ShareError.photoInSharedZone(photo: "P1", zone: "z9"), .dataError,
            "photo P1 is in zone z9, shared with this library by someone else; it cannot be moved")
        assertReport(
            ShareError.photoInAnotherShare(photo: "P1", share: "s2"), .dataError,
            "photo P1 is already in share s2; use --move to move it")
    }
}
