import Foundation
import PhotosCore
import PhotosTestSupport
import XCTest

@testable import PhotosCLI

/// Core throws `ThumbnailError` and `OriginalRemovalError` with their subjects and no exit
/// status; the CLI's ErrorReporting gives each its sysexits status and prints Core's words.
final class PhotoErrorWordingTests: XCTestCase {
    private func report(_ error: Error) -> (ExitStatus, String) {
        let r = ErrorReporting.report(for: error, libraryPath: "/l")
        return (r.status, r.message)
    }

    func testThumbnailErrors() {
        var (status, message) = report(ThumbnailError.missing(photo: "ABCD (a.jpg)"))
        XCTAssertEqual(status, .noInput)
        XCTAssertEqual(
            message, "ABCD (a.jpg) has no thumbnail; 'photos verify --repair' makes it again from the original")
        (status, message) = report(ThumbnailError.damaged(photo: "ABCD (a.jpg)", reason: "is not a JPEG"))
        XCTAssertEqual(status, .dataError)
        XCTAssertEqual(
            message, "ABCD (a.jpg): thumbnail is not a JPEG; 'photos verify --repair' makes it again from the original")
    }

    func testOriginalRemovalErrorsTakeTheirStatusFromErrno() {
        var (status, message) = report(OriginalRemovalError.folderNotWritable(folder: "/l/E/ab", errno: EACCES))
        XCTAssertEqual(status, .noPermission)
        XCTAssertEqual(
            message,
            "the originals' folder /l/E/ab is not writable (\(String(cString: strerror(EACCES)))), so its files could not be removed; nothing was deleted"
        )
        (status, _) = report(OriginalRemovalError.folderNotWritable(folder: "/l/E/ab", errno: EIO))
        XCTAssertEqual(status, .ioError)
        (status, message) = report(OriginalRemovalError.cannotInspect(path: "/l/E/ab/x", errno: EIO))
        XCTAssertEqual(status, .ioError)
        XCTAssertEqual(
            message, "cannot remove the original /l/E/ab/x: \(String(cString: strerror(EIO))); nothing was deleted")
        (status, _) = report(OriginalRemovalError.cannotInspect(path: "/l/E/ab/x", errno: EROFS))
        XCTAssertEqual(status, .noPermission)
        (status, _) = report(OriginalRemovalError.cannotInspect(path: "/l/E/ab/x", errno: ELOOP))
        XCTAssertEqual(status, .ioError, "any other errno: I/O")
    }
}
