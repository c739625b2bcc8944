import Foundation
import PhotosCore
import PhotosTestSupport
import XCTest

@testable import PhotosCLI

/// Opening a library fails with typed `LibraryError` cases (no exit status in Core); the CLI's
/// ErrorReporting is the one place that gives each its sysexits status and its words, which are
/// the ones the tests of the binary hold.
final class LibraryOpenErrorWordingTests: XCTestCase {
    private func report(_ error: LibraryError) -> (ExitStatus, String) {
        let r = ErrorReporting.report(for: error, libraryPath: "/other")
        return (r.status, r.message)
    }

    func testEachOpenFailureHasItsStatusAndWords() {
        var (status, message) = report(.noLibrary(library: "/l"))
        XCTAssertEqual(status, .noInput)
        XCTAssertEqual(message, "no library at /l (create one with 'photos init' or 'photos import')")
        (status, message) = report(.cannotEnter(library: "/l", reason: "the library folder /l cannot be entered (x)"))
        XCTAssertEqual(status, .noPermission)
        XCTAssertEqual(message, "library /l cannot be opened: the library folder /l cannot be entered (x)")
        (status, message) = report(.notALibrary(path: "/l/photos.sqlite"))
        XCTAssertEqual(status, .dataError)
        XCTAssertEqual(message, "/l/photos.sqlite is not a photos library (it has no schema version)")
        (status, message) = report(.olderSchema(library: "/l", found: 1, current: 4, why: .notWritable(what: "w")))
        XCTAssertEqual(status, .noPermission)
        XCTAssertEqual(
            message,
            "library /l has schema version 1 and must be upgraded to 4 by a user who can write it (run 'photos init'): w"
        )
        (status, message) = report(.olderSchema(library: "/l", found: 1, current: 4, why: .readOnlyOpen))
        XCTAssertEqual(status, .dataError)
        XCTAssertEqual(
            message,
            "library /l has schema version 1 and must be upgraded to 4 first, which a read-only open (as a dry run makes) does not do: run 'photos init'"
        )
        (status, message) = report(.olderSchema(library: "/l", found: 1, current: 4, why: .dryRun))
        XCTAssertEqual(status, .dataError)
        XCTAssertEqual(
            message,
            "library /l has schema version 1 and must be upgraded to 4 first, which a dry run does not do: run 'photos init', then the dry run"
        )
        (status, message) = report(.cannotCreate(library: "/l", reason: "/l exists and is not a folder"))
        XCTAssertEqual(status, .cantCreate)
        XCTAssertEqual(message, "cannot create library folder /l: /l exists and is not a folder")
    }
}
