import Foundation
import XCTest
@testable import PhotosCLI
import PhotosCore
import PhotosFiles
import PhotosSQLite

/// Issue 9 item 10: environment errors get their sysexits status; 70 is left for bugs. Issue 10
/// item 4 moved the mapping from Core into the CLI (`CLIError`, `ExitStatus(for:)`).
final class ErrorMappingTests: XCTestCase {
    func status(_ error: Error) -> ExitStatus { ExitStatus(for: error, libraryPath: "/nonexistent/lib") }

    func testSQLiteResultCodesMapByKind() {
        let cases: [(Int32, ExitStatus)] = [
            (5, .tempFail), (5 | (1 << 8), .tempFail), (6, .tempFail), // BUSY, BUSY_RECOVERY, LOCKED
            (8, .noPermission), (8 | (6 << 8), .noPermission), // READONLY, READONLY_DIRECTORY (1544)
            (8 | (1 << 8), .noPermission), (8 | (4 << 8), .noPermission), // READONLY_RECOVERY, READONLY_DBMOVED
            (3, .noPermission), (23, .noPermission), // PERM, AUTH
            (10, .ioError), (10 | (3 << 8), .ioError), (10 | (13 << 8), .ioError), // IOERR, IOERR_WRITE, IOERR_FSTAT
            (13, .ioError), (7, .ioError), // FULL, NOMEM
            (11, .dataError), (26, .dataError), // CORRUPT, NOTADB
            (14, .ioError), // CANTOPEN, nothing to blame on permissions
            // CONSTRAINT, ERROR, MISUSE: bugs
            (19, .software), (19 | (8 << 8), .software), (1, .software), (21, .software)
        ]
        for (code, expected) in cases {
            XCTAssertEqual(status(SQLiteError(extendedCode: code, message: "m")), expected, "SQLite code \(code)")
        }
        let readonly = CLIError(
            SQLiteError(extendedCode: 1544, message: "attempt to write a readonly database"),
            libraryPath: "/nonexistent/lib")
        XCTAssertTrue(readonly.message.hasPrefix("library /nonexistent/lib is not writable: "), readonly.message)
    }

    func testPOSIXErrorsMapByErrno() {
        let cases: [(Int32, ExitStatus)] = [
            (EACCES, .noPermission), (EPERM, .noPermission), (EROFS, .noPermission),
            (ENOSPC, .ioError), (EDQUOT, .ioError), (EIO, .ioError), (ENOENT, .noInput)
        ]
        for (code, expected) in cases {
            XCTAssertEqual(status(NSError(domain: NSPOSIXErrorDomain, code: Int(code))), expected, "errno \(code)")
            let wrapped = NSError(
                domain: NSCocoaErrorDomain, code: 512,
                userInfo: [NSUnderlyingErrorKey: NSError(domain: NSPOSIXErrorDomain, code: Int(code))])
            XCTAssertEqual(status(wrapped), expected, "CocoaError with errno \(code)")
        }
        struct Bug: Error {}
        XCTAssertEqual(status(Bug()), .software)
    }

    /// Core's typed errors, and the wording that only the CLI adds.
    func testTypedCoreErrorsMapToStatusesAndHints() {
        let busy = CLIError(LibraryError.busy(library: "/l"), libraryPath: "/other")
        XCTAssertEqual(busy.status, .tempFail)
        XCTAssertEqual(
            busy.message, "library /l is busy: another photos process holds its lock; try again later (or raise --wait)"
        )
        XCTAssertEqual(ExitStatus(for: LibraryError.newerSchema(library: "/l", found: 9, supported: 3)), .dataError)
        XCTAssertEqual(
            ExitStatus(for: LibraryError.wrap(SQLiteError(extendedCode: 5, message: "m"), library: "/l")), .tempFail)
        XCTAssertEqual(
            ExitStatus(for: LibraryError.wrap(SQLiteError(extendedCode: 2067, message: "m"), library: "/l")), .software)
        XCTAssertEqual(ExitStatus(for: ValueError.ratingNotANumber("x")), .usage)
        XCTAssertEqual(
            ExitStatus(for: ValueError.ratingOutOfRange("9")), .usage,
            "a bad argument value is 64 everywhere (issue 14)")
        XCTAssertEqual(ExitStatus(for: FileError(.noInput, "m")), .noInput)
        XCTAssertEqual(ExitStatus(for: FileError(.cannotCreate, "m")), .cantCreate)
        XCTAssertEqual(ExitStatus(for: FileError(.io, "m")), .ioError)
        XCTAssertEqual(
            ExitStatus(for: LibraryError.store(library: "/l", underlying: FileError(.io, "cannot write x"))), .ioError)
        XCTAssertEqual(
            CLIError(LibraryError.store(library: "/l", underlying: FileError(.io, "cannot write x")), libraryPath: "/l")
                .message, "cannot write x")
    }

    /// Merge of main's issue 9 variants into PhotosFiles: a file error's errno decides 77/74
    /// (EACCES/EROFS, ENOSPC/EIO) as `PhotosError.status(forErrno:)` did, a `file_ref` outside
    /// ExternalData is 65, and ErrorReporting is the one mapping `ExitStatus(for:)` uses.
    func testFileErrorKindsFromErrnoAndTheOneMapping() {
        XCTAssertEqual(FileError.Kind.forErrno(EACCES, otherwise: .cannotCreate), .notPermitted)
        XCTAssertEqual(FileError.Kind.forErrno(EROFS, otherwise: .cannotCreate), .notPermitted)
        XCTAssertEqual(FileError.Kind.forErrno(ENOSPC, otherwise: .cannotCreate), .io)
        XCTAssertEqual(FileError.Kind.forErrno(ENOENT, otherwise: .cannotCreate), .cannotCreate)
        XCTAssertEqual(ExitStatus(for: FileError(.notPermitted, "m")), .noPermission)
        XCTAssertEqual(ExitStatus(for: FileError(.invalidName, "m")), .dataError)
        XCTAssertTrue(FileError(.notPermitted, "m").isEnvironmental)
        XCTAssertFalse(FileError(.cannotCreate, "m").isEnvironmental)
        let report = ErrorReporting.report(
            for: FileError(.notPermitted, "cannot create /x: Permission denied"), libraryPath: "/l")
        XCTAssertEqual(report.status, .noPermission)
        XCTAssertEqual(report.message, "cannot create /x: Permission denied")
        XCTAssertEqual(ExitStatus(for: UsageError("bad")), .usage)
    }
}
