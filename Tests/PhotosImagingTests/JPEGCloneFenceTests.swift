import CImageCodec
import CImageCodecTesting
import Foundation
import PhotosTestSupport
import XCTest

@testable import PhotosImaging

/// Issue 30 item 6: our reduced decoders and thumbnail encoder run only where the linked libjpeg-turbo
/// is a checked version and the start-up probe matched (jpegclone.c); with them off (the test hook
/// `pc_jpeg_clone_force(0)`, as `PHOTOS_JPEG_CLONE=off` or another libjpeg-turbo would) libjpeg does
/// all the work and every file gets the same verdict, the same thumbnail size and, where the clone
/// copies libjpeg bit for bit, the same pixels and bytes.
final class JPEGCloneFenceTests: XCTestCase {
    override func tearDown() {
        _ = pc_jpeg_clone_force(-1)
        super.tearDown()
    }

    /// On this machine's libjpeg-turbo 2.1.5 (Debian 12) the check finds the version and the probe matches.
    func testCheckedLibjpegTurboTurnsTheCloneOn() throws {
        let linked = ImageLibraries.versions.first { $0.name == "libjpeg-turbo" }?.version
        let state = ImageLibraries.jpegClone
        if linked == "2.1.5" {
            XCTAssertTrue(state.active, state.reason)
            XCTAssertEqual(state.reason, "on (libjpeg-turbo 2.1.5, a checked version; the probe matched)")
        } else {
            XCTAssertFalse(state.active, state.reason)
            XCTAssertTrue(state.reason.hasPrefix("off (linked libjpeg-turbo "), state.reason)
        }
        _ = pc_jpeg_clone_force(0)
        XCTAssertFalse(ImageLibraries.jpegClone.active)
        XCTAssertEqual(ImageLibraries.jpegClone.reason, "off (forced by a test)")
    }

    struct Outcome: Equatable {
        var verdict: String
        var width = 0, height = 0, storedWidth = 0, storedHeight = 0
        var usedOwnDecoder = false
        var pixels: [UInt8] = []
        var thumbnail: [UInt8] = []
    }

    /// Decodes `bytes` at the 120-px thumbnail's scale and encodes the 120-px thumbnail, as import does.
    static func outcome(_ bytes: [UInt8]) -> Outcome {
        bytes.withUnsafeBytes { raw in
            do {
                let d = try ImageDecoder.decode(raw, format: .jpeg, targetEdge: 120, maxPixels: 100_000_000)
                let t = try Thumbnailer.makeThumbnail(from: raw, options: ThumbnailOptions())
                return Outcome(
                    verdict: "ok", width: d.pixels.width, height: d.pixels.height, storedWidth: d.storedWidth,
                    storedHeight: d.storedHeight, usedOwnDecoder: d.usedReduced || d.usedDCOnly,
                    pixels: d.pixels.bytes, thumbnail: t.thumbnail + [UInt8(t.thumbnailWidth), UInt8(t.thumbnailHeight)]
                )
            } catch {
                return Outcome(verdict: "\(error)")
            }
        }
    }

    /// Samples/ (sequential and progressive) and damaged copies of each: the same verdict, sizes and
    /// (sequential: decoded bit for bit by the reduced decoder) pixels and thumbnail bytes with the
    /// clone forced off; the progressive one's pixels within the DC-only decoder's known difference.
    func testForcedOffGivesLibjpegsVerdictsAndSizes() throws {
        let names = ["ladybird.jpg", "path.jpg", "storm.jpg", "dune-orientation6.jpg", "colorful-cups-progressive.jpg"]
        var cases: [(String, [UInt8])] = []
        for name in names {
            let bytes = try XCTUnwrap(FileManager.default.contents(atPath: samplesDir + "/" + name), name)
            let b = [UInt8](bytes)
            cases.append((name, b))
            cases.append((name + " cut at 60%", Array(b.prefix(b.count * 6 / 10))))
            var flipped = b
            for i in stride(from: b.count / 2, to: b.count / 2 + 64, by: 7) { flipped[i] ^= 0x5A }
            cases.append((name + " with bytes flipped", flipped))
        }
        var ownDecoderUsed = 0, rejected = 0
        for (name, bytes) in cases {
            _ = pc_jpeg_clone_force(-1)
            let on = Self.outcome(bytes)
            _ = pc_jpeg_clone_force(0)
            let off = Self.outcome(bytes)
            XCTAssertFalse(off.usedOwnDecoder, name)
            XCTAssertEqual(on.verdict, off.verdict, name)
            XCTAssertEqual(
                [on.width, on.height, on.storedWidth, on.storedHeight],
                [off.width, off.height, off.storedWidth, off.storedHeight], name)
            if on.usedOwnDecoder { ownDecoderUsed += 1 }
            if on.verdict != "ok" { rejected += 1 }
            if name.hasPrefix("colorful-cups-progressive") {
                XCTAssertEqual(on.pixels.count, off.pixels.count, name)
            } else {
                XCTAssertEqual(on.pixels, off.pixels, name)
                XCTAssertEqual(on.thumbnail, off.thumbnail, name)
            }
        }
        if ImageLibraries.jpegClone.active {
            XCTAssertGreaterThanOrEqual(ownDecoderUsed, names.count, "the clone took the intact samples")
        }
        XCTAssertGreaterThanOrEqual(rejected, 1, "some damaged copies are refused")
    }

    /// The thumbnail encoder behind `pc_jpeg_encode`: with the clone off, libjpeg's own file, byte for byte
    /// the one thumbjpeg.c writes (ThumbnailEncoderTests compares the two encoders directly).
    func testForcedOffEncodesWithLibjpeg() throws {
        let width = 120, height = 80
        var rgb = [UInt8](repeating: 0, count: width * height * 3)
        for i in rgb.indices { rgb[i] = UInt8(truncatingIfNeeded: i &* 2_654_435_761 >> 24) }
        let image = try PixelBuffer(width: width, height: height, rgb: rgb)
        _ = pc_jpeg_clone_force(1)
        let ours = try ImageDecoder.encodeJPEG(image, quality: 85)
        _ = pc_jpeg_clone_force(0)
        let libjpeg = try ImageDecoder.encodeJPEG(image, quality: 85)
        XCTAssertGreaterThan(libjpeg.count, 1000)
        XCTAssertEqual(ours, libjpeg)
    }
}
