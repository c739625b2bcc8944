import Foundation
import XCTest
import PhotosTestSupport
@testable import PhotosCLI
import PhotosSQLite

final class MaintenanceCLITests: TemporaryFolderTestCase {
    override var label: String { "photos-maint-cli" }
    var lib: String { dir + "/lib" }

    func testHistoryJSONLinesConsumerAdvanceAndAuthorFilterShadowsTheGlobalOption() throws {
        XCTAssertEqual(
            photos(["--library", lib, "import", "-q", "--author", "alice", samplesDir + "/storm.jpg"]).status, 0)
        XCTAssertEqual(photos(["--library", lib, "import", "-q", samplesDir + "/ladybird.jpg"]).status, 0)
        let all = photos(["--library", lib, "history", "--json"])
        XCTAssertEqual(all.status, 0)
        let lines = all.stdout.split(separator: "\n")
        XCTAssertEqual(lines.count, 2)
        let first = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
        XCTAssertEqual(Set(first.keys), ["token", "timestamp", "author", "context", "changes"])
        XCTAssertEqual(first["author"] as? String, "alice")
        let change = try XCTUnwrap((first["changes"] as? [[String: Any]])?.first)
        XCTAssertEqual(change["entity"] as? String, "Photo")
        XCTAssertEqual(change["type"] as? String, "insert")
        // --author after `history` is the filter; before the command name it is the global option.
        XCTAssertEqual(
            photos(["--library", lib, "history", "--author", "alice", "--json"]).stdout.split(separator: "\n").count, 1)
        XCTAssertEqual(
            photos(["--library", lib, "--author", "alice", "history", "--json"]).stdout.split(separator: "\n").count, 2)
        XCTAssertEqual(
            photos(["--library", lib, "history", "--exclude-author", "alice", "--json"]).stdout.split(separator: "\n")
                .count, 1)
        XCTAssertEqual(
            photos(["--library", lib, "history", "--entity", "Tag", "--json"]).stdout.split(separator: "\n").count, 1,
            "only the sidecar's tags")
        // A consumer sees each transaction once.
        XCTAssertEqual(
            photos(["--library", lib, "history", "--consumer", "backup", "--advance", "--json"]).stdout.split(
                separator: "\n"
            ).count, 2)
        XCTAssertEqual(photos(["--library", lib, "history", "--consumer", "backup", "--advance", "--json"]).stdout, "")
        XCTAssertEqual(photos(["--library", lib, "history", "consumers"]).stdout, "NAME    TOKEN\nbackup  2\n")
        // A consumer whose unread history was compacted away (with --force) is warned.
        XCTAssertEqual(photos(["--library", lib, "import", "-q", samplesDir + "/kite.png"]).status, 0)
        XCTAssertEqual(
            photos(["--library", lib, "history", "compact", "--before-token", "99", "--force", "-q"]).status, 0)
        let expired = photos(["--library", lib, "history", "--consumer", "backup", "--json"])
        XCTAssertEqual(expired.status, 0)
        XCTAssertEqual(expired.stdout, "")
        XCTAssertTrue(
            expired.stderr.contains(
                "warning: transactions after token 2 were compacted before consumer 'backup' read them"), expired.stderr
        )
        XCTAssertEqual(
            photos(["--library", lib, "history", "--consumer", "fresh", "--json"]).stderr, "",
            "a consumer not registered yet is not warned: it starts from what is there")
        XCTAssertEqual(photos(["--library", lib, "history", "--advance"]).status, 64)
        XCTAssertEqual(photos(["--library", lib, "history", "--since", "x"]).status, 64)
    }

    func testCompactPurgeDedupeExitCodesAndJSON() throws {
        XCTAssertEqual(photos(["--library", lib, "import", "-q", samplesDir]).status, 0)
        XCTAssertEqual(photos(["--library", lib, "history", "compact"]).status, 64, "needs a cut-off")
        XCTAssertEqual(
            photos(["--library", lib, "history", "compact", "--keep-days", "1", "--before-token", "3"]).status, 64)
        let compact = photos(["--library", lib, "--json", "history", "compact", "--before-token", "99", "--dry-run"])
        XCTAssertEqual(compact.status, 0)
        XCTAssertTrue(compact.stdout.hasPrefix("{\"transactions\":1,"), compact.stdout)
        XCTAssertEqual(photos(["--library", lib, "purge"]).status, 64, "needs --share")
        let unknown = photos(["--library", lib, "purge", "--share", "nope-nope"])
        XCTAssertEqual(unknown.status, 66)
        XCTAssertTrue(unknown.stderr.contains("no share or zone 'nope-nope'"), unknown.stderr)
        XCTAssertEqual(photos(["--library", lib, "purge", "--share", "default"]).status, 64)
        let dedupe = photos(["--library", lib, "--json", "dedupe-tags", "--all"])
        XCTAssertEqual(
            dedupe.stdout,
            "{\"groups\":0,\"merged\":0,\"photosRelinked\":0,\"dryRun\":false,\"details\":[],\"leftToOwners\":[]}\n")
        XCTAssertEqual(
            photos(["--library", lib, "--quiet", "dedupe-tags"]).stdout, "", "--quiet prints nothing on success")
        let stats = photos(["--library", lib, "--json", "stats"])
        XCTAssertTrue(stats.stdout.hasPrefix("{\"photos\":6,"), stats.stdout)
        XCTAssertEqual(photos(["--library", lib, "merge", "--from", dir + "/none"]).status, 66)
        XCTAssertEqual(photos(["--library", lib, "merge", "--from", lib]).status, 64)
    }

    /// Tombstones list their keys in the order they were written, whatever the values hold.
    func testTombstoneKeysKeepTheirOrder() throws {
        XCTAssertEqual(photos(["--library", lib, "import", "-q", samplesDir + "/storm.jpg"]).status, 0)
        let name = try XCTUnwrap(
            photos(["--library", lib, "list", "--json"]).stdout.split(separator: "\"").dropFirst(3).first.map(
                String.init))
        let tag = "a \"uuid\": b"
        XCTAssertEqual(photos(["--library", lib, "tag", "add", tag, name]).status, 0)
        XCTAssertEqual(photos(["--library", lib, "tag", "delete", tag]).status, 0)
        let history = photos(["--library", lib, "history", "--entity", "Tag", "--json"]).stdout
        XCTAssertTrue(history.contains(#""tombstone":{"name":"a \"uuid\": b","uuid":""#), history)
    }
}
