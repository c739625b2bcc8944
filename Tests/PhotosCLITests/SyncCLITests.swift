import Foundation
import PhotosTestSupport
import PhotosCore
import XCTest

@testable import PhotosCLI

/// `photos sync` from the shell and the library id of `stats` (issue 11): exit statuses,
/// messages, `--json` shapes.
final class SyncCLITests: TemporaryFolderTestCase {
    override var label: String { "photos-sync-cli" }

    func json(_ text: String) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], text)
    }

    func testStatsShowsTheLibraryID() throws {
        let lib = dir + "/a"
        XCTAssertEqual(photos(["--library", lib, "init", "-q"]).status, 0)
        let stats = photos(["--library", lib, "stats", "--json"])
        let id = try XCTUnwrap(try json(stats.stdout)["libraryId"] as? String)
        XCTAssertEqual(id.count, 36)
        XCTAssertTrue(photos(["--library", lib, "stats"]).stdout.hasPrefix("library id:    \(id)\n"))
        XCTAssertEqual(try json(photos(["--library", lib, "stats", "--json"]).stdout)["libraryId"] as? String, id)
    }

    func testExportApplyFromAndGapFromTheShell() throws {
        let a = dir + "/a", b = dir + "/b"
        XCTAssertEqual(photos(["--library", a, "import", "-q", "--tag", "Trip", samplesDir + "/storm.jpg"]).status, 0)
        XCTAssertEqual(photos(["--library", b, "init", "-q"]).status, 0)
        let bID = try XCTUnwrap(try json(photos(["--library", b, "stats", "--json"]).stdout)["libraryId"] as? String)
        let first = photos(["--library", a, "--json", "sync", "--export", dir + "/cs1", "--since-peer", bID])
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertEqual(try json(first.stdout)["originals"] as? Int, 1)
        XCTAssertEqual(photos(["--library", a, "sync", "--export", dir + "/cs1"]).status, 73)
        XCTAssertEqual(photos(["--library", a, "import", "-q", samplesDir + "/path.jpg"]).status, 0)
        let aID = try XCTUnwrap(try json(first.stdout)["sender"] as? String)
        // A changeset after token 1, while b has applied nothing from a: refused, the range named.
        let firstToken = try XCTUnwrap(try json(first.stdout)["toToken"] as? Int)
        let later = photos(["--library", a, "--json", "sync", "--export", dir + "/cs2", "--since", "\(firstToken)"])
        XCTAssertEqual(later.status, 0, later.stderr)
        let gap = photos(["--library", b, "sync", "--apply", dir + "/cs2"])
        XCTAssertEqual(gap.status, 65)
        XCTAssertTrue(gap.stderr.contains("changes 1…\(firstToken) are missing"), gap.stderr)
        XCTAssertTrue(gap.stderr.contains(aID), gap.stderr)
        let applied = photos(["--library", b, "--json", "sync", "--apply", dir + "/cs1"])
        XCTAssertEqual(applied.status, 0, applied.stderr)
        XCTAssertEqual(try json(applied.stdout)["inserted"] as? Int, 2) // the photo and its tag
        XCTAssertEqual(photos(["--library", b, "sync", "--apply", dir + "/cs2"]).status, 0)
        // b now tells a what it has: a's next export for b starts after it.
        XCTAssertEqual(photos(["--library", b, "rate", "-q", try firstPhoto(b), "5"]).status, 0)
        XCTAssertEqual(photos(["--library", a, "sync", "--from", b, "-q"]).status, 0)
        let next = photos(["--library", a, "--json", "sync", "--export", dir + "/cs3", "--since-peer", bID])
        XCTAssertEqual(try json(next.stdout)["originals"] as? Int, 0, next.stdout)
        XCTAssertEqual(photos(["--library", a, "list"]).stdout, photos(["--library", b, "list"]).stdout)
    }

    func firstPhoto(_ lib: String) throws -> String {
        let list = photos(["--library", lib, "list", "--json"]).stdout.split(separator: "\n")
        return try XCTUnwrap(try json(String(try XCTUnwrap(list.first)))["uniqueName"] as? String)
    }

    func testEverySyncErrorKindHasItsExitStatus() {
        let expected: [(SyncError.Kind, ExitStatus)] = [
            (.noChangeset, .noInput), (.refused, .dataError), (.notPermitted, .noPermission),
            (.cannotCreate, .cantCreate), (.cannotWrite, .ioError), (.misuse, .usage), (.notConfigured, .software)
        ]
        for (kind, status) in expected {
            for error in [SyncError(kind, "m"), LibraryError.wrap(SyncError(kind, "m"), library: "/l")] {
                let report = ErrorReporting.report(for: error, libraryPath: "/l")
                XCTAssertEqual(report.status, status, "\(kind)")
                XCTAssertEqual(report.message, "m")
            }
        }
    }

    func testUsageErrors() {
        let lib = dir + "/a"
        XCTAssertEqual(photos(["--library", lib, "init", "-q"]).status, 0)
        XCTAssertEqual(photos(["--library", lib, "sync"]).status, 64)
        XCTAssertEqual(photos(["--library", lib, "sync", "--apply", "x", "--export", "y"]).status, 64)
        XCTAssertEqual(photos(["--library", lib, "sync", "--apply", "x", "--since", "3"]).status, 64)
        XCTAssertEqual(photos(["--library", lib, "sync", "--apply", dir + "/none"]).status, 66)
        XCTAssertEqual(photos(["--library", lib, "sync", "--from", dir + "/none"]).status, 66)
        XCTAssertTrue(photos(["sync", "--help"]).stdout.contains("--since-peer"))
    }
}
