import Foundation
import PhotosTestSupport
import XCTest

/// Issue 26 item 5 through the binary: `photos date set` and `photos date shift` — a shift
/// across midnight and the new year keeps the offset, no DST is applied, the source becomes
/// `manual`, `--dry-run` changes no row, bad input exits 64/65 changing nothing, one history
/// transaction, and export's XMP sidecar carries the fixed time.
final class DateFixCLITests: BinaryTestCase {
    override var label: String { "photos-datefix" }

    /// `stormJPEG(date:offset:)` of PhotosTestSupport.
    func photo(date: String, offset: String?) throws -> Data { try stormJPEG(date: date, offset: offset) }

    func testShiftAndSetThroughTheCommandLine() throws {
        let input = dir + "/in", lib = dir + "/lib"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        XCTAssertTrue(
            FileManager.default.createFile(
                atPath: input + "/ny.jpg", contents: try photo(date: "2024:12:31 23:30:00", offset: "-05:00")))
        XCTAssertTrue(
            FileManager.default.createFile(
                atPath: input + "/paris.jpg", contents: try photo(date: "2024:03:31 01:30:00", offset: "+01:00")))
        XCTAssertTrue(
            FileManager.default.createFile(
                atPath: input + "/plain.jpg", contents: try photo(date: "2024:06:01 12:00:00", offset: nil)))
        // One import: a later one would take a file of the same image data as the photo's own.
        let imported = try run(["--library", lib, "import", "-q", input])
        XCTAssertEqual(imported.status, 0, imported.stderr)
        var photos = try listedByDisplayName(lib)
        let ny = try XCTUnwrap(photos["ny.jpg"]?["uniqueName"] as? String)
        let paris = try XCTUnwrap(photos["paris.jpg"]?["uniqueName"] as? String)
        let plain = try XCTUnwrap(photos["plain.jpg"]?["uniqueName"] as? String)
        XCTAssertEqual(try run(["--library", lib, "tag", "add", "trip", ny, paris]).status, 0)

        // A dry run prints before → after and changes no row.
        let before = try CanonicalDump.of(lib)
        let dry = try run(["--library", lib, "date", "shift", "--tag", "trip", "--by", "+1:00", "--dry-run"])
        XCTAssertEqual(dry.status, 0, dry.stderr)
        XCTAssertTrue(
            dry.stdout.contains("\(ny)  2024-12-31T23:30:00-05:00 \u{2192} 2025-01-01T00:30:00-05:00"), dry.stdout)
        XCTAssertTrue(dry.stdout.contains("Would change the capture time of 2 photos"), dry.stdout)
        XCTAssertEqual(try CanonicalDump.of(lib), before)

        // Bad input: 64 or 65 with the argument named, nothing changed.
        let bad: [([String], Int32, String)] = [
            (["date", "shift", "--tag", "trip", "--by", "1:00"], 64, "--by"),
            (["date", "shift", "--tag", "trip", "--by", "+1:75"], 64, "--by"),
            (["date", "shift", "--tag", "trip", "--by", "+1:00", "--offset", "+14:30"], 64, "--offset"),
            (["date", "shift", "--tag", "trip"], 64, "--by"),
            (["date", "shift", "--by", "+1:00"], 64, "filters"),
            (["date", "shift", "--tag", "trip", "--name", "nothing*", "--by", "+1:00"], 65, "no photo matches"),
            (["date", "shift", ny, "--by", "-2025000d"], 64, "outside the years"),
            (["date", "set", ny, "2024-13-01"], 64, "DATE"),
            (["date", "set", ny, "2024-05-01T10:00:00-12:30"], 64, "-12:00"),
            (["date", "set", "2024-05-01"], 64, "filters")
        ]
        for (args, status, words) in bad {
            let refused = try run(["--library", lib] + args)
            XCTAssertEqual(refused.status, status, args.joined(separator: " ") + ": " + refused.stderr)
            XCTAssertTrue(refused.stderr.contains(words), args.joined(separator: " ") + ": " + refused.stderr)
        }
        XCTAssertEqual(try CanonicalDump.of(lib), before)

        // The shift: across midnight and the new year, the offset kept; across the night
        // Europe/Paris changed to summer time (31 March 2024, 02:00 → 03:00), no DST applied.
        let shifted = try run(["--library", lib, "date", "shift", "--tag", "trip", "--by", "+1:00", "--json"])
        XCTAssertEqual(shifted.status, 0, shifted.stderr)
        let report = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(shifted.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(report["changed"] as? Int, 2)
        photos = try listedByDisplayName(lib)
        XCTAssertEqual(photos["ny.jpg"]?["captureDate"] as? String, "2025-01-01T00:30:00-05:00")
        XCTAssertEqual(photos["ny.jpg"]?["captureOffset"] as? Int, -300)
        XCTAssertEqual(photos["ny.jpg"]?["captureSource"] as? String, "manual")
        XCTAssertEqual(photos["paris.jpg"]?["captureDate"] as? String, "2024-03-31T02:30:00+01:00")
        XCTAssertEqual(photos["plain.jpg"]?["captureDate"] as? String, "2024-06-01T12:00:00")
        XCTAssertEqual(photos["plain.jpg"]?["captureSource"] as? String, "exif")
        // The year template follows the new time.
        let out = dir + "/out"
        let exported = try run(["--library", lib, "export", out, ny, "--template", "{capture:%Y}/{name}"])
        XCTAssertEqual(exported.status, 0, exported.stderr)
        let sidecar = try String(contentsOfFile: out + "/2025/ny.jpg.xmp", encoding: .utf8)
        XCTAssertTrue(sidecar.contains("2025-01-01T00:30:00-05:00"), sidecar)

        // One history transaction of context "date shift", a Photo update per photo.
        let history = try run(["--library", lib, "history", "--json"])
        let transactions = history.stdout.split(separator: "\n").filter { $0.contains("\"date shift\"") }
        XCTAssertEqual(transactions.count, 1, history.stdout)
        XCTAssertTrue(transactions.first?.contains("\"captureOffset\"") == true, history.stdout)

        // --by -1d with a new offset; date set keeps the offset unless DATE has one.
        let moved = try run(["--library", lib, "date", "shift", ny, "--by", "-1d 0:30", "--offset", "+09:00"])
        XCTAssertEqual(moved.status, 0, moved.stderr)
        XCTAssertEqual(try listedByDisplayName(lib)["ny.jpg"]?["captureDate"] as? String, "2024-12-31T00:00:00+09:00")
        XCTAssertEqual(try run(["--library", lib, "date", "set", ny, plain, "2023-07-14 10:15"]).status, 0)
        photos = try listedByDisplayName(lib)
        XCTAssertEqual(photos["ny.jpg"]?["captureDate"] as? String, "2023-07-14T10:15:00+09:00")
        XCTAssertEqual(photos["plain.jpg"]?["captureDate"] as? String, "2023-07-14T10:15:00")
        XCTAssertEqual(photos["plain.jpg"]?["captureSource"] as? String, "manual")
        XCTAssertEqual(try run(["--library", lib, "date", "set", plain, "2023-07-14T10:15:00.250Z"]).status, 0)
        XCTAssertEqual(
            try listedByDisplayName(lib)["plain.jpg"]?["captureDate"] as? String, "2023-07-14T10:15:00.250+00:00")
    }
}
