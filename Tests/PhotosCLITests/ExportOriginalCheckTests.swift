import Foundation
import PhotosTestSupport
import XCTest

/// What `photos export` checks of each original before it copies it: by default its size
/// against the library's (a truncated or grown original is refused; one damaged in place is
/// copied as it is, like cp would), and with `--check-hashes` also its SHA-256 (a damaged
/// original is refused). A refused photo fails alone (exit status 1, named on stderr) and no
/// file or temporary file of it is left in DEST.
final class ExportOriginalCheckTests: TemporaryFolderTestCase {
    override var label: String { "photos-export-check" }
    var lib: String { dir + "/lib" }

    @discardableResult
    func run(_ args: [String], status: Int32, file: StaticString = #filePath, line: UInt = #line) -> RunResult {
        let result = photos(["--library", lib] + args)
        XCTAssertEqual(result.status, status, "\(args): \(result.stderr)", file: file, line: line)
        return result
    }

    func summary(_ result: RunResult) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], result.stdout)
    }

    /// Imports the samples; returns storm.jpg's uniqueName, recorded SHA-256 and original's path.
    func importSamples() throws -> (uniqueName: String, sha256: String, original: String) {
        run(["import", "-q", samplesDir], status: 0)
        let listed = try run(["list", "--json"], status: 0).stdout.split(separator: "\n").map {
            try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        XCTAssertEqual(listed.count, 6)
        let storm = try XCTUnwrap(listed.first { $0["displayName"] as? String == "storm.jpg" })
        let sha = try XCTUnwrap(storm["sha256"] as? String)
        let name = try XCTUnwrap(storm["uniqueName"] as? String)
        return (name, sha, lib + "/ExternalData/" + String(sha.prefix(2)) + "/" + sha)
    }

    func temporaryFiles(_ folder: String) -> [String] {
        let names = FileManager.default.enumerator(atPath: folder)?.allObjects as? [String] ?? []
        return names.filter { $0.contains(".photos-export-tmp-") }
    }

    /// Flips the bits of the middle byte of the file at `path` (its size stays the same; a
    /// second flip repairs it).
    /// - Returns: the bytes now in the file.
    @discardableResult
    func flipMiddleByte(of path: String) throws -> Data {
        var bytes = try XCTUnwrap(FileManager.default.contents(atPath: path))
        bytes[bytes.count / 2] ^= 0xFF
        try bytes.write(to: URL(fileURLWithPath: path))
        return bytes
    }

    func testDefaultExportCopiesAnOriginalDamagedInPlaceAsItIs() throws {
        let storm = try importSamples()
        let bytes = try flipMiddleByte(of: storm.original)
        let out = dir + "/out"
        let s = try summary(run(["export", out, "--json"], status: 0))
        XCTAssertEqual(s["written"] as? Int, 6)
        XCTAssertEqual(s["failed"] as? Int, 0)
        // Sizes match, hashes are not read: the file is exported byte for byte as the library holds it.
        let exported = try XCTUnwrap(FileManager.default.contents(atPath: out + "/storm.jpg"))
        XCTAssertEqual(exported, bytes)
        XCTAssertNotEqual(sha256(ofFile: out + "/storm.jpg"), storm.sha256)
    }

    func testCheckHashesRefusesAnOriginalDamagedInPlace() throws {
        let storm = try importSamples()
        try flipMiddleByte(of: storm.original)
        let out = dir + "/out"
        let result = run(["export", out, "--check-hashes", "--json"], status: 1)
        XCTAssertTrue(result.stderr.contains("\(storm.uniqueName) (storm.jpg): error: SHA-256 mismatch"), result.stderr)
        let s = try summary(result)
        XCTAssertEqual(s["written"] as? Int, 5)
        XCTAssertEqual(s["failed"] as? Int, 1)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out + "/storm.jpg"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: out + "/storm.jpg.xmp"))
        XCTAssertEqual(temporaryFiles(out), [])
        // The dry run reads and checks as the real run does.
        let dry = run(["export", dir + "/dry", "--check-hashes", "--dry-run"], status: 1)
        XCTAssertTrue(dry.stderr.contains("SHA-256 mismatch"), dry.stderr)
        XCTAssertFalse(dry.stdout.contains("would write storm.jpg"), dry.stdout)
        // Repaired, the same command exports it with the library's bytes.
        try flipMiddleByte(of: storm.original)
        let again = try summary(run(["export", out, "--check-hashes", "--json"], status: 0))
        XCTAssertEqual(again["written"] as? Int, 1)
        XCTAssertEqual(sha256(ofFile: out + "/storm.jpg"), storm.sha256)
    }

    func testAnOriginalOfAnotherSizeIsRefusedWithAndWithoutCheckHashes() throws {
        let storm = try importSamples()
        let bytes = try XCTUnwrap(FileManager.default.contents(atPath: storm.original))
        for (variant, damaged) in [("truncated", bytes.prefix(bytes.count - 100)), ("grown", bytes + Data([0, 1, 2]))] {
            try Data(damaged).write(to: URL(fileURLWithPath: storm.original))
            for mode in [[], ["--check-hashes"]] {
                let out = dir + "/out-\(variant)-\(mode.count)"
                let result = run(["export", out, "--json"] + mode, status: 1)
                XCTAssertTrue(
                    result.stderr.contains(
                        "\(storm.uniqueName) (storm.jpg): error: size mismatch: the library's original \(storm.original) has \(damaged.count) bytes, the library records \(bytes.count)"
                    ), "\(variant) \(mode): \(result.stderr)")
                let s = try summary(result)
                XCTAssertEqual(s["written"] as? Int, 5, "\(variant) \(mode)")
                XCTAssertEqual(s["failed"] as? Int, 1, "\(variant) \(mode)")
                XCTAssertFalse(FileManager.default.fileExists(atPath: out + "/storm.jpg"), "\(variant) \(mode)")
                XCTAssertEqual(temporaryFiles(out), [], "\(variant) \(mode)")
                let dry = run(["export", out + "-dry", "--dry-run"] + mode, status: 1)
                XCTAssertTrue(dry.stderr.contains("size mismatch"), dry.stderr)
                XCTAssertFalse(dry.stdout.contains("would write storm.jpg"), dry.stdout)
            }
        }
    }
}
