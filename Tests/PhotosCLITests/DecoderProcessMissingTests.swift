import Foundation
import PhotosImaging
import PhotosTestSupport
import XCTest

/// RAW and HEIF files are decoded by photos-decoder, installed beside `photos` (CImageCodec decoder.h):
/// without it those files fail by name with what is missing, and the import goes on.
final class DecoderProcessMissingTests: BinaryTestCase {
    func testAMissingDecoderFailsOnlyTheRawAndHEIFFiles() throws {
        let input = dir + "/in"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        let picture = try Self.picture()
        XCTAssertTrue(
            FileManager.default.createFile(
                atPath: input + "/IMG_1234.dng", contents: Data(DNGWriter.make(image: picture, preview: nil))))
        let heic = packageRoot + "/Samples-formats/storm.heic"
        try FileManager.default.copyItem(atPath: heic, toPath: input + "/storm.heic")
        try FileManager.default.copyItem(atPath: samplesDir + "/path.jpg", toPath: input + "/path.jpg")
        let missing = dir + "/nowhere/photos-decoder"
        var environment = ProcessInfo.processInfo.environment
        environment["PHOTOS_DECODER"] = missing
        let lib = dir + "/lib"
        let run = try runProcess(try binary(), ["--library", lib, "import", input], environment: environment)
        XCTAssertEqual(run.status, 1, run.stderr)
        let reason =
            "error: the decoder process \(missing) is missing or not executable (No such file or directory);"
            + " install photos-decoder next to photos, or name it in PHOTOS_DECODER"
        for name in ["IMG_1234.dng", "storm.heic"] {
            XCTAssertTrue(run.stderr.contains("\(input)/\(name): \(reason)"), run.stderr)
        }
        XCTAssertTrue(run.stdout.hasPrefix("Imported 1 photo, 0 duplicates, 0 skipped, 2 failed;"), run.stdout)
        let formats = try TestCatalog(root: lib, readOnly: true).statement("SELECT format FROM photo").map {
            $0.string(0)
        }
        XCTAssertEqual(formats, ["jpeg"])

        // The same files with the decoder found beside the binary (no PHOTOS_DECODER): all three imported.
        environment["PHOTOS_DECODER"] = nil
        let again = try runProcess(try binary(), ["--library", lib, "import", input], environment: environment)
        XCTAssertEqual(again.status, 0, again.stderr)
        let all = try TestCatalog(root: lib, readOnly: true).statement("SELECT format FROM photo ORDER BY format")
            .map { $0.string(0) }
        XCTAssertEqual(all, ["heif", "jpeg", "raw"])
    }

    /// A decoder process that dies of a signal (here a stand-in named by PHOTOS_DECODER that sends itself
    /// SIGSEGV) fails that file with the signal, and the import goes on.
    func testADecoderProcessThatCrashesFailsThatFileAlone() throws {
        let input = dir + "/in"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        XCTAssertTrue(
            FileManager.default.createFile(
                atPath: input + "/IMG_1234.dng", contents: Data(DNGWriter.make(image: try Self.picture(), preview: nil))
            ))
        try FileManager.default.copyItem(atPath: samplesDir + "/path.jpg", toPath: input + "/path.jpg")
        let crashing = dir + "/photos-decoder"
        XCTAssertTrue(
            FileManager.default.createFile(atPath: crashing, contents: Data("#!/bin/sh\nkill -SEGV $$\n".utf8)))
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: crashing)
        var environment = ProcessInfo.processInfo.environment
        environment["PHOTOS_DECODER"] = crashing
        let lib = dir + "/lib"
        let run = try runProcess(try binary(), ["--library", lib, "import", input], environment: environment)
        XCTAssertEqual(run.status, 1, run.stderr)
        XCTAssertTrue(
            run.stderr.contains(
                "\(input)/IMG_1234.dng: error: LibRaw crashed on this file (signal 11, Segmentation fault)"),
            run.stderr)
        XCTAssertTrue(run.stdout.hasPrefix("Imported 1 photo, 0 duplicates, 0 skipped, 1 failed;"), run.stdout)
    }

    /// The decoder process runs in a process group of its own: the terminal's Ctrl-C (SIGINT to
    /// the foreground group) stops the import after its batch and does not kill the decoder, whose
    /// file would fail as "crashed (signal 2)". A stand-in decoder writes its process group and its
    /// parent's.
    func testTheDecoderProcessHasAProcessGroupOfItsOwn() throws {
        let input = dir + "/in"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        XCTAssertTrue(
            FileManager.default.createFile(
                atPath: input + "/IMG_1234.dng", contents: Data(DNGWriter.make(image: try Self.picture(), preview: nil))
            ))
        let report = dir + "/report"
        let standIn = dir + "/photos-decoder"
        let script = """
            #!/bin/sh
            echo "$(cut -d' ' -f5 /proc/$$/stat) $(cut -d' ' -f5 /proc/$PPID/stat)" > \(report)
            exit 1
            """
        XCTAssertTrue(FileManager.default.createFile(atPath: standIn, contents: Data(script.utf8)))
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: standIn)
        var environment = ProcessInfo.processInfo.environment
        environment["PHOTOS_DECODER"] = standIn
        let run = try runProcess(try binary(), ["--library", dir + "/lib", "import", input], environment: environment)
        XCTAssertEqual(run.status, 1, run.stderr)
        let fields = try String(contentsOfFile: report, encoding: .utf8).split(separator: " ").map {
            $0.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        XCTAssertEqual(fields.count, 2, "\(fields)")
        XCTAssertNotEqual(fields.first, fields.last, "its own process group: \(fields)")
    }

    /// A 40x30 picture of gradients.
    static func picture() throws -> PixelBuffer {
        var bytes: [UInt8] = []
        for y in 0..<30 { for x in 0..<40 { bytes += [UInt8(x * 6), UInt8(y * 8), UInt8((x + y) * 3)] } }
        return try PixelBuffer(width: 40, height: 30, rgb: bytes)
    }
}
