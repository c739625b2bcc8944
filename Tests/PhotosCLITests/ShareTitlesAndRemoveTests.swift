import Foundation
import PhotosTestSupport
import XCTest

/// Issue 32 item 4: a share's title is accepted wherever its id is (the whole id, the exact
/// title, a unique id prefix, a unique title prefix ignoring case and accents; several is 65
/// listing them), and `share remove ID PHOTO…` moves photos back to the default zone, in-process
/// on the backend of the run (`PHOTOS_TEST_DATABASE_URL`).
final class ShareTitlesAndRemoveTests: TemporaryFolderTestCase {
    override var label: String { "photos-share-titles" }
    var lib: String { dir + "/lib" }

    func run(_ args: [String]) -> RunResult { photos(["--library", lib] + args) }

    @discardableResult
    func ok(_ args: [String], file: StaticString = #filePath, line: UInt = #line) -> String {
        let r = run(args)
        XCTAssertEqual(r.status, 0, "\(args): \(r.stderr)", file: file, line: line)
        return r.stdout
    }

    func db() throws -> TestCatalog { try TestCatalog(root: lib) }

    /// storm, path, kite imported with tag Trip; storm and path in share "Paris 2024", kite in
    /// "Pâques". Returns the uniqueNames and the two share ids.
    func setUpShares() throws -> (names: [String], paris: String, paques: String) {
        var names: [String] = []
        for file in ["storm.jpg", "path.jpg", "kite.png"] {
            ok(["import", "-q", "--tag", "Trip", samplesDir + "/" + file])
            names.append(
                try XCTUnwrap(try db().scalarString("SELECT unique_name FROM photo WHERE display_name = ?", [file])))
        }
        ok(["share", "create", "-q", "--title", "Paris 2024", names[0], names[1]])
        ok(["share", "create", "-q", "--title", "Pâques", names[2]])
        let paris = try XCTUnwrap(try db().scalarString("SELECT id FROM share WHERE title = 'Paris 2024'"))
        let paques = try XCTUnwrap(try db().scalarString("SELECT id FROM share WHERE title = 'Pâques'"))
        return (names, paris, paques)
    }

    func listed(_ args: [String]) throws -> [String] {
        try ok(["list", "--json"] + args).split(separator: "\n").map {
            let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
            return try XCTUnwrap(object["uniqueName"] as? String)
        }.sorted()
    }

    func zones() throws -> [String] {
        try db().rows("SELECT display_name, zone_id FROM photo ORDER BY display_name").map {
            "\($0[0] ?? ""): \($0[1] ?? "")"
        }
    }

    func testTitlesAreAcceptedWhereverAShareIdIs() throws {
        let (n, paris, paques) = try setUpShares()
        let inParis = [n[0], n[1]].sorted()
        XCTAssertEqual(try listed(["--share", "Paris 2024"]), inParis)
        XCTAssertEqual(try listed(["--share", paris]), inParis)
        XCTAssertEqual(try listed(["--share", String(paris.prefix(8))]), inParis)
        XCTAssertEqual(try listed(["--share", "paris"]), inParis, "a unique title prefix, case ignored")
        XCTAssertEqual(try listed(["--share", "paq"]), [n[2]], "accents ignored")
        XCTAssertEqual(try listed(["--share", "Pâques"]), [n[2]])

        // Two titles starting alike: 65, naming both.
        let ambiguous = run(["list", "--share", "Pa"])
        XCTAssertEqual(ambiguous.status, 65, ambiguous.stderr)
        XCTAssertTrue(ambiguous.stderr.contains(paris) && ambiguous.stderr.contains(paques), ambiguous.stderr)
        XCTAssertEqual(ambiguous.stdout, "")
        // Two shares with one title: the exact title is ambiguous too.
        ok(["share", "create", "-q", "--title", "Pâques", n[0], "--move"])
        let twice = run(["share", "show", "Pâques"])
        XCTAssertEqual(twice.status, 65, twice.stderr)
        XCTAssertTrue(twice.stderr.contains(paques), twice.stderr)
        XCTAssertEqual(run(["list", "--share", "Nowhere"]).status, 66)

        // Every command that takes a share id takes the title.
        XCTAssertTrue(ok(["share", "show", "Paris 2024", "--json"]).contains(paris))
        ok(["share", "invite", "Paris 2024", "eve@example.org"])
        XCTAssertEqual(try db().scalarInt("SELECT count(*) FROM participant WHERE email = 'eve@example.org'"), 1)
        ok(["share", "uninvite", "paris 2024", "eve@example.org", "--yes"])
        ok(["share", "set", "Paris 2024", "--title", "Paris"])
        XCTAssertEqual(try db().scalarString("SELECT title FROM share WHERE id = ?", [paris]), "Paris")
        ok(["share", "add", "Paris", n[0], "--move"])
        XCTAssertEqual(try listed(["--share", "Paris"]), inParis)
        let out = dir + "/out"
        ok(["share", "invite", "Paris", "eve@example.org", "-q"])
        ok(["share", "export", "Paris", "--for", "eve@example.org", "-o", out, "-q"])
        XCTAssertTrue(FileManager.default.fileExists(atPath: out))
        ok(["show", n[1], "--share", "Paris"])
        XCTAssertEqual(run(["export", dir + "/e", "--share", "paris", "-q"]).status, 0)
        XCTAssertEqual(run(["gallery", dir + "/g", "--share", "paris", "-q"]).status, 0)
        ok(["purge", "--share", "Paris", "--dry-run"])
        ok(["import", "-q", "--share", "Paris", samplesDir + "/ladybird.jpg"])
        XCTAssertEqual(try db().scalarString("SELECT zone_id FROM photo WHERE display_name = 'ladybird.jpg'"), paris)
    }

    /// `import --share ID` of a file already in the library names the photo and the command that
    /// moves it; with `--move` it moves the photo in (after the import's batches commit).
    func testImportIntoAShareOfAFileAlreadyThereSaysWhatItDidOrMovesIt() throws {
        ok(["import", "-q", samplesDir + "/storm.jpg", samplesDir + "/kite.png"])
        ok(["share", "create", "-q", "--title", "Paris 2024", try storm()])
        let paris = try XCTUnwrap(try db().scalarString("SELECT id FROM share"))
        ok(["share", "remove", "-q", "Paris 2024", try storm()])
        let storm = try self.storm()

        let named = run(["import", "--share", "Paris 2024", samplesDir + "/storm.jpg"])
        XCTAssertEqual(named.status, 0, named.stderr)
        XCTAssertTrue(
            named.stderr.contains(
                "not imported into share \(paris): it is photo \(storm) (storm.jpg) of zone default already; 'photos share add \(paris) \(storm)' moves it there"
            ), named.stderr)
        XCTAssertEqual(try zones(), ["kite.png: default", "storm.jpg: default"])

        let before = try LibrarySnapshot.dumpCatalog(lib)
        let dry = run(["import", "--share", "paris", "--move", "--dry-run", samplesDir + "/storm.jpg"])
        XCTAssertEqual(dry.status, 0, dry.stderr)
        XCTAssertTrue(
            dry.stderr.contains(
                "photos: would move 1 photo already in the library into share 'Paris 2024' (\(paris)): \(storm)"),
            dry.stderr)
        XCTAssertEqual(try LibrarySnapshot.dumpCatalog(lib), before)

        let moved = run([
            "import", "--share", "Paris 2024", "--move", samplesDir + "/storm.jpg", samplesDir + "/path.jpg"
        ])
        XCTAssertEqual(moved.status, 0, moved.stderr)
        XCTAssertTrue(
            moved.stderr.contains(
                "photos: moved 1 photo already in the library into share 'Paris 2024' (\(paris)): \(storm)"),
            moved.stderr)
        XCTAssertEqual(try zones(), ["kite.png: default", "path.jpg: \(paris)", "storm.jpg: \(paris)"])
        XCTAssertEqual(try db().scalarInt("SELECT count(*) FROM history_transaction WHERE context = 'share add'"), 1)
        XCTAssertEqual(run(["import", "--move", samplesDir + "/kite.png"]).status, 64, "--move needs --share")
    }

    /// Issue 32 item 6: `{rating}`, `{tag}`, `{shareId}` in export templates.
    func testExportTemplateRatingTagAndShareIdFields() throws {
        let (n, paris, _) = try setUpShares()
        ok(["--author", "ann", "rate", "-q", n[0], "4"])
        ok(["--author", "bob", "rate", "-q", n[0], "5"])
        ok(["tag", "add", "-q", "Places/France", n[0]])
        ok(["tag", "remove", "-q", "Trip", n[2]])
        let out = dir + "/t"
        ok(["export", out, "-q", "--sidecar", "none", "--template", "{rating}/{tag}/{shareId}-{stem}"])
        let files = try FileManager.default.subpathsOfDirectory(atPath: out).filter { $0.contains(".") }.filter {
            !$0.hasPrefix(".")
        }.sorted()
        let paques = try XCTUnwrap(try db().scalarString("SELECT id FROM share WHERE title = 'Pâques'"))
        XCTAssertEqual(
            files,
            [
                "0/Trip/\(paris)-path.jpg", "0/untagged/\(paques)-kite.png",
                "5/Places/France/\(paris)-storm.jpg"
            ])
    }

    func storm() throws -> String {
        try XCTUnwrap(try db().scalarString("SELECT unique_name FROM photo WHERE display_name = 'storm.jpg'"))
    }

    func testShareRemoveMovesPhotosBackToTheDefaultZone() throws {
        let (n, paris, _) = try setUpShares()
        ok(["tag", "add", "Paris/Louvre", n[0]])

        // --dry-run: counts, changes nothing.
        let before = try LibrarySnapshot.dumpCatalog(lib)
        let dry = run(["share", "remove", "Paris 2024", n[0], "--dry-run"])
        XCTAssertEqual(dry.status, 0, dry.stderr)
        XCTAssertEqual(dry.stdout, "Would move 1 photo out of share 'Paris 2024' (\(paris)) into the default zone\n")
        XCTAssertEqual(try LibrarySnapshot.dumpCatalog(lib), before)

        let moved = run(["share", "remove", "Paris 2024", n[0]])
        XCTAssertEqual(moved.status, 0, moved.stderr)
        XCTAssertEqual(moved.stdout, "Moved 1 photo out of share 'Paris 2024' (\(paris)) into the default zone\n")
        XCTAssertEqual(try listed(["--share", "Paris 2024"]), [n[1]])
        XCTAssertEqual(try listed(["--zone", "default"]), [n[0]])
        // Its tags are the default zone's (created again there); the share keeps its own Trip for path.
        XCTAssertEqual(
            try db().rows(
                """
                SELECT t.name, t.zone_id FROM tag t JOIN photo_tag pt ON pt.tag_id = t.id JOIN photo p ON p.id = pt.photo_id
                WHERE p.unique_name = ? ORDER BY t.name
                """, [n[0]]
            ).map { "\($0[0] ?? "")@\($0[1] ?? "")" }, ["Paris/Louvre@default", "Trip@default"])
        XCTAssertEqual(
            try db().scalarInt("SELECT count(*) FROM tag WHERE name = 'Trip' AND zone_id = 'default'"), 1,
            "one Trip in the default zone")
        XCTAssertEqual(
            try db().scalarString(
                "SELECT zone_id FROM photo_data d JOIN photo p ON p.id = d.photo_id WHERE p.unique_name = ?", [n[0]]),
            "default")
        XCTAssertEqual(
            try db().scalarInt(
                "SELECT count(*) FROM history_transaction WHERE context = 'share remove'"), 1)

        // A photo not in the share: 65, nothing moved (the other photo of the batch stays).
        let notIn = run(["share", "remove", paris, n[1], n[0]])
        XCTAssertEqual(notIn.status, 65, notIn.stderr)
        XCTAssertTrue(notIn.stderr.contains("photo \(n[0]) is not in share \(paris)"), notIn.stderr)
        XCTAssertEqual(try listed(["--share", paris]), [n[1]])
        XCTAssertEqual(run(["share", "remove", "Nowhere", n[1]]).status, 66)
        XCTAssertEqual(run(["share", "remove", paris]).status, 64, "at least one photo")

        // --json, and several photos in one transaction.
        let json = ok(["share", "remove", "paq", n[2], "--json"])
        XCTAssertEqual(
            try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])["moved"] as? Int, 1)
        XCTAssertEqual(try zones().filter { $0.hasSuffix(": default") }.count, 2)
    }

    /// A share titled with another share's id prefix: that argument named the titled share
    /// silently (exact title before id prefix), so `share remove 396267a8 …` acted on the wrong
    /// share. Now 65 naming both; the whole id and a longer prefix still resolve.
    func testATitleThatIsAnotherSharesIdPrefixIsAmbiguous() throws {
        let (n, paris, _) = try setUpShares()
        let prefix = String(paris.prefix(8))
        ok(["share", "create", "-q", "--title", prefix, n[2], "--move"])
        let titled = try XCTUnwrap(try db().scalarString("SELECT id FROM share WHERE title = ?", [prefix]))
        let before = try zones()
        let removed = run(["share", "remove", prefix, n[0], "--yes"])
        XCTAssertEqual(removed.status, 65, removed.stderr)
        XCTAssertTrue(removed.stderr.contains(paris) && removed.stderr.contains(titled), removed.stderr)
        XCTAssertEqual(try zones(), before)
        XCTAssertEqual(try listed(["--share", paris]), [n[0], n[1]].sorted())
        XCTAssertEqual(try listed(["--share", String(paris.prefix(9))]), [n[0], n[1]].sorted())
        // The same argument given to purge: ambiguous, nothing purged (it once purged the
        // prefix's share without a word).
        let purged = run(["purge", "--share", prefix, "--yes"])
        XCTAssertEqual(purged.status, 65, purged.stderr)
        XCTAssertTrue(purged.stderr.contains(paris) && purged.stderr.contains(titled), purged.stderr)
        XCTAssertEqual(try zones(), before)
        XCTAssertEqual(try db().scalarString("SELECT count(*) FROM share", []), "3")
    }
}
