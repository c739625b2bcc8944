import XCTest
@testable import PhotosCLI

final class PhotosCLIPlaceholderTests: XCTestCase {
    func testBuilds() { XCTAssertEqual(1 + 1, 2) }
}
