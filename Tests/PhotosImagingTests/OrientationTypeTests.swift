import XCTest
@testable import PhotosImaging

/// Issue 10 item 3: one `Orientation` type (EXIF 2.32 §4.6.4 Table 4) for decoder, catalog and CLI.
final class OrientationTypeTests: XCTestCase {
    func testExifValuesAndSwappedDimensions() {
        XCTAssertEqual(Orientation.allCases.map(\.rawValue), Array(1...8))
        XCTAssertEqual(Orientation.allCases.filter(\.swapsDimensions), [.leftMirrored, .right, .rightMirrored, .left])
        for reserved in [0, 9, -1, 65535] {
            XCTAssertEqual(Orientation(exif: reserved), .up, "\(reserved) is reserved: as stored")
        }
        XCTAssertEqual(Orientation(exif: 6), .right)
    }

    func testUpReturnsTheSameBufferAndRightSwapsTheSize() throws {
        let buffer = try PixelBuffer(width: 2, height: 3, rgb: [UInt8](repeating: 7, count: 18))
        XCTAssertTrue(try Orientation.up.apply(to: buffer) === buffer)
        let turned = try Orientation.right.apply(to: buffer)
        XCTAssertEqual([turned.width, turned.height], [3, 2])
    }
}
