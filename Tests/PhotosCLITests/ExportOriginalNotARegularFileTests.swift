import Foundation
import XCTest
import PhotosTestSupport
import PhotosCore

/// An original in external data replaced by something that is not a regular file (a FIFO, a
/// folder, a symbolic link to a FIFO) fails that photo with "not a regular file" and the export
/// goes on: a FIFO must not block export's open(2) until a writer comes.
final class ExportOriginalNotARegularFileTests: TemporaryFolderTestCase {
    override var label: String { "photos-export-not-regular" }
    var lib: String { dir + "/lib" }

    /// The path of `name`'s original in external data.
    func originalPath(of name: String) throws -> String {
        let listed = photos(["--library", lib, "list", "--json"]).stdout.split(separator: "\n")
        for line in listed {
            let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            if object["displayName"] as? String == name, let sha = object["sha256"] as? String {
                return lib + "/ExternalData/" + String(sha.prefix(2)) + "/" + sha
            }
        }
        throw SetUpFailure("no photo \(name) imported")
    }

    /// Runs an export of the library while a watchdog, from 10 s on, opens each of `fifos` for
    /// writing once a second until the export returns, so that a build whose open(2) blocks on
    /// a FIFO ends (with another message) instead of hanging the suite.
    func exportUnblocking(_ fifos: [String], _ args: [String]) -> RunResult {
        let done = DispatchSemaphore(value: 0)
        let watchdog = Thread {
            var wait = 10.0
            while done.wait(timeout: .now() + wait) == .timedOut {
                for fifo in fifos {
                    let fd = open(fifo, O_RDWR | O_NONBLOCK)
                    if fd >= 0 { close(fd) }
                }
                wait = 1
            }
        }
        watchdog.start()
        defer { done.signal() }
        return photos(["--library", lib] + args)
    }

    func testFIFOFolderAndSymlinkOriginalsFailThatPhotoOnly() throws {
        XCTAssertEqual(photos(["--library", lib, "import", "-q", samplesDir]).status, 0)
        let fifoOriginal = try originalPath(of: "storm.jpg")
        let folderOriginal = try originalPath(of: "kite.png")
        let linkedOriginal = try originalPath(of: "ladybird.jpg")
        let fifoElsewhere = dir + "/elsewhere.fifo"
        for path in [fifoOriginal, folderOriginal, linkedOriginal] { try FileManager.default.removeItem(atPath: path) }
        XCTAssertEqual(mkfifo(fifoOriginal, 0o644), 0)
        XCTAssertEqual(mkfifo(fifoElsewhere, 0o644), 0)
        try FileManager.default.createDirectory(atPath: folderOriginal, withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(atPath: linkedOriginal, withDestinationPath: fifoElsewhere)

        for extra in [[], ["--check-hashes"], ["--dry-run"]] {
            let out = dir + "/out" + extra.joined()
            let result = exportUnblocking([fifoOriginal, fifoElsewhere], ["export", out, "--json"] + extra)
            XCTAssertEqual(result.status, 1, "\(extra): \(result.stderr)")
            let summary = try XCTUnwrap(
                JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], result.stdout)
            XCTAssertEqual(summary["failed"] as? Int, 3, "\(extra): \(result.stderr)")
            XCTAssertEqual(summary["written"] as? Int, 3, "\(extra): a dry run counts what it would write")
            for (original, kind) in [(fifoOriginal, "a FIFO"), (folderOriginal, "a folder"), (linkedOriginal, "a FIFO")]
            {
                XCTAssertTrue(
                    result.stderr.contains("cannot read the original \(original): not a regular file (\(kind))"),
                    "\(extra): \(result.stderr)")
            }
            for name in ["storm.jpg", "kite.png", "ladybird.jpg"] {
                XCTAssertFalse(FileManager.default.fileExists(atPath: out + "/" + name), "\(extra): \(name)")
            }
        }
    }
}
