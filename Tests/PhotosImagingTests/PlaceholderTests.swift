import XCTest
@testable import PhotosImaging

final class PhotosImagingPlaceholderTests: XCTestCase {
    func testBuilds() { XCTAssertEqual(1 + 1, 2) }
}
