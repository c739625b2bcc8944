import Foundation
import XCTest
import PhotosTestSupport
import PhotosSQLite

/// Issue 24 items 5-7 through `photos import`: JPEG XL files (a recompressed JPEG, a lossless
/// encode) and a PQ AVIF are imported with their sizes and format; a truncated JXL and bytes
/// that only start like a codestream each fail alone, naming the file and libjxl, with exit 1
/// and everything else imported; `list --format jxl` lists just the JXL photos.
final class JPEGXLImportCLITests: XCTestCase {
    var dir = ""

    override func setUpWithError() throws {
        dir = NSTemporaryDirectory() + "photos-jxlcli-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir + "/in", withIntermediateDirectories: true)
    }

    override func tearDown() {
        TestDatabase.dropSchemas(under: dir)
        try? FileManager.default.removeItem(atPath: dir)
    }

    func encode(_ tool: String, _ args: [String]) throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/" + tool) else {
            throw XCTSkip("\(tool) is not installed (Debian libjxl-tools / libavif-bin): test skipped")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/" + tool)
        process.arguments = args
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "\(tool) \(args)")
    }

    func testJPEGXLImportsAndBadFilesFailAlone() throws {
        let input = dir + "/in"
        try encode("cjxl", [samplesDir + "/ladybird.jpg", input + "/ladybird.jxl"])
        try encode("cjxl", [samplesDir + "/kite.png", input + "/kite.jxl", "-d", "0"])
        try encode(
            "avifenc", ["--cicp", "9/16/9", "-d", "10", "-s", "9", samplesDir + "/kite.png", input + "/kite-pq.avif"])
        let kite = try XCTUnwrap(FileManager.default.contents(atPath: input + "/kite.jxl"))
        XCTAssertTrue(
            FileManager.default.createFile(atPath: input + "/truncated.jxl", contents: kite.prefix(kite.count / 2)))
        XCTAssertTrue(
            FileManager.default.createFile(
                atPath: input + "/fake.jxl", contents: Data([0xFF, 0x0A]) + Data(repeating: 0x55, count: 300)))

        let lib = dir + "/lib"
        let run = photos(["--library", lib, "import", input])
        XCTAssertEqual(run.status, 1, run.stderr)
        XCTAssertTrue(run.stdout.hasPrefix("Imported 3 photos, 0 duplicates, 0 skipped, 2 failed;"), run.stdout)
        for name in ["truncated.jxl", "fake.jxl"] {
            let line = run.stderr.split(separator: "\n").first { $0.contains("\(input)/\(name): error: ") }
            XCTAssertNotNil(line, run.stderr)
            XCTAssertTrue(line?.contains("libjxl") == true, String(line ?? ""))
        }

        let db = try TestCatalog(root: lib, readOnly: true)
        let rows = try db.statement("SELECT display_name, format, width, height FROM photo ORDER BY display_name")
            .map { "\($0.string(0)) \($0.string(1)) \($0.int(2))x\($0.int(3))" }
        XCTAssertEqual(rows, ["kite-pq.avif avif 1024x640", "kite.jxl jxl 1024x640", "ladybird.jxl jxl 1600x1000"])

        let listed = photos(["--library", lib, "list", "--format", "jxl"])
        XCTAssertEqual(listed.status, 0, listed.stderr)
        XCTAssertTrue(listed.stdout.contains("kite.jxl") && listed.stdout.contains("ladybird.jxl"), listed.stdout)
        XCTAssertFalse(listed.stdout.contains("kite-pq.avif"), listed.stdout)
    }
}
