import Foundation
import PhotosCore
import PhotosTestSupport
import XCTest

/// Issue 32 item 7 (history `-n N`, `--reverse`; relative dates `-7d`, `yesterday`, `today`
/// wherever a date is taken), item 5's empty result (nothing on stdout, "no photos match" on
/// stderr, exit 0) and item 8's combined short flags (`-qr`), in-process on the backend of the
/// run (`PHOTOS_TEST_DATABASE_URL`).
final class HistoryLimitAndRelativeDatesTests: TemporaryFolderTestCase {
    override var label: String { "photos-history-relative" }
    var lib: String { dir + "/lib" }

    func run(_ args: [String]) -> RunResult { photos(["--library", lib] + args) }

    @discardableResult
    func ok(_ args: [String], file: StaticString = #filePath, line: UInt = #line) -> String {
        let r = run(args)
        XCTAssertEqual(r.status, 0, "\(args): \(r.stderr)", file: file, line: line)
        return r.stdout
    }

    /// The `token` of each `history --json` line, in printed order.
    func tokens(_ args: [String], file: StaticString = #filePath, line: UInt = #line) throws -> [Int] {
        try ok(["history", "--json"] + args, file: file, line: line).split(separator: "\n").map {
            let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
            return try XCTUnwrap(object["token"] as? Int, String($0))
        }
    }

    func importSamples(_ files: [String]) {
        for file in files { ok(["import", "-q", samplesDir + "/" + file]) }
    }

    // MARK: Relative dates, resolved

    func testRelativeDatesResolveToDaysInTheZoneAndInstantsBeforeNow() throws {
        let utc = try XCTUnwrap(TimeZone(identifier: "UTC"))
        let now = try XCTUnwrap(ISODate.parse("2026-03-01T10:00:00Z")).date
        func resolved(_ text: String, _ zone: TimeZone) -> String? {
            CaptureBound.resolvingRelative(text, now: now, timeZone: zone)
        }
        XCTAssertEqual(resolved("today", utc), "2026-03-01")
        XCTAssertEqual(resolved("TODAY", utc), "2026-03-01")
        XCTAssertEqual(resolved("yesterday", utc), "2026-02-28")
        XCTAssertEqual(resolved("-0d", utc), "2026-03-01")
        XCTAssertEqual(resolved("-7d", utc), "2026-02-22")
        XCTAssertEqual(resolved("-2w", utc), "2026-02-15")
        XCTAssertEqual(resolved("-3h", utc), "2026-03-01T07:00:00Z")
        XCTAssertEqual(resolved("-30m", utc), "2026-03-01T09:30:00Z")
        XCTAssertEqual(resolved("-366d", utc), "2025-02-28")
        // The day is the zone's: at 10:00 UTC it is already 2 March at +14:00, still 1 March at -10:00.
        XCTAssertEqual(resolved("today", try XCTUnwrap(TimeZone(secondsFromGMT: 14 * 3600))), "2026-03-02")
        XCTAssertEqual(resolved("yesterday", try XCTUnwrap(TimeZone(secondsFromGMT: -11 * 3600))), "2026-02-27")
        for text in ["7d", "-d", "-7x", "--7d", "-+7d", "-7.5d", "-1000000d", "last tuesday", "2024-05-01", "tomorrow"]
        {
            XCTAssertNil(resolved(text, utc), text)
        }
        // Days are day-only bounds (`--until today` includes today); hours are instants.
        XCTAssertTrue(CaptureBound.isDayOnly("-7d"))
        XCTAssertTrue(CaptureBound.isDayOnly("yesterday"))
        XCTAssertFalse(CaptureBound.isDayOnly("-3h"))
        let today = try XCTUnwrap(CaptureBound.resolvingRelative("today"))
        XCTAssertEqual(CaptureBound.parse("today"), CaptureBound(local: today + "T00:00:00", offsetMinutes: nil))
        XCTAssertEqual(try XCTUnwrap(CaptureBound.parse("-3h")).offsetMinutes, 0)
    }

    // MARK: Every command that takes a date

    /// The samples were captured years ago: `--until today` keeps them, `--since yesterday`
    /// leaves them out, in list, export and gallery; history's transactions were made just now.
    func testEveryDateOptionTakesRelativeDates() throws {
        importSamples(["storm.jpg", "path.jpg"])
        XCTAssertEqual(ok(["list", "--json", "--until", "today"]).split(separator: "\n").count, 2)
        XCTAssertEqual(ok(["list", "--json", "--since", "-100000d"]).split(separator: "\n").count, 2)
        let none = run(["list", "--since", "yesterday"])
        XCTAssertEqual(none.status, 0, none.stderr)
        XCTAssertEqual(none.stdout, "")
        XCTAssertEqual(none.stderr, "photos: no photos match\n")
        XCTAssertEqual(run(["list", "--json", "--since", "-7d"]).stdout, "")
        XCTAssertEqual(run(["list", "--json", "--since", "-3h"]).stdout, "")

        let kept = dir + "/kept", dropped = dir + "/dropped"
        ok(["export", kept, "--until", "today"])
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: kept).filter { $0.hasSuffix(".jpg") }.sorted(),
            ["path.jpg", "storm.jpg"])
        let exportNone = run(["export", dropped, "--since", "-1w"])
        XCTAssertEqual(exportNone.status, 0, exportNone.stderr)
        XCTAssertEqual(
            ((try? FileManager.default.contentsOfDirectory(atPath: dropped)) ?? []).filter { $0.hasSuffix(".jpg") }, [])
        XCTAssertEqual(run(["gallery", dir + "/gallery", "--until", "today", "-q"]).status, 0)

        let all = try tokens([])
        XCTAssertEqual(all.count, 2)
        XCTAssertEqual(try tokens(["--since", "yesterday"]), all)
        XCTAssertEqual(try tokens(["--since", "-1h"]), all)
        XCTAssertEqual(try tokens(["--until", "-2d"]), [])
        XCTAssertEqual(try tokens(["--until", "today"]), all)
        let compact = run(["history", "compact", "--before", "-1d", "--dry-run"])
        XCTAssertEqual(compact.status, 0, compact.stderr)
        XCTAssertEqual(try tokens([]), all)

        // A date that is none of these is a usage error naming the forms.
        for args in [
            ["list", "--since", "-7y"], ["export", dir + "/x", "--until", "tomorrow"],
            ["gallery", dir + "/g", "--since", "7d"], ["history", "--since", "-d"],
            ["history", "--until", "last week"], ["history", "compact", "--before", "-1q"]
        ] {
            let r = run(args)
            XCTAssertEqual(r.status, 64, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("-7d") || r.stderr.contains("-30d"), r.stderr)
        }
    }

    // MARK: history -n, --reverse

    func testHistoryLimitKeepsTheNewestAndReverseListsNewestFirst() throws {
        importSamples(["storm.jpg", "path.jpg", "kite.png"])
        let all = try tokens([])
        XCTAssertEqual(all.count, 3)
        XCTAssertEqual(all, all.sorted())
        XCTAssertEqual(try tokens(["-n", "2"]), Array(all.suffix(2)))
        XCTAssertEqual(try tokens(["--limit", "1"]), [all[2]])
        XCTAssertEqual(try tokens(["-n", "0"]), [])
        XCTAssertEqual(try tokens(["-n", "10"]), all)
        XCTAssertEqual(try tokens(["--reverse"]), all.reversed())
        XCTAssertEqual(try tokens(["-r", "-n", "2"]), [all[2], all[1]])
        XCTAssertEqual(try tokens(["-rn", "2"]), [all[2], all[1]], "combined short options")
        XCTAssertEqual(try tokens(["-n", "1", "--since-token", String(all[0])]), [all[2]])
        // Text output: the newest transaction's line only.
        let text = ok(["history", "-n", "1"]).split(separator: "\n")
        XCTAssertTrue(text.first?.hasPrefix("token \(all[2])  ") == true, "\(text)")
        XCTAssertFalse(text.contains { $0.hasPrefix("token \(all[1]) ") })

        let advance = run(["history", "--consumer", "c", "--advance", "-n", "1"])
        XCTAssertEqual(advance.status, 64, advance.stderr)
        XCTAssertEqual(run(["history", "-n", "-1"]).status, 64)
        XCTAssertEqual(run(["history", "-n", "x"]).status, 64)
    }

    // MARK: list's empty result, combined short flags

    func testEmptyListPrintsNothingOnStdoutAndExitsZero() throws {
        ok(["init", "-q"])
        for args in [["list"], ["list", "--json"], ["list", "--name", "nothing*"]] {
            let r = run(args)
            XCTAssertEqual(r.status, 0, "\(args): \(r.stderr)")
            XCTAssertEqual(r.stdout, "", "\(args)")
            XCTAssertEqual(r.stderr, "photos: no photos match\n", "\(args)")
        }
        let quiet = run(["list", "-q"])
        XCTAssertEqual([quiet.stdout, quiet.stderr], ["", ""])
        XCTAssertEqual(quiet.status, 0)
        importSamples(["storm.jpg"])
        let one = run(["list", "--name", "storm*"])
        XCTAssertEqual(one.stderr, "")
        XCTAssertEqual(one.stdout.split(separator: "\n").count, 2, one.stdout)
        XCTAssertEqual(run(["list", "--name", "kite*"]).stdout, "")
    }

    func testCombinedShortFlagsReadAsEachFlag() throws {
        importSamples(["storm.jpg", "path.jpg"])
        let combined = run(["list", "-qr"])
        XCTAssertEqual(combined.status, 0, combined.stderr)
        XCTAssertEqual(combined.stdout, ok(["list", "--quiet", "--reverse"]))
        XCTAssertEqual(combined.stdout.split(separator: "\n").count, 2, "no header with -q")
        XCTAssertEqual(run(["list", "-rq"]).stdout, combined.stdout)
        // The last letter may take the next token as its value: `-qj 1` is `-q -j 1`.
        let imported = run(["import", "-qj", "1", samplesDir + "/kite.png"])
        XCTAssertEqual(imported.status, 0, imported.stderr)
        XCTAssertEqual(imported.stdout, "")
        // An unknown letter, or a value option before the last, is refused as before.
        let unknown = run(["list", "-qz"])
        XCTAssertEqual(unknown.status, 64)
        XCTAssertTrue(unknown.stderr.contains("'-qz'"), unknown.stderr)
        XCTAssertEqual(run(["list", "-nr", "1"]).status, 64)
    }

    // MARK: Plurals and sizes (item 8)

    /// "1 transaction", "1 zone", "1 original", sizes as `2.3 MB` in compact, stats, merge and
    /// changeset messages (they said "1 transactions" and "1234567 bytes").
    func testCountsArePluralizedAndSizesReadable() throws {
        importSamples(["storm.jpg"])
        let stats = ok(["stats"]).split(separator: "\n").map(String.init)
        XCTAssertTrue(stats.contains("history:       1 transaction, 3 changes, 0 consumers"), "\(stats)")
        XCTAssertTrue(stats.contains("zone:          default (private): 1 photo"), "\(stats)")

        let other = dir + "/other"
        XCTAssertEqual(photos(["--library", other, "init", "-q"]).status, 0)
        let peer = try XCTUnwrap(
            (try JSONSerialization.jsonObject(with: Data(photos(["--library", other, "stats", "--json"]).stdout.utf8))
                as? [String: Any])?["libraryId"] as? String)
        let export = ok(["sync", "--export", dir + "/cs", "--since-peer", peer])
        XCTAssertTrue(export.contains(", 1 original, "), export)
        XCTAssertNil(export.range(of: #"[0-9] bytes"#, options: .regularExpression), export)
        XCTAssertNotNil(export.range(of: #", [0-9.]+ [kM]B\n$"#, options: .regularExpression), export)

        let storm = try XCTUnwrap(try TestCatalog(root: lib).scalarString("SELECT unique_name FROM photo"))
        ok(["share", "create", "-q", storm])
        let merged = photos(["--library", other, "merge", "--from", lib])
        XCTAssertEqual(merged.status, 0, merged.stderr)
        XCTAssertTrue(
            merged.stdout.hasPrefix(
                "Merged 1 new photo (0 already here), 0 ratings, 0 tags, 0 tag links, 1 zone, 1 share, 0 participants"),
            merged.stdout)

        let compact = ok(["history", "compact", "--before-token", "2", "--force", "--yes"])
        XCTAssertTrue(compact.hasPrefix("Deleted 1 transaction and 3 changes (through token 1); "), compact)
        XCTAssertNotNil(compact.range(of: #"; [0-9.]+ (B|kB|MB) reclaimed\n$"#, options: .regularExpression), compact)
    }

    /// `export /proc/nope` said Foundation's "The operation could not be completed. The file
    /// doesn't exist."; export and gallery say strerror's words (item 8).
    func testAFolderThatCannotBeMadeIsNamedWithoutFoundationText() throws {
        ok(["init", "-q"])
        for command in ["export", "gallery"] {
            let r = run([command, "/proc/photos-nope/x"])
            XCTAssertEqual(r.status, 73, r.stderr)
            XCTAssertEqual(
                r.stderr,
                "photos \(command): error: cannot create export folder /proc/photos-nope/x: No such file or directory\n"
            )
        }
    }
}
