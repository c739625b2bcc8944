import Foundation
import XCTest
import PhotosTestSupport
@testable import PhotosCLI
import PhotosCore
import PhotosPostgreSQL
import PhotosSQLite

/// The output of one in-process run of the CLI.
struct RunResult {
    var status: Int32
    var stdout: String
    var stderr: String
    var stdoutBytes: [UInt8]
}

/// Runs `photos` in-process with captured stdout and stderr. In PostgreSQL mode a library the
/// command would create is made a PostgreSQL library first (`TestDatabase.preparingLibraries`);
/// a server that cannot be reached is a failure of the run (exit 70, the reason on stderr).
func photos(_ args: [String], env: [String: String] = [:]) -> RunResult {
    var out = [UInt8](), err = ""
    let streams = OutputStreams(
        out: { out += Array($0.utf8) }, err: { err += $0 }, outBytes: { out += $0 },
        stderrIsTerminal: false, color: false)
    var environment = env
    if environment["HOME"] == nil { environment["HOME"] = NSTemporaryDirectory() + "photos-cli-home-unused" }
    let prepared: [String]
    do {
        prepared = try TestDatabase.preparingLibraries(args, environment: environment)
    } catch {
        return RunResult(status: 70, stdout: "", stderr: "test server: \(error)\n", stdoutBytes: [])
    }
    let status = CLI.run(arguments: prepared, environment: environment, output: streams)
    return RunResult(
        status: status.rawValue, stdout: String(decoding: out, as: UTF8.self), stderr: err, stdoutBytes: out)
}

final class CLITests: TemporaryFolderTestCase {
    override var label: String { "photos-cli" }
    var lib: String { dir + "/lib" }

    func testHelpLooksLikeArgumentParserAndExitsZero() {
        let main = photos(["--help"])
        XCTAssertEqual(main.status, 0)
        XCTAssertTrue(main.stdout.hasPrefix("OVERVIEW: "))
        XCTAssertTrue(main.stdout.contains("\nSUBCOMMANDS:\n"))
        XCTAssertTrue(main.stdout.hasSuffix("See 'photos help <subcommand>' for detailed help.\n"))
        XCTAssertEqual(main.stderr, "")
        for command in ["init", "schema", "import", "list", "show", "thumbnail", "delete", "verify"] {
            let a = photos([command, "--help"]), b = photos(["help", command]), c = photos(["-h", command])
            XCTAssertEqual(a.status, 0, command)
            XCTAssertEqual(a.stdout, b.stdout, command)
            XCTAssertEqual(a.stdout, c.stdout, command)
            XCTAssertTrue(a.stdout.contains("USAGE: photos \(command)"), command)
            XCTAssertTrue(a.stdout.contains("OPTIONS:"), command)
        }
        XCTAssertTrue(
            photos(["import", "--help"], env: ["COLUMNS": "200"]).stdout.contains(
                "--max-pixels <n>            Refuse images larger than N pixels, before decoding. (default: 100000000)")
        )
        XCTAssertTrue(photos(["--version"]).stdout.hasPrefix("photos \(CLI.version)\n"))
    }

    func testUsageErrorsExit64WithErrorAndUsageLines() {
        let unknown = photos(["import", "--frobnicate", "x"])
        XCTAssertEqual(unknown.status, 64)
        XCTAssertEqual(
            unknown.stderr,
            "photos import: error: unknown option '--frobnicate'\nUsage: photos import [<options>] <path> ...\n  See 'photos import --help' for more information.\n"
        )
        XCTAssertEqual(photos(["frobnicate"]).status, 64)
        XCTAssertEqual(photos([]).status, 64)
        XCTAssertEqual(photos(["import"]).status, 64, "missing path")
        XCTAssertEqual(photos(["import", "--jobs", "0", samplesDir]).status, 64)
        XCTAssertEqual(photos(["import", "--jobs"]).status, 64)
        XCTAssertEqual(photos(["list", "--since", "last tuesday"]).status, 64)
        XCTAssertEqual(photos(["show", "a", "b"]).status, 64)
        XCTAssertEqual(photos(["--json=yes", "list"]).status, 64)
        XCTAssertEqual(photos(["thumbnail", "abcd"]).status, 64, "missing --output")
    }

    func testImportListShowThumbnailDeleteEndToEnd() throws {
        // Global options after the subcommand name, in both spellings.
        let imported = photos(["import", samplesDir, "--library=\(lib)", "--json", "--jobs", "2"])
        XCTAssertEqual(imported.status, 0, imported.stderr)
        if !TestDatabase.isPostgreSQL {
            // (In PostgreSQL mode the library was made before, as `init --database` makes one:
            // `import` creates only SQLite libraries.)
            XCTAssertTrue(imported.stderr.contains("created library at \(lib)"))
        }
        let summary = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(imported.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(summary["imported"] as? Int, 6)
        XCTAssertEqual(summary["failed"] as? Int, 0)
        XCTAssertEqual(
            Array(summary.keys).sorted(),
            [
                "bytes", "duplicates", "failed", "failures", "imported", "joined", "livePaired", "paired",
                "restorations",
                "restored", "seconds", "skipped"
            ])

        let list = photos(["--library", lib, "list", "--json"])
        XCTAssertEqual(list.status, 0)
        let lines = list.stdout.split(separator: "\n")
        XCTAssertEqual(lines.count, 6)
        let objects = try lines.map {
            try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        // Every key of any photo (`camera` only where a camera is known: four of the six samples,
        // not ladybird.jpg nor kite.png).
        XCTAssertEqual(
            Set(objects.flatMap(\.keys)),
            [
                "uniqueName", "displayName", "sha256", "byteSize", "format", "width", "height", "orientation",
                "captureDate", "captureOffset", "captureSource", "importedAt", "thumbnailWidth", "thumbnailHeight",
                "tags", "ratings",
                "rating", "zone", "scope", "title", "description", "latitude", "longitude", "altitude", "kind",
                "duration", "videoCodec", "cameraFormat", "camera", "originals"
            ])
        XCTAssertEqual(objects.filter { $0["camera"] != nil }.count, 4)
        let ladybird = try XCTUnwrap(objects.first { $0["displayName"] as? String == "ladybird.jpg" })
        XCTAssertNil(ladybird["camera"], "ladybird.jpg names no camera")
        let storm = try XCTUnwrap(objects.first { $0["displayName"] as? String == "storm.jpg" })
        // Its lens is only in Canon's maker notes (exiftool: [Canon] LensModel), not EXIF 0xA434.
        let camera = try XCTUnwrap(storm["camera"] as? [String: Any])
        XCTAssertEqual(camera["make"] as? String, "Canon")
        XCTAssertEqual(camera["model"] as? String, "Canon EOS 400D DIGITAL")
        XCTAssertTrue(camera["lens"] is NSNull)
        XCTAssertTrue(storm["cameraFormat"] is NSNull)
        // path.jpg's lens is its XMP `aux:Lens` (no EXIF LensModel).
        let path = try XCTUnwrap(objects.first { $0["displayName"] as? String == "path.jpg" })
        XCTAssertEqual((path["camera"] as? [String: Any])?["lens"] as? String, "OLYMPUS M.7-14mm F2.8")
        let olympus = photos(["--library", lib, "list", "--camera", "olympus", "--json"])
        XCTAssertEqual(olympus.stdout.split(separator: "\n").count, 1, olympus.stderr)
        XCTAssertTrue(olympus.stdout.contains(#""displayName":"path.jpg""#), olympus.stdout)
        let empty = photos(["--library", lib, "list", "--camera", ""])
        XCTAssertEqual(empty.status, 64, empty.stderr)
        XCTAssertTrue(empty.stderr.contains("--camera takes 1 to 128 bytes of text"), empty.stderr)
        XCTAssertEqual(ladybird["tags"] as? [String], ["Insect", "Nature"])
        XCTAssertEqual(ladybird["rating"] as? Int, 4)
        let name = try XCTUnwrap(ladybird["uniqueName"] as? String)

        let tagged = photos(["--library", lib, "list", "--tag", "insect", "--json"])
        XCTAssertEqual(
            tagged.stdout.split(separator: "\n").count, 1, "tag names are compared ignoring case (issue 14)")
        XCTAssertEqual(
            photos(["--library", lib, "list", "--tag", "Insect", "--json"]).stdout.split(separator: "\n").count, 1)
        XCTAssertEqual(
            photos(["--library", lib, "list", "--since", "2008-01-01", "--until", "2014-12-31", "--json"]).stdout.split(
                separator: "\n"
            ).count, 2,
            "storm.jpg (2008) and colorful-cups (2014) by capture date")

        let show = photos(["--library", lib, "show", String(name.prefix(6)).lowercased()])
        XCTAssertEqual(show.status, 0, show.stderr)
        XCTAssertTrue(show.stdout.contains("displayName: ladybird.jpg"))
        XCTAssertTrue(show.stdout.contains("rating:      4 (the mean of 1, rounded half up)\n"), show.stdout)
        XCTAssertTrue(show.stdout.contains("ratings:     (anonymous) 4\n"), show.stdout)
        XCTAssertTrue(show.stdout.contains("camera:      -\n"), show.stdout)
        let pathName = try XCTUnwrap(path["uniqueName"] as? String)
        let showPath = photos(["--library", lib, "show", pathName])
        XCTAssertTrue(
            showPath.stdout.contains("camera:      OLYMPUS IMAGING CORP. E-M1, OLYMPUS M.7-14mm F2.8\n"),
            showPath.stdout)
        XCTAssertTrue(showPath.stdout.contains("format:      jpeg\n"), showPath.stdout)

        let thumb = dir + "/t.jpg"
        XCTAssertEqual(photos(["--library", lib, "thumbnail", name, "-o", thumb]).status, 0)
        let bytes = try XCTUnwrap(FileManager.default.contents(atPath: thumb))
        XCTAssertEqual(Array(bytes.prefix(2)), [0xFF, 0xD8])
        let toStdout = photos(["--library", lib, "thumbnail", name, "--output", "-"])
        XCTAssertEqual(toStdout.stdoutBytes, Array(bytes))
        XCTAssertEqual(photos(["--library", lib, "thumbnail", name, "-o", dir + "/no/such/dir/t.jpg"]).status, 73)

        XCTAssertEqual(photos(["--library", lib, "show", "0000-no-such"]).status, 66)
        XCTAssertEqual(
            photos(["--library", lib, "delete", name, "ffff-nope"]).status, 66,
            "nothing is deleted when one photo is unknown")
        XCTAssertEqual(photos(["--library", lib, "list", "--json"]).stdout.split(separator: "\n").count, 6)
        let deleted = photos(["--library", lib, "delete", name])
        XCTAssertEqual(deleted.status, 0)
        XCTAssertEqual(deleted.stdout, "Deleted 1 photo\n")
        XCTAssertEqual(photos(["--library", lib, "list", "--json"]).stdout.split(separator: "\n").count, 5)
        XCTAssertEqual(photos(["--library", lib, "verify"]).status, 0)
    }

    func testFailuresAreNamedOnStderrAndExitOne() throws {
        try FileManager.default.createDirectory(atPath: dir + "/in", withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: dir + "/in/broken.jpg", contents: Data("not an image".utf8))
        try FileManager.default.copyItem(atPath: samplesDir + "/storm.jpg", toPath: dir + "/in/storm.jpg")
        let run = photos(["--library", lib, "import", dir + "/in"])
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(
            run.stderr.contains(
                "\(dir)/in/broken.jpg: error: not a JPEG, PNG, HEIF, AVIF, WebP, TIFF, GIF, JPEG XL or camera RAW file"),
            run.stderr)
        XCTAssertTrue(run.stdout.hasPrefix("Imported 1 photo, 0 duplicates, 0 skipped, 1 failed;"), run.stdout)
        let quiet = photos(["--library", lib, "import", "--quiet", dir + "/in/storm.jpg"])
        XCTAssertEqual(quiet.status, 0)
        XCTAssertEqual(quiet.stdout + quiet.stderr, "", "--quiet prints nothing on success")
        XCTAssertEqual(photos(["--library", lib, "import", dir + "/missing"]).status, 66)
    }

    func testMissingNewerAndBusyLibraries() throws {
        let missing = photos(["--library", lib, "list"])
        XCTAssertEqual(missing.status, 66)
        XCTAssertTrue(missing.stderr.contains("no library at \(lib)"))
        let created = photos(["--library", lib, "init"]).stdout
        if TestDatabase.isPostgreSQL {
            // `init` made a PostgreSQL library (`photos init --database`, TestDatabase).
            XCTAssertTrue(created.hasPrefix("Created library at \(lib) with its catalog in "), created)
            XCTAssertTrue(
                created.hasSuffix(
                    " (schema version \(PostgresSchema.currentVersion)); its originals are in \(lib)/ExternalData\n"),
                created)
        } else {
            XCTAssertEqual(created, "Created library at \(lib) (schema version \(Schema.currentVersion))\n")
        }
        let version = TestDatabase.isPostgreSQL ? PostgresSchema.currentVersion : Schema.currentVersion
        XCTAssertEqual(
            photos(["--library", lib, "init"]).stdout, "Library at \(lib) is up to date (schema version \(version))\n")
        let schema = photos(["--library", lib, "schema"])
        if TestDatabase.isPostgreSQL {
            XCTAssertTrue(schema.stdout.hasPrefix("-- schema version \(version) (table schema_version)\n"))
            XCTAssertTrue(schema.stdout.contains("CREATE TABLE photo ("), schema.stdout)
        } else {
            XCTAssertTrue(schema.stdout.hasPrefix("-- schema version \(version) (PRAGMA user_version)\n"))
            // Migration 4 rebuilt photo by RENAME, which SQLite stores quoted.
            XCTAssertTrue(schema.stdout.contains("CREATE TABLE \"photo\" ("), schema.stdout)
            XCTAssertTrue(
                schema.stdout.contains(
                    "CHECK (format IN ('jpeg', 'png', 'heif', 'avif', 'webp', 'raw', 'tiff', 'gif', 'jxl', 'video')),"),
                schema.stdout)
        }

        let db = try TestCatalog(root: lib)
        try db.beginWriteTransaction()
        let busy = photos(["--library", lib, "--wait", "0.2", "import", samplesDir + "/storm.jpg"])
        XCTAssertEqual(busy.status, 75, busy.stderr)
        XCTAssertTrue(busy.stderr.contains("library \(lib) is busy"), busy.stderr)
        try db.rollback()
        // The lock is taken before any original is written: a refused import leaves nothing behind.
        let afterBusy = photos(["--library", lib, "verify", "--json"])
        XCTAssertTrue(
            afterBusy.stdout.contains("\"problems\":0,") && afterBusy.stdout.contains("\"files\":0,"), afterBusy.stdout)
        XCTAssertEqual(photos(["--library", lib, "verify"]).status, 0)
        XCTAssertEqual(photos(["--library", lib, "list", "--json"]).stdout, "", "nothing was committed")

        // A schema version newer than this build's: PRAGMA user_version, or the schema_version row.
        try db.execute(
            TestDatabase.isPostgreSQL ? "UPDATE schema_version SET version = 99" : "PRAGMA user_version = 99")
        let newer = photos(["--library", lib, "list"])
        XCTAssertEqual(newer.status, 65)
        XCTAssertTrue(newer.stderr.contains("schema version 99, newer than this photos supports"), newer.stderr)
    }

    func testEmptyLibraryOptionIsAUsageErrorNotTheDefaultLibrary() {
        let env = ["HOME": dir]
        for args in [
            ["--library", "", "import", samplesDir + "/kite.png"], ["import", "--library=", samplesDir + "/kite.png"],
            ["--library", "", "list"]
        ] {
            let run = photos(args, env: env)
            XCTAssertEqual(run.status, 64, "\(args): \(run.stderr)")
            XCTAssertTrue(run.stderr.contains("--library needs a path"), run.stderr)
        }
        XCTAssertFalse(
            FileManager.default.fileExists(atPath: dir + "/.local/share/photos/Library"),
            "the default library was not touched")
    }

    func testLibraryThatCannotBeCreatedSaysWhy() {
        _ = FileManager.default.createFile(atPath: dir + "/afile", contents: Data("x".utf8))
        let onFile = photos(["--library", dir + "/afile", "import", samplesDir + "/kite.png"])
        XCTAssertEqual(onFile.status, 73)
        XCTAssertEqual(
            onFile.stderr,
            "photos import: error: cannot create library folder \(dir)/afile: \(dir)/afile exists and is not a folder\n"
        )
        let under = photos(["--library", dir + "/afile/lib", "init"])
        XCTAssertEqual(under.status, 73)
        XCTAssertTrue(under.stderr.contains("\(dir)/afile exists and is not a folder"), under.stderr)
        let proc = photos(["--library", "/proc/photos-lib", "init"])
        XCTAssertEqual(proc.status, 73)
        XCTAssertTrue(proc.stderr.contains("/proc/photos-lib: No such file or directory"), proc.stderr)
    }

    func testControlCharactersInFileNamesCannotSplitLinesOrReachTheTerminal() throws {
        try FileManager.default.createDirectory(atPath: dir + "/in", withIntermediateDirectories: true)
        _ = FileManager.default.createFile(
            atPath: dir + "/in/bad\nname\u{1B}[2J.jpg", contents: Data([0xFF, 0xD8, 0xFF, 0xE0, 0x00]))
        try FileManager.default.copyItem(
            atPath: samplesDir + "/storm.jpg", toPath: dir + "/in/c1\u{9B}x\u{2028}y\tz.jpg")
        let run = photos(["--library", lib, "import", "-q", dir + "/in"])
        XCTAssertEqual(run.status, 1)
        XCTAssertEqual(run.stderr, "\(dir)/in/bad\\nname\\u{1B}[2J.jpg: error: Premature end of JPEG file\n")
        func controls(_ text: String) -> [UInt32] {
            text.unicodeScalars.map(\.value).filter {
                $0 != 0x0A && ($0 < 0x20 || (0x7F...0x9F).contains($0) || $0 == 0x2028)
            }
        }
        let list = photos(["--library", lib, "list"])
        XCTAssertEqual(list.stdout.split(separator: "\n").count, 2, list.stdout)
        XCTAssertEqual(controls(list.stdout), [], list.stdout)
        XCTAssertTrue(list.stdout.contains("c1?x?y?z.jpg"), list.stdout)
        let name = try XCTUnwrap(list.stdout.split(separator: "\n").last?.split(separator: " ").first.map(String.init))
        let show = photos(["--library", lib, "show", name])
        XCTAssertEqual(controls(show.stdout), [], show.stdout)
        XCTAssertTrue(show.stdout.contains("displayName: c1\\u{9B}x\\u{2028}y\\tz.jpg\n"), show.stdout)
        let json = photos(["--library", lib, "show", "--json", name])
        XCTAssertTrue(
            json.stdout.contains("\"displayName\":\"c1\u{9B}x\\u2028y\\tz.jpg\""),
            "JSON keeps the name, escaped by JSON rules: \(json.stdout)")
    }

    func testLibraryComesFromTheEnvironment() {
        let env = ["PHOTOS_LIBRARY": lib, "HOME": dir]
        XCTAssertEqual(photos(["import", "-q", samplesDir + "/kite.png"], env: env).status, 0)
        XCTAssertNotNil(TestDatabase.backend(ofLibraryAt: lib))
        let xdg = ["XDG_DATA_HOME": dir + "/xdg", "HOME": dir]
        XCTAssertEqual(photos(["import", "-q", samplesDir + "/kite.png"], env: xdg).status, 0)
        XCTAssertNotNil(TestDatabase.backend(ofLibraryAt: dir + "/xdg/photos/Library"))
    }

    func testAuthorIsRecordedInHistory() throws {
        XCTAssertEqual(
            photos(["--library", lib, "import", "-q", "--author", "cron-nightly", samplesDir + "/kite.png"]).status, 0)
        XCTAssertEqual(
            photos(["--library", lib, "import", "-q", samplesDir + "/storm.jpg"], env: ["PHOTOS_AUTHOR": "alice"])
                .status, 0)
        let db = try TestCatalog(root: lib)
        XCTAssertEqual(
            try db.statement("SELECT author FROM history_transaction ORDER BY token").map { $0.string(0) },
            ["cron-nightly", "alice"])
    }
}
