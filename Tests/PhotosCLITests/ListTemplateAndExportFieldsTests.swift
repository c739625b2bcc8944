import Foundation
import PhotosCore
import PhotosImaging
import PhotosTestSupport
import XCTest

/// Issue 32 items 5 and 6: `list --template` (export's template fields, one line a photo),
/// `list --columns`, the `{share}` (a share's title) and `{author}` (the insert's transaction
/// author) fields, and `export --per-tag`, in-process on the backend of the run
/// (`PHOTOS_TEST_DATABASE_URL`).
final class ListTemplateAndExportFieldsTests: TemporaryFolderTestCase {
    override var label: String { "photos-list-template" }
    var lib: String { dir + "/lib" }

    func run(_ args: [String], env: [String: String] = [:]) -> RunResult { photos(["--library", lib] + args, env: env) }

    @discardableResult
    func ok(_ args: [String], env: [String: String] = [:], file: StaticString = #filePath, line: UInt = #line)
        -> String
    {
        let r = run(args, env: env)
        XCTAssertEqual(r.status, 0, "\(args): \(r.stderr)", file: file, line: line)
        return r.stdout
    }

    func lines(_ text: String) -> [String] {
        text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }

    func db() throws -> TestCatalog { try TestCatalog(root: lib) }

    func uniqueName(_ displayName: String) throws -> String {
        try XCTUnwrap(try db().scalarString("SELECT unique_name FROM photo WHERE display_name = ?", [displayName]))
    }

    /// The SHA-256 of a photo's original, as `list --json` gives it.
    func sha(_ displayName: String) throws -> String {
        for line in lines(ok(["list", "--json"])) {
            let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            if object["displayName"] as? String == displayName { return try XCTUnwrap(object["sha256"] as? String) }
        }
        XCTFail("no photo \(displayName)")
        return ""
    }

    /// storm.jpg imported by ann@example.org, then put in the share "Paris/2024", tagged Sea
    /// and titled "Big/storm"; kite.png, path.jpg and ladybird.jpg (tags Insect and Nature,
    /// rated 4 in its XMP) imported without an owner (author `photos`).
    func setUpLibrary() throws {
        ok(["--owner", "ann@example.org", "import", "-q", samplesDir + "/storm.jpg"])
        for file in ["kite.png", "path.jpg", "ladybird.jpg"] { ok(["import", "-q", samplesDir + "/" + file]) }
        let storm = try uniqueName("storm.jpg")
        ok(["share", "create", "-q", "--title", "Paris/2024", storm])
        ok(["tag", "add", "-q", "Sea", storm])
        ok(["describe", "-q", storm, "--title", "Big/storm"])
    }

    func testListTemplatePrintsExportFieldsOneLineAPhoto() throws {
        try setUpLibrary()
        let share = try XCTUnwrap(try db().scalarString("SELECT id FROM share WHERE title = 'Paris/2024'"))
        let out = ok([
            "list", "--sort", "name", "--template", "{author} {share} {shareId} {tag} {rating} {title} {stem}"
        ])
        XCTAssertEqual(
            lines(out),
            [
                "photos default default untagged 0 untitled kite",
                "photos default default Insect 4 untitled ladybird",
                "photos default default untagged 0 untitled path",
                "ann@example.org Paris_2024 \(share) Sea 0 Big_storm storm"
            ], "no header, no '.{ext}' appended")
        XCTAssertEqual(
            lines(ok(["list", "--sort", "name", "--template", "{capture:%Y}/{name}", "--tag", "Insect"])),
            ["\(try captureYear("ladybird.jpg"))/ladybird.jpg"])

        // Control characters in a value are shown as '?', one a character.
        try db().run("UPDATE photo SET display_name = ? WHERE display_name = 'path.jpg'", ["evil\nname\u{1B}[2J.jpg"])
        let shown = ok(["list", "--sort", "name", "--template", "<{name}>"])
        XCTAssertEqual(lines(shown), ["<evil?name?[2J.jpg>", "<kite.png>", "<ladybird.jpg>", "<storm.jpg>"])
        XCTAssertFalse(shown.contains("\u{1B}"))

        // The insert's transaction gone (history compacted): {author} is 'unknown'.
        let token = try XCTUnwrap(
            try db().scalarInt("SELECT min(token) FROM history_transaction WHERE author = 'ann@example.org'"))
        ok(["history", "compact", "-q", "--before-token", String(token + 1), "--force", "--yes"])
        XCTAssertEqual(
            lines(ok(["list", "--sort", "name", "--template", "{author}:{name}"])),
            ["photos:evil?name?[2J.jpg", "photos:kite.png", "photos:ladybird.jpg", "unknown:storm.jpg"])

        // An empty result: nothing on stdout, the note on stderr, 0.
        let none = run(["list", "--template", "{name}", "--min-rating", "5"])
        XCTAssertEqual([String(none.status), none.stdout, none.stderr], ["0", "", "photos: no photos match\n"])
    }

    func captureYear(_ displayName: String) throws -> Int {
        let date = try XCTUnwrap(
            try db().scalarString(
                "SELECT COALESCE(capture_date, imported_at) FROM photo WHERE display_name = ?", [displayName]))
        return try XCTUnwrap(Int(date.prefix(4)))
    }

    func testListTemplateUsageErrorsExit64() throws {
        try setUpLibrary()
        let cases: [([String], String)] = [
            (["--template", "{nope}"], "unknown field '{nope}'"),
            (["--template", "{name"], "without a closing '}'"),
            (["--template", "{capture:%Q}"], "'%Q'"),
            (["--template", "{name}", "--columns", "name"], "--template and --columns go one at a time"),
            (["--template", "{name}", "--json"], "--template and --json go one at a time"),
            (["--columns", "name", "--json"], "--columns and --json go one at a time")
        ]
        for (args, message) in cases {
            let r = run(["list"] + args)
            XCTAssertEqual(r.status, 64, "\(args)")
            XCTAssertTrue((r.stderr + r.stdout).contains(message), "\(args): \(r.stderr)\(r.stdout)")
            if !args.contains("--json") { XCTAssertEqual(r.stdout, "", "\(args)") }
        }
    }

    func testListColumnsAreTheOnesAskedForAndFitTheTerminal() throws {
        try setUpLibrary()
        let out = ok(["list", "--sort", "name", "--columns", "name,format,rating,tags,title"], env: ["COLUMNS": "80"])
        let rows = lines(out)
        XCTAssertEqual(rows.count, 5)
        XCTAssertEqual(rows[0].split(separator: " ").map(String.init), ["NAME", "FORMAT", "RATING", "TAGS", "TITLE"])
        XCTAssertEqual(rows[1].split(separator: " ").map(String.init), ["kite.png", "png", "-", "-", "-"])
        XCTAssertEqual(
            rows[2].split(separator: " ").map(String.init), ["ladybird.jpg", "jpeg", "4", "Insect,Nature", "-"])
        XCTAssertEqual(rows[4].split(separator: " ").map(String.init), ["storm.jpg", "jpeg", "-", "Sea", "Big/storm"])
        // The header's columns start where the values do.
        XCTAssertEqual(
            rows[0].range(of: "TAGS")?.lowerBound.utf16Offset(in: rows[0]),
            rows[2].range(of: "Insect")?.lowerBound.utf16Offset(in: rows[2]))
        XCTAssertEqual(
            lines(ok(["list", "-q", "--columns", " UniqueName , zone", "--tag", "Sea"], env: ["COLUMNS": "120"])),
            [try uniqueName("storm.jpg") + "  " + (try db().scalarString("SELECT id FROM share") ?? "")],
            "names in any case, spaces ignored; -q leaves the header out; 36 characters at 120 columns")

        // Every line within $COLUMNS, with every column, down to 40 columns.
        let all = "uniquename,name,size,tags,rating,captured,zone,title,format"
        for width in [40, 80, 120, 200] {
            let table = lines(ok(["list", "--columns", all], env: ["COLUMNS": String(width)]))
            XCTAssertEqual(table.count, 5, "\(width)")
            for row in table { XCTAssertLessThanOrEqual(row.count, width, "\(width): \(row)") }
            XCTAssertTrue(table[0].hasPrefix("UNIQUENAME"), "\(width): \(table[0])")
        }
        XCTAssertTrue(
            lines(ok(["list", "--columns", all], env: ["COLUMNS": "40"])).allSatisfy {
                $0.count == 40 || !$0.hasSuffix(" ")
            })

        // The shell completion offers the column names.
        XCTAssertEqual(
            lines(ok(["completions", "--complete", "3", "--", "photos", "list", "--columns", ""])),
            ["words", "uniquename", "name", "size", "tags", "rating", "captured", "zone", "title", "format"])

        // Unknown, repeated or no column: 64 naming it, nothing on stdout.
        let bad: [(String, String)] = [
            ("name,bogus", "unknown column 'bogus'"), ("name,Name", "column 'name' is named twice"),
            ("", "the list is empty"), (" , ", "the list is empty"), ("name,,size", "unknown column ''")
        ]
        for (list, message) in bad {
            let r = run(["list", "--columns", list])
            XCTAssertEqual(r.status, 64, list)
            XCTAssertEqual(r.stdout, "", list)
            XCTAssertTrue(r.stderr.contains(message), "\(list): \(r.stderr)")
        }
    }

    func testExportNamesWithShareTitleAndAuthor() throws {
        try setUpLibrary()
        let out = dir + "/out"
        ok(["export", out, "-q", "--sidecar", "none", "--template", "{share}/{author}/{name}"])
        XCTAssertEqual(
            filesUnder(out),
            [
                "Paris_2024/ann@example.org/storm.jpg", "default/photos/kite.png", "default/photos/ladybird.jpg",
                "default/photos/path.jpg"
            ])
        XCTAssertEqual(sha256(ofFile: out + "/Paris_2024/ann@example.org/storm.jpg"), try sha("storm.jpg"))
    }

    func testExportPerTagWritesOneCopyPerTag() throws {
        try setUpLibrary()
        let out = dir + "/out"
        // Without {tag} every copy would have one name: 64, and DEST is not created.
        for args in [["--per-tag"], ["--per-tag", "--template", "{capture:%Y}/{name}"]] {
            let r = run(["export", out] + args)
            XCTAssertEqual(r.status, 64, "\(args)")
            XCTAssertTrue(r.stderr.contains("has no {tag}"), r.stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: out))
        }
        let first = ok(["export", out, "--per-tag", "--template", "{tag}/{name}", "--json"])
        XCTAssertTrue(first.contains("\"written\":5"), first)
        XCTAssertEqual(
            filesUnder(out),
            [
                "Insect/ladybird.jpg", "Insect/ladybird.jpg.xmp", "Nature/ladybird.jpg", "Nature/ladybird.jpg.xmp",
                "Sea/storm.jpg", "Sea/storm.jpg.xmp", "untagged/kite.png", "untagged/kite.png.xmp",
                "untagged/path.jpg", "untagged/path.jpg.xmp"
            ])
        for (file, name) in [
            ("Insect/ladybird.jpg", "ladybird.jpg"), ("Nature/ladybird.jpg", "ladybird.jpg"),
            ("Sea/storm.jpg", "storm.jpg"), ("untagged/kite.png", "kite.png")
        ] {
            XCTAssertEqual(sha256(ofFile: out + "/" + file), try sha(name), file)
        }
        // Each copy's sidecar holds all the photo's tags.
        let xmp = String(
            decoding: FileManager.default.contents(atPath: out + "/Nature/ladybird.jpg.xmp") ?? Data(), as: UTF8.self)
        XCTAssertTrue(xmp.contains("<rdf:li>Insect</rdf:li>") && xmp.contains("<rdf:li>Nature</rdf:li>"), xmp)
        // The export state knows every copy: a second run skips them all.
        let second = ok(["export", out, "--per-tag", "--template", "{tag}/{name}", "--update", "--json"])
        XCTAssertTrue(second.contains("\"written\":0,\"updated\":0,\"skipped\":5"), second)

        // A tag removed: --cleanup removes that copy (and its sidecar) only; the sidecar of the
        // copy kept is rewritten (its dc:subject changed).
        ok(["tag", "remove", "-q", "Insect", try uniqueName("ladybird.jpg")])
        let cleaned = ok(["export", out, "--per-tag", "--template", "{tag}/{name}", "--update", "--cleanup", "--json"])
        XCTAssertTrue(cleaned.contains("\"removed\":2"), cleaned)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out + "/Insect"))
        XCTAssertEqual(sha256(ofFile: out + "/Nature/ladybird.jpg"), try sha("ladybird.jpg"))
    }

    /// Two photos named IMG_0001.JPG, both tagged Beach and Sea: the smaller uniqueName takes
    /// the plain names. Once it is deleted and cleaned up, --update keeps each copy of the
    /// other under its own recorded name ('IMG_0001 (1).JPG' in both folders), where a fresh
    /// export gives the plain names.
    func testPerTagCopiesKeepTheirOwnNamesUnderUpdate() throws {
        for (folder, file) in [("a", "storm.jpg"), ("b", "path.jpg")] {
            let path = dir + "/in/" + folder
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: samplesDir + "/" + file, toPath: path + "/IMG_0001.JPG")
        }
        ok(["import", "-q", "--tag", "Sea", "--tag", "Beach", dir + "/in"])
        let names = try lines(ok(["list", "--json"])).map { line -> (String, String) in
            let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            return (try XCTUnwrap(object["uniqueName"] as? String), try XCTUnwrap(object["sha256"] as? String))
        }.sorted { $0.0 < $1.0 }
        XCTAssertEqual(names.count, 2)
        let out = dir + "/out"
        let args = ["export", out, "--per-tag", "--template", "{tag}/{name}", "--sidecar", "none"]
        ok(args + ["-q"])
        let expected = ["Beach/IMG_0001 (1).JPG", "Beach/IMG_0001.JPG", "Sea/IMG_0001 (1).JPG", "Sea/IMG_0001.JPG"]
        XCTAssertEqual(filesUnder(out), expected)
        XCTAssertEqual(sha256(ofFile: out + "/Sea/IMG_0001.JPG"), names[0].1, "the smaller uniqueName: plain names")
        XCTAssertEqual(sha256(ofFile: out + "/Beach/IMG_0001 (1).JPG"), names[1].1)

        ok(["delete", "-q", "--yes", names[0].0])
        let cleaned = ok(args + ["--update", "--cleanup", "--json"])
        XCTAssertTrue(cleaned.contains("\"skipped\":2") && cleaned.contains("\"removed\":2"), cleaned)
        XCTAssertEqual(filesUnder(out), ["Beach/IMG_0001 (1).JPG", "Sea/IMG_0001 (1).JPG"])
        for _ in 0..<2 {
            let again = ok(args + ["--update", "--json"])
            XCTAssertTrue(again.contains("\"written\":0,\"updated\":0,\"skipped\":2"), again)
            XCTAssertEqual(filesUnder(out), ["Beach/IMG_0001 (1).JPG", "Sea/IMG_0001 (1).JPG"])
        }
        XCTAssertEqual(sha256(ofFile: out + "/Beach/IMG_0001 (1).JPG"), names[1].1)
        XCTAssertEqual(sha256(ofFile: out + "/Sea/IMG_0001 (1).JPG"), names[1].1)
        ok(["export", dir + "/fresh", "--per-tag", "--template", "{tag}/{name}", "--sidecar", "none", "-q"])
        XCTAssertEqual(filesUnder(dir + "/fresh"), ["Beach/IMG_0001.JPG", "Sea/IMG_0001.JPG"])
    }

    /// `Library.insertAuthors`: one store query per 1,000 names (2,500 names here, most of
    /// them unknown: three queries, none over the bound-parameter limit); the author of the
    /// Photo insert, not of later changes (a rating by bob), and the earliest insert when the
    /// history holds two; `shareTitlesByZone` maps the share's zone id to its title.
    func testInsertAuthorsAreReadInBatchesFromPersistentHistory() throws {
        try setUpLibrary()
        let storm = try uniqueName("storm.jpg"), kite = try uniqueName("kite.png")
        ok(["rate", "-q", "--author", "bob@example.org", storm, "5"])
        // A second, later Photo insert of storm (as a sync of the same photo could record).
        let later = try XCTUnwrap(try db().scalarInt("SELECT max(token) FROM history_transaction"))
        try db().run(
            "INSERT INTO history_change (token, entity, object_id, type) VALUES (?, 'Photo', ?, 'insert')",
            [later, storm])
        let library = try Library(root: lib, create: false, readOnly: true)
        let names = [storm, kite] + (0..<2_498).map { String(format: "00000000-0000-0000-0000-%012d", $0) }
        XCTAssertEqual(
            try library.insertAuthors(ofPhotos: names), [storm: "ann@example.org", kite: "photos"],
            "the earliest insert's author; names without an insert are left out")
        XCTAssertEqual(try library.insertAuthors(ofPhotos: []), [:])
        let share = try XCTUnwrap(try db().scalarString("SELECT id FROM share"))
        XCTAssertEqual(try library.shareTitlesByZone(), [share: "Paris/2024"])
    }

    /// A RAW+JPEG pair tagged Sea and Beach: each `--per-tag` copy has both originals, the
    /// RAW beside its JPEG under the same stem (export writes every original of a photo), and
    /// `--update` skips both copies.
    func testPerTagCopiesOfAPairCarryItsRAW() throws {
        var rgb: [UInt8] = []
        for y in 0..<30 { for x in 0..<40 { rgb += [UInt8(x * 6), UInt8(y * 8), 128] } }
        let date = "2024:05:01 12:00:00"
        let raw = Data(
            DNGWriter.make(image: try PixelBuffer(width: 40, height: 30, rgb: rgb), preview: nil, dateTime: date))
        let still = try stormJPEG(date: date, offset: nil)
        let card = dir + "/card"
        try FileManager.default.createDirectory(atPath: card, withIntermediateDirectories: true)
        XCTAssertTrue(FileManager.default.createFile(atPath: card + "/IMG_1234.CR2", contents: raw))
        XCTAssertTrue(FileManager.default.createFile(atPath: card + "/IMG_1234.JPG", contents: still))
        ok(["import", "-q", "--tag", "Sea", "--tag", "Beach", card])
        let out = dir + "/out"
        let args = ["export", out, "--per-tag", "--template", "{tag}/{name}", "--sidecar", "none", "--json"]
        XCTAssertTrue(ok(args).contains("\"written\":2"))
        XCTAssertEqual(
            filesUnder(out), ["Beach/IMG_1234.DNG", "Beach/IMG_1234.JPG", "Sea/IMG_1234.DNG", "Sea/IMG_1234.JPG"])
        for folder in ["Beach", "Sea"] {
            XCTAssertEqual(FileManager.default.contents(atPath: "\(out)/\(folder)/IMG_1234.DNG"), raw, folder)
            XCTAssertEqual(FileManager.default.contents(atPath: "\(out)/\(folder)/IMG_1234.JPG"), still, folder)
        }
        XCTAssertTrue(ok(args + ["--update"]).contains("\"written\":0,\"updated\":0,\"skipped\":2"))
    }
}
