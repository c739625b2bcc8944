import XCTest
@testable import PhotosCore

final class PhotosCorePlaceholderTests: XCTestCase {
    func testBuilds() { XCTAssertEqual(1 + 1, 2) }
}
