import Foundation
import XCTest
import PhotosTestSupport
@testable import PhotosImaging

/// RAW and HEIF files are decoded in the decoder process, photos-decoder, started with posix_spawn
/// (CImageCodec decoder.h), not in a fork(2) of this multi-threaded process: a forked child that ran
/// setenv/tzset/mktime (LibRaw) hung whenever another thread held glibc's environment or time-zone
/// lock at the fork ("LibRaw did not finish this file in 60 s"; Benchmarks/decoder-isolation-stress.c:
/// 10 of 10 forked decodes hung while one thread called setenv and tzset in a loop).
final class DecoderProcessTests: XCTestCase {
    /// Threads that call setenv("TZ"), tzset, localtime_r, mktime, getenv and malloc in a loop until stopped.
    final class Hammers: @unchecked Sendable {
        private let lock = NSLock()
        private var stopped = false
        private var threads: [Thread] = []
        private let done = DispatchGroup()

        var isStopped: Bool { lock.withLock { stopped } }

        func start(_ count: Int) {
            for index in 0..<count {
                done.enter()
                let thread = Thread { [self] in
                    var n = index
                    while !isStopped {
                        setenv("TZ", n & 1 == 0 ? "UTC" : "Europe/Paris", 1)
                        tzset()
                        var now = time(nil)
                        var parts = tm()
                        localtime_r(&now, &parts)
                        _ = mktime(&parts)
                        _ = getenv("HOME")
                        let block = malloc(64 + n & 4095)
                        free(block)
                        n += 1
                    }
                    done.leave()
                }
                thread.start()
                threads.append(thread)
            }
        }

        func stop() {
            lock.withLock { stopped = true }
            done.wait()
        }
    }

    static func thumbnail(_ bytes: [UInt8]) throws -> ThumbnailResult {
        try bytes.withUnsafeBytes {
            try Thumbnailer.makeThumbnail(from: $0, options: ThumbnailOptions(maxEdge: 120, quality: 90))
        }
    }

    /// 200 decodes of a 40-pixel-wide DNG (its image developed, no preview) and 20 of a HEIC while three
    /// threads use the environment and the time zone: every one gives its picture, none times out.
    func testDecodesWhileOtherThreadsUseTheEnvironmentAndTheTimeZone() throws {
        let picture = try CameraRawTests.samplePicture(edge: 40)
        XCTAssertEqual(picture.width, 40)
        let dng = DNGWriter.make(image: picture, preview: nil)
        let heicPath = packageRoot + "/Samples-formats/storm.heic"
        let heic = Array(try XCTUnwrap(FileManager.default.contents(atPath: heicPath)))
        let expectedRaw = try Self.thumbnail(dng)
        let expectedHEIF = try Self.thumbnail(heic)
        let zone = getenv("TZ").map { String(cString: $0) }
        let hammers = Hammers()
        hammers.start(3)
        defer {
            hammers.stop()
            if let zone { setenv("TZ", zone, 1) } else { unsetenv("TZ") }
            tzset()
        }
        var failures: [String] = []
        for index in 0..<200 where failures.isEmpty {
            do {
                let raw = try Self.thumbnail(dng)
                XCTAssertEqual(raw.camera?.source, .developed)
                if raw.thumbnail != expectedRaw.thumbnail { failures.append("decode \(index): other RAW pixels") }
                if index % 10 == 0 {
                    let heif = try Self.thumbnail(heic)
                    if heif.thumbnail != expectedHEIF.thumbnail {
                        failures.append("decode \(index): other HEIF pixels")
                    }
                }
            } catch {
                failures.append("decode \(index): \(error)")
            }
        }
        XCTAssertEqual(failures, [])
    }
}
