import Foundation
import XCTest
@testable import PhotosCLI

/// Issue 32 item 8: every error on stderr has one prefix style, `photos CMD: error: …`
/// (`photos: error: …` before a command is recognised), usage errors included; a Foundation
/// error with an errno behind it is said in strerror's words and its path, without
/// Foundation's own text appended.
final class OneErrorPrefixTests: XCTestCase {
    func testUsageErrorsUseTheCommandErrorPrefix() {
        let cases: [([String], String)] = [
            ([], "photos: error: missing command\n\n"),
            (["tag"], "photos: error: 'tag' needs a subcommand\n\n"),
            (["tag", "bogus"], "photos: error: unknown subcommand 'tag bogus'\n\n"),
            (["bogus"], "photos: error: unknown command 'bogus'\n"),
            (["list", "--bogus"], "photos list: error: unknown option '--bogus'\nUsage: photos list ")
        ]
        for (args, prefix) in cases {
            let result = photos(args, env: ["COLUMNS": "80"])
            XCTAssertEqual(result.status, 64, "\(args)")
            XCTAssertTrue(result.stderr.hasPrefix(prefix), "\(args): \(result.stderr)")
            XCTAssertFalse(result.stderr.contains("Error: "), "\(args): \(result.stderr)")
        }
    }

    func testASystemErrorIsStrerrorAndThePathWithoutFoundationText() {
        let cases: [(Int32, Int32)] = [(EACCES, 77), (ENOSPC, 74), (ENOENT, 66), (EBADF, 74)]
        for (code, status) in cases {
            let error = NSError(
                domain: NSPOSIXErrorDomain, code: Int(code), userInfo: [NSFilePathErrorKey: "/tmp/photos-x"])
            let report = ErrorReporting.report(for: error, libraryPath: "/tmp/photos-lib")
            XCTAssertEqual(report.status.rawValue, status, "errno \(code)")
            XCTAssertEqual(report.message, "/tmp/photos-x: " + String(cString: strerror(code)), "errno \(code)")
        }
        let bare = ErrorReporting.report(
            for: NSError(domain: NSPOSIXErrorDomain, code: Int(EACCES)), libraryPath: "/tmp/photos-lib")
        XCTAssertEqual(bare.message, String(cString: strerror(EACCES)))
    }
}
