import Foundation
import XCTest
import PhotosTestSupport
@testable import PhotosImaging

/// Issue 13 item 4: the HEIC, WebP and Display-P3 samples in Samples-formats/ (made by
/// Samples-formats/make-format-samples.sh from Samples/) decode as documented in Samples/README.md.
final class FormatSamplesTests: XCTestCase {
    static let root = URL(fileURLWithPath: packageRoot)
    static let samples = root.appendingPathComponent("Samples")
    static let formatSamples = root.appendingPathComponent("Samples-formats")

    static func thumbnail(_ name: String) throws -> (ThumbnailResult, PixelBuffer) {
        let folder = ["storm.heic", "path.webp", "ladybird-display-p3.jpg"].contains(name) ? formatSamples : samples
        let bytes = try XCTUnwrap(FileManager.default.contents(atPath: folder.appendingPathComponent(name).path), name)
        let result = try bytes.withUnsafeBytes {
            try Thumbnailer.makeThumbnail(from: $0, options: ThumbnailOptions(quality: 100))
        }
        let pixels = try result.thumbnail.withUnsafeBytes {
            try ImageDecoder.decode($0, format: .jpeg, targetEdge: 10_000, maxPixels: 1_000_000).pixels
        }
        return (result, pixels)
    }

    static func meanAbsoluteDifference(_ a: PixelBuffer, _ b: PixelBuffer) -> Double {
        let x = a.bytes, y = b.bytes
        return Double(zip(x, y).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }) / Double(max(1, x.count))
    }

    func testHEICSample() throws {
        let (heic, pixels) = try Self.thumbnail("storm.heic")
        XCTAssertEqual(heic.format, .heif)
        XCTAssertEqual([heic.width, heic.height], [1600, 1067])
        XCTAssertEqual([heic.thumbnailWidth, heic.thumbnailHeight], [120, 80])
        XCTAssertEqual(heic.dateTimeOriginal, "2008:04:20 19:12:06", "Exif item copied by heif-enc")
        let (_, jpeg) = try Self.thumbnail("storm.jpg")
        XCTAssertLessThan(Self.meanAbsoluteDifference(pixels, jpeg), 4, "the same picture as storm.jpg")
    }

    func testWebPSample() throws {
        let (webp, pixels) = try Self.thumbnail("path.webp")
        XCTAssertEqual(webp.format, .webp)
        XCTAssertEqual([webp.width, webp.height], [1600, 1000])
        XCTAssertEqual(webp.dateTimeOriginal, "2015:09:06 18:46:57", "EXIF chunk kept by cwebp -metadata exif")
        let (_, jpeg) = try Self.thumbnail("path.jpg")
        XCTAssertLessThan(Self.meanAbsoluteDifference(pixels, jpeg), 4)
    }

    /// ladybird.jpg converted into Display P3 by jpgicc: converted back to sRGB, its thumbnail
    /// is the original's within a level or two; unmanaged it is visibly washed out.
    func testDisplayP3Sample() throws {
        let (_, managed) = try Self.thumbnail("ladybird-display-p3.jpg")
        let (_, original) = try Self.thumbnail("ladybird.jpg")
        let bytes = try XCTUnwrap(
            FileManager.default.contents(
                atPath: Self.formatSamples.appendingPathComponent("ladybird-display-p3.jpg").path))
        let unmanaged = try bytes.withUnsafeBytes {
            try ImageDecoder.decode(
                $0, format: .jpeg, targetEdge: 120, maxPixels: 100_000_000,
                tuning: DecoderTuning(
                    dctMethod: .islow, fancyUpsampling: true, progressiveDCOnly: true, colorManagement: false))
        }
        let plain = try Resampler.areaAverage(unmanaged.pixels, width: managed.width, height: managed.height)
        let good = Self.meanAbsoluteDifference(managed, original), bad = Self.meanAbsoluteDifference(plain, original)
        XCTAssertLessThan(good, 2.5, "managed")
        XCTAssertGreaterThan(bad, good + 2, "unmanaged P3 values differ from the sRGB original (\(bad) vs \(good))")
    }
}
