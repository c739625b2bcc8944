import Foundation
import XCTest
import PhotosTestSupport
@testable import PhotosCLI
import PhotosSQLite

/// Issue 9 item 7 (variant): the author of a history transaction is one printable name.
/// `--author $'a\nb'` or a `$PHOTOS_AUTHOR` with an escape sequence were stored as given and
/// printed raw by `photos history` (a forged second line, terminal escapes); now 64, nothing
/// recorded, as tag names with control characters are refused.
final class AuthorPrintableNameTests: TemporaryFolderTestCase {
    override var label: String { "photos-i9-author" }
    var lib: String { dir + "/lib" }

    func testControlCharactersInAuthorAreRefused() throws {
        XCTAssertEqual(photos(["--library", lib, "import", "-q", samplesDir + "/storm.jpg"]).status, 0)
        let d = try TestCatalog(root: lib)
        let photo = try XCTUnwrap(try d.scalarString("SELECT unique_name FROM photo"))
        for author in ["a\nb", "x\u{1B}[31my", "tab\there", "nul\u{0}"] {
            let r = photos(["--library", lib, "--author", author, "rate", photo, "3"])
            XCTAssertEqual(r.status, 64, author.debugDescription)
            XCTAssertTrue(r.stderr.contains("--author must not contain control characters"), r.stderr)
            let e = photos(["--library", lib, "rate", photo, "3"], env: ["PHOTOS_AUTHOR": author])
            XCTAssertEqual(e.status, 64, author.debugDescription)
            XCTAssertTrue(e.stderr.contains("$PHOTOS_AUTHOR must not contain control characters"), e.stderr)
        }
        XCTAssertEqual(try d.scalarInt("SELECT count(*) FROM rating"), 0)
        XCTAssertEqual(try d.scalarInt("SELECT count(*) FROM history_transaction"), 1)
        // Printable names, any script, are fine; on `history` --author is the filter.
        XCTAssertEqual(photos(["--library", lib, "--author", "Zoë 写真", "rate", photo, "3"]).status, 0)
        XCTAssertEqual(
            try d.scalarString("SELECT author FROM history_transaction ORDER BY token DESC LIMIT 1"), "Zoë 写真")
        XCTAssertEqual(photos(["--library", lib, "history", "--author", "Zoë 写真"]).status, 0)
    }
}
