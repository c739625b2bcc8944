import XCTest
@testable import PhotosCore
import PhotosSQLite

/// `ZoneID`, the typed zone id purge, dedupe-tags and `history --zone` take.
final class ZoneIDTests: XCTestCase {
    func testDefaultZoneIsTheSchemasAndIdsAreKeptAsTyped() {
        XCTAssertEqual(ZoneID.default.rawValue, Schema.defaultZoneID)
        XCTAssertEqual(ZoneID(parsing: " Share-1 ").rawValue, " Share-1 ", "compared exactly, as stored")
        XCTAssertNotEqual(ZoneID(parsing: "DEFAULT"), .default)
        XCTAssertEqual("\(ZoneID(rawValue: "abc"))", "abc")
        XCTAssertEqual([ZoneID(rawValue: "b"), ZoneID(rawValue: "a")].sorted().map(\.rawValue), ["a", "b"])
    }
}
