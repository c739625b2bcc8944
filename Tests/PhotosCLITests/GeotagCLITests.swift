import Foundation
import PhotosTestSupport
import XCTest

/// Issue 26 item 7 through the binary: `photos geotag --gpx` interpolates between two track
/// points (to 1e-7 degrees), leaves a photo in a gap wider than --max-gap and one of unknown
/// offset without a position, refuses bad GPX files with 65/66 naming them, and a dry run
/// changes no row.
final class GeotagCLITests: BinaryTestCase {
    override var label: String { "photos-geotag" }

    /// `stormJPEG(date:offset:)` of PhotosTestSupport.
    func photo(date: String, offset: String?) throws -> Data { try stormJPEG(date: date, offset: offset) }

    let track = """
        <?xml version="1.0" encoding="UTF-8"?>
        <gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>
        <trkpt lat="43.6000000" lon="1.4000000"><ele>100</ele><time>2024-05-01T10:00:00Z</time></trkpt>
        <trkpt lat="43.6020000" lon="1.4040000"><ele>110</ele><time>2024-05-01T10:02:00Z</time></trkpt>
        <trkpt lat="43.7000000" lon="1.5000000"><ele>300</ele><time>2024-05-01T10:30:00Z</time></trkpt>
        </trkseg></trk></gpx>
        """

    func testGeotagFromATrack() throws {
        let input = dir + "/in", lib = dir + "/lib"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        // 12:01 at +02:00 is 10:01Z, halfway between the first two points; 12:15 is in the
        // 28-minute gap; 10:01:30 has no offset.
        for (name, date, offset) in [
            ("mid.jpg", "2024:05:01 12:01:00", "+02:00"), ("gap.jpg", "2024:05:01 12:15:00", "+02:00"),
            ("plain.jpg", "2024:05:01 10:01:30", nil)
        ] {
            XCTAssertTrue(
                FileManager.default.createFile(
                    atPath: input + "/" + name, contents: try photo(date: date, offset: offset)))
        }
        XCTAssertEqual(try run(["--library", lib, "import", "-q", input]).status, 0)
        let gpx = dir + "/walk.gpx"
        try track.write(toFile: gpx, atomically: true, encoding: .utf8)

        let before = try CanonicalDump.of(lib)
        let dry = try run(["--library", lib, "geotag", "--gpx", gpx, "--dry-run"])
        XCTAssertEqual(dry.status, 0, dry.stderr)
        XCTAssertTrue(dry.stdout.contains("43.6010000, 1.4020000, 105.0 m"), dry.stdout)
        XCTAssertEqual(try CanonicalDump.of(lib), before)

        // Bad files: 65 (not XML, no timestamps, not GPX) or 66 (missing), the file named, nothing changed.
        let notXML = dir + "/bad.gpx", noTime = dir + "/notime.gpx", other = dir + "/other.xml"
        try "<gpx><trk>".write(toFile: notXML, atomically: true, encoding: .utf8)
        try "<gpx><trk><trkseg><trkpt lat=\"1\" lon=\"2\"/></trkseg></trk></gpx>".write(
            toFile: noTime, atomically: true, encoding: .utf8)
        try "<!DOCTYPE x [<!ENTITY a \"aaaa\">]><gpx>&a;</gpx>".write(toFile: other, atomically: true, encoding: .utf8)
        for (file, status) in [(notXML, Int32(65)), (noTime, 65), (other, 65), (dir + "/none.gpx", 66)] {
            let refused = try run(["--library", lib, "geotag", "--gpx", file])
            XCTAssertEqual(refused.status, status, file + ": " + refused.stderr)
            XCTAssertTrue(refused.stderr.contains(file), refused.stderr)
        }
        XCTAssertEqual(try run(["--library", lib, "geotag", "--gpx", gpx, "--max-gap", "5x"]).status, 64)
        XCTAssertEqual(try CanonicalDump.of(lib), before)

        let tagged = try run(["--library", lib, "geotag", "--gpx", gpx, "--json"])
        XCTAssertEqual(tagged.status, 0, tagged.stderr)
        let report = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(tagged.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(report["geotagged"] as? Int, 1)
        XCTAssertEqual(report["beyondMaxGap"] as? Int, 1)
        XCTAssertEqual(report["unknownOffset"] as? Int, 1)
        var photos = try listedByDisplayName(lib)
        XCTAssertEqual(photos["mid.jpg"]?["latitude"] as? Double ?? 0, 43.601, accuracy: 1e-7)
        XCTAssertEqual(photos["mid.jpg"]?["longitude"] as? Double ?? 0, 1.402, accuracy: 1e-7)
        XCTAssertEqual(photos["mid.jpg"]?["altitude"] as? Double ?? 0, 105, accuracy: 1e-3)
        XCTAssertTrue(photos["gap.jpg"]?["latitude"] is NSNull)
        XCTAssertTrue(photos["plain.jpg"]?["latitude"] is NSNull)
        // With --offset, the photo of unknown offset: 10:01:30Z, three quarters of the way.
        let plain = try XCTUnwrap(photos["plain.jpg"]?["uniqueName"] as? String)
        XCTAssertEqual(try run(["--library", lib, "geotag", "--gpx", gpx, "--offset", "+00:00", plain]).status, 0)
        photos = try listedByDisplayName(lib)
        XCTAssertEqual(photos["plain.jpg"]?["latitude"] as? Double ?? 0, 43.6015, accuracy: 1e-7)
        XCTAssertEqual(photos["plain.jpg"]?["longitude"] as? Double ?? 0, 1.403, accuracy: 1e-7)
        let history = try run(["--library", lib, "history", "--json"])
        XCTAssertEqual(history.stdout.split(separator: "\n").filter { $0.contains("\"geotag\"") }.count, 2)
    }
}
