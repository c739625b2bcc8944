import Foundation
import PhotosTestSupport
import XCTest

@testable import PhotosCore

/// Issue 26 item 5: the `--by` durations and wall-clock arithmetic of `date shift`, and a time
/// fixed in one library reaching another through a changeset.
final class CaptureShiftTests: SyncTestCase {
    func testDurations() {
        XCTAssertEqual(CaptureShift.parse("+1:00")?.seconds, 3600)
        XCTAssertEqual(CaptureShift.parse("-0:00:30")?.seconds, -30)
        XCTAssertEqual(CaptureShift.parse("+2d")?.seconds, 172_800)
        XCTAssertEqual(CaptureShift.parse("-1d2:30")?.seconds, -(86_400 + 9000))
        XCTAssertEqual(CaptureShift.parse("+1d 02:30:15")?.seconds, 86_400 + 9015)
        XCTAssertEqual(CaptureShift.parse("+25:00")?.seconds, 90_000)
        for bad in ["1:00", "+", "+d", "+1:5", "+1:60", "+1:00:60", "+1", "+x", "+1d1", "++1:00", "+1:00:00:00"] {
            XCTAssertNil(CaptureShift.parse(bad), bad)
        }
        XCTAssertEqual(CaptureShift(seconds: -(86_400 + 9015)).text, "-1d 02:30:15")
    }

    func testWallClockArithmeticKeepsSubSecondsAndAppliesNoDST() {
        XCTAssertEqual(CaptureTime.shifted("2024-12-31T23:30:00", by: 3600), "2025-01-01T00:30:00")
        XCTAssertEqual(CaptureTime.shifted("2024-03-01T00:00:00.250", by: -1), "2024-02-29T23:59:59.250")
        // 31 March 2024 01:30 + 1 h is 02:30 on the wall clock, a time that does not exist in
        // Europe/Paris: no zone's rule applies (the offset is explicit).
        XCTAssertEqual(CaptureTime.shifted("2024-03-31T01:30:00", by: 3600), "2024-03-31T02:30:00")
        XCTAssertNil(CaptureTime.shifted("9999-12-31T23:00:00", by: 3600))
        XCTAssertNil(CaptureTime.shifted("0001-01-01T00:00:00", by: -1))
        XCTAssertEqual(CaptureTime.parseZoneOffset("+14:00"), 840)
        XCTAssertEqual(CaptureTime.parseZoneOffset("-12:00"), -720)
        XCTAssertNil(CaptureTime.parseZoneOffset("+14:15"))
        XCTAssertNil(CaptureTime.parseZoneOffset("-12:30"))
    }

    /// A second library syncing gets the fixed time, offset and source.
    func testAFixedTimeReachesAnotherLibrary() throws {
        let a = try library("A")
        var options = ImportOptions(paths: [try distinctJPEG()])
        options.jobs = 1
        XCTAssertEqual(try Importer(library: a, libraryRoot: a.root, options: options).run().imported, 1)
        let b = try library("B")
        _ = try b.applyChangeset(at: try export(a))
        let name = try XCTUnwrap(try photos(a).first?.uniqueName)
        let report = try a.fixCaptureTimes(
            [name], .set(local: "2021-08-09T07:06:05", offsetMinutes: 330), author: .default)
        XCTAssertEqual(report.changed.map(\.after), ["2021-08-09T07:06:05+05:30"])
        let shifted = try a.fixCaptureTimes([name], .shift(seconds: -86_400, offsetMinutes: nil), author: .default)
        XCTAssertEqual(shifted.changed.map(\.after), ["2021-08-08T07:06:05+05:30"])
        _ = try b.applyChangeset(at: try export(a))
        let carried = try XCTUnwrap(try photos(b).first)
        XCTAssertEqual(carried.captureDate, "2021-08-08T07:06:05+05:30")
        XCTAssertEqual(carried.captureOffset, 330)
        XCTAssertEqual(carried.captureSource, "manual")
        XCTAssertEqual(try CanonicalDump.of(b.root), try CanonicalDump.of(a.root))
        try assertVerifyClean(b)
    }
}
