import Foundation
import XCTest
import PhotosTestSupport
@testable import PhotosImaging
import Synchronization

/// The shared corpus (`../shared/corpus`), read through PhotosTestSupport's locations and MANIFEST reader.
enum Corpus {
    static let root = URL(fileURLWithPath: corpusPath)

    typealias Entry = ManifestEntry

    static func requireCorpus() throws {
        _ = try PhotosTestSupport.requireCorpus()
    }

    static func manifest() throws -> [Entry] {
        try loadManifest(PhotosTestSupport.requireCorpus())
    }

    static func data(_ path: String) throws -> [UInt8] {
        try requireCorpus()
        return [UInt8](try Data(contentsOf: root.appendingPathComponent(path)))
    }
}

func thumbnail(_ bytes: [UInt8], options: ThumbnailOptions = ThumbnailOptions()) throws -> ThumbnailResult {
    try bytes.withUnsafeBytes { try Thumbnailer.makeThumbnail(from: $0, options: options) }
}

/// Decodes JPEG or PNG bytes at full size.
func decodeFull(_ bytes: [UInt8]) throws -> PixelBuffer {
    try bytes.withUnsafeBytes { b in
        try ImageDecoder.decode(
            b, format: ImageFormatSniffer.detect(b)!, targetEdge: Int(Int32.max), maxPixels: 100_000_000
        ).pixels
    }
}

func meanAbsoluteDifference(_ a: PixelBuffer, _ b: PixelBuffer) -> Double {
    precondition(a.width == b.width && a.height == b.height)
    var sum = 0
    let n = a.width * a.height * 3
    for i in 0..<n { sum += abs(Int(a.pixels[i]) - Int(b.pixels[i])) }
    return Double(sum) / Double(n)
}

func meanColour(_ p: PixelBuffer, x: Range<Int>, y: Range<Int>) -> (Double, Double, Double) {
    var s = (0.0, 0.0, 0.0)
    for yy in y {
        for xx in x { let c = p.pixel(x: xx, y: yy); s.0 += Double(c.0); s.1 += Double(c.1); s.2 += Double(c.2) }
    }
    let n = Double(x.count * y.count)
    return (s.0 / n, s.1 / n, s.2 / n)
}

final class CorpusConformanceTests: XCTestCase {
    func testEveryOkFileMakesARuleSizedThumbnail() throws {
        var checked = 0
        for entry in try Corpus.manifest() where entry.expect == "ok" {
            let bytes = try Corpus.data(entry.path)
            do {
                let result = try thumbnail(bytes)
                guard let w = entry.width, let h = entry.height else {
                    XCTFail("\(entry.path): manifest has no size"); continue
                }
                let swap = result.orientation.swapsDimensions
                let upright = swap ? (h, w) : (w, h)
                XCTAssertEqual(result.width, upright.0, entry.path)
                XCTAssertEqual(result.height, upright.1, entry.path)
                let size = Thumbnailer.thumbnailSize(width: upright.0, height: upright.1, maxEdge: 120)
                XCTAssertEqual(result.thumbnailWidth, size.width, entry.path)
                XCTAssertEqual(result.thumbnailHeight, size.height, entry.path)
                XCTAssertEqual(Array(result.thumbnail.prefix(3)), [0xFF, 0xD8, 0xFF], entry.path)
                // The thumbnail itself decodes to the reported size.
                let back = try decodeFull(result.thumbnail)
                XCTAssertEqual(back.width, size.width, entry.path)
                XCTAssertEqual(back.height, size.height, entry.path)
                checked += 1
            } catch {
                XCTFail("\(entry.path) (expect ok) failed: \(error)")
            }
        }
        XCTAssertEqual(checked, 284)
    }

    func testEveryRejectFileThrowsWithAMessage() throws {
        var checked = 0
        for entry in try Corpus.manifest() where entry.expect == "reject" {
            let bytes = try Corpus.data(entry.path)
            do {
                let result = try thumbnail(bytes)
                XCTFail(
                    "\(entry.path) (expect reject) made a \(result.thumbnailWidth)×\(result.thumbnailHeight) thumbnail")
            } catch let error as ImageError {
                XCTAssertFalse(error.description.isEmpty, entry.path)
                checked += 1
            }
        }
        XCTAssertEqual(checked, 45)
    }

    func testEitherFilesReturnOrThrowCleanly() throws {
        for entry in try Corpus.manifest() where entry.expect == "either" {
            let bytes = try Corpus.data(entry.path)
            do {
                let result = try thumbnail(bytes)
                XCTAssertGreaterThan(result.thumbnail.count, 0, entry.path)
            } catch let error as ImageError {
                XCTAssertFalse(error.description.isEmpty, entry.path)
            }
        }
    }

    func testLibraryMessagesAreKept() throws {
        try Corpus.requireCorpus()
        let cases: [(String, ImageError)] = [
            ("malformed/jpegdec_empty.jpg", .notAnImage("empty file")),
            (
                "png-suite/xs2n0g01.png",
                .notAnImage(
                    "not a JPEG, PNG, HEIF, AVIF, WebP, TIFF, GIF, JPEG XL or camera RAW file (starts with 0x89 0x51)")
            ),
            ("jpeg-conformance/testorig12.jpg", .unsupported("Unsupported JPEG data precision 12")),
            ("unusual/fuzzdb_lottapixel.jpg", .tooLarge(width: 64250, height: 64250, limit: 100_000_000)),
            ("malformed/jpegdec_missing-sos.jpg", .corrupt("Invalid JPEG file structure: missing SOS marker")),
            ("png-suite/xcsn0g01.png", .corrupt("IDAT: CRC error")),
            ("malformed/pillow_truncated_image.png", .corrupt("Read Error"))
        ]
        for (path, expected) in cases {
            XCTAssertThrowsError(try thumbnail(Corpus.data(path)), path) { error in
                XCTAssertEqual(error as? ImageError, expected, path)
            }
        }
        XCTAssertEqual(
            ImageError.tooLarge(width: 64250, height: 64250, limit: 100_000_000).description,
            "image is 64250×64250 pixels (4128062500), over the limit of 100000000 (--max-pixels)")
    }

    func testPixelLimitIsTheOption() throws {
        let bytes = try Corpus.data("exif-orientation/Landscape_1.jpg")
        XCTAssertThrowsError(try thumbnail(bytes, options: ThumbnailOptions(maxPixels: 1800 * 1200 - 1))) { error in
            XCTAssertEqual(error as? ImageError, .tooLarge(width: 1800, height: 1200, limit: 1800 * 1200 - 1))
        }
        XCTAssertNoThrow(try thumbnail(bytes, options: ThumbnailOptions(maxPixels: 1800 * 1200)))
    }
}

final class CorpusImageTests: XCTestCase {
    func upright(_ path: String) throws -> (ThumbnailResult, PixelBuffer) {
        let result = try thumbnail(Corpus.data(path))
        return (result, try decodeFull(result.thumbnail))
    }

    func testLandscapeAndPortraitOrientationsMatchTheUprightOne() throws {
        for series in ["Landscape", "Portrait"] {
            let (_, reference) = try upright("exif-orientation/\(series)_1.jpg")
            for n in [0, 2, 3, 4, 5, 6, 7, 8] {
                let (result, image) = try upright("exif-orientation/\(series)_\(n).jpg")
                XCTAssertEqual(result.orientation.rawValue, n == 0 ? 1 : n)
                XCTAssertEqual(image.width, reference.width, "\(series)_\(n)")
                XCTAssertEqual(image.height, reference.height, "\(series)_\(n)")
                if image.width == reference.width && image.height == reference.height {
                    XCTAssertLessThan(meanAbsoluteDifference(image, reference), 8, "\(series)_\(n)")
                }
            }
        }
    }

    func testHopperOrientationsMatchTheReference() throws {
        let (_, reference) = try upright("exif-orientation/pillow_hopper_upright_reference.jpg")
        for n in 2...8 {
            let (result, image) = try upright("exif-orientation/pillow_hopper_orientation_\(n).jpg")
            XCTAssertEqual(result.orientation.rawValue, n)
            XCTAssertEqual(image.width, reference.width)
            XCTAssertEqual(image.height, reference.height)
            XCTAssertLessThan(meanAbsoluteDifference(image, reference), 8, "hopper \(n)")
        }
    }

    func testOrientationRectangleAndPNGeXIf() throws {
        let rectangle = try thumbnail(Corpus.data("exif-orientation/pillow_orientation_rectangle.jpg"))
        XCTAssertEqual(rectangle.orientation.rawValue, 8)
        XCTAssertEqual(
            [rectangle.width, rectangle.height, rectangle.thumbnailWidth, rectangle.thumbnailHeight], [1, 2, 1, 2])
        let exifPNG = try thumbnail(Corpus.data("png-suite/exif2c08.png"))
        XCTAssertEqual(exifPNG.orientation.rawValue, 1)
    }

    func testDateTimeOriginalFromJPEG() throws {
        let result = try thumbnail(Corpus.data("bench/mate_Elephants_5640x3172.jpg"))
        XCTAssertEqual(result.dateTimeOriginal, "2020:02:19 16:35:05")
    }

    func testCMYKAndYCCKKeepTheirColours() throws {
        // Photoshop "RED" on black with a red frame (Adobe CMYK, inverted values).
        let red = try decodeFull(Corpus.data("unusual/pillow_pil_sample_cmyk.jpg"))
        let frame = meanColour(red, x: 0..<3, y: 0..<3)
        XCTAssertGreaterThan(frame.0, 240, "frame \(frame)")
        XCTAssertLessThan(max(frame.1, frame.2), 40, "frame \(frame)")
        let ground = meanColour(red, x: 40..<60, y: 85..<95)
        XCTAssertLessThan(max(ground.0, ground.1, ground.2), 20, "background \(ground)")
        var reddest = (0, 0, 0)
        for y in 0..<red.height {
            for x in 0..<red.width {
                let p = red.pixel(x: x, y: y)
                if Int(p.0) - Int(p.1) > reddest.0 - reddest.1 { reddest = (Int(p.0), Int(p.1), Int(p.2)) }
            }
        }
        XCTAssertGreaterThan(reddest.0, 200)
        XCTAssertLessThan(max(reddest.1, reddest.2), 80)

        // Mozilla's CMYK test: words in cyan, yellow, magenta and black on white.
        let words = try decodeFull(Corpus.data("unusual/jpegdec_mozilla_jpg-cmyk-2.jpg"))
        let paper = meanColour(words, x: 0..<8, y: 248..<256)
        XCTAssertGreaterThan(min(paper.0, paper.1, paper.2), 235)
        var found = (cyan: false, magenta: false, yellow: false)
        for y in 0..<words.height {
            for x in 0..<words.width {
                let (r, g, b) = words.pixel(x: x, y: y)
                if r < 80 && g > 170 && b > 170 { found.cyan = true }
                if g < 80 && r > 170 && b > 170 { found.magenta = true }
                if r > 200 && g > 200 && Int(b) + 100 < Int(min(r, g)) { found.yellow = true }
            }
        }
        XCTAssertTrue(found.cyan && found.magenta && found.yellow, "\(found)")

        // YCCK park scene: the lawn across the bottom left is green, not magenta. It embeds a
        // 557 KB CMYK profile, now applied (issue 13): lcms2's jpgicc gives the lawn
        // (117.5, 124.4, 105.0) on this crop, as we do (unmanaged, green led red by over 10).
        let park = try decodeFull(Corpus.data("unusual/jpegdec_ycck.jpg"))
        let lawn = meanColour(park, x: 0..<150, y: 250..<333)
        XCTAssertGreaterThan(lawn.1, lawn.0 + 5, "lawn \(lawn)")
        XCTAssertGreaterThan(lawn.1, lawn.2 + 10, "lawn \(lawn)")
    }

    func testGrayscaleJPEGGivesGrayPixels() throws {
        let (_, image) = try upright("unusual/jpegdec_tower_grayscale.jpg")
        let full = try decodeFull(Corpus.data("unusual/jpegdec_tower_grayscale.jpg"))
        for buffer in [full] {
            for i in stride(from: 0, to: buffer.width * buffer.height * 3, by: 3) {
                XCTAssertEqual(buffer.pixels[i], buffer.pixels[i + 1])
                XCTAssertEqual(buffer.pixels[i], buffer.pixels[i + 2])
            }
        }
        // The thumbnail went through YCbCr at quality 85: gray within JPEG noise.
        var spread = 0
        for i in stride(from: 0, to: image.width * image.height * 3, by: 3) {
            spread = max(
                spread, Int(image.pixels[i]) - Int(image.pixels[i + 2]), Int(image.pixels[i + 2]) - Int(image.pixels[i])
            )
        }
        XCTAssertLessThanOrEqual(spread, 6)
    }

    func testSixteenBitPNGGivesTheRightColours() throws {
        // basn2c16: 16-bit RGB with gAMA 1.0. Corners are pure (yellow, green, red, blue); the centre
        // sample (31710, 31710, 2114) is linear light, so for an sRGB (2.2) screen libpng gives
        // 255·(31710/65535)^(1/2.2) = 183 and 255·(2114/65535)^(1/2.2) = 53.5.
        let image = try decodeFull(Corpus.data("png-suite/basn2c16.png"))
        XCTAssertEqual(image.width, 32)
        func rgb(_ x: Int, _ y: Int) -> [Int] { let p = image.pixel(x: x, y: y); return [Int(p.0), Int(p.1), Int(p.2)] }
        XCTAssertEqual(rgb(0, 0), [255, 255, 0])
        XCTAssertEqual(rgb(31, 0), [0, 255, 0])
        XCTAssertEqual(rgb(0, 31), [255, 0, 0])
        XCTAssertEqual(rgb(31, 31), [0, 0, 255])
        let centre = rgb(16, 16)
        XCTAssertEqual(Double(centre[0]), 183, accuracy: 1)
        XCTAssertEqual(Double(centre[1]), 183, accuracy: 1)
        XCTAssertEqual(Double(centre[2]), 53.5, accuracy: 1)
    }

    func testTransparentPixelsAreFlattenedOntoWhite() throws {
        // tbbn3p08: palette with tRNS and a *black* bKGD; its corner is fully transparent, and we flatten onto white.
        let palette = try decodeFull(Corpus.data("png-suite/tbbn3p08.png"))
        let corner = palette.pixel(x: 0, y: 0)
        XCTAssertEqual([corner.0, corner.1, corner.2], [255, 255, 255])
        // basn6a08: RGBA whose alpha falls to 0 on the left; the thumbnail of a transparent column is white-ish.
        let rgba = try decodeFull(Corpus.data("png-suite/basn6a08.png"))
        let left = meanColour(rgba, x: 0..<1, y: 0..<32)
        XCTAssertGreaterThan(min(left.0, left.1, left.2), 240, "\(left)")
    }

    func testTruncatedBaselineAndProgressiveJPEGsAreRejected() throws {
        for path in ["bench/mate_Aqua.jpg", "bench/plasma_summer_1am_2560x1600.jpg"] {
            let bytes = try Corpus.data(path)
            XCTAssertNoThrow(try thumbnail(bytes), path)
            let half = Array(bytes.prefix(bytes.count / 2))
            let url = FileManager.default.temporaryDirectory.appendingPathComponent(
                "truncated-\(UUID().uuidString).jpg")
            try Data(half).write(to: url)
            defer { try? FileManager.default.removeItem(at: url) }
            let written = [UInt8](try Data(contentsOf: url))
            XCTAssertThrowsError(try thumbnail(written), path) { error in
                XCTAssertEqual(error as? ImageError, .corrupt("Premature end of JPEG file"), path)
            }
        }
    }

    func testProgressiveEarlyStopIsTakenAndCloseToTheFullDecode() throws {
        let bytes = try Corpus.data("bench/plasma_summer_1am_2560x1600.jpg")
        try bytes.withUnsafeBytes { b in
            let fast = try ImageDecoder.decode(b, format: .jpeg, targetEdge: 120, maxPixels: 100_000_000)
            let slow = try ImageDecoder.decode(
                b, format: .jpeg, targetEdge: 120, maxPixels: 100_000_000,
                tuning: DecoderTuning(dctMethod: .islow, fancyUpsampling: true, progressiveDCOnly: false))
            XCTAssertTrue(fast.usedDCOnly)
            XCTAssertFalse(slow.usedDCOnly)
            XCTAssertEqual(fast.scale, 1)
            XCTAssertEqual(fast.pixels.width, 320)
            XCTAssertLessThan(meanAbsoluteDifference(fast.pixels, slow.pixels), 3)
        }
    }

    func testTruncatedPNGIsRejected() throws {
        let bytes = try Corpus.data("bench/plasma_Kay_5120x2880.png")
        let half = Array(bytes.prefix(bytes.count / 2))
        XCTAssertThrowsError(try thumbnail(half)) { error in
            XCTAssertEqual(error as? ImageError, .corrupt("Read Error"))
        }
    }

    func testConcurrentCallsAgree() throws {
        let paths = [
            "bench/mate_Aqua.jpg", "bench/lomiri_Wine_by_Jakkub_Mede.jpg", "png-suite/basi6a16.png",
            "unusual/jpegdec_ycck.jpg"
        ]
        let files = try paths.map { try Corpus.data($0) }
        let expected = try files.map { try thumbnail($0).thumbnail }
        let slots = Mutex([[UInt8]](repeating: [], count: 16))
        DispatchQueue.concurrentPerform(iterations: 16) { i in
            let result = (try? thumbnail(files[i % files.count]).thumbnail) ?? []
            slots.withLock { $0[i] = result }
        }
        let results = slots.withLock { $0 }
        for i in 0..<16 { XCTAssertEqual(results[i], expected[i % files.count]) }
    }
}
