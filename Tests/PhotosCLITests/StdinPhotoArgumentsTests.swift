import Foundation
import XCTest
import PhotosTestSupport
import PhotosSQLite

/// Every command that takes photos reads them from stdin for `-`; export takes photo ids and
/// every list filter, lists the files of a template with --dry-run, and refuses an unknown
/// strftime conversion with 64 (issue 14 item 2). Run with the binary through sh pipes.
final class StdinPhotoArgumentsTests: BinaryTestCase {
    override var label: String { "photos-stdin-photos" }
    var lib: String { dir + "/lib" }
    var names: [String: String] = [:]

    override func setUpWithError() throws {
        try super.setUpWithError()
        let imported = try run(
            [
                "--library", lib, "import", "-q", samplesDir + "/storm.jpg", samplesDir + "/path.jpg",
                samplesDir + "/kite.png", samplesDir + "/ladybird.jpg"
            ])
        XCTAssertEqual(imported.status, 0, imported.stderr)
        for row in try db().statement("SELECT display_name, unique_name FROM photo").map({
            ($0.string(0), $0.string(1))
        }) {
            names[row.0] = row.1
        }
    }

    func db() throws -> TestCatalog { try TestCatalog(root: lib, readOnly: true) }
    func name(_ display: String) -> String { names[display] ?? "missing-\(display)" }

    /// Runs `script` under sh with `photos` meaning the binary on this library.
    func sh(_ script: String) throws -> (status: Int32, stdout: String, stderr: String) {
        let photos = "'\(try binary())' --library '\(lib)'"
        return try runProcess("/bin/sh", ["-c", script.replacingOccurrences(of: "photos ", with: photos + " ")])
    }
    func tags(_ display: String) throws -> [String] {
        try db().statement(
            "SELECT t.name FROM photo_tag pt JOIN tag t ON t.id = pt.tag_id JOIN photo p ON p.id = pt.photo_id WHERE p.display_name = ? ORDER BY t.name"
        ).map([display]) { $0.string(0) }
    }

    func testListIntoTagAddThroughJq() throws {
        XCTAssertEqual(try run(["--library", lib, "tag", "add", "x", name("storm.jpg"), name("kite.png")]).status, 0)
        // jq as in the issue; where it is not installed, sed picks the same field.
        let jq =
            FileManager.default.isExecutableFile(atPath: "/usr/bin/jq")
            ? "jq -r .uniqueName" : #"sed -n 's/.*"uniqueName":"\([^"]*\)".*/\1/p'"#
        let piped = try sh("photos list --tag x --json | \(jq) | photos tag add Y -")
        XCTAssertEqual(piped.status, 0, piped.stderr)
        XCTAssertEqual(piped.stdout, "Tagged 2 photos with 'Y'\n")
        XCTAssertEqual(try tags("storm.jpg"), ["Y", "x"])
        XCTAssertEqual(try tags("kite.png"), ["Y", "x"])
        XCTAssertEqual(try tags("path.jpg"), [])

        // Names mixed with '-', prefixes, blank lines and spaces; an empty stdin is no photos.
        let mixed = try sh(
            "printf '\\n  %s  \\n\\n' \(String(name("path.jpg").prefix(6))) | photos tag add Z - \(name("kite.png"))")
        XCTAssertEqual(mixed.stdout, "Tagged 2 photos with 'Z'\n", mixed.stderr)
        XCTAssertEqual(try tags("path.jpg"), ["Z"])
        let empty = try sh("photos tag add W - < /dev/null")
        XCTAssertEqual(empty.status, 0, empty.stderr)
        XCTAssertEqual(empty.stdout, "Tagged 0 photos with 'W'\n")
        // An unknown name from stdin: 66 naming it, nothing tagged.
        let unknown = try sh("printf '%s\\nffff0000-nope\\n' \(name("ladybird.jpg")) | photos tag add V -")
        XCTAssertEqual(unknown.status, 66, unknown.stderr)
        XCTAssertTrue(unknown.stderr.contains("no photo 'ffff0000-nope'"), unknown.stderr)
        XCTAssertFalse(try tags("ladybird.jpg").contains("V"))
    }

    func testEveryPhotoCommandReadsStdin() throws {
        let storm = name("storm.jpg"), kite = name("kite.png")
        XCTAssertTrue(try sh("echo \(storm) | photos show -").stdout.contains("displayName: storm.jpg\n"))
        XCTAssertEqual(try sh("echo \(storm) | photos rate - 4").status, 0)
        XCTAssertTrue(try sh("echo \(storm) | photos rating list -").stdout.contains("4      photos"))
        XCTAssertEqual(try sh("echo \(storm) | photos thumbnail - -o '\(dir)/t.jpg'").status, 0)
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir + "/t.jpg"))
        XCTAssertEqual(try sh("echo \(storm) | photos tag add A -").status, 0)
        XCTAssertEqual(try sh("echo \(storm) | photos tag remove A -").stdout, "Removed 'A' from 1 photo\n")
        let created = try sh("echo \(storm) | photos share create - --title S --json")
        XCTAssertEqual(created.status, 0, created.stderr)
        let share = try XCTUnwrap(try db().scalarString("SELECT id FROM share"))
        XCTAssertEqual(try sh("echo \(kite) | photos share add \(share) -").status, 0)
        XCTAssertEqual(try db().scalarInt("SELECT count(*) FROM photo WHERE zone_id = '\(share)'"), 2)
        // One photo commands take exactly one name from stdin.
        let two = try sh("printf '%s\\n%s\\n' \(storm) \(kite) | photos show -")
        XCTAssertEqual(two.status, 64)
        XCTAssertTrue(
            two.stderr.hasPrefix("photos show: error: '-' reads one photo from stdin, and stdin held 2\n"), two.stderr)
        // delete last: both photos go.
        let deleted = try sh("printf '%s\\n%s\\n' \(storm) \(kite) | photos delete -")
        XCTAssertEqual(deleted.stdout, "Deleted 2 photos\n", deleted.stderr)
        XCTAssertEqual(try db().scalarInt("SELECT count(*) FROM photo"), 2)
    }

    func testExportTakesPhotoIdsFiltersAndListsTheFilesOfADryRun() throws {
        let out = dir + "/out"
        let dry = try sh(
            "echo \(name("storm.jpg")) | photos export '\(out)' - \(name("kite.png")) --dry-run --template '{capture:%Y}/{name}'"
        )
        XCTAssertEqual(dry.status, 0, dry.stderr)
        let planned = dry.stdout.split(separator: "\n").filter { $0.hasPrefix("would write ") }.map {
            String($0.dropFirst(12))
        }
        XCTAssertEqual(planned.count, 4, dry.stdout)
        XCTAssertTrue(planned.contains("2008/storm.jpg"), dry.stdout)
        XCTAssertTrue(planned.contains("2008/storm.jpg.xmp"), dry.stdout)
        XCTAssertTrue(planned.contains { $0.hasSuffix("/kite.png") }, dry.stdout)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out), "a dry run writes nothing")

        // The real export writes exactly those files; ids and a list filter combine.
        let real = try sh(
            "echo \(name("storm.jpg")) | photos export '\(out)' - \(name("kite.png")) --template '{capture:%Y}/{name}' -q"
        )
        XCTAssertEqual(real.status, 0, real.stderr)
        for file in planned { XCTAssertTrue(FileManager.default.fileExists(atPath: out + "/" + file), file) }
        let filtered = try run(
            ["--library", lib, "export", dir + "/png", name("storm.jpg"), name("kite.png"), "--format", "png", "--json"]
        )
        XCTAssertEqual(filtered.status, 0, filtered.stderr)
        XCTAssertTrue(filtered.stdout.contains(#""written":1,"#), filtered.stdout)
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir + "/png/kite.png"))
        XCTAssertEqual(try run(["--library", lib, "export", dir + "/n", "--name", "*.png", "-q"]).status, 0)
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: dir + "/n").filter { !$0.hasPrefix(".") }.sorted(),
            ["kite.png", "kite.png.xmp"], "--name selects photos in export as in list")
    }

    /// An unknown strftime conversion, field, tag, zone, share or photo is refused before DEST
    /// is created.
    func testBadTemplatesAndUnknownSelectionsCreateNothing() throws {
        let dest = dir + "/never"
        for (args, status, message) in [
            (
                ["--template", "{capture:%Y/%Q}/{name}"], Int32(64),
                "unknown strftime conversion '%Q' in '{capture:%Y/%Q}'"
            ),
            (["--template", "{imported:%-k%E}"], 64, "unknown strftime conversion '%E'"),
            (["--template", "{nope}"], 64, "unknown field '{nope}'"),
            (["--name", "{capture:%Y}/{name}"], 64, "the file name template is --template"),
            (["--tag", "nope"], 66, "no tag 'nope' in the library"),
            (["--zone", "nowhere"], 66, "no zone 'nowhere' in the library"),
            (["--share", "nosuchshare"], 66, "no share 'nosuchshare' in the library"),
            (["ffff0000-nope"], 66, "no photo 'ffff0000-nope' in the library")
        ] {
            let result = try run(["--library", lib, "export", dest] + args)
            XCTAssertEqual(result.status, status, "\(args): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains(message), "\(args): \(result.stderr)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: dest), "\(args)")
        }
        XCTAssertEqual(
            try run(["--library", lib, "export", dest, "--dry-run", "--template", "{capture:%-d.%m.%Y %H%M}/{name}"])
                .status, 0, "glibc flags and every POSIX conversion are accepted")
    }
}
