import Foundation
import XCTest
import PhotosTestSupport
@testable import PhotosCLI
import PhotosCore

/// Backup/restore and sidecar refusals are typed in Core (`BackupError`, `SidecarError`: the
/// file, folder and `errno` as their subject, no exit status) and get their status and words in
/// the CLI's one mapping (`ErrorReporting`): the exact lines and statuses users saw before,
/// when Core threw a status-carrying error, kept byte-identical.
final class CoreErrorWordingTests: TemporaryFolderTestCase {
    override var label: String { "photos-core-words" }
    var lib: String { dir + "/lib" }

    private func check(
        _ error: Error, _ status: ExitStatus, _ message: String, file: StaticString = #filePath, line: UInt = #line
    ) {
        let report = ErrorReporting.report(for: error, libraryPath: "/lib")
        XCTAssertEqual(report.status, status, "\(error)", file: file, line: line)
        XCTAssertEqual(report.message, message, file: file, line: line)
        XCTAssertEqual(ExitStatus(for: error), status, file: file, line: line)
    }

    // MARK: through ErrorReporting

    func testBackupErrorsKeepTheirWordsAndStatuses() {
        check(
            BackupError.destinationInsideLibrary(destination: "/lib/b", library: "/lib"), .cantCreate,
            "backup destination /lib/b is inside the library /lib")
        check(
            BackupError.cannotRenameOriginal(source: "/lib/E/ab/x", destination: "/b/E/ab/x", errno: EACCES),
            .ioError, "cannot back up /lib/E/ab/x to /b/E/ab/x: Permission denied")
        check(
            BackupError.noBackup(backup: "/b", catalog: "/b/photos.sqlite"), .noInput,
            "no backup at /b: /b/photos.sqlite does not exist")
        check(
            BackupError.libraryExists(library: "/lib"), .cantCreate,
            "a library already exists at /lib: restore makes a new one (choose another --library, or move it away)")
        check(
            BackupError.cannotRestoreOriginal(source: "/b/E/ab/x", destination: "/lib/E/ab/x", errno: ENOENT),
            .cantCreate, "cannot restore /b/E/ab/x to /lib/E/ab/x: No such file or directory")
    }

    func testSidecarErrorsKeepTheirWordsAndStatuses() {
        check(
            SidecarError.fileTooLarge(path: "/in/a.jpg.xmp", bytes: 4_194_305, maximum: 4 << 20), .dataError,
            "/in/a.jpg.xmp: sidecar of 4194305 bytes is larger than the 4 MiB a sidecar may have; not read")
        check(
            SidecarError.readFailed(path: "/in/a.jpg.xmp", errno: EIO), .ioError,
            "/in/a.jpg.xmp: cannot read the sidecar: Input/output error")
        check(
            SidecarError.tooManyJSONValues(path: "/in/a.jpg.json", values: 20_001, maximum: 20_000), .dataError,
            "/in/a.jpg.json: JSON sidecar of 20001 values is over the 20000 read; not read")
        check(
            SidecarError.notAJSONObject(path: "/in/a.jpg.json"), .dataError,
            "/in/a.jpg.json: not a readable JSON sidecar (expected a JSON object)")
        check(
            SidecarError.packetTooLarge(path: "/in/a.jpg", bytes: 5_000_000, maximum: 4 << 20), .dataError,
            "/in/a.jpg: XMP packet of 5000000 bytes is larger than 4 MiB; not read")
        check(
            SidecarError.tooManyXMPNodes(path: "/in/a.xmp", nodes: 20_001, maximum: 20_000), .dataError,
            "/in/a.xmp: XMP packet of 20001 elements and attributes is over the 20000 read; not read")
        check(
            SidecarError.toolkitUnavailable(code: -1), .software,
            "the XMP Toolkit (exempi) could not be initialized (error -1)")
        check(
            SidecarError.toolkitAllocationFailed(path: "/in/a.xmp"), .software,
            "/in/a.xmp: the XMP Toolkit could not allocate a packet")
        check(
            SidecarError.malformedPacket(path: "/in/a.xmp", toolkitCode: -201), .dataError,
            "/in/a.xmp: not a readable XMP packet: malformed XML (XMP Toolkit error -201, XMPErr_BadXML)")
        check(
            SidecarError.malformedPacket(path: "/in/a.xmp", toolkitCode: 0), .dataError,
            "/in/a.xmp: not a readable XMP packet: empty or not XML")
    }

    /// The CLI's own refusals keep a status of their own (`CommandFailure`), and an error of
    /// Core passed through `LibraryError.wrap` keeps its type.
    func testCommandFailuresAndWrappedCoreErrorsKeepTheirStatus() {
        check(CommandFailure.noInput("/in/x: no such file or directory"), .noInput, "/in/x: no such file or directory")
        check(CommandFailure.dataError("share abc is not yours"), .dataError, "share abc is not yours")
        let wrapped = LibraryError.wrap(BackupError.libraryExists(library: "/lib"), library: "/lib")
        XCTAssertEqual(wrapped as? BackupError, .libraryExists(library: "/lib"))
        let sidecar = LibraryError.wrap(SidecarError.notAJSONObject(path: "/a.json"), library: "/lib")
        XCTAssertEqual(sidecar as? SidecarError, .notAJSONObject(path: "/a.json"))
    }

    // MARK: Core throws them with their subject

    func testSidecarReadersThrowTheCaseWithTheFile() {
        XCTAssertThrowsError(try XMPSidecar.parseJSON(Data("[1, 2]".utf8), path: "/in/a.jpg.json")) {
            XCTAssertEqual($0 as? SidecarError, .notAJSONObject(path: "/in/a.jpg.json"))
        }
        let values =
            "{\"tags\": [" + Array(repeating: "0", count: XMPSidecar.maxNodes + 10).joined(separator: ",") + "]}"
        XCTAssertThrowsError(try XMPSidecar.parseJSON(Data(values.utf8), path: "/in/b.jpg.json")) {
            guard case let .tooManyJSONValues(path, count, maximum)? = $0 as? SidecarError else {
                return XCTFail("\($0)")
            }
            XCTAssertEqual(path, "/in/b.jpg.json")
            XCTAssertGreaterThan(count, maximum)
            XCTAssertEqual(maximum, XMPSidecar.maxNodes)
        }
        let big = Data(count: XMPSidecar.maxBytes + 1)
        XCTAssertThrowsError(try XMPSidecar.parse(big, path: "/in/c.xmp")) {
            XCTAssertEqual(
                $0 as? SidecarError,
                .packetTooLarge(path: "/in/c.xmp", bytes: XMPSidecar.maxBytes + 1, maximum: XMPSidecar.maxBytes))
        }
        let nodes = "<x:xmpmeta>" + String(repeating: "<a/>", count: XMPSidecar.maxNodes + 1) + "</x:xmpmeta>"
        XCTAssertThrowsError(try XMPSidecar.parse(Data(nodes.utf8), path: "/in/d.xmp")) {
            guard case let .tooManyXMPNodes(path, _, maximum)? = $0 as? SidecarError else { return XCTFail("\($0)") }
            XCTAssertEqual(path, "/in/d.xmp")
            XCTAssertEqual(maximum, XMPSidecar.maxNodes)
        }
        XCTAssertThrowsError(try XMPSidecar.parse(Data(), path: "/in/e.xmp")) {
            XCTAssertEqual($0 as? SidecarError, .malformedPacket(path: "/in/e.xmp", toolkitCode: 0))
            XCTAssertEqual("\($0)", "/in/e.xmp: not a readable XMP packet: empty or not XML")
        }
    }

    // MARK: through the command line

    func testBackupAndRestoreRefusalsThroughTheCommandLine() throws {
        try TestDatabase.requireSQLite(
            because:
                "photos backup and restore copy SQLite catalogs (a PostgreSQL catalog is pg_dump's: exit 69, PostgresLibraryCLITests)"
        )
        XCTAssertEqual(photos(["--library", lib, "init"]).status, 0)
        let inside = photos(["--library", lib, "backup", lib + "/backup"])
        XCTAssertEqual(inside.status, 73)
        XCTAssertEqual(
            inside.stderr, "photos backup: error: backup destination \(lib)/backup is inside the library \(lib)\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: lib + "/backup"), "nothing created")

        let backup = dir + "/backup"
        XCTAssertEqual(photos(["--library", lib, "backup", backup, "-q"]).status, 0)
        let existing = photos(["--library", lib, "restore", backup])
        XCTAssertEqual(existing.status, 73)
        XCTAssertEqual(
            existing.stderr,
            "photos restore: error: a library already exists at \(lib): restore makes a new one (choose another --library, or move it away)\n"
        )

        let none = photos(["--library", dir + "/other", "restore", dir + "/none"])
        XCTAssertEqual(none.status, 66)
        XCTAssertEqual(
            none.stderr, "photos restore: error: no backup at \(dir)/none: \(dir)/none/photos.sqlite does not exist\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/other"), "nothing created")
    }

    func testABadJSONSidecarFailsItsFileNamingTheSidecar() throws {
        let input = dir + "/in"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        let jpeg = try XCTUnwrap(FileManager.default.contents(atPath: samplesDir + "/storm.jpg"))
        XCTAssertTrue(FileManager.default.createFile(atPath: input + "/a.jpg", contents: jpeg))
        XCTAssertTrue(FileManager.default.createFile(atPath: input + "/a.jpg.json", contents: Data("[1]".utf8)))
        let result = photos(["--library", lib, "import", input, "-q"])
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(
            result.stderr.contains(input + "/a.jpg.json: not a readable JSON sidecar (expected a JSON object)"),
            result.stderr)
    }
}
