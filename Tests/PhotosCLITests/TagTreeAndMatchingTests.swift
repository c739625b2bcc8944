import Foundation
import PhotosTestSupport
import XCTest

/// Issue 32 items 1 and 2: tags as a tree (`--tag` selects a branch, `--tag-exact` the one tag,
/// `tag rename` moves the branch, `tag list --tree` counts it, `tag delete` asks which) and one
/// rule for finding a tag by name (case and accents ignored) for filters and every mutation, on
/// the backend of the run (`PHOTOS_TEST_DATABASE_URL`).
final class TagTreeAndMatchingTests: TemporaryFolderTestCase {
    override var label: String { "photos-tag-tree" }
    var lib: String { dir + "/lib" }

    let smallUUID = "00000000-0000-4000-8000-000000000001"
    let largeUUID = "ffffffff-ffff-4fff-bfff-ffffffffffff"

    @discardableResult
    func ok(_ args: [String], file: StaticString = #filePath, line: UInt = #line) -> String {
        let r = photos(["--library", lib] + args)
        XCTAssertEqual(r.status, 0, "\(args): \(r.stderr)", file: file, line: line)
        return r.stdout
    }

    func run(_ args: [String]) -> RunResult { photos(["--library", lib] + args) }

    func jsonLines(_ text: String) throws -> [[String: Any]] {
        try text.split(separator: "\n").map {
            try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any], String($0))
        }
    }

    /// Imports three photos; returns their uniqueNames in the order storm, path, kite.
    func importThree() throws -> [String] {
        var names: [String] = []
        for file in ["storm.jpg", "path.jpg", "kite.png"] {
            ok(["import", "-q", samplesDir + "/" + file])
            let all = try jsonLines(ok(["list", "--json"])).compactMap { $0["uniqueName"] as? String }
            names.append(try XCTUnwrap(all.first { !names.contains($0) }))
        }
        return names
    }

    func listed(_ args: [String]) throws -> [String] {
        try jsonLines(ok(["list", "--json"] + args)).compactMap { $0["uniqueName"] as? String }.sorted()
    }

    /// Every tag as "name" with its photos' uniqueNames, sorted: `name: a b`.
    func links() throws -> [String] {
        try TestCatalog(root: lib).rows(
            """
            SELECT t.name, p.unique_name FROM tag t LEFT JOIN photo_tag pt ON pt.tag_id = t.id
            LEFT JOIN photo p ON p.id = pt.photo_id ORDER BY t.name, p.unique_name
            """
        ).map { "\($0[0] ?? ""): \($0[1] ?? "-")" }
    }

    /// A tag written straight into the catalog (the CLI makes no such twins), linked to `photos`.
    func insertTag(_ name: String, uuid: String, photos: [String]) throws {
        let catalog = try TestCatalog(root: lib)
        let tag = try catalog.insert("INSERT INTO tag (uuid, name, zone_id) VALUES (?, ?, 'default')", [uuid, name])
        for name in photos {
            let photo = try XCTUnwrap(try catalog.scalarInt("SELECT id FROM photo WHERE unique_name = ?", [name]))
            try catalog.run("INSERT INTO photo_tag (photo_id, tag_id) VALUES (?, ?)", [photo, tag])
        }
    }

    // MARK: item 1

    func testTagFilterSelectsTheBranchAndTagExactTheTag() throws {
        let n = try importThree()
        ok(["tag", "add", "-q", "Places/France/Paris", n[0]])
        ok(["tag", "add", "-q", "Places", n[1]])
        ok(["tag", "add", "-q", "Placesville", n[2]])
        XCTAssertEqual(try listed(["--tag", "Places"]), [n[0], n[1]].sorted())
        XCTAssertEqual(try listed(["--tag", "places"]), [n[0], n[1]].sorted(), "the branch by the same rule")
        XCTAssertEqual(try listed(["--tag", "Places", "--tag-exact"]), [n[1]])
        XCTAssertEqual(try listed(["--tag", "PLACES/france"]), [n[0]])
        XCTAssertEqual(try listed(["--tag", "Places/France/Paris", "--tag-exact"]), [n[0]])
        XCTAssertEqual(try listed(["--tag", "Placesville"]), [n[2]])
        XCTAssertEqual(run(["list", "--tag-exact"]).status, 64, "--tag-exact needs --tag")
        // export takes the same filter.
        let dest = dir + "/out"
        ok(["export", "-q", "--tag", "Places", "--sidecar", "none", dest])
        let files = try FileManager.default.contentsOfDirectory(atPath: dest).filter { !$0.hasPrefix(".") }
        XCTAssertEqual(files.count, 2, "\(files)")
        let exact = dir + "/exact"
        ok(["export", "-q", "--tag", "Places", "--tag-exact", "--sidecar", "none", exact])
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: exact).filter { !$0.hasPrefix(".") }.count, 1)
    }

    func testRenameMovesTheBranchAndMerges() throws {
        let n = try importThree()
        ok(["tag", "add", "-q", "Places", n[0]])
        ok(["tag", "add", "-q", "Places/France", n[1]])
        ok(["tag", "add", "-q", "Places/France/Paris", n[0]])
        ok(["tag", "add", "-q", "Locations/France", n[2]])
        ok(["tag", "add", "-q", "Placesville", n[2]])
        let out = try jsonLines(ok(["--json", "tag", "rename", "places", "Locations"]))
        XCTAssertEqual(out.first?["renamed"] as? Int, 3, "renamed counts the merged too")
        XCTAssertEqual(out.first?["merged"] as? Int, 1)
        XCTAssertEqual(out.first?["beneath"] as? Int, 2)
        XCTAssertEqual(out.first?["photosMerged"] as? Int, 1)
        XCTAssertEqual(
            try links(),
            [
                "Locations: \(n[0])", "Locations/France: \([n[1], n[2]].sorted()[0])",
                "Locations/France: \([n[1], n[2]].sorted()[1])", "Locations/France/Paris: \(n[0])",
                "Placesville: \(n[2])"
            ])
        // Only a branch, no tag of the name itself: still moved.
        ok(["tag", "rename", "-q", "Locations/France", "Europe"])
        XCTAssertEqual(try listed(["--tag", "Europe/Paris", "--tag-exact"]), [n[0]])
        // Beneath itself: refused, nothing changed.
        let before = try links()
        XCTAssertEqual(run(["tag", "rename", "Locations", "Locations/Old"]).status, 64)
        XCTAssertEqual(try links(), before)
        XCTAssertEqual(run(["tag", "rename", "Nowhere", "X"]).status, 66)
    }

    func testTreeCountsOwnAndBeneathEachPhotoOnce() throws {
        let n = try importThree()
        ok(["tag", "add", "-q", "Places/France/Paris", n[0], n[1]])
        ok(["tag", "add", "-q", "Places/France", n[0]])
        ok(["tag", "add", "-q", "Places/Italy/Rome", n[2]])
        ok(["tag", "add", "-q", "beach", n[2]])
        let nodes = try jsonLines(ok(["--json", "tag", "list", "--tree"])).map {
            "\($0["path"] as? String ?? "?") \($0["depth"] as? Int ?? -1) \(($0["photoCount"] as? Int).map(String.init) ?? "-") \($0["totalCount"] as? Int ?? -1)"
        }
        XCTAssertEqual(
            nodes,
            [
                "Places 0 - 3", "Places/France 1 1 2", "Places/France/Paris 2 2 2", "Places/Italy 1 - 1",
                "Places/Italy/Rome 2 1 1", "beach 0 1 1"
            ])
        let text = ok(["tag", "list", "--tree"])
        XCTAssertEqual(
            text.split(separator: "\n").map(String.init),
            [
                "PHOTOS   TOTAL  NAME", "     -       3  Places", "     1       2    France",
                "     2       2      Paris", "     -       1    Italy", "     1       1      Rome",
                "     1       1  beach"
            ])
    }

    func testDeleteOfABranchAsksWhich() throws {
        let n = try importThree()
        ok(["tag", "add", "-q", "Places", n[0]])
        ok(["tag", "add", "-q", "Places/France", n[1]])
        ok(["tag", "add", "-q", "Places/France/Paris", n[2]])
        let before = try links()
        let refused = run(["tag", "delete", "Places"])
        XCTAssertEqual(refused.status, 64, refused.stderr)
        XCTAssertTrue(refused.stderr.contains("2 tags beneath it"), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("--recursive"), refused.stderr)
        XCTAssertEqual(try links(), before, "nothing deleted")
        XCTAssertEqual(run(["tag", "delete", "--only", "--recursive", "Places"]).status, 64)
        ok(["tag", "delete", "-q", "--only", "places"])
        XCTAssertEqual(try links(), ["Places/France: \(n[1])", "Places/France/Paris: \(n[2])"])
        let out = try jsonLines(ok(["--json", "tag", "delete", "--recursive", "Places/France"]))
        XCTAssertEqual(out.first?["deleted"] as? Int, 2)
        XCTAssertEqual(out.first?["photos"] as? Int, 2)
        XCTAssertEqual(try links(), [])
        // A tag without tags beneath it needs neither flag.
        ok(["tag", "add", "-q", "beach", n[0]])
        ok(["tag", "delete", "-q", "beach"])
        XCTAssertEqual(try links(), [])
    }

    // MARK: item 2

    /// The issue's example: `cafe` on one photo, `Café` on the other. `list --tag cafe` finds
    /// both, and `tag remove cafe` of both refuses with 65 naming the two tags (it used to remove
    /// `cafe` from one, leave `Café` and exit 0).
    func testRemoveOfANameFindingTwoTagsRefusesAndListsThem() throws {
        let n = try importThree()
        try insertTag("cafe", uuid: smallUUID, photos: [n[0]])
        try insertTag("Caf\u{E9}", uuid: largeUUID, photos: [n[1]])
        XCTAssertEqual(try listed(["--tag", "cafe"]), [n[0], n[1]].sorted())
        let before = try links()
        let r = run(["tag", "remove", "cafe", n[0], n[1]])
        XCTAssertEqual(r.status, 65, r.stderr)
        XCTAssertTrue(r.stderr.contains("'cafe' (zone default, uuid \(smallUUID))"), r.stderr)
        XCTAssertTrue(r.stderr.contains("'Caf\u{E9}' (zone default, uuid \(largeUUID))"), r.stderr)
        XCTAssertTrue(r.stderr.contains("dedupe-tags --fold"), r.stderr)
        XCTAssertEqual(try links(), before)
        // Every mutation that takes a tag name refuses the same way, changing nothing.
        for args in [
            ["tag", "add", "CAFE", n[2]], ["tag", "rename", "Cafe", "Bar"], ["tag", "rename", "beach", "CAFE"],
            ["tag", "delete", "--yes", "cafe"], ["import", "--tag", "caf\u{E9}", samplesDir + "/ladybird.jpg"]
        ] {
            if args[1] == "rename", args[2] == "beach" { ok(["tag", "add", "-q", "beach", n[2]]) }
            let state = try links()
            let r = run(args)
            XCTAssertEqual(r.status, 65, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("matches 2 tags"), "\(args): \(r.stderr)")
            XCTAssertEqual(try links(), state, "\(args)")
        }
        XCTAssertEqual(try jsonLines(ok(["list", "--json"])).count, 3, "import refused before reading a file")
        // dedupe-tags --fold merges them: the smallest uuid wins and keeps its name.
        XCTAssertEqual(try jsonLines(ok(["--json", "dedupe-tags", "--dry-run"])).first?["merged"] as? Int, 0)
        ok(["dedupe-tags", "-q", "--fold"])
        XCTAssertEqual(
            try TestCatalog(root: lib).rows("SELECT uuid, name FROM tag WHERE name <> 'beach'"), [[smallUUID, "cafe"]])
        XCTAssertEqual(try listed(["--tag", "cafe", "--tag-exact"]), [n[0], n[1]].sorted())
        // Now the one tag is found by every spelling.
        ok(["tag", "remove", "-q", "CAF\u{C9}", n[0], n[1]])
        XCTAssertEqual(try links(), ["beach: \(n[2])", "cafe: -"])
    }

    /// `tag remove TRIP` where `trip` exists removes it (it used to exit 66 while `list --tag
    /// trip` matched); rename and delete find it the same way.
    func testMutationsFindTagsIgnoringCaseAndAccents() throws {
        let n = try importThree()
        ok(["tag", "add", "-q", "trip", n[0], n[1]])
        XCTAssertEqual(try listed(["--tag", "TRIP"]), [n[0], n[1]].sorted())
        ok(["tag", "remove", "-q", "TRIP", n[0]])
        XCTAssertEqual(try links(), ["trip: \(n[1])"])
        ok(["tag", "rename", "-q", "Trip", "Tr\u{EE}p"])
        XCTAssertEqual(try links(), ["Tr\u{EE}p: \(n[1])"], "a rename by case or accent only renames in place")
        ok(["tag", "delete", "-q", "--yes", "TRIP"])
        XCTAssertEqual(try links(), [])
        XCTAssertEqual(run(["tag", "remove", "trip", n[0]]).status, 66)
    }

    /// `tag add cafe` where `Café` exists adds `Café` and says so on stderr; `--new` makes a
    /// `cafe` beside it, saying so too.
    func testAddUsesTheExistingTagUnlessNew() throws {
        let n = try importThree()
        ok(["tag", "add", "-q", "Caf\u{E9}", n[0]])
        let r = run(["tag", "add", "cafe", n[1]])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout, "Tagged 1 photo with 'cafe'\n")
        XCTAssertTrue(r.stderr.contains("'cafe' is the existing tag 'Caf\u{E9}'"), r.stderr)
        XCTAssertEqual(try links().sorted(), ["Caf\u{E9}: \(n[0])", "Caf\u{E9}: \(n[1])"].sorted())
        let again = run(["tag", "add", "CAF\u{C9}", n[0]])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual(again.stdout, "Tagged 0 photos with 'CAF\u{C9}'\n", "n[0] has the tag already")
        let new = run(["tag", "add", "--new", "cafe", n[2]])
        XCTAssertEqual(new.status, 0, new.stderr)
        XCTAssertTrue(new.stderr.contains("created the tag 'cafe' beside 'Caf\u{E9}'"), new.stderr)
        XCTAssertEqual(try links().sorted(), ["Caf\u{E9}: \(n[0])", "Caf\u{E9}: \(n[1])", "cafe: \(n[2])"].sorted())
        // --new with the exact spelling existing reuses it: no duplicate.
        ok(["tag", "add", "-q", "--new", "cafe", n[0]])
        XCTAssertEqual(try TestCatalog(root: lib).scalarInt("SELECT count(*) FROM tag"), 2)
        // Now both exist: a plain add of either spelling is ambiguous.
        XCTAssertEqual(run(["tag", "add", "cafe", n[1]]).status, 65)
    }
}

/// `tag delete` of a tag with tags beneath it asks on a terminal which to delete (issue 32
/// item 1): `r` the branch, `o` the tag alone, anything else nothing. Run as the binary on a
/// pseudo-terminal.
final class TagDeleteBranchTerminalTests: BinaryTestCase {
    override var label: String { "photos-tag-branch-tty" }
    var lib: String { dir + "/lib" }

    private func tags() throws -> [String] {
        try TestCatalog(root: lib).rows("SELECT name FROM tag ORDER BY name").map { $0[0] ?? "" }
    }

    func testTerminalIsAskedBranchOrTagOrNothing() throws {
        XCTAssertEqual(try run(["--library", lib, "import", "-q", samplesDir + "/storm.jpg"]).status, 0)
        let listed = try run(["--library", lib, "--json", "list"])
        let name = try XCTUnwrap(
            (try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [String: Any])?["uniqueName"]
                as? String)
        for tag in ["Places", "Places/France", "Places/France/Paris"] {
            XCTAssertEqual(try run(["--library", lib, "tag", "add", "-q", tag, name]).status, 0)
        }
        let tty = { (answer: String) in
            try PseudoTerminal.run(try self.binary(), ["--library", self.lib, "tag", "delete", "Places"], input: answer)
        }
        let nothing = try tty("\n")
        XCTAssertEqual(nothing.status, 1, nothing.terminalText)
        XCTAssertTrue(
            nothing.terminalText.hasPrefix(
                "Tag 'Places' has 2 tags beneath it (Places/France, Places/France/Paris). Delete the whole branch (r), only 'Places' (o), or nothing? [r/o/N] "
            ), nothing.terminalText)
        XCTAssertEqual(try tags(), ["Places", "Places/France", "Places/France/Paris"])
        let only = try tty("o\n")
        XCTAssertEqual(only.status, 0, only.terminalText)
        XCTAssertEqual(try tags(), ["Places/France", "Places/France/Paris"])
        XCTAssertTrue(only.terminalText.hasSuffix("Deleted 1 tag named 'Places' (zone default) from 1 photo\n"))
        let branch = try PseudoTerminal.run(
            try binary(), ["--library", lib, "tag", "delete", "Places/France"], input: "r\n")
        XCTAssertEqual(branch.status, 0, branch.terminalText)
        XCTAssertEqual(try tags(), [])
    }
}
