import Foundation
import XCTest
import PhotosTestSupport

/// Issue 24 items 1 and 7 through the binary, on either backend: `show` prints a RAW's container
/// and its camera, `stats` counts photos per format with the RAWs per container, and
/// `list`/`export --camera` select by make or model.
final class CameraIdentityCLITests: BinaryTestCase {
    func testShowStatsListAndExportKnowTheCameraAndTheRawContainer() throws {
        let corpus = try requireCorpus() + "/camera-formats/"
        try FileManager.default.createDirectory(atPath: dir + "/in", withIntermediateDirectories: true)
        for file in [
            "raw/exiftool_FujiFilm.raf", "raw/exiftool_Panasonic.rw2", "raw/exiftool_DNG.dng",
            "metadata/immich_mongolels.jpg", "metadata/exiftool_GPS.jpg"
        ] {
            try FileManager.default.copyItem(
                atPath: corpus + file, toPath: dir + "/in/" + String(file.split(separator: "/").last ?? ""))
        }
        let lib = dir + "/lib"
        let imported = try run(["--library", lib, "import", dir + "/in"])
        XCTAssertEqual(imported.status, 0, imported.stderr)

        let stats = try run(["--library", lib, "stats"])
        XCTAssertEqual(stats.status, 0, stats.stderr)
        XCTAssertTrue(stats.stdout.contains("formats:       2 jpeg, 3 raw (1 dng, 1 raf, 1 rw2)\n"), stats.stdout)
        let statsJSON = try run(["--library", lib, "stats", "--json"])
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(statsJSON.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(object["formats"] as? [String: Int], ["jpeg": 2, "raw": 3])
        XCTAssertEqual(object["cameraFormats"] as? [String: Int], ["dng": 1, "raf": 1, "rw2": 1])

        let fuji = try run(["--library", lib, "list", "--camera", "fuji", "--json"])
        XCTAssertEqual(fuji.status, 0, fuji.stderr)
        let rows = try fuji.stdout.split(separator: "\n").map {
            try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        XCTAssertEqual(
            Set(rows.compactMap { $0["displayName"] as? String }), ["exiftool_FujiFilm.raf", "exiftool_GPS.jpg"])
        let raf = try XCTUnwrap(rows.first { $0["displayName"] as? String == "exiftool_FujiFilm.raf" })
        XCTAssertEqual(raf["cameraFormat"] as? String, "raf")
        let name = try XCTUnwrap(raf["uniqueName"] as? String)
        let show = try run(["--library", lib, "show", name])
        XCTAssertTrue(show.stdout.contains("format:      raw (raf)\n"), show.stdout)
        XCTAssertTrue(show.stdout.contains("camera:      FUJIFILM FinePix S5Pro\n"), show.stdout)

        // The same filter selects what export writes.
        let export = try run(["--library", lib, "export", dir + "/out", "--camera", "PANASONIC"])
        XCTAssertEqual(export.status, 0, export.stderr)
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: dir + "/out").filter { !$0.hasPrefix(".") }.sorted(),
            ["exiftool_Panasonic.rw2", "exiftool_Panasonic.rw2.xmp"])
        let none = try run(["--library", lib, "list", "--camera", "leica"])
        XCTAssertEqual(none.status, 0, none.stderr)
        XCTAssertEqual(none.stdout, "")
        XCTAssertTrue(none.stderr.contains("no photos match"), none.stderr)
    }
}
