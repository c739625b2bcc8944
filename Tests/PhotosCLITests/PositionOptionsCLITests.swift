import Foundation
import PhotosTestSupport
import XCTest

/// Issue 26 items 1–2 through the binary: `show` prints the position, `list --json` carries it,
/// `--bbox` selects by it, and bad `--bbox` values exit 64 naming the option.
final class PositionOptionsCLITests: BinaryTestCase {
    func testPositionShownListedAndBadBoxesRefused() throws {
        let lib = dir + "/lib"
        // Samples/colorful-cups-progressive.jpg carries an XMP position (digiKam): 56.155995 N, 10.208205 E.
        let imported = try run([
            "--library", lib, "import", "-q", samplesDir + "/colorful-cups-progressive.jpg", samplesDir + "/kite.png"
        ])
        XCTAssertEqual(imported.status, 0, imported.stderr)
        let inside = try run(["--library", lib, "list", "--bbox", "56,10,56.2,10.3", "--json"])
        XCTAssertEqual(inside.status, 0, inside.stderr)
        let lines = inside.stdout.split(separator: "\n")
        XCTAssertEqual(lines.count, 1, inside.stdout)
        let object = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(try XCTUnwrap(lines.first).utf8)) as? [String: Any])
        XCTAssertEqual(object["displayName"] as? String, "colorful-cups-progressive.jpg")
        XCTAssertEqual(object["latitude"] as? Double ?? 0, 56.155995, accuracy: 1e-6)
        XCTAssertEqual(object["longitude"] as? Double ?? 0, 10.208205, accuracy: 1e-6)
        let without = try run(["--library", lib, "list", "--without-location", "--json"])
        XCTAssertEqual(without.stdout.split(separator: "\n").count, 1)
        XCTAssertTrue(without.stdout.contains("\"kite.png\""), without.stdout)
        XCTAssertTrue(without.stdout.contains("\"latitude\":null"), without.stdout)
        let name = try XCTUnwrap(object["uniqueName"] as? String)
        let show = try run(["--library", lib, "show", name])
        XCTAssertTrue(show.stdout.contains("56.155995, 10.208205"), show.stdout)
        for bad in ["91,0,92,1", "1,2,3", "10,0,5,1", "0,181,1,182", "a,b,c,d"] {
            let refused = try run(["--library", lib, "list", "--bbox", bad])
            XCTAssertEqual(refused.status, 64, bad)
            XCTAssertTrue(refused.stderr.contains("--bbox"), refused.stderr)
        }
        // --near: within 1 km by default, 5 km given; the same photo, none 100 km away.
        for near in ["56.16,10.21", "56.19,10.2,5"] {
            let listed = try run(["--library", lib, "list", "--near", near, "--json"])
            XCTAssertEqual(listed.status, 0, listed.stderr)
            XCTAssertEqual(listed.stdout.split(separator: "\n").count, 1, near + ": " + listed.stdout)
            XCTAssertTrue(listed.stdout.contains("colorful-cups-progressive.jpg"), listed.stdout)
        }
        let far = try run(["--library", lib, "list", "--near", "57,10,50", "--json"])
        XCTAssertEqual(far.stdout, "", far.stdout)
        for bad in ["91,0", "0,181", "1", "0,0,0", "0,0,-1", "a,b", "1,2,3,4", "0,0,nan"] {
            let refused = try run(["--library", lib, "list", "--near", bad])
            XCTAssertEqual(refused.status, 64, bad)
            XCTAssertTrue(refused.stderr.contains("--near"), refused.stderr)
        }
        let nearWithout = try run(["--library", lib, "list", "--near", "0,0", "--without-location"])
        XCTAssertEqual(nearWithout.status, 64, nearWithout.stderr)
        let both = try run(["--library", lib, "export", dir + "/out", "--with-location", "--without-location"])
        XCTAssertEqual(both.status, 64, both.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/out"))
    }
}
