import Foundation
import XCTest
@testable import PhotosCore
import PhotosSQLite

/// Issue 9 item 10: environment errors get their sysexits status; 70 is left for bugs.
final class ErrorMappingTests: XCTestCase {
    func status(_ error: Error) -> ExitStatus { PhotosError.wrap(error, libraryPath: "/nonexistent/lib").status }

    func testSQLiteResultCodesMapByKind() {
        let cases: [(Int32, ExitStatus)] = [
            (5, .tempFail), (5 | (1 << 8), .tempFail), (6, .tempFail),          // BUSY, BUSY_RECOVERY, LOCKED
            (8, .noPermission), (8 | (6 << 8), .noPermission),                   // READONLY, READONLY_DIRECTORY (1544)
            (8 | (1 << 8), .noPermission), (8 | (4 << 8), .noPermission),         // READONLY_RECOVERY, READONLY_DBMOVED
            (3, .noPermission), (23, .noPermission),                             // PERM, AUTH
            (10, .ioError), (10 | (3 << 8), .ioError), (10 | (13 << 8), .ioError), // IOERR, IOERR_WRITE, IOERR_FSTAT
            (13, .ioError), (7, .ioError),                                       // FULL, NOMEM
            (11, .dataError), (26, .dataError),                                  // CORRUPT, NOTADB
            (14, .ioError),                                                      // CANTOPEN, nothing to blame on permissions
            (19, .software), (19 | (8 << 8), .software), (1, .software), (21, .software), // CONSTRAINT, ERROR, MISUSE: bugs
        ]
        for (code, expected) in cases {
            XCTAssertEqual(status(SQLiteError(extendedCode: code, message: "m")), expected, "SQLite code \(code)")
        }
        let readonly = PhotosError.wrap(SQLiteError(extendedCode: 1544, message: "attempt to write a readonly database"), libraryPath: "/nonexistent/lib")
        XCTAssertTrue(readonly.message.hasPrefix("library /nonexistent/lib is not writable: "), readonly.message)
    }

    func testPOSIXErrorsMapByErrno() {
        let cases: [(Int32, ExitStatus)] = [(EACCES, .noPermission), (EPERM, .noPermission), (EROFS, .noPermission),
                                            (ENOSPC, .ioError), (EDQUOT, .ioError), (EIO, .ioError), (ENOENT, .noInput)]
        for (code, expected) in cases {
            XCTAssertEqual(status(NSError(domain: NSPOSIXErrorDomain, code: Int(code))), expected, "errno \(code)")
            let wrapped = NSError(domain: NSCocoaErrorDomain, code: 512, userInfo: [NSUnderlyingErrorKey: NSError(domain: NSPOSIXErrorDomain, code: Int(code))])
            XCTAssertEqual(status(wrapped), expected, "CocoaError with errno \(code)")
        }
        struct Bug: Error {}
        XCTAssertEqual(status(Bug()), .software)
    }
}
