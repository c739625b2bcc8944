import XCTest
@testable import PhotosStorage

final class PhotosStoragePlaceholderTests: XCTestCase {
    func testBuilds() { XCTAssertEqual(1 + 1, 2) }
}
