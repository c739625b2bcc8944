import Foundation
import XCTest
import PhotosTestSupport
import PhotosImaging
@testable import PhotosCore

/// Hidden variant of issue 9 item 3 (libjpeg's verdict on every path): junk right after SOI
/// (`FF D8 12 34 FF E0 …`, e.g. one damaged byte of the APP0 marker). libjpeg reads the file
/// with "Corrupt JPEG data: 2 extraneous bytes before marker 0xe0", which keeps the image;
/// the import's sniff asked for `FF D8 FF` and refused it as "not a JPEG or PNG file".
final class JPEGJunkAfterSOITests: XCTestCase {
    func testJunkRightAfterSOIIsJudgedByLibjpeg() throws {
        let tmp = try TempDir()
        defer { tmp.cleanup() }
        let clean = try MetadataFixture.jpeg(seed: 3)
        let junk = [0xFF, 0xD8, 0x12, 0x34] + Array(clean.dropFirst(2))
        var damagedMarker = clean
        damagedMarker[2] = 0xFD // FF D8 FD E0: the APP0 marker's FF hit by a bit flip
        let other = try MetadataFixture.jpeg(seed: 5)
        var otherJunk = other
        otherJunk[2] = 0x00
        _ = try tmp.write("in/junk.jpg", junk)
        _ = try tmp.write("in/marker.JPEG", damagedMarker)
        _ = try tmp.write("in/data.bin", otherJunk) // not named as an image: still skipped
        _ = try tmp.write("in/fake.png", [0xFF, 0xD8, 0x00, 0x00]) // a .png is sniffed as before
        let library = try Library(root: tmp.file("lib"), create: true)
        let summary = try Importer(
            library: library, libraryRoot: tmp.file("lib"), options: ImportOptions(paths: [tmp.file("in")])
        ).run()
        XCTAssertEqual(summary.imported, 2, "\(summary.failures)")
        XCTAssertEqual(summary.skipped, 1)
        XCTAssertEqual(summary.failed, 1)
        XCTAssertEqual(summary.failures.map { ($0.path as NSString).lastPathComponent }, ["fake.png"])
        let names = try library.catalog.statement("SELECT display_name FROM photo ORDER BY display_name").map {
            $0.string(0)
        }
        XCTAssertEqual(names, ["junk.jpg", "marker.JPEG"])
        // The thumbnail equals the clean file's: the junk changed nothing.
        let options = ThumbnailOptions()
        let a = try clean.withUnsafeBytes { try Thumbnailer.makeThumbnail(from: $0, options: options) }
        let b = try junk.withUnsafeBytes { try Thumbnailer.makeThumbnail(from: $0, options: options) }
        XCTAssertEqual(a.thumbnail, b.thumbnail)
        // A file that is not a JPEG after SOI stays refused, with libjpeg's message.
        let bad: [UInt8] = [0xFF, 0xD8, 0x00, 0x00, 0x00]
        XCTAssertThrowsError(try bad.withUnsafeBytes { try Thumbnailer.makeThumbnail(from: $0, options: options) })
    }
}
