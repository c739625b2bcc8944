import Foundation
import XCTest
import PhotosTestSupport
@testable import PhotosCLI

/// Help wrapped to the terminal width ($COLUMNS, default 80), no empty OPTIONS heading,
/// required options shown as required, EXAMPLES on the main commands (issue 14 item 7), and
/// typo suggestions and errors that name the missing argument (item 6). Run with the binary.
final class HelpLayoutAndSuggestionTests: BinaryTestCase {
    override var label: String { "photos-help-layout" }

    func photos(_ args: [String], columns: Int?) throws -> (status: Int32, stdout: String, stderr: String) {
        var environment = ProcessInfo.processInfo.environment
        environment["COLUMNS"] = columns.map(String.init)
        return try runProcess(try binary(), args, environment: environment)
    }

    /// `rate --help` up to the global options (which other commands' work may extend), at 80
    /// and at 120 columns.
    func testRateHelpSnapshotsAt80And120Columns() throws {
        let at80 = try photos(["rate", "--help"], columns: 80)
        XCTAssertEqual(at80.status, 0)
        XCTAssertEqual(
            String(try XCTUnwrap(at80.stdout.components(separatedBy: "GLOBAL OPTIONS:").first)),
            """
            OVERVIEW: Set your rating (1 to 5) of a photo, or remove it with --clear.

            A photo keeps one rating per author (the history author: --author, else
            $PHOTOS_AUTHOR, else photos): rating it again replaces your earlier rating,
            --clear removes it, and other authors' ratings stay. Ratings from before ratings
            had authors, and those read from XMP sidecars on import, are anonymous: they
            stay and count. The photo's rating in list and show is the mean of all its
            ratings, rounded half up. A value that is not a whole number from 1 to 5 exits
            64. Several photos (or - for uniqueNames on stdin) before the value are rated in
            one transaction, recorded as one history transaction; every photo is resolved
            first, and if one is unknown or ambiguous nothing changes. --clear takes one
            photo.

            USAGE: photos rate [<options>] <photo-and-value> ...

            ARGUMENTS:
              <photo-and-value>           The photos (uniqueNames or prefixes; - reads them
                                          from stdin), then a whole number from 1 to 5 (no
                                          value with --clear).

            OPTIONS:
              --clear                     Remove your rating of the photo instead of setting
                                          one.


            """)
        XCTAssertTrue(
            at80.stdout.hasSuffix(
                "\nEXAMPLES:\n  photos rate 3f2a 5\n  photos rate 3f2a 9b1c 4\n"
                    + "  photos list --tag best --json | jq -r .uniqueName | photos rate - 5\n"
                    + "  photos --author alice rate 3f2a 4\n  photos rate 3f2a --clear\n"),
            at80.stdout)
        let at120 = try photos(["rate", "--help"], columns: 120)
        XCTAssertEqual(
            String(try XCTUnwrap(at120.stdout.components(separatedBy: "GLOBAL OPTIONS:").first)),
            """
            OVERVIEW: Set your rating (1 to 5) of a photo, or remove it with --clear.

            A photo keeps one rating per author (the history author: --author, else $PHOTOS_AUTHOR, else photos): rating it again
            replaces your earlier rating, --clear removes it, and other authors' ratings stay. Ratings from before ratings had
            authors, and those read from XMP sidecars on import, are anonymous: they stay and count. The photo's rating in list and
            show is the mean of all its ratings, rounded half up. A value that is not a whole number from 1 to 5 exits 64. Several
            photos (or - for uniqueNames on stdin) before the value are rated in one transaction, recorded as one history
            transaction; every photo is resolved first, and if one is unknown or ambiguous nothing changes. --clear takes one photo.

            USAGE: photos rate [<options>] <photo-and-value> ...

            ARGUMENTS:
              <photo-and-value>           The photos (uniqueNames or prefixes; - reads them from stdin), then a whole number from 1
                                          to 5 (no value with --clear).

            OPTIONS:
              --clear                     Remove your rating of the photo instead of setting one.


            """)
        // Without $COLUMNS (and not on a terminal) help is 80 columns wide.
        XCTAssertEqual(try photos(["rate", "--help"], columns: nil).stdout, at80.stdout)
    }

    /// Every command's help, and the main help, fits the width (a word longer than a line
    /// stands alone), has no empty OPTIONS heading, and says which options are required.
    func testEveryHelpFitsTheWidthWithoutEmptyHeadings() throws {
        let commands = Registry.commands.map(\.path)
        for columns in [80, 120] {
            for path in [["--help"]] + commands.map({ ["help"] + $0 }) {
                let help = try photos(path, columns: columns)
                XCTAssertEqual(help.status, 0, "\(path)")
                for line in help.stdout.split(separator: "\n") where TerminalText.width(String(line)) > columns {
                    XCTAssertFalse(
                        line.trimmingCharacters(in: .whitespaces).contains(" "), "\(path) at \(columns): '\(line)'")
                }
                XCTAssertFalse(help.stdout.contains("OPTIONS:\n\n"), "\(path): an empty OPTIONS heading")
            }
        }
        let schema = try photos(["schema", "--help"], columns: 80)
        XCTAssertFalse(schema.stdout.contains("\nOPTIONS:"), schema.stdout)
        XCTAssertTrue(schema.stdout.contains("\nGLOBAL OPTIONS:"), schema.stdout)
        let thumbnail = try photos(["thumbnail", "--help"], columns: 80)
        XCTAssertTrue(thumbnail.stdout.contains("USAGE: photos thumbnail --output <file> <photo>\n"), thumbnail.stdout)
        XCTAssertTrue(
            thumbnail.stdout.contains(
                "  -o, --output <file>         Where to write the JPEG; - writes to stdout.\n"
                    + String(repeating: " ", count: 30) + "(required)\n"), thumbnail.stdout)
        for command in [["import"], ["list"], ["show"], ["export"], ["tag", "add"], ["verify"], ["history"]] {
            let help = try photos(["help"] + command, columns: 80)
            XCTAssertTrue(help.stdout.contains("\nEXAMPLES:\n  photos "), "\(command): \(help.stdout)")
        }
        XCTAssertTrue(try photos(["--help"], columns: 80).stdout.contains("\nEXAMPLES:\n"))
    }

    func testTypoSuggestionsAndMissingArgumentsAreNamed() throws {
        let cases: [([String], String)] = [
            (["imprt", "x"], "photos: error: unknown command 'imprt'. Did you mean 'import'?\n"),
            (["verif"], "photos: error: unknown command 'verif'. Did you mean 'verify'?\n"),
            (["tag", "ad", "x", "y"], "photos: error: unknown subcommand 'tag ad'. Did you mean 'tag add'?\n"),
            (["histroy"], "photos: error: unknown command 'histroy'. Did you mean 'history'?\n"),
            (["list", "--sahre", "x"], "photos list: error: unknown option '--sahre'. Did you mean '--share'?\n"),
            (
                ["export", "d", "--templte", "x"],
                "photos export: error: unknown option '--templte'. Did you mean '--template'?\n"
            ),
            (["--lbrary", "x", "list"], "photos: error: unknown option '--lbrary'. Did you mean '--library'?\n"),
            (["xyzzy"], "photos: error: unknown command 'xyzzy'\n"),
            (["list", "--tag"], "photos list: error: missing value for option '--tag' (NAME)\n"),
            (["tag", "add", "x"], "photos tag add: error: missing argument <photo>\n"),
            (["import"], "photos import: error: missing argument <path>\n"),
            (["thumbnail", "abcd"], "photos thumbnail: error: missing option --output <file>\n")
        ]
        for (args, first) in cases {
            let result = try photos(args, columns: 80)
            XCTAssertEqual(result.status, 64, "\(args)")
            XCTAssertTrue(result.stderr.hasPrefix(first), "\(args): \(result.stderr)")
            XCTAssertEqual(result.stdout, "", "\(args)")
        }
        // Issue 32 item 8: `help tag` and `tag bogus` show the tag family's usage, as `tag` does.
        for family in ["tag", "share", "rating", "catalog"] {
            let help = try photos(["help", family], columns: 80)
            XCTAssertEqual(help.status, 0, "\(family): \(help.stderr)")
            XCTAssertTrue(help.stdout.hasPrefix("USAGE: photos \(family) <subcommand>"), "\(family): \(help.stdout)")
            XCTAssertEqual(help.stdout, try photos([family, "--help"], columns: 80).stdout)
            let bogus = try photos([family, "bogus"], columns: 80)
            XCTAssertEqual(bogus.status, 64)
            XCTAssertTrue(
                bogus.stderr.hasPrefix(
                    "photos: error: unknown subcommand '\(family) bogus'\n\nUSAGE: photos \(family) <subcommand>"),
                "\(family): \(bogus.stderr)")
            XCTAssertEqual(bogus.stdout, "")
        }
        XCTAssertEqual(try photos(["help", "nosuch"], columns: 80).status, 64)
        XCTAssertEqual(Suggestions.editDistance("imprt", "import"), 1)
        XCTAssertEqual(Suggestions.editDistance("lsit", "list"), 1, "a transposition costs 1")
        XCTAssertEqual(Suggestions.nearest("zzzzzz", among: ["import", "list"]), [])
    }
}
