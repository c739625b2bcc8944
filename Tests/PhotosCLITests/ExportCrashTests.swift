import Foundation
import XCTest
import PhotosCore
import PhotosStorage

/// kill -9 in the middle of an export, with the built binary, then `--update` finishes the job.
final class ExportCrashTests: XCTestCase {
    var dir = ""
    override func setUpWithError() throws {
        dir = NSTemporaryDirectory() + "photos-export-crash-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }
    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    func binary() throws -> String {
        let candidates = [Bundle.main.bundleURL.appendingPathComponent("photos").path,
                          Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("photos").path,
                          packageRoot + "/.build/debug/photos"]
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw XCTSkip("the photos binary was not built (looked in \(candidates))")
        }
        return found
    }

    func run(_ args: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try binary())
        process.arguments = args
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let o = out.fileHandleForReading.readDataToEndOfFile()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: o, as: UTF8.self), String(decoding: e, as: UTF8.self))
    }

    /// Copies of the sample JPEGs made distinct by a COM segment after SOI, so none is a duplicate.
    func makeInput(copies: Int) throws -> (String, Int) {
        let input = dir + "/in"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        let jpegs = try FileManager.default.contentsOfDirectory(atPath: samplesDir).filter { $0.hasSuffix(".jpg") }.sorted()
        var count = 0
        for name in jpegs {
            let bytes = try XCTUnwrap(FileManager.default.contents(atPath: samplesDir + "/" + name))
            for i in 0..<copies {
                let comment = Array("copy \(i) of \(name)".utf8)
                let length = comment.count + 2
                let segment: [UInt8] = [0xFF, 0xFE, UInt8(length >> 8), UInt8(length & 0xFF)] + comment
                _ = FileManager.default.createFile(atPath: "\(input)/\(i)-\(name)", contents: Data(bytes.prefix(2)) + Data(segment) + bytes.dropFirst(2))
                count += 1
            }
        }
        return (input, count)
    }

    func testKillDashNineMidExportThenUpdateCompletesWithoutTempFilesOrDuplicates() throws {
        let crash = self
        let (input, files) = try makeInput(copies: 24)
        let lib = dir + "/lib"
        XCTAssertEqual(try crash.run(["--library", lib, "import", "-q", input]).status, 0)
        let db = try Database(path: lib + "/photos.sqlite", readOnly: true)
        let shas = Set(try db.statement("SELECT sha256 FROM photo_data").map { $0.string(0) })
        XCTAssertEqual(shas.count, files)

        let out = dir + "/out"
        var killedMidway = false
        for delay in [0.05, 0.15, 0.3] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: try crash.binary())
            process.arguments = ["--library", lib, "export", out, "--update", "--name", "{capture:%Y}/{name}", "--thumbnails"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            Thread.sleep(forTimeInterval: delay)
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            // Whatever is under a real name is whole: every original is one of the library's.
            let originals = filesUnder(out).filter { !$0.hasSuffix(".xmp") && !$0.hasSuffix(".thumb.jpg") }
            if originals.count < files { killedMidway = true }
            for file in originals { XCTAssertTrue(shas.contains(sha256(ofFile: out + "/" + file)), "partial file \(file) after kill at \(delay) s") }
        }
        if !killedMidway { print("note: every export finished before its kill; the rerun checks still apply") }

        let rerun = try crash.run(["--library", lib, "--json", "export", out, "--update", "--name", "{capture:%Y}/{name}", "--thumbnails"])
        XCTAssertEqual(rerun.status, 0, rerun.stderr)
        let summary = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(rerun.stdout.utf8)) as? [String: Any])
        let counted = ["written", "updated", "skipped"].reduce(0) { $0 + ((summary[$1] as? Int) ?? 0) }
        XCTAssertEqual(counted, files)
        let all = filesUnder(out, hidden: true)
        XCTAssertEqual(all.filter { $0.contains(Exporter.temporaryPrefix) }, [], "no temporary files left")
        let originals = filesUnder(out).filter { !$0.hasSuffix(".xmp") && !$0.hasSuffix(".thumb.jpg") }
        XCTAssertEqual(originals.count, files, "each photo exactly once: \(originals.count) files for \(files) photos")
        XCTAssertEqual(Set(originals.map { sha256(ofFile: out + "/" + $0) }), shas)
        XCTAssertEqual(filesUnder(out).filter { $0.hasSuffix(".xmp") }.count, files)
        XCTAssertEqual(filesUnder(out).filter { $0.hasSuffix(".thumb.jpg") }.count, files)
        let again = try crash.run(["--library", lib, "--json", "export", out, "--update", "--name", "{capture:%Y}/{name}", "--thumbnails"])
        XCTAssertTrue(again.stdout.hasPrefix("{\"written\":0,\"updated\":0,\"skipped\":\(files),"), again.stdout)
    }
}
