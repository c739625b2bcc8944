import Foundation
import XCTest
import PhotosTestSupport
import PhotosCore

/// kill -9 in the middle of an export, with the built binary, then `--update` finishes the job.
final class ExportCrashTests: BinaryTestCase {
    override var label: String { "photos-export-crash" }

    func testKillDashNineMidExportThenUpdateCompletesWithoutTempFilesOrDuplicates() throws {
        let crash = self
        let (input, files) = try makeInput(copies: 24)
        let lib = dir + "/lib"
        XCTAssertEqual(try crash.run(["--library", lib, "import", "-q", input]).status, 0)
        let db = try TestCatalog(root: lib, readOnly: true)
        let shas = Set(try db.statement("SELECT sha256 FROM photo_data").map { $0.string(0) })
        XCTAssertEqual(shas.count, files)

        let out = dir + "/out"
        var killedMidway = false
        for delay in [0.05, 0.15, 0.3] {
            try killDashNine(
                ["--library", lib, "export", out, "--update", "--template", "{capture:%Y}/{name}", "--thumbnails"],
                after: delay)
            // Whatever is under a real name is whole: every original is one of the library's.
            let originals = filesUnder(out).filter { !$0.hasSuffix(".xmp") && !$0.hasSuffix(".thumb.jpg") }
            if originals.count < files { killedMidway = true }
            for file in originals {
                XCTAssertTrue(
                    shas.contains(sha256(ofFile: out + "/" + file)), "partial file \(file) after kill at \(delay) s")
            }
        }
        if !killedMidway { print("note: every export finished before its kill; the rerun checks still apply") }

        let rerun = try crash.run([
            "--library", lib, "--json", "export", out, "--update", "--template", "{capture:%Y}/{name}", "--thumbnails"
        ])
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
        let again = try crash.run([
            "--library", lib, "--json", "export", out, "--update", "--template", "{capture:%Y}/{name}", "--thumbnails"
        ])
        XCTAssertTrue(again.stdout.hasPrefix("{\"written\":0,\"updated\":0,\"skipped\":\(files),"), again.stdout)
    }
}
