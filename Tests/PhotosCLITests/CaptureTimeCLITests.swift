import Foundation
import XCTest
import PhotosTestSupport

/// Issue 9 item 6 through the binary, in a chosen time zone (TZ=America/New_York, so that the
/// machine's zone differs from UTC): show, list --json, --since/--until, {capture:%Y}, and the
/// exported files' modification times.
final class CaptureTimeCLITests: BinaryTestCase {
    override var label: String { "photos-capture" }

    /// Runs the binary with `TZ` set.
    func runTZ(_ args: [String], tz: String = "America/New_York") throws -> (
        status: Int32, stdout: String, stderr: String
    ) {
        var env = ProcessInfo.processInfo.environment
        env["TZ"] = tz
        return try runProcess(try binary(), args, environment: env)
    }

    /// `stormJPEG(date:offset:)` of PhotosTestSupport.
    func photo(date: String, offset: String?) throws -> Data { try stormJPEG(date: date, offset: offset) }

    func objects(_ text: String) throws -> [String: [String: Any]] {
        var result: [String: [String: Any]] = [:]
        for line in text.split(separator: "\n") {
            let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            result[try XCTUnwrap(object["displayName"] as? String)] = object
        }
        return result
    }

    func testLocalTimesThroughTheCommandLine() throws {
        let input = dir + "/in", lib = dir + "/lib", out = dir + "/out"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        XCTAssertTrue(
            FileManager.default.createFile(
                atPath: input + "/ny.jpg", contents: try photo(date: "2024:12:31 23:30:00", offset: "-05:00")))
        XCTAssertTrue(
            FileManager.default.createFile(
                atPath: input + "/plain.jpg", contents: try photo(date: "2024:12:31 23:30:00", offset: nil)))
        XCTAssertTrue(
            FileManager.default.createFile(
                atPath: input + "/nepal.jpg", contents: try photo(date: "2024:06:01 08:00:00", offset: "+05:45")))
        try FileManager.default.copyItem(atPath: samplesDir + "/kite.png", toPath: input + "/kite.png")
        var times = [timespec(tv_sec: 1_700_000_000, tv_nsec: 0), timespec(tv_sec: 1_700_000_000, tv_nsec: 0)]
        XCTAssertEqual(utimensat(AT_FDCWD, input + "/kite.png", &times, 0), 0)

        let imported = try runTZ(["--library", lib, "import", input, "-q"])
        XCTAssertEqual(imported.status, 0, imported.stderr)
        let all = try objects(try runTZ(["--library", lib, "list", "--json"]).stdout)
        XCTAssertEqual(all["ny.jpg"]?["captureDate"] as? String, "2024-12-31T23:30:00-05:00")
        XCTAssertEqual(all["ny.jpg"]?["captureOffset"] as? Int, -300)
        XCTAssertEqual(all["plain.jpg"]?["captureDate"] as? String, "2024-12-31T23:30:00")
        XCTAssertTrue(all["plain.jpg"]?["captureOffset"] is NSNull)
        XCTAssertEqual(all["nepal.jpg"]?["captureDate"] as? String, "2024-06-01T08:00:00+05:45")
        // 1700000000 = 2023-11-14T22:13:20Z = 17:13:20 in New York (EST, −05:00).
        XCTAssertEqual(all["kite.png"]?["captureDate"] as? String, "2023-11-14T17:13:20-05:00")
        XCTAssertEqual(all["kite.png"]?["captureSource"] as? String, "file-mtime")

        let since = try objects(try runTZ(["--library", lib, "list", "--json", "--since", "2024-12-31"]).stdout)
        XCTAssertEqual(Set(since.keys), ["ny.jpg", "plain.jpg"])
        let until = try objects(
            try runTZ(["--library", lib, "list", "--json", "--until", "2024-12-31", "--since", "2024-12-01"]).stdout)
        XCTAssertEqual(Set(until.keys), ["ny.jpg", "plain.jpg"])
        XCTAssertEqual(try runTZ(["--library", lib, "list", "--json", "--since", "2025-01-01"]).stdout, "")

        let unique = try XCTUnwrap(all["ny.jpg"]?["uniqueName"] as? String)
        let show = try runTZ(["--library", lib, "show", unique])
        XCTAssertTrue(show.stdout.contains("captured:    2024-12-31T23:30:00-05:00 (exif)\n"), show.stdout)

        let exported = try runTZ(["--library", lib, "export", out, "-q", "--template", "{capture:%Y}/{name}"])
        XCTAssertEqual(exported.status, 0, exported.stderr)
        func mtime(_ path: String) -> Int {
            var st = stat()
            XCTAssertEqual(lstat(out + "/" + path, &st), 0, path)
            return st.st_mtim.tv_sec
        }
        XCTAssertEqual(mtime("2024/ny.jpg"), 1_735_705_800, "2025-01-01T04:30:00Z")
        XCTAssertEqual(mtime("2024/ny.jpg.xmp"), 1_735_705_800)
        XCTAssertEqual(mtime("2024/plain.jpg"), 1_735_705_800, "offset unknown: read in the machine's zone (New York)")
        XCTAssertEqual(mtime("2024/nepal.jpg"), 1_717_208_100, "2024-06-01T02:15:00Z")
        XCTAssertEqual(mtime("2023/kite.png"), 1_700_000_000)
        let again = try runTZ([
            "--library", lib, "export", out, "--json", "--update", "--template", "{capture:%Y}/{name}"
        ])
        let summary = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(again.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(summary["skipped"] as? Int, 4, again.stdout)
        XCTAssertEqual(summary["bytes"] as? Int, 0)
    }
}
