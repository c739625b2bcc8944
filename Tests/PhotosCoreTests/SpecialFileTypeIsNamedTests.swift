import Foundation
import PhotosFiles
import XCTest

/// A file that is not a regular file is named by its type, the same words whether the scanner
/// finds it or `ImageFile` is asked to read it: "not a regular file (a character device)".
final class SpecialFileTypeIsNamedTests: XCTestCase {
    func testADeviceIsNamedACharacterDeviceByTheScannerAndByTheRead() throws {
        let (files, problems) = try FileScanner().scanReporting(["/dev/null"])
        XCTAssertEqual(files, [])
        XCTAssertEqual(problems.map(\.path), ["/dev/null"])
        XCTAssertEqual(problems.map(\.reason), ["not a regular file (a character device)"])
        XCTAssertThrowsError(try ImageFile.read(path: "/dev/null", maxBytes: Int.max)) {
            XCTAssertEqual(($0 as? FileError)?.message, "/dev/null: not a regular file (a character device)")
        }
    }
}
