import Foundation
import XCTest
import PhotosTestSupport
@testable import PhotosCLI
import PhotosCore
import PhotosSQLite

/// Issue 13 item 2 end to end: HEIC, WebP and a Display-P3 JPEG imported by `photos import`,
/// originals stored byte for byte, fakes named .heic/.webp/.avif failing like a fake .jpg.
/// The schema accepts the new formats in `photo.format` from migration 4.
final class NewFormatsImportCLITests: XCTestCase {
    var dir = ""
    let formatSamples = packageRoot + "/Samples-formats"

    override func setUpWithError() throws {
        dir = NSTemporaryDirectory() + "photos-newformats-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir + "/in", withIntermediateDirectories: true)
    }

    override func tearDown() { if !dir.isEmpty { try? FileManager.default.removeItem(atPath: dir) } }

    func testHEICWebPAndP3ImportEndToEnd() throws {
        for name in ["storm.heic", "path.webp", "ladybird-display-p3.jpg"] {
            try FileManager.default.copyItem(atPath: formatSamples + "/" + name, toPath: dir + "/in/" + name)
        }
        for name in ["fake.heic", "fake.webp", "fake.avif"] {
            _ = FileManager.default.createFile(atPath: dir + "/in/" + name, contents: Data("not an image at all".utf8))
        }
        // A real HEIC cut in half: refused with libheif's reason, nothing stored.
        let heic = try XCTUnwrap(FileManager.default.contents(atPath: formatSamples + "/storm.heic"))
        _ = FileManager.default.createFile(atPath: dir + "/in/cut.heic", contents: heic.prefix(heic.count / 2))
        let lib = dir + "/lib"
        let run = photos(["--library", lib, "import", dir + "/in"])
        XCTAssertEqual(run.status, 1, run.stderr)
        XCTAssertTrue(run.stdout.hasPrefix("Imported 3 photos, 0 duplicates, 0 skipped, 4 failed;"), run.stdout)
        for name in ["fake.heic", "fake.webp", "fake.avif"] {
            XCTAssertTrue(run.stderr.contains("\(dir)/in/\(name): error: not a "), run.stderr)
        }
        XCTAssertTrue(run.stderr.contains("\(dir)/in/cut.heic: error: "), run.stderr)

        let db = try TestCatalog(root: lib, readOnly: true)
        let rows = try db.statement(
            "SELECT p.display_name, p.format, p.width, p.height, p.orientation, p.capture_date, d.byte_size, d.sha256 FROM photo p JOIN photo_data d ON d.photo_id = p.id ORDER BY p.display_name"
        )
        .map {
            ($0.string(0), $0.string(1), $0.int(2), $0.int(3), $0.int(4), $0.optionalString(5), $0.int(6), $0.string(7))
        }
        XCTAssertEqual(rows.map { $0.0 }, ["ladybird-display-p3.jpg", "path.webp", "storm.heic"])
        XCTAssertEqual(rows.map { $0.1 }, ["jpeg", "webp", "heif"])
        XCTAssertEqual(rows.map { [$0.2, $0.3, $0.4] }, [[1600, 1000, 1], [1600, 1000, 1], [1600, 1067, 1]])
        XCTAssertEqual(rows[1].5.map { String($0.prefix(19)) }, "2015-09-06T18:46:57", "WebP EXIF date")
        XCTAssertEqual(rows[2].5.map { String($0.prefix(19)) }, "2008-04-20T19:12:06", "HEIC Exif item date")
        for row in rows {
            let bytes = try XCTUnwrap(FileManager.default.contents(atPath: formatSamples + "/" + row.0))
            XCTAssertEqual(row.6, bytes.count, "\(row.0) stored whole")
        }
        XCTAssertEqual(photos(["--library", lib, "verify"]).status, 0, "thumbnails and originals verify")
        // Export gives the originals back byte for byte, with their own extensions.
        let export = photos(["--library", lib, "export", dir + "/out"])
        XCTAssertEqual(export.status, 0, export.stderr)
        let exported = try FileManager.default.contentsOfDirectory(atPath: dir + "/out").sorted()
        for name in ["storm.heic", "path.webp", "ladybird-display-p3.jpg"] {
            guard
                let file = exported.first(where: {
                    $0.hasSuffix((name as NSString).pathExtension) && !$0.hasSuffix(".xmp")
                })
            else {
                XCTFail("no exported .\((name as NSString).pathExtension) in \(exported)"); continue
            }
            XCTAssertEqual(
                FileManager.default.contents(atPath: dir + "/out/" + file),
                FileManager.default.contents(atPath: formatSamples + "/" + name), name)
        }
    }
}
