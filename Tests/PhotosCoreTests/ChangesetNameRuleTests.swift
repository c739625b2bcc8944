import Foundation
import PhotosCore
import PhotosModel
import PhotosSQLite
import PhotosTestSupport
import XCTest

/// Names that arrive in a changeset are held to the rules local commands are: a rating's author
/// to `AuthorName` (`--author`, `$PHOTOS_AUTHOR`: trimmed, NFC, at most 200 bytes, no control
/// or bidirectional characters), a tag's name to `TagName`, a participant's e-mail to `Email`
/// (lower case, NFC). Otherwise one person would become two authors of ratings or two
/// participants, one tag two tags (a decomposed "é" is canonically equal to the precomposed one
/// under Swift's `==`, but not in the catalog's UNIQUE indexes), or `history`/`rate` would print
/// a line reordered by U+202E. Refused with 65, nothing written.
final class ChangesetNameRuleTests: SyncTestCase {
    /// A changeset of one photo rated 4 by `author`, written by the sender as `stored`.
    private func changeset(storing stored: String, tag: String) throws -> (Library, String) {
        let a = try library("A-\(tag)"), b = try library("B-\(tag)")
        _ = try importPhotos(a, count: 1)
        let photo = try XCTUnwrap(try photos(a).first)
        try a.setRating(try XCTUnwrap(RatingValue(rawValue: 4)), of: photo, author: "alice")
        let cs = try export(a)
        let db = try Database(path: cs + "/changeset.sqlite")
        try db.execute("PRAGMA journal_mode = DELETE")
        try db.run("UPDATE entry SET value = ? WHERE entity = 'Rating' AND attribute = 'author'", [stored])
        XCTAssertEqual(try db.scalarInt("SELECT changes()"), 1)
        return (b, cs)
    }

    private func assertRefused(_ stored: String, _ why: String, tag: String, line: UInt = #line) throws {
        let (b, cs) = try changeset(storing: stored, tag: tag)
        let dump = try LibrarySnapshot.dumpCatalog(b.root)
        let (code, message) = status { _ = try b.applyChangeset(at: cs) }
        XCTAssertEqual(code, .refused, message, line: line)
        XCTAssertTrue(message.contains("author \(why)"), message, line: line)
        XCTAssertEqual(try LibrarySnapshot.dumpCatalog(b.root), dump, line: line)
        XCTAssertEqual(filesUnder(b.root + "/ExternalData"), [], line: line)
    }

    func testBidirectionalOverrideIsRefused() throws {
        try assertRefused("alice\u{202E}gpj.exe", "must not contain control characters", tag: "bidi")
    }

    func testLineSeparatorIsRefused() throws {
        try assertRefused("alice\u{2028}bob", "must not contain control characters", tag: "ls")
    }

    func testDecomposedAuthorIsRefused() throws {
        try assertRefused("Rene\u{301}e", "must be trimmed and in NFC", tag: "nfd")
    }

    func testUntrimmedAuthorIsRefused() throws {
        try assertRefused("alice ", "must be trimmed and in NFC", tag: "space")
    }

    func testEmptyAuthorIsRefused() throws {
        try assertRefused("", "must not be empty", tag: "empty")
    }

    func testAuthorOver200BytesIsRefused() throws {
        try assertRefused(String(repeating: "é", count: 101), "must be at most 200 bytes", tag: "long")
    }

    /// A changeset whose only entry of `entity`/`attribute` is replaced by `stored` is refused
    /// with `why` and changes nothing.
    private func assertEntryRefused(
        _ setUp: (Library) throws -> Void, entity: String, attribute: String, stored: String, _ why: String,
        tag: String, line: UInt = #line
    ) throws {
        let a = try library("A-\(tag)"), b = try library("B-\(tag)")
        try setUp(a)
        let cs = try export(a)
        let db = try Database(path: cs + "/changeset.sqlite")
        try db.execute("PRAGMA journal_mode = DELETE")
        try db.run("UPDATE entry SET value = ? WHERE entity = ? AND attribute = ?", [stored, entity, attribute])
        XCTAssertEqual(try db.scalarInt("SELECT changes()"), 1, line: line)
        let dump = try LibrarySnapshot.dumpCatalog(b.root)
        let (code, message) = status { _ = try b.applyChangeset(at: cs) }
        XCTAssertEqual(code, .refused, message, line: line)
        XCTAssertTrue(message.contains("\(attribute) \(why)"), message, line: line)
        XCTAssertEqual(try LibrarySnapshot.dumpCatalog(b.root), dump, line: line)
    }

    func testDecomposedTagNameIsRefused() throws {
        try assertEntryRefused(
            { _ = try importPhotos($0, count: 1, tags: ["Cafe"]) }, entity: "Tag", attribute: "name",
            stored: "Cafe\u{301}", "is not a normalized tag name", tag: "tag-nfd")
    }

    func testDecomposedParticipantEmailIsRefused() throws {
        try assertEntryRefused(
            { a in
                let shared = try importPhotos(a, count: 1)
                let share = try a.createShare(photos: [try a.resolvePhoto(shared[0])], author: .default)
                try a.invite(try Email(parsing: "jose@example.org"), to: share, author: .default)
            }, entity: "Participant", attribute: "email", stored: "jose\u{301}@example.org",
            "is not a lower-case, NFC e-mail address", tag: "email-nfd")
    }

    func testEmailsAreStoredInNFC() throws {
        XCTAssertEqual(
            Array(try Email(parsing: "Jose\u{301}@Example.org").rawValue.unicodeScalars),
            Array("jos\u{e9}@example.org".unicodeScalars))
    }

    func testAnNFCAuthorOf200BytesIsApplied() throws {
        let author = String(repeating: "é", count: 100)
        let (b, cs) = try changeset(storing: author, tag: "ok")
        _ = try b.applyChangeset(at: cs)
        XCTAssertEqual(try b.catalog.scalarString("SELECT author FROM rating"), author)
        XCTAssertEqual(try b.catalog.scalarInt("SELECT value FROM rating"), 4)
    }
}
