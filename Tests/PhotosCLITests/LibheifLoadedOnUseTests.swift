import Foundation
import PhotosTestSupport
import XCTest

/// libheif is loaded when the first HEIF or AVIF file is met, not at every start (its plugin
/// registration initializes libde265 and relocates four codec libraries: ~5 ms per process);
/// a libheif that cannot be used fails those files by name and nothing else.
final class LibheifLoadedOnUseTests: BinaryTestCase {
    private let heic = packageRoot + "/Samples-formats/storm.heic"

    /// This process's environment with `extra` set.
    private func environment(_ extra: [String: String]) -> [String: String] {
        ProcessInfo.processInfo.environment.merging(extra) { $1 }
    }

    func testLoadedOnlyForAHEIFFile() throws {
        let lib = dir + "/lib"
        // glibc's loader names every library it initializes (ld.so(8), LD_DEBUG=libs).
        let jpegs = try runProcess(
            try binary(), ["--library", lib, "import", "-q", samplesDir + "/path.jpg"],
            environment: environment(["LD_DEBUG": "libs"]))
        XCTAssertEqual(jpegs.status, 0, jpegs.stderr)
        XCTAssertTrue(jpegs.stderr.contains("calling init: "), "LD_DEBUG=libs works here")
        XCTAssertFalse(jpegs.stderr.contains("libheif"), "no HEIF file, no libheif")
        XCTAssertFalse(jpegs.stderr.contains("libde265"))

        let withHEIC = try runProcess(
            try binary(), ["--library", lib, "import", "-q", heic], environment: environment(["LD_DEBUG": "libs"]))
        XCTAssertEqual(withHEIC.status, 0, withHEIC.stderr)
        XCTAssertTrue(withHEIC.stderr.contains("calling init: ") && withHEIC.stderr.contains("libheif.so.1"))
        let formats = try TestCatalog(root: lib, readOnly: true).statement("SELECT format FROM photo ORDER BY format")
            .map { $0.string(0) }
        XCTAssertEqual(formats, ["heif", "jpeg"])
    }

    func testAnUnusableLibheifFailsOnlyTheHEIFFiles() throws {
        // A library named libheif.so.1 that has none of its functions (zlib's), found first.
        let fake = dir + "/fake-lib"
        try FileManager.default.createDirectory(atPath: fake, withIntermediateDirectories: true)
        let zlib = try XCTUnwrap(
            ["/lib/x86_64-linux-gnu/libz.so.1", "/usr/lib/x86_64-linux-gnu/libz.so.1", "/lib64/libz.so.1"].first {
                FileManager.default.fileExists(atPath: $0)
            }, "zlib's shared library")
        // Its bytes, not the symbolic link the path usually is.
        let bytes = try XCTUnwrap(FileManager.default.contents(atPath: zlib))
        XCTAssertTrue(FileManager.default.createFile(atPath: fake + "/libheif.so.1", contents: bytes))
        let input = dir + "/in"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: heic, toPath: input + "/storm.heic")
        try FileManager.default.copyItem(atPath: samplesDir + "/path.jpg", toPath: input + "/path.jpg")

        let lib = dir + "/lib"
        let run = try runProcess(
            try binary(), ["--library", lib, "import", input], environment: environment(["LD_LIBRARY_PATH": fake]))
        XCTAssertEqual(run.status, 1, run.stderr)
        XCTAssertTrue(
            run.stderr.contains(
                "\(input)/storm.heic: error: HEIF/AVIF support unavailable: libheif.so.1 has no function heif_"),
            run.stderr)
        XCTAssertTrue(run.stdout.hasPrefix("Imported 1 photo, 0 duplicates, 0 skipped, 1 failed;"), run.stdout)
        let version = try runProcess(try binary(), ["--version"], environment: environment(["LD_LIBRARY_PATH": fake]))
        XCTAssertEqual(version.status, 0)
        XCTAssertTrue(version.stdout.contains("libheif       unavailable"), version.stdout)
    }
}
