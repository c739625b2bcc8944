import Foundation
import XCTest

@testable import PhotosCLI

/// The progress line of an import whose folders are still being walked: the count found so far
/// is marked as a lower bound, with no bar and no ETA (which would be computed from it).
final class ProgressWhileScanningTests: XCTestCase {
    func testAnUnknownTotalShowsFoundSoFarWithoutBarOrETA() {
        XCTAssertEqual(
            ProgressBar.render(
                label: "importing", done: 120, total: 4096, bytes: 15_728_640, elapsed: 4, totalKnown: false),
            "importing 120/4096+ found so far  30/s  15.7 MB")
        XCTAssertEqual(
            ProgressBar.render(label: "importing", done: 0, total: 4096, bytes: nil, elapsed: 0, totalKnown: false),
            "importing 0/4096+ found so far")
    }

    func testTheLastUpdateWhileScanningIsRateLimitedNotForced() {
        var drawn: [String] = []
        var now = Date(timeIntervalSince1970: 0)
        let bar = ProgressBar(label: "importing", enabled: true, clock: { now }, draw: { drawn.append($0) })
        bar.update(done: 5, total: 5, totalKnown: false)
        now += 0.05
        bar.update(done: 6, total: 6, totalKnown: false)
        XCTAssertEqual(drawn.count, 1, "done == found while scanning is not the end: no forced redraw")
        bar.update(done: 6, total: 6, totalKnown: true)
        XCTAssertEqual(drawn.count, 2, "the final count is drawn once the total is known")
        XCTAssertEqual(
            drawn.last,
            "\r" + ProgressBar.render(label: "importing", done: 6, total: 6, bytes: nil, elapsed: 0.05) + "\u{1B}[K")
    }
}
