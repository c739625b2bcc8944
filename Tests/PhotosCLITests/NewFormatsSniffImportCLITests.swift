import Foundation
import XCTest
import PhotosTestSupport
import PhotosSQLite

/// Issue 13 item 2, the kind "the name claims an image format, the bytes decide": every
/// claimed extension (any case) whose bytes are none of the formats fails with the reason,
/// and a real HEIF is found by the brands anywhere in its `ftyp` box (the import sniffs
/// `ImageFormatSniffer.prefixLength` bytes, not 16), whatever its name says.
final class NewFormatsSniffImportCLITests: XCTestCase {
    var dir = ""

    override func setUpWithError() throws {
        dir = NSTemporaryDirectory() + "photos-newsniff-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir + "/in", withIntermediateDirectories: true)
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    func testClaimedNamesAreJudgedByTheirBytes() throws {
        var heic = try XCTUnwrap(FileManager.default.contents(atPath: packageRoot + "/Samples-formats/storm.heic"))
        XCTAssertEqual(heic[4..<12], Data("ftypheic".utf8))
        // Major brand 'isom': only the compatible brands from byte 16 on say HEIF.
        heic.replaceSubrange(8..<12, with: Data("isom".utf8))
        _ = FileManager.default.createFile(atPath: dir + "/in/isom.heic", contents: heic)
        // HEIF bytes named .jpg: the bytes decide (stored as heif, its name kept).
        heic.replaceSubrange(8..<12, with: Data("heix".utf8))
        _ = FileManager.default.createFile(atPath: dir + "/in/really-heif.jpg", contents: heic)
        var fakes: [String: Data] = [
            "wave.webp": Data("RIFF".utf8) + Data([36, 0, 0, 0]) + Data("WAVEfmt ".utf8) + Data(count: 28),
            "video.HEIC": Data([0, 0, 0, 24]) + Data("ftypmp42".utf8) + Data([0, 0, 0, 0]) + Data("isommp42".utf8),
            "empty.avif": Data(),
            "text.HIF": Data("hello, world".utf8),
            "png-but-short.heif": Data([0x89, 0x50, 0x4E])
        ]
        fakes["text.Webp"] = Data("RIFF".utf8)
        for (name, bytes) in fakes { _ = FileManager.default.createFile(atPath: dir + "/in/" + name, contents: bytes) }
        _ = FileManager.default.createFile(
            atPath: dir + "/in/notes.txt", contents: Data("RIFF notes, not an image".utf8))

        let lib = dir + "/lib"
        let run = photos(["--library", lib, "import", dir + "/in"])
        XCTAssertEqual(run.status, 1, run.stderr)
        XCTAssertTrue(
            run.stdout.hasPrefix("Imported 2 photos, 0 duplicates, 1 skipped, \(fakes.count) failed;"), run.stdout)
        // An ISO-BMFF movie brand is a video by its bytes (issue 25): libavformat refuses the fake.
        XCTAssertTrue(
            run.stderr.contains("\(dir)/in/video.HEIC: error: not a video libavformat can read"), run.stderr)
        for name in fakes.keys where name != "empty.avif" && name != "video.HEIC" {
            let ext = (name as NSString).pathExtension.lowercased()
            XCTAssertTrue(
                run.stderr.contains(
                    "\(dir)/in/\(name): error: not a JPEG, PNG, HEIF, AVIF, WebP, TIFF, GIF, JPEG XL or camera RAW file (its name says .\(ext), its bytes start with "
                ),
                run.stderr)
        }
        XCTAssertTrue(
            run.stderr.contains(
                "\(dir)/in/empty.avif: error: empty file (0 bytes), not a JPEG, PNG, HEIF, AVIF, WebP, TIFF, GIF, JPEG XL or camera RAW"
            ),
            run.stderr)
        XCTAssertFalse(run.stderr.contains("notes.txt"), "an unclaimed name is skipped quietly")

        let db = try TestCatalog(root: lib, readOnly: true)
        let rows = try db.statement("SELECT display_name, format, width, height FROM photo ORDER BY display_name")
            .map { "\($0.string(0)) \($0.string(1)) \($0.int(2))x\($0.int(3))" }
        XCTAssertEqual(rows, ["isom.heic heif 1600x1067", "really-heif.jpg heif 1600x1067"])
    }
}
