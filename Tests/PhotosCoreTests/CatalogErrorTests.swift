import PhotosCore
import PhotosModel
import XCTest

/// LibraryError is not Equatable as a whole (it carries `any Error`); the catalog cases are.
func XCTAssertEqual(
    _ error: LibraryError?, _ expected: LibraryError, file: StaticString = #filePath, line: UInt = #line
) {
    switch (error, expected) {
    case let (.notFound(a)?, .notFound(b)): XCTAssertEqual(a, b, file: file, line: line)
    case let (.ambiguous(k1, a1, c1)?, .ambiguous(k2, a2, c2)):
        XCTAssertEqual(k1, k2, file: file, line: line)
        XCTAssertEqual(a1, a2, file: file, line: line)
        XCTAssertEqual(c1, c2, file: file, line: line)
    case let (.prefixTooShort(k1, a1, m1)?, .prefixTooShort(k2, a2, m2)):
        XCTAssertEqual(k1, k2, file: file, line: line)
        XCTAssertEqual(a1, a2, file: file, line: line)
        XCTAssertEqual(m1, m2, file: file, line: line)
    default: XCTFail("\(String(describing: error)) is not \(expected)", file: file, line: line)
    }
}
