import Foundation
import PhotosTestSupport
import XCTest

@testable import PhotosCore

/// Issue 25 item 2: a changeset carries a video's kind, duration and codec; the second library's
/// catalog dumps as the first's.
final class SyncVideoKindTests: SyncTestCase {
    func testChangesetCarriesAVideosKindDurationAndCodec() throws {
        let path = NSTemporaryDirectory() + "photos-syncvideo-\(UUID().uuidString).mp4"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try runFFmpeg([
            "-f", "lavfi", "-i", "color=lime:s=64x48:d=2:r=10", "-c:v", "libx264", "-pix_fmt", "yuv420p", path
        ])
        let a = try library("A")
        var options = ImportOptions(paths: [path])
        options.jobs = 1
        XCTAssertEqual(try Importer(library: a, libraryRoot: a.root, options: options).run().imported, 1)
        let b = try library("B")
        _ = try b.applyChangeset(at: try export(a))
        let carried = try XCTUnwrap(try photos(b).first)
        XCTAssertEqual(carried.format, .video)
        XCTAssertEqual(carried.kind, "video")
        XCTAssertEqual(carried.durationMS, 2000)
        XCTAssertEqual(carried.videoCodec, "h264")
        XCTAssertEqual(try CanonicalDump.of(b.root), try CanonicalDump.of(a.root))
    }
}
