import Foundation
import XCTest
import PhotosTestSupport
import PhotosSQLite

/// One person is one author: `--author` and `$PHOTOS_AUTHOR` are trimmed of white space and
/// put in Unicode Normalization Form C before they are recorded, so `rate` replaces the same
/// author's rating whether "é" came as one code point or as e + U+0301 (UAX #15), and a
/// `$PHOTOS_AUTHOR` of only spaces is unset (the default author) as an empty one is.
final class AuthorNameNormalizationTests: BinaryTestCase {
    override var label: String { "photos-author-normalization" }
    var lib: String { dir + "/lib" }
    var storm = ""

    override func setUpWithError() throws {
        try super.setUpWithError()
        let imported = try run(["--library", lib, "import", "-q", samplesDir + "/storm.jpg"])
        XCTAssertEqual(imported.status, 0, imported.stderr)
        storm = try XCTUnwrap(try db().scalarString("SELECT unique_name FROM photo WHERE display_name = 'storm.jpg'"))
    }

    func db() throws -> TestCatalog { try TestCatalog(root: lib, readOnly: true) }

    /// The rating rows as `author bytes in hex|value`, by id: NFC and NFD differ in bytes.
    func ratingRows() throws -> [String] {
        try db().statement("SELECT author, value FROM rating ORDER BY id").map {
            hex($0.string(0)) + "|" + $0.string(1)
        }
    }

    func rate(_ value: String, author: String? = nil, environment author2: String? = nil) throws -> (
        status: Int32, stdout: String, stderr: String
    ) {
        var environment = ProcessInfo.processInfo.environment
        environment["PHOTOS_AUTHOR"] = author2
        let args = ["--library", lib] + (author.map { ["--author", $0] } ?? []) + ["rate", storm, value]
        return try runProcess(try binary(), args, environment: environment)
    }

    let composed = "Ren\u{E9}e" // é as U+00E9
    let decomposed = "Rene\u{301}e" // e + COMBINING ACUTE ACCENT
    var composedHex: String { hex(composed) }

    /// The UTF-8 bytes of `text` in uppercase hex (read in Swift: the backends' hex functions differ).
    func hex(_ text: String) -> String { text.utf8.map { String(format: "%02X", $0) }.joined() }

    func testAnAuthorTypedDecomposedOrComposedIsOneAuthorWithOneRating() throws {
        XCTAssertEqual(try rate("2", author: decomposed).status, 0)
        XCTAssertEqual(try ratingRows(), ["\(composedHex)|2"], "stored in NFC")
        let again = try rate("4", author: composed)
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertTrue(again.stdout.contains("(was 2)"), again.stdout)
        XCTAssertEqual(try ratingRows(), ["\(composedHex)|4"])
        XCTAssertEqual(try rate("5", environment: decomposed + "  ").status, 0)
        XCTAssertEqual(try ratingRows(), ["\(composedHex)|5"])
        let cleared = try runProcess(
            try binary(), ["--library", lib, "--author", " " + decomposed, "rate", storm, "--clear"])
        XCTAssertEqual(cleared.status, 0, cleared.stderr)
        XCTAssertEqual(try ratingRows(), [])
        let authors = try db().statement("SELECT DISTINCT author FROM history_transaction WHERE context = 'rate'")
            .map { hex($0.string(0)) }
        XCTAssertEqual(authors, [composedHex], "history records the same author")
    }

    func testSurroundingSpacesAreNotPartOfTheAuthor() throws {
        XCTAssertEqual(try rate("2", author: "alice").status, 0)
        XCTAssertEqual(try rate("3", author: "  alice\t").status, 0)
        XCTAssertEqual(try rate("4", environment: "alice ").status, 0)
        XCTAssertEqual(try ratingRows(), ["616C696365|4"])
    }

    func testPhotosAuthorOfOnlySpacesIsTheDefaultAuthorAndBlankAuthorIsAUsageError() throws {
        XCTAssertEqual(try rate("3", environment: "   ").status, 0)
        XCTAssertEqual(try ratingRows(), ["70686F746F73|3"], "photos")
        let before = try LibrarySnapshot.dumpCatalog(lib)
        let blank = try rate("5", author: " \t ")
        XCTAssertEqual(blank.status, 64, blank.stderr)
        XCTAssertEqual(blank.stdout, "")
        XCTAssertEqual(try LibrarySnapshot.dumpCatalog(lib), before)
    }
}

/// An author holding a Unicode bidirectional control (UAX #9, e.g. U+202E) is refused with 64
/// as a control character is: `rate` and `history` print authors, and one would reorder the
/// line ("Trojan Source"). The message shows it as an escape, and nothing is written.
final class AuthorBidirectionalControlTests: BinaryTestCase {
    override var label: String { "photos-author-bidi" }
    var lib: String { dir + "/lib" }

    func testAnAuthorWithABidirectionalControlIsAUsageErrorAndWritesNothing() throws {
        XCTAssertEqual(try run(["--library", lib, "import", "-q", samplesDir + "/storm.jpg"]).status, 0)
        let listed = try run(["--library", lib, "--json", "list"]).stdout
        let photo = try JSONSerialization.jsonObject(with: Data(listed.utf8)) as? [String: Any]
        let storm = try XCTUnwrap(photo?["uniqueName"] as? String)
        let before = try LibrarySnapshot.dumpCatalog(lib)
        for scalar in ["\u{202E}", "\u{2066}", "\u{200F}", "\u{061C}"] {
            let author = "mal" + scalar + "lory"
            let given = try run(["--library", lib, "--author", author, "rate", storm, "2"])
            XCTAssertEqual(given.status, 64, given.stderr)
            XCTAssertTrue(given.stderr.contains("--author must not contain control characters"), given.stderr)
            XCTAssertFalse(given.stderr.contains(scalar), given.stderr)
            var environment = ProcessInfo.processInfo.environment
            environment["PHOTOS_AUTHOR"] = author
            let fromEnvironment = try runProcess(
                try binary(), ["--library", lib, "rate", storm, "2"], environment: environment)
            XCTAssertEqual(fromEnvironment.status, 64, fromEnvironment.stderr)
            XCTAssertEqual(fromEnvironment.stdout, "")
        }
        XCTAssertEqual(try LibrarySnapshot.dumpCatalog(lib), before)
    }
}
