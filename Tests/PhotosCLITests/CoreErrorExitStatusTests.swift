import XCTest
import PhotosCore
import PhotosFiles
@testable import PhotosCLI

/// Issue 10: merge and export throw typed Core errors; the one mapping (`ErrorReporting`) gives
/// each the exit status and the exact line `PhotosError` gave before (the users' contract).
final class CoreErrorExitStatusTests: XCTestCase {
    func check(_ error: Error, _ status: ExitStatus, _ message: String, line: UInt = #line) {
        let report = ErrorReporting.report(for: error, libraryPath: "/lib")
        XCTAssertEqual(report.status, status, line: line)
        XCTAssertEqual(report.message, message, line: line)
    }

    func testMergeErrorsKeepTheirWordsAndStatus() {
        check(MergeError.intoItself(library: "/lib"), .usage, "cannot merge a library into itself (/lib)")
        check(
            MergeError.originalMismatch(library: "/other", photo: "ABC"), .dataError,
            "/other: original of photo ABC does not match its SHA-256; run 'photos verify' there")
    }

    func testExportErrorsKeepTheirWordsAndStatus() {
        check(ExportError.unclosedField(template: "{name"), .usage, "--template: '{' without a closing '}' in '{name'")
        check(
            ExportError.unknownField("nme"), .usage,
            "--template: unknown field '{nme}' (known: {name}, {stem}, {ext}, {uniqueName}, {share}, {shareId}, {author}, {rating}, {tag}, {title}, {capture:FORMAT}, {imported:FORMAT})"
        )
        check(ExportError.emptyTemplate, .usage, "--template: the template is empty")
        XCTAssertEqual(ExitStatus(for: ExportError.unknownConversion("%Q", field: "capture:%Q")), .usage)
        check(
            ExportError.destinationIsFile("/d"), .cantCreate,
            "cannot create export folder /d: a file of that name exists")
        check(
            ExportError.destinationInsideLibrary("/lib/x", library: "/lib"), .cantCreate,
            "cannot export to /lib/x: it is inside the library /lib")
        check(
            ExportError.cannotCreateDestination("/d", reason: "Permission denied"), .cantCreate,
            "cannot create export folder /d: Permission denied")
        check(
            ExportError.cannotWriteDestination("/d", reason: "Permission denied"), .cantCreate,
            "cannot write in export folder /d: Permission denied")
        check(
            ExportError.destinationBusy("/d"), .tempFail,
            "export folder /d is in use by another photos export; try again later")
        check(
            ExportError.cannotCreateFolder("/d/a", reason: "Not a directory"), .cantCreate,
            "cannot create folder /d/a: Not a directory")
        check(
            ExportError.folderOutsideDestination("/d/a"), .cantCreate,
            "folder /d/a resolves outside the export folder (a symbolic link?); not written")
        check(ExportError.folderInsideLibrary("/d/a"), .cantCreate, "folder /d/a is inside the library; not written")
        check(
            ExportError.unreadableOriginal(source: "/lib/x", reason: "No such file or directory"), .noInput,
            "cannot read the original /lib/x: No such file or directory (run 'photos verify')")
        check(
            ExportError.originalMismatch(source: "/lib/x", actual: "aa", recorded: "bb"), .dataError,
            "SHA-256 mismatch: the library's original /lib/x reads as aa, the library records bb (run 'photos verify'); not exported"
        )
        check(
            ExportError.originalSizeMismatch(source: "/lib/x", actual: 10, recorded: 12), .dataError,
            "size mismatch: the library's original /lib/x has 10 bytes, the library records 12 (run 'photos verify'); not exported"
        )
        check(
            ExportError.originalReadFailed(source: "/lib/x", reason: "Input/output error"), .ioError,
            "cannot read the original /lib/x: Input/output error")
        check(
            ExportError.stateBusy(state: "/d/.photos-export.sqlite"), .tempFail,
            "export state /d/.photos-export.sqlite is busy: another process holds its lock; try again later")
        check(
            ExportError.stateNotWritable(state: "/d/s", message: "attempt to write a readonly database"), .noPermission,
            "export state /d/s cannot be written: attempt to write a readonly database")
        check(
            ExportError.stateIOError(state: "/d/s", message: "disk I/O error"), .ioError,
            "export state /d/s cannot be written: disk I/O error")
        check(
            ExportError.cannotOpenState(path: "/d/s", reason: "r"), .cantCreate, "cannot open the export state /d/s: r")
        check(
            ExportError.cannotCreateState(path: "/d/s", reason: "r"), .cantCreate,
            "cannot create the export state /d/s: r")
        // Which stop the export (every later photo would fail the same way).
        XCTAssertEqual(
            [
                ExportError.destinationBusy("/d"), .originalReadFailed(source: "s", reason: "r"),
                .stateBusy(state: "s"),
                .stateNotWritable(state: "s", message: "m"), .stateIOError(state: "s", message: "m")
            ].map(\.stopsExport), [true, true, true, true, true])
        XCTAssertEqual(
            [
                ExportError.cannotCreateFolder("f", reason: "r"), .unreadableOriginal(source: "s", reason: "r"),
                .originalMismatch(source: "s", actual: "a", recorded: "b"), .cannotOpenState(path: "p", reason: "r")
            ].map(\.stopsExport), [false, false, false, false])
    }

    func testImportErrorTakesTheStatusOfTheFileSystemsRefusal() {
        check(
            ImportError.cannotRestoreOriginal(
                photo: "ABC", path: "/in/a.jpg",
                underlying: FileError(.notPermitted, "cannot create /lib/x: Permission denied")),
            .noPermission,
            "cannot restore the original of photo ABC from /in/a.jpg: cannot create /lib/x: Permission denied")
        check(
            ImportError.cannotRestoreOriginal(
                photo: "ABC", path: "/in/a.jpg",
                underlying: FileError(.io, "cannot write /lib/x: No space left on device")),
            .ioError,
            "cannot restore the original of photo ABC from /in/a.jpg: cannot write /lib/x: No space left on device")
        // Wrapped for the library as the importer's fatal error is (LibraryError.wrap → .store).
        check(
            LibraryError.wrap(
                ImportError.cannotRestoreOriginal(photo: "ABC", path: "/in/a.jpg", underlying: FileError(.io, "x")),
                library: "/lib"),
            .ioError, "cannot restore the original of photo ABC from /in/a.jpg: x")
    }
}
