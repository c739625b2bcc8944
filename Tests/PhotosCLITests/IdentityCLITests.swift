import Foundation
import PhotosTestSupport
import XCTest

/// Issue #29 item 1 through the binary, on the backend of the run: `identity set/show/clear`,
/// a bad address (64, naming the argument), `--owner` and `$PHOTOS_OWNER` for a run, the
/// authors `history` and `rating list` show, the ratings of `list --json`/`show --json` with
/// their authors, and the issue's scenario with default settings.
final class IdentityCLITests: BinaryTestCase {
    override var label: String { "photos-identity" }

    /// Runs the binary on `lib` with this process's environment less `PHOTOS_AUTHOR` and
    /// `PHOTOS_OWNER`, plus `env`.
    private func photos(_ lib: String, _ args: [String], env: [String: String] = [:]) throws -> (
        status: Int32, stdout: String, stderr: String
    ) {
        var environment = ProcessInfo.processInfo.environment
        environment["PHOTOS_AUTHOR"] = nil
        environment["PHOTOS_OWNER"] = nil
        environment.merge(env) { $1 }
        return try runProcess(try binary(), ["--library", lib] + args, environment: environment)
    }

    @discardableResult
    private func ok(
        _ lib: String, _ args: [String], env: [String: String] = [:], file: StaticString = #filePath, line: UInt = #line
    ) throws -> String {
        let r = try photos(lib, args, env: env)
        XCTAssertEqual(r.status, 0, "\(args): \(r.stderr)", file: file, line: line)
        return r.stdout
    }

    /// `history --json`: each transaction as `author context`, oldest first.
    private func historyAuthors(_ lib: String) throws -> [String] {
        try ok(lib, ["history", "--json"]).split(separator: "\n").map { line in
            let t = try json(String(line))
            return "\(t["author"] as? String ?? "?") \(t["context"] as? String ?? "?")"
        }
    }

    func testSetShowClearAndBadInput() throws {
        let lib = dir + "/lib"
        try ok(lib, ["init"])
        XCTAssertEqual(
            try ok(lib, ["identity", "show"]), "owner: none (changes in this library's own zones are authored photos)\n"
        )
        XCTAssertEqual(
            try json(try ok(lib, ["identity", "show", "--json"])) as NSDictionary,
            ["owner": NSNull(), "source": NSNull(), "recorded": NSNull(), "shares": [Any]()] as NSDictionary)
        XCTAssertEqual(
            try ok(lib, ["identity", "set", "  Owner@Example.ORG "]),
            "The library's owner address is now owner@example.org (was none)\n")
        XCTAssertEqual(
            try ok(lib, ["identity", "show"]), "owner: owner@example.org (recorded by 'photos identity set')\n")
        let replaced = try json(try ok(lib, ["identity", "set", "o2@example.org", "--json"]))
        XCTAssertEqual(replaced["owner"] as? String, "o2@example.org")
        XCTAssertEqual(replaced["previous"] as? String, "owner@example.org")

        // Bad addresses: 64, naming the argument, nothing recorded.
        let long = String(repeating: "a", count: 250) + "@b.cd"
        for (bad, says) in [
            ("nobody", "must contain exactly one @"), ("a@b@c", "must contain exactly one @"),
            ("@example.org", "needs a name before and a domain after the @"),
            ("ann\u{7}@example.org", "contains spaces or control characters"),
            ("ann smith@example.org", "contains spaces or control characters"), (long, "is longer than 254 bytes (255)")
        ] {
            let r = try photos(lib, ["identity", "set", bad])
            XCTAssertEqual(r.status, 64, bad)
            XCTAssertTrue(r.stderr.contains("error: <email> e-mail address"), r.stderr)
            XCTAssertTrue(r.stderr.contains(says), r.stderr)
            XCTAssertFalse(r.stderr.contains("\u{7}"), "no control character echoed")
        }
        let missing = try photos(lib, ["identity", "set"])
        XCTAssertEqual(missing.status, 64)
        XCTAssertTrue(missing.stderr.contains("missing argument <email>"), missing.stderr)
        XCTAssertEqual(try json(try ok(lib, ["identity", "show", "--json"]))["recorded"] as? String, "o2@example.org")

        let badOwner = try photos(lib, ["--owner", "x", "identity", "show"])
        XCTAssertEqual(badOwner.status, 64)
        XCTAssertTrue(
            badOwner.stderr.contains("--owner e-mail address \"x\" must contain exactly one @"), badOwner.stderr)
        let badEnvironment = try photos(lib, ["list"], env: ["PHOTOS_OWNER": "x@y@z"])
        XCTAssertEqual(badEnvironment.status, 64)
        XCTAssertTrue(
            badEnvironment.stderr.contains("$PHOTOS_OWNER e-mail address \"x@y@z\" must contain exactly one @"),
            badEnvironment.stderr)

        XCTAssertEqual(try ok(lib, ["identity", "clear"]), "Removed the owner address o2@example.org\n")
        XCTAssertEqual(try ok(lib, ["identity", "clear"]), "No owner address was recorded; nothing changed\n")
        let cleared = try json(try ok(lib, ["identity", "clear", "--json"]))
        XCTAssertEqual(cleared["cleared"] as? Bool, false)
        XCTAssertTrue(cleared["previous"] is NSNull)
    }

    /// The owner address authors the library's changes; `--owner` and `$PHOTOS_OWNER` replace it
    /// for a run (`--owner` wins); `--author`/`$PHOTOS_AUTHOR` still win over both; `history`,
    /// `rating list`, `show` and `list --json` show who.
    func testOwnerAuthorsChangesAndOverridesForARun() throws {
        let lib = dir + "/lib"
        try ok(lib, ["import", "-q", samplesDir + "/storm.jpg"])
        let storm = try XCTUnwrap(RatingsJSONTestsSupport.uniqueName(try ok(lib, ["list", "--json"])))
        try ok(lib, ["rate", storm, "1"])
        try ok(lib, ["identity", "set", "owner@example.org"])
        XCTAssertEqual(
            try ok(lib, ["rate", storm, "4"]),
            "Rated \(storm) 4 by owner@example.org (rating id 2; the photo's rating is now 3)\n")
        try ok(lib, ["rate", storm, "2"], env: ["PHOTOS_OWNER": "env@example.org"])
        try ok(lib, ["--owner", "flag@example.org", "rate", storm, "5"], env: ["PHOTOS_OWNER": "env@example.org"])
        try ok(lib, ["rate", storm, "3", "--owner", "after@example.org"])
        try ok(lib, ["rate", storm, "3", "--author", "carol"], env: ["PHOTOS_OWNER": "env@example.org"])
        try ok(lib, ["rate", storm, "1"], env: ["PHOTOS_AUTHOR": "dan", "PHOTOS_OWNER": "env@example.org"])
        XCTAssertEqual(
            try json(try ok(lib, ["identity", "show", "--json"], env: ["PHOTOS_OWNER": "env@example.org"]))["source"]
                as? String, "$PHOTOS_OWNER")
        XCTAssertEqual(
            try ok(lib, ["--owner", "flag@example.org", "identity", "show"]), "owner: flag@example.org (--owner)\n")

        XCTAssertEqual(
            try historyAuthors(lib),
            [
                "photos import", "photos rate", "owner@example.org rate", "env@example.org rate",
                "flag@example.org rate", "after@example.org rate", "carol rate", "dan rate"
            ])
        let text = try ok(lib, ["history", "-n", "1", "--reverse"])
        XCTAssertTrue(text.contains("  author dan  context rate"), text)

        // Ratings made before the identity keep their author: photos.
        XCTAssertEqual(
            try ok(lib, ["rating", "list", storm]),
            """
            ID      VALUE  AUTHOR
            1       1      photos
            2       4      owner@example.org
            3       2      env@example.org
            4       5      flag@example.org
            5       3      after@example.org
            6       3      carol
            7       1      dan

            """)
        let show = try ok(lib, ["show", storm])
        XCTAssertTrue(show.contains("rating:      3 (the mean of 7, rounded half up)\n"), show)
        XCTAssertTrue(
            show.contains(
                "ratings:     photos 1, owner@example.org 4, env@example.org 2, flag@example.org 5, after@example.org 3, carol 3, dan 1\n"
            ), show)
        let listed = try json(try ok(lib, ["list", "--json"]))
        XCTAssertEqual(
            RatingsJSON.byAuthor(listed),
            [
                "photos=1", "owner@example.org=4", "env@example.org=2", "flag@example.org=5", "after@example.org=3",
                "carol=3", "dan=1"
            ])
        let shown = try json(try ok(lib, ["show", storm, "--json"]))
        XCTAssertEqual(RatingsJSON.byAuthor(shown), RatingsJSON.byAuthor(listed))
        XCTAssertEqual(shown["rating"] as? Int, 3)

        // share create records the owner participant for the one resolution (the recorded one here).
        let share = try json(try ok(lib, ["share", "create", storm, "--title", "Trip", "--json"]))
        let id = try XCTUnwrap(share["id"] as? String)
        XCTAssertTrue(try ok(lib, ["share", "show", id]).contains("owner@example.org"))
    }

    /// The issue's scenario with default settings on each side: the owner (`identity set
    /// owner@example.org`) shares a photo with ann (read-write) and bea (read-only), each library
    /// accepts as its participant; the owner rates 4, ann rates 5; changesets go both ways: every
    /// library lists owner@example.org=4 and ann@example.org=5, mean 5.
    func testThreeLibrariesWithDefaultSettings() throws {
        let owner = dir + "/owner", ann = dir + "/ann", bea = dir + "/bea"
        XCTAssertEqual(try photos(owner, ["identity", "set", "owner@example.org"]).status, 66, "no library yet")
        try ok(owner, ["init"])
        try ok(owner, ["identity", "set", "owner@example.org"])
        try ok(owner, ["import", "-q", samplesDir + "/storm.jpg"])
        let storm = try XCTUnwrap(RatingsJSONTestsSupport.uniqueName(try ok(owner, ["list", "--json"])))
        let share = try XCTUnwrap(try json(try ok(owner, ["share", "create", storm, "--json"]))["id"] as? String)
        try ok(owner, ["share", "invite", share, "ann@example.org", "--permission", "read-write"])
        try ok(owner, ["share", "invite", share, "bea@example.org", "--permission", "read-only"])
        try ok(owner, ["share", "export", share, "--for", "ann@example.org", "-o", dir + "/to-ann-1"])
        try ok(ann, ["share", "accept", dir + "/to-ann-1"])
        try ok(owner, ["share", "export", share, "--for", "bea@example.org", "-o", dir + "/to-bea-1"])
        try ok(bea, ["share", "accept", dir + "/to-bea-1"])
        XCTAssertEqual(
            try ok(ann, ["identity", "show"]),
            "owner: none (changes in this library's own zones are authored photos)\nshare \(share): ann@example.org\n")

        try ok(owner, ["rate", storm, "4"])
        XCTAssertEqual(
            try ok(ann, ["rate", storm, "5"]),
            "Rated \(storm) 5 by ann@example.org (rating id 1; the photo's rating is now 5)\n")
        try ok(ann, ["share", "export", share, "-o", dir + "/to-owner"])
        try ok(owner, ["sync", "--apply", dir + "/to-owner"])
        try ok(owner, ["share", "export", share, "--for", "ann@example.org", "-o", dir + "/to-ann-2"])
        try ok(ann, ["sync", "--apply", dir + "/to-ann-2"])
        try ok(owner, ["share", "export", share, "--for", "bea@example.org", "-o", dir + "/to-bea-2"])
        try ok(bea, ["sync", "--apply", dir + "/to-bea-2"])

        for lib in [owner, ann, bea] {
            let photo = try json(try ok(lib, ["show", storm, "--json"]))
            XCTAssertEqual(RatingsJSON.byAuthor(photo)?.sorted(), ["ann@example.org=5", "owner@example.org=4"], lib)
            XCTAssertEqual(photo["rating"] as? Int, 5, "mean 4.5 rounded half up: \(lib)")
            let list = try ok(lib, ["rating", "list", storm])
            XCTAssertTrue(list.contains("owner@example.org") && list.contains("ann@example.org"), list)
        }
        XCTAssertTrue(try historyAuthors(owner).contains("owner@example.org rate"))
        XCTAssertTrue(try historyAuthors(ann).contains("ann@example.org rate"))
        for lib in [owner, ann, bea] { try ok(lib, ["verify", "--quick"]) }
    }
}

/// Reading the one photo of a `list --json` output.
enum RatingsJSONTestsSupport {
    /// The uniqueName of the first line of `list --json`, nil when there is none.
    static func uniqueName(_ listOutput: String) -> String? {
        guard let line = listOutput.split(separator: "\n").first,
            let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        else { return nil }
        return object["uniqueName"] as? String
    }
}
