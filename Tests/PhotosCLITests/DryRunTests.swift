import Foundation
import XCTest
import PhotosTestSupport
import PhotosFiles
import PhotosCore
import PhotosSQLite

/// What `DryRunTests` and `DryRunHealTests` both need: the before/after snapshot and the
/// reading and comparing of a `--json` report.
protocol DryRunChecking {}

extension DryRunChecking {
    /// The database dump of every library under `roots` and the file tree of each root.
    func snapshot(_ roots: [String]) throws -> [String] {
        var lines: [String] = []
        for root in roots {
            lines.append("== \(root)")
            lines += try LibrarySnapshot.dumpCatalog(root)
            lines += LibrarySnapshot.fileTree(root)
        }
        return lines
    }

    /// The last line of `text` (a command's stdout) parsed as a JSON object.
    func lastJSONObject(_ text: String) throws -> [String: Any] {
        let line = try XCTUnwrap(text.split(separator: "\n").last, "no JSON in '\(text)'")
        return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    /// The report without its dry-run marker and timing, for comparing with the real run's.
    func comparable(_ report: [String: Any]) -> NSDictionary {
        var r = report
        r["dryRun"] = nil
        r["seconds"] = nil
        return r as NSDictionary
    }
}

/// Issue 9 item 1: a dry run never writes. Each command's `--dry-run` runs against a library
/// with photos, tags, ratings, a share with participants, history and a consumer; the full
/// database dump (every table's rows, `PRAGMA user_version`) and the file tree (paths, sizes,
/// SHA-256, mtimes) before and after must be identical, and the dry run's report must be the
/// one the real run then gives.
final class DryRunTests: BinaryTestCase, DryRunChecking {
    override var label: String { "photos-dryrun" }

    // MARK: snapshots

    /// Runs `args`, asserting exit 0 and that nothing under `roots` changed; returns its JSON.
    func dryRun(_ args: [String], roots: [String], file: StaticString = #filePath, line: UInt = #line) throws
        -> [String: Any]
    {
        let before = try snapshot(roots)
        let result = try run(args + ["--json"])
        XCTAssertEqual(result.status, 0, result.stderr, file: file, line: line)
        let after = try snapshot(roots)
        XCTAssertEqual(before.count, after.count, "\(args)", file: file, line: line)
        for (b, a) in zip(before, after) where b != a {
            XCTFail("\(args) changed \(b) into \(a)", file: file, line: line)
            break
        }
        for extra in after where !before.contains(extra) {
            XCTFail("\(args) left \(extra)", file: file, line: line)
        }
        return try lastJSONObject(result.stdout)
    }

    func ok(_ args: [String], file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        let result = try run(args + ["--json"])
        XCTAssertEqual(result.status, 0, "\(args): \(result.stderr)", file: file, line: line)
        return try lastJSONObject(result.stdout)
    }

    /// A library with the samples, a share (with an owner and an invited participant) holding
    /// one photo, a rating, a registered history consumer.
    func makeRichLibrary(_ lib: String) throws -> String {
        _ = try ok(["--library", lib, "import", samplesDir])
        let first =
            try run(["--library", lib, "list", "--json"]).stdout.split(separator: "\n").first.map(String.init) ?? ""
        let unique = try XCTUnwrap(try lastJSONObject(first)["uniqueName"] as? String)
        let share = try ok(["--library", lib, "share", "create", "--title", "Trip", "--owner", "me@example.com", unique]
        )
        let id = try XCTUnwrap(share["id"] as? String)
        XCTAssertEqual(try run(["--library", lib, "share", "invite", id, "bob@example.com"]).status, 0)
        XCTAssertEqual(try run(["--library", lib, "rate", unique, "3"]).status, 0)
        XCTAssertEqual(try run(["--library", lib, "history", "--consumer", "backup", "--advance", "-q"]).status, 0)
        return id
    }

    // MARK: tests

    /// The example: `merge --from A --dry-run` into an empty B committed A's zone, share
    /// and participants, and the real merge then reported "0 zones, 0 shares".
    func testMergeDryRunIntoEmptyLibraryWritesNothingAndReportsWhatTheMergeDoes() throws {
        let a = dir + "/A", b = dir + "/B"
        _ = try makeRichLibrary(a)
        XCTAssertEqual(try run(["--library", b, "init", "-q"]).status, 0)
        let dry = try dryRun(["--library", b, "merge", "--from", a, "--dry-run"], roots: [a, b])
        XCTAssertEqual(dry["dryRun"] as? Bool, true)
        XCTAssertEqual(dry["zones"] as? Int, 1)
        XCTAssertEqual(dry["shares"] as? Int, 1)
        XCTAssertEqual(dry["participants"] as? Int, 2)
        XCTAssertEqual(dry["photos"] as? Int, 6)
        XCTAssertEqual(dry["filesCopied"] as? Int, 6)
        let real = try ok(["--library", b, "merge", "--from", a])
        XCTAssertEqual(comparable(dry), comparable(real))
        // Again: nothing new, and the dry run says so.
        let again = try dryRun(["--library", b, "merge", "--from", a, "--dry-run"], roots: [a, b])
        XCTAssertEqual(again["photos"] as? Int, 0)
        XCTAssertEqual(again["matchedPhotos"] as? Int, 6)
        XCTAssertEqual(again["zones"] as? Int, 0)
        XCTAssertEqual(again["filesCopied"] as? Int, 0)
    }

    func testImportDryRunWritesNothingAndCountsLikeTheImport() throws {
        let lib = dir + "/lib"
        _ = try makeRichLibrary(lib)
        let (input, count) = try makeInput(copies: 2)
        // New files, one duplicate of a library photo, and a sidecar with tags.
        XCTAssertNoThrow(
            try FileManager.default.copyItem(atPath: samplesDir + "/ladybird.jpg", toPath: input + "/dup.jpg"))
        let dry = try dryRun(
            ["--library", lib, "import", "--dry-run", "--batch-size", "3", "--tag", "Fresh", input], roots: [lib, input]
        )
        XCTAssertEqual(dry["imported"] as? Int, count)
        XCTAssertEqual(dry["duplicates"] as? Int, 1)
        let real = try ok(["--library", lib, "import", "--batch-size", "3", "--tag", "Fresh", input])
        XCTAssertEqual(comparable(dry), comparable(real))
        let again = try dryRun(["--library", lib, "import", "--dry-run", input], roots: [lib, input])
        XCTAssertEqual(again["imported"] as? Int, 0)
        XCTAssertEqual(again["duplicates"] as? Int, count + 1)
    }

    func testPurgeDryRunWritesNothingAndCountsTheFilesItWouldRemove() throws {
        let lib = dir + "/lib"
        let share = try makeRichLibrary(lib)
        let dry = try dryRun(["--library", lib, "purge", "--share", share, "--dry-run"], roots: [lib])
        XCTAssertEqual(dry["photos"] as? Int, 1)
        XCTAssertEqual(dry["participants"] as? Int, 2)
        XCTAssertEqual(dry["filesRemoved"] as? Int, 1, "the dry run counts the original a purge removes")
        let real = try ok(["--library", lib, "purge", "--share", share])
        XCTAssertEqual(comparable(dry), comparable(real))
    }

    func testDedupeTagsDryRunWritesNothingAndFindsTheSameGroups() throws {
        let a = dir + "/A", c = dir + "/C"
        _ = try makeRichLibrary(a)
        // C has the same photo with its own 'Nature' and 'Insect' tags (other uuids).
        _ = try ok(["--library", c, "import", samplesDir + "/ladybird.jpg"])
        _ = try ok(["--library", a, "merge", "--from", c])
        let dry = try dryRun(["--library", a, "dedupe-tags", "--dry-run"], roots: [a])
        XCTAssertEqual(dry["merged"] as? Int, 2)
        XCTAssertEqual(dry["groups"] as? Int, 2)
        let real = try ok(["--library", a, "dedupe-tags"])
        XCTAssertEqual(comparable(dry), comparable(real))
        // The consumer token moved only with the real run: a second dry run finds nothing.
        let after = try dryRun(["--library", a, "dedupe-tags", "--dry-run"], roots: [a])
        XCTAssertEqual(after["merged"] as? Int, 0)
    }

    func testHistoryCompactDryRunWritesNothingNeitherVacuumsNorCheckpoints() throws {
        let lib = dir + "/lib"
        _ = try makeRichLibrary(lib)
        let dry = try dryRun(
            ["--library", lib, "history", "compact", "--before-token", "99", "--force", "--dry-run"], roots: [lib])
        let transactions = try XCTUnwrap(dry["transactions"] as? Int)
        XCTAssertGreaterThan(transactions, 3)
        let limited = try dryRun(
            ["--library", lib, "history", "compact", "--before-token", "99", "--dry-run"], roots: [lib])
        XCTAssertEqual(limited["limitedByConsumer"] as? String, "backup")
        let real = try ok(["--library", lib, "history", "compact", "--before-token", "99", "--force"])
        XCTAssertEqual(real["transactions"] as? Int, transactions)
        XCTAssertEqual(real["changes"] as? Int, dry["changes"] as? Int)
        XCTAssertEqual(real["throughToken"] as? Int, dry["throughToken"] as? Int)
    }

    func testExportDryRunCreatesNoFolderNoStateAndCountsLikeTheExport() throws {
        let lib = dir + "/lib"
        _ = try makeRichLibrary(lib)
        let dest = dir + "/out/deeper"
        let dry = try dryRun(
            ["--library", lib, "export", dest, "--dry-run", "--thumbnails", "--template", "{capture:%Y}/{name}"],
            roots: [lib, dir + "/out"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/out"), "a dry run creates no DEST")
        XCTAssertEqual(dry["written"] as? Int, 6)
        let real = try ok(["--library", lib, "export", dest, "--thumbnails", "--template", "{capture:%Y}/{name}"])
        XCTAssertEqual(comparable(dry), comparable(real))
        // Into an existing DEST with a state: nothing changes there, and --cleanup counts right.
        let first =
            try run(["--library", lib, "list", "--json"]).stdout.split(separator: "\n").first.map(String.init) ?? ""
        let unique = try XCTUnwrap(try lastJSONObject(first)["uniqueName"] as? String)
        XCTAssertEqual(try run(["--library", lib, "delete", unique, "-q"]).status, 0)
        let cleanup = try dryRun(
            [
                "--library", lib, "export", dest, "--dry-run", "--update", "--cleanup", "--thumbnails", "--template",
                "{capture:%Y}/{name}"
            ], roots: [lib, dest])
        XCTAssertEqual(cleanup["skipped"] as? Int, 5)
        XCTAssertEqual(cleanup["removed"] as? Int, 3, "original, XMP sidecar and thumbnail of the deleted photo")
        let realCleanup = try ok([
            "--library", lib, "export", dest, "--update", "--cleanup", "--thumbnails", "--template",
            "{capture:%Y}/{name}"
        ])
        XCTAssertEqual(comparable(cleanup), comparable(realCleanup))
    }

    /// A dry run against a library that does not exist creates none.
    func testDryRunsOnAMissingLibraryCreateNothing() throws {
        let missing = dir + "/missing"
        let imported = try run(["--library", missing, "import", "--dry-run", samplesDir])
        XCTAssertEqual(imported.status, 0, imported.stderr)
        XCTAssertTrue(imported.stdout.hasPrefix("Would import 6 photos"), imported.stdout)
        let other = dir + "/other"
        _ = try ok(["--library", other, "import", samplesDir + "/storm.jpg"])
        for args in [
            ["merge", "--from", other, "--dry-run"], ["purge", "--share", "abcd", "--dry-run"],
            ["dedupe-tags", "--dry-run"], ["history", "compact", "--before-token", "9", "--dry-run"]
        ] {
            let result = try run(["--library", missing] + args)
            XCTAssertEqual(result.status, 66, "\(args): \(result.stderr)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: missing), "a dry run created the library")
    }

    /// The mechanism itself: inside `Library.dryRun`, `write` rolls back, a write outside a
    /// transaction fails (query_only), and the external data store writes and removes nothing.
    func testDryRunModeRollsBackRefusesStrayWritesAndTouchesNoFile() throws {
        let lib = dir + "/lib"
        _ = try ok(["--library", lib, "import", samplesDir + "/storm.jpg"])
        let library = try Library(root: lib, create: false)
        let before = try LibrarySnapshot.dumpCatalog(lib)
        let ref = try XCTUnwrap(library.externalData.allReferences().first)
        let seen: Int = try library.dryRun(true) {
            let inside = try library.write {
                try library.catalog.run("DELETE FROM photo")
                return try library.catalog.scalarInt("SELECT count(*) FROM photo") ?? -1
            }
            XCTAssertThrowsError(
                try library.catalog.run("DELETE FROM photo"),
                "query_only (SQLite), default_transaction_read_only (PostgreSQL) refuse a write outside write()")
            XCTAssertTrue(library.externalData.remove(reference: ref), "a dry run says the file would go")
            let bytes: [UInt8] = [1, 2, 3]
            XCTAssertFalse(try bytes.withUnsafeBytes { try library.externalData.write($0, reference: "zz/new") })
            return inside
        }
        XCTAssertEqual(seen, 0, "the body saw its own delete")
        XCTAssertFalse(library.isDryRun)
        XCTAssertTrue(FileManager.default.fileExists(atPath: library.externalData.path(for: ref)))
        XCTAssertFalse(FileManager.default.fileExists(atPath: library.externalData.path(for: "zz/new")))
        XCTAssertEqual(try library.catalog.scalarInt("SELECT count(*) FROM photo"), 1)
        // Out of the dry run, writes commit again.
        try library.write { try library.catalog.run("UPDATE photo SET display_name = 'x'") }
        XCTAssertEqual(try library.catalog.scalarString("SELECT display_name FROM photo"), "x")
        _ = before
    }
}
