import Foundation
import PhotosImaging
import PhotosTestSupport
import XCTest

@testable import PhotosCore

/// Issue 26 item 4: the GPS time (EXIF GPSDateStamp + GPSTimeStamp, UTC) gives a local capture
/// time without offset its offset (rounded to 15 minutes, within −12:00…+14:00), and is the
/// capture time itself (a UTC instant, `Z`, source `gps`) when there is no other; files written
/// by exiftool.
final class CaptureTimeFromGPSTests: ImportTestCase {
    func testGPSTimeGivesTheOffsetOrTheInstant() throws {
        guard let exiftool = PositionImportTests.exiftool else {
            throw XCTSkip("exiftool is not installed (Debian libimage-exiftool-perl)")
        }
        let gps = ["-GPSDateStamp=2023:11:15", "-GPSTimeStamp=12:30:00"]
        let sanFrancisco = [
            "-GPSLatitude=37.7749", "-GPSLatitudeRef=N", "-GPSLongitude=122.4194", "-GPSLongitudeRef=W"
        ]
        // (file, exiftool arguments, expected captureDate, expected source)
        let cases: [(String, [String], String, String)] = [
            // Immich's case: only GPSDateTime 2023-11-15 12:30:00Z near San Francisco. The zone
            // name (America/Los_Angeles) needs a time-zone database and is not given.
            ("immich.jpg", gps + sanFrancisco, "2023-11-15T12:30:00Z", "gps"),
            (
                "los-angeles.jpg", gps + sanFrancisco + ["-DateTimeOriginal=2023:11:15 04:30:00"],
                "2023-11-15T04:30:00-08:00", "exif+gps-offset"
            ),
            (
                "paris.jpg", gps + ["-DateTimeOriginal=2023:11:15 13:30:00"], "2023-11-15T13:30:00+01:00",
                "exif+gps-offset"
            ),
            // A camera clock 3 minutes fast in India (+05:30): rounded to 15 minutes.
            (
                "india.jpg", gps + ["-DateTimeOriginal=2023:11:15 18:03:00"], "2023-11-15T18:03:00+05:30",
                "exif+gps-offset"
            ),
            // Across midnight: local the next day.
            (
                "auckland.jpg", gps + ["-DateTimeOriginal=2023:11:16 01:30:00"], "2023-11-16T01:30:00+13:00",
                "exif+gps-offset"
            ),
            // The offset the file gives is kept, never replaced.
            (
                "offset.jpg", gps + ["-DateTimeOriginal=2023:11:15 13:30:00", "-OffsetTimeOriginal=+05:00"],
                "2023-11-15T13:30:00+05:00", "exif"
            ),
            // Two days off: no offset made up.
            ("wrong-clock.jpg", gps + ["-DateTimeOriginal=2023:11:17 13:30:00"], "2023-11-17T13:30:00", "exif"),
            // −15:00 is outside −12:00…+14:00.
            ("outside.jpg", gps + ["-DateTimeOriginal=2023:11:14 21:30:00"], "2023-11-14T21:30:00", "exif"),
            ("no-gps.jpg", ["-DateTimeOriginal=2023:11:15 13:30:00"], "2023-11-15T13:30:00", "exif")
        ]
        for (seed, (name, arguments, _, _)) in cases.enumerated() {
            let path = try tmp.write("in/" + name, try MetadataFixture.jpeg(seed: 40 + seed))
            let process = Process()
            process.executableURL = URL(fileURLWithPath: exiftool)
            process.arguments = ["-q", "-overwrite_original"] + arguments + [path]
            try process.run()
            process.waitUntilExit()
            XCTAssertEqual(process.terminationStatus, 0, name)
        }
        let library = try makeLibrary()
        let summary = try runImport(library, [tmp.file("in")])
        XCTAssertEqual(summary.failed, 0, "\(summary.failures)")
        var stored: [String: PhotoRecord] = [:]
        try library.forEachPhoto(matching: PhotoFilter()) { stored[$0.displayName] = $0 }
        XCTAssertEqual(stored.count, cases.count)
        for (name, _, date, source) in cases {
            let photo = try XCTUnwrap(stored[name], name)
            XCTAssertEqual(photo.captureDate, date, name)
            XCTAssertEqual(photo.captureSource, source, name)
        }
        let immich = try XCTUnwrap(stored["immich.jpg"])
        XCTAssertEqual(immich.captureOffset, 0)
        XCTAssertEqual(immich.captureInstant, 1_700_051_400)
        XCTAssertEqual(try XCTUnwrap(stored["los-angeles.jpg"]).captureInstant, 1_700_051_400)
        XCTAssertEqual(try XCTUnwrap(stored["los-angeles.jpg"]).captureOffset, -480)
        XCTAssertTrue(immich.json.serialized().contains("\"captureDate\":\"2023-11-15T12:30:00Z\""))
        // The export sidecar carries the instant; re-read, it is the same instant.
        let sidecar = XMPWriter.sidecar(for: immich)
        XCTAssertTrue(sidecar.contains("2023-11-15T12:30:00Z"), sidecar)
        XCTAssertEqual(
            CaptureTime.offsetFromGPS(
                local: "2024-03-31T03:00:00", gps: try XCTUnwrap(CaptureTime.fromGPS("2024:03:31 01:07:29"))), 120)
    }
}
