import Foundation
import PhotosTestSupport
import XCTest

@testable import PhotosCore

/// Issue 25 item 2: a changeset carries a video's kind, duration and codec; the second library's
/// catalog dumps as the first's.
final class SyncVideoKindTests: SyncTestCase {
    func testChangesetCarriesAVideosKindDurationAndCodec() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg") else {
            throw XCTSkip("ffmpeg is not installed (Debian package ffmpeg): video inputs cannot be made")
        }
        let a = try library("A")
        let path = NSTemporaryDirectory() + "photos-syncvideo-\(UUID().uuidString).mp4"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        process.arguments = [
            "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "color=lime:s=64x48:d=2:r=10", "-c:v",
            "libx264", "-pix_fmt", "yuv420p", path
        ]
        try process.run()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
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
