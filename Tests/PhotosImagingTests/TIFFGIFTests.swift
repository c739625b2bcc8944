import CImageCodec
import CImageCodecTesting
import Foundation
import PhotosImaging
import PhotosTestSupport
import XCTest

/// Issue 24 items 3 and 4: TIFF with libtiff and GIF with giflib. Inputs are the corpus's
/// camera-formats TIFF/GIF rows (MANIFEST: ok → size, orientation and capture time as exiftool
/// reads them; reject → refused with a reason; either → no crash) and files written here with
/// libtiff's and giflib's own encoders (pc_tiff_write_test, pc_gif_write_test).
final class TIFFGIFTests: XCTestCase {
    var dir = ""

    override func setUpWithError() throws {
        dir = NSTemporaryDirectory() + "photos-tiffgif-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    func thumbnail(_ bytes: [UInt8]) throws -> ThumbnailResult {
        try bytes.withUnsafeBytes { try Thumbnailer.makeThumbnail(from: $0, options: ThumbnailOptions()) }
    }

    func decode(_ bytes: [UInt8], format: ImageFormat, edge: Int = 120) throws -> DecodedImage {
        try bytes.withUnsafeBytes {
            try ImageDecoder.decode($0, format: format, targetEdge: edge, maxPixels: 100_000_000)
        }
    }

    /// The RGB bytes of decoded pixels.
    func rgb(_ image: DecodedImage) -> [UInt8] {
        Array(UnsafeBufferPointer(start: image.pixels.pixels, count: image.pixels.width * image.pixels.height * 3))
    }

    /// The mean of each channel of decoded pixels.
    func mean(_ image: DecodedImage) -> [Double] {
        let p = image.pixels
        var sums = [0.0, 0.0, 0.0]
        for i in 0..<(p.width * p.height) { for c in 0..<3 { sums[c] += Double(p.pixels[i * 3 + c]) } }
        return sums.map { $0 / Double(p.width * p.height) }
    }

    func writeTIFF(
        _ samples: [UInt8], width: Int, height: Int, configure: (inout pc_tiff_test_options) -> Void
    ) throws -> [UInt8] {
        var options = pc_tiff_test_options()
        options.bits = 8
        options.photometric = 2
        configure(&options)
        let path = dir + "/t-\(UUID().uuidString).tif"
        let status = samples.withUnsafeBufferPointer {
            pc_tiff_write_test(path, $0.baseAddress, Int32(width), Int32(height), &options)
        }
        XCTAssertEqual(status, PC_OK, "libtiff wrote the test file")
        return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// width × height RGB: left half red (200, 30, 30), right half blue (20, 40, 220).
    func halves(_ width: Int, _ height: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let c: [UInt8] = x < width / 2 ? [200, 30, 30] : [20, 40, 220]
                for k in 0..<3 { out[(y * width + x) * 3 + k] = c[k] }
            }
        }
        return out
    }

    // MARK: corpus

    func testCorpusTIFFAndGIFRowsDecodeAsTheManifestSays() throws {
        let corpus = try requireCorpus()
        let folder = corpus + "/camera-formats"
        guard FileManager.default.fileExists(atPath: folder + "/MANIFEST.tsv") else {
            throw XCTSkip("\(folder)/MANIFEST.tsv is absent")
        }
        let rows = try loadManifest(folder).filter {
            $0.path.hasPrefix("camera-formats/tiff/") || $0.path.hasPrefix("camera-formats/gif/")
        }
        XCTAssertGreaterThanOrEqual(rows.count, 40)
        var okCount = 0, rejected = 0
        for row in rows {
            let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: corpus + "/" + row.path)))
            let exif = Self.exiftool(row.note)
            switch row.expect {
            case "ok":
                do {
                    let result = try thumbnail(bytes)
                    okCount += 1
                    XCTAssertEqual(result.format.rawValue, row.format, row.path)
                    XCTAssertEqual(result.width, row.width, row.path)
                    XCTAssertEqual(result.height, row.height, row.path)
                    XCTAssertEqual(
                        max(result.thumbnailWidth, result.thumbnailHeight), min(120, max(result.width, result.height)),
                        row.path)
                    if let orientation = exif["Orientation"] as? Int {
                        XCTAssertEqual(result.orientation.rawValue, orientation, row.path)
                    }
                    if let date = exif["DateTimeOriginal"] as? String {
                        XCTAssertEqual(result.dateTimeOriginal, date, row.path)
                    }
                } catch {
                    XCTFail("\(row.path): \(error)")
                }
            case "reject":
                do {
                    _ = try thumbnail(bytes)
                    XCTFail("\(row.path) was decoded, the manifest says reject")
                } catch {
                    rejected += 1
                    XCTAssertFalse("\(error)".isEmpty, row.path)
                }
            default:
                _ = try? thumbnail(bytes)
            }
        }
        XCTAssertEqual(okCount, rows.filter { $0.expect == "ok" }.count)
        XCTAssertEqual(rejected, rows.filter { $0.expect == "reject" }.count)
    }

    func testCorpusRAWFilesInTIFFContainersAreNotTIFF() throws {
        let corpus = try requireCorpus()
        for name in ["raw/exiftool_Nikon.nef", "raw/exiftool_DNG.dng"] {
            let path = corpus + "/camera-formats/" + name
            guard FileManager.default.fileExists(atPath: path) else { continue }
            let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
            let format = bytes.withUnsafeBytes { ImageFormatSniffer.detectFile($0) }
            XCTAssertEqual(format, .raw, name)
        }
        // A scan whose Make is a RAW maker's (EPSON) but with no CFA data stays a TIFF.
        let epson = corpus + "/camera-formats/tiff/mei_Epson_PerfectionV800.tiff"
        if FileManager.default.fileExists(atPath: epson) {
            let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: epson)))
            XCTAssertEqual(bytes.withUnsafeBytes { ImageFormatSniffer.detectFile($0) }, .tiff)
        }
    }

    /// The exiftool JSON of a MANIFEST note (`exiftool={…};`).
    static func exiftool(_ note: String) -> [String: Any] {
        guard let start = note.range(of: "exiftool=") else { return [:] }
        let rest = note[start.upperBound...]
        guard let end = rest.range(of: "}; src=") ?? rest.range(of: "}") else { return [:] }
        let json = String(rest[rest.startIndex..<end.lowerBound]) + "}"
        return (try? JSONSerialization.jsonObject(with: Data(json.utf8))) as? [String: Any] ?? [:]
    }

    // MARK: TIFF made here

    func testSixteenBitRGBDecodesToTheSameColours() throws {
        let bytes = try writeTIFF(halves(400, 300), width: 400, height: 300) { $0.bits = 16 }
        let image = try decode(bytes, format: .tiff)
        XCTAssertEqual(image.storedWidth, 400)
        XCTAssertEqual(image.storedHeight, 300)
        XCTAssertEqual(image.scale, 3)
        XCTAssertEqual(image.pixels.width, 134)
        let p = image.pixels, pixelBytes = rgb(image)
        XCTAssertEqual(Array(pixelBytes[0..<3]).map(Int.init), [200, 30, 30])
        let right = ((p.height / 2) * p.width + p.width - 1) * 3
        XCTAssertEqual(Array(pixelBytes[right..<right + 3]).map(Int.init), [20, 40, 220])
    }

    func testTiledPlanarAndGrayLayoutsDecode() throws {
        let source = halves(300, 200)
        let tiled = try writeTIFF(source, width: 300, height: 200) {
            $0.tile = 64
            $0.compression = 5
        }
        let planar = try writeTIFF(source, width: 300, height: 200) {
            $0.planar = 1
            $0.compression = 8
        }
        for bytes in [tiled, planar] {
            let image = try decode(bytes, format: .tiff)
            XCTAssertEqual(image.storedWidth, 300)
            XCTAssertEqual(image.pixels.width, 150)
            XCTAssertEqual(image.pixels.height, 100)
            let m = mean(image)
            XCTAssertEqual(m[0], 110, accuracy: 1.5)
            XCTAssertEqual(m[2], 125, accuracy: 1.5)
        }
        var gray = [UInt8](repeating: 0, count: 256 * 256)
        for i in 0..<gray.count { gray[i] = UInt8(i % 256) }
        let grayTIFF = try writeTIFF(gray, width: 256, height: 256) {
            $0.photometric = 1
            $0.bigtiff = 1
        }
        XCTAssertEqual(grayTIFF[2], 43, "BigTIFF")
        let image = try decode(grayTIFF, format: .tiff)
        XCTAssertEqual(mean(image)[1], 127.5, accuracy: 1)
    }

    func testCMYKWithAProfileIsConvertedThroughIt() throws {
        var profile: UnsafeMutablePointer<UInt8>?
        var size = 0
        XCTAssertEqual(pc_icc_test_profile(Int32(PC_TEST_PROFILE_CMYK.rawValue), 0, &profile, &size), PC_OK)
        defer { pc_free(profile) }
        let icc = Array(UnsafeBufferPointer(start: profile, count: size))
        // Pure cyan ink (C = 255, nothing else) over the whole image.
        var cmyk = [UInt8](repeating: 0, count: 200 * 150 * 4)
        for i in 0..<(200 * 150) { cmyk[i * 4] = 255 }
        let plain = try writeTIFF(cmyk, width: 200, height: 150) { $0.photometric = 5 }
        let profiled = try icc.withUnsafeBufferPointer { pointer in
            try writeTIFF(cmyk, width: 200, height: 150) {
                $0.photometric = 5
                $0.icc = pointer.baseAddress
                $0.icc_size = icc.count
            }
        }
        let naive = mean(try decode(plain, format: .tiff))
        XCTAssertEqual(naive[0], 0, accuracy: 0.5, "libtiff's plain conversion: no red under full cyan")
        XCTAssertEqual(naive[1], 255, accuracy: 0.5)
        let managed = mean(try decode(profiled, format: .tiff))
        XCTAssertGreaterThan(managed[2], managed[0] + 40, "cyan through the profile is still blue-green")
        XCTAssertGreaterThan(
            abs(managed[0] - naive[0]) + abs(managed[1] - naive[1]), 10, "the profile changed the colours")
    }

    func testReducedResolutionPageIsDecodedInsteadOfTheFullPage() throws {
        // The full page is red/blue halves; the reduced page is solid green: the thumbnail is green.
        for subIFD in [Int32(1), 0] {
            let bytes = try writeTIFF(halves(1200, 800), width: 1200, height: 800) {
                $0.reduced_width = 300
                $0.reduced_height = 200
                $0.reduced_as_subifd = subIFD
                $0.reduced_rgb = (10, 180, 40)
            }
            let image = try decode(bytes, format: .tiff)
            XCTAssertEqual(image.storedWidth, 1200, "the photo's size is the full page's")
            XCTAssertEqual(image.storedHeight, 800)
            XCTAssertEqual(image.pixels.width, 150, "the 300 px page, halved")
            let m = mean(image)
            XCTAssertEqual(m[1], 180, accuracy: 0.5, "subIFD \(subIFD)")
            // A reduced page under 120 px is not used.
            let small = try writeTIFF(halves(1200, 800), width: 1200, height: 800) {
                $0.reduced_width = 90
                $0.reduced_height = 60
                $0.reduced_as_subifd = subIFD
                $0.reduced_rgb = (10, 180, 40)
            }
            XCTAssertLessThan(mean(try decode(small, format: .tiff))[1], 40)
        }
    }

    func testOrientationTagIsAppliedToTheThumbnail() throws {
        let bytes = try writeTIFF(halves(300, 200), width: 300, height: 200) { $0.orientation = 6 }
        let result = try thumbnail(bytes)
        XCTAssertEqual(result.format, .tiff)
        XCTAssertEqual(result.orientation, .right)
        XCTAssertEqual(result.width, 200, "upright width")
        XCTAssertEqual(result.height, 300)
        XCTAssertEqual(result.thumbnailWidth, 80)
        XCTAssertEqual(result.thumbnailHeight, 120)
    }

    func testRAWMakerWithCFADataIsLeftToTheRAWReader() throws {
        // A Nikon-made TIFF whose page is CFA (Photometric 32803) is a RAW file, not a TIFF;
        // the same maker's RGB TIFF (an export) is a TIFF.
        var options = pc_tiff_test_options()
        options.bits = 8
        options.photometric = 32803
        let path = dir + "/cfa.tif"
        let make = strdup("NIKON CORPORATION")
        defer { free(make) }
        options.make = UnsafePointer(make)
        let gray = [UInt8](repeating: 90, count: 64 * 64)
        XCTAssertEqual(
            gray.withUnsafeBufferPointer { pc_tiff_write_test(path, $0.baseAddress, 64, 64, &options) }, PC_OK)
        let cfa = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        XCTAssertEqual(cfa.withUnsafeBytes { ImageFormatSniffer.detectFile($0) }, .raw)
        XCTAssertThrowsError(try decode(cfa, format: .tiff)) { error in
            XCTAssertTrue("\(error)".contains("camera RAW file in a TIFF container"), "\(error)")
        }
        let export = try writeTIFF(halves(64, 64), width: 64, height: 64) { $0.make = UnsafePointer(make) }
        XCTAssertEqual(export.withUnsafeBytes { ImageFormatSniffer.detectFile($0) }, .tiff)
    }

    func testHostileTIFFsFailWithAReasonAndNeverCrash() throws {
        let good = try writeTIFF(halves(200, 100), width: 200, height: 100) { $0.compression = 5 }
        // Truncations.
        for length in [0, 7, 8, 16, 100, good.count / 2, good.count - 1] {
            do {
                _ = try thumbnail(Array(good.prefix(length)))
            } catch {
                XCTAssertFalse("\(error)".isEmpty)
            }
        }
        // Bit flips through the whole file: decoded or refused, never a crash or a hang.
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<300 {
            var bytes = good
            for _ in 0..<4 {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                let at = Int((state >> 33) % UInt64(bytes.count))
                bytes[at] ^= UInt8(1 << ((state >> 20) & 7))
            }
            _ = try? thumbnail(bytes)
        }
        // An uncompressed page declaring 9000 × 9000 (81 Mpx, under the pixel limit) in a few hundred bytes.
        var huge = try writeTIFF(halves(16, 16), width: 16, height: 16) { _ in }
        // Width and height are IFD0's first two entries' values (libtiff writes tags in order).
        let ifd = Int(huge[4]) | Int(huge[5]) << 8 | Int(huge[6]) << 16 | Int(huge[7]) << 24
        let entries = Int(huge[ifd]) | Int(huge[ifd + 1]) << 8
        XCTAssertGreaterThan(entries, 2)
        XCTAssertEqual(Int(huge[ifd + 2]) | Int(huge[ifd + 3]) << 8, 256, "ImageWidth first")
        for e in 0..<2 {
            let at = ifd + 2 + e * 12 + 8
            huge[at] = 0x28
            huge[at + 1] = 0x23
        }
        XCTAssertThrowsError(try thumbnail(huge)) { error in
            XCTAssertTrue(
                "\(error)".contains("TIFF declares 9000x9000 uncompressed pixels (243000000 bytes) but the file has"),
                "\(error)")
        }
    }

    // MARK: GIF made here

    func writeGIF(_ frame: pc_gif_test_frame) throws -> [UInt8] {
        let path = dir + "/g-\(UUID().uuidString).gif"
        var f = frame
        XCTAssertEqual(pc_gif_write_test(path, &f), PC_OK)
        return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// Palette: 0 red, 1 blue, 2 black (the background), 3 green; the rest gray.
    static let palette: [UInt8] = {
        var p = [UInt8](repeating: 128, count: 768)
        let colours: [[UInt8]] = [[220, 20, 20], [20, 20, 220], [0, 0, 0], [20, 200, 20]]
        for (i, c) in colours.enumerated() { p[i * 3] = c[0]; p[i * 3 + 1] = c[1]; p[i * 3 + 2] = c[2] }
        return p
    }()

    func gif(
        screen: (Int, Int), frame: (Int, Int, Int, Int), interlace: Bool = false, transparent: Int = -1,
        indices: [UInt8]
    ) throws -> [UInt8] {
        try Self.palette.withUnsafeBufferPointer { palette in
            try indices.withUnsafeBufferPointer { pixels in
                try writeGIF(
                    pc_gif_test_frame(
                        screen_width: Int32(screen.0), screen_height: Int32(screen.1), background: 2,
                        left: Int32(frame.0), top: Int32(frame.1), width: Int32(frame.2), height: Int32(frame.3),
                        interlace: interlace ? 1 : 0, transparent: Int32(transparent), palette: palette.baseAddress,
                        indices: pixels.baseAddress))
            }
        }
    }

    /// Rows alternate red and blue in bands of 8 rows (interlacing reorders exactly these rows).
    func bands(_ width: Int, _ height: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: width * height)
        for y in 0..<height { for x in 0..<width { out[y * width + x] = (y / 8) % 2 == 0 ? 0 : 1 } }
        return out
    }

    func testInterlacedAndPlainGIFsGiveTheSamePixels() throws {
        let plain = try gif(screen: (240, 160), frame: (0, 0, 240, 160), indices: bands(240, 160))
        let interlaced = try gif(screen: (240, 160), frame: (0, 0, 240, 160), interlace: true, indices: bands(240, 160))
        XCTAssertEqual(interlaced[13 + 768 + 9] & 0x40, 0x40, "the interlace flag is set")
        let a = try decode(plain, format: .gif), b = try decode(interlaced, format: .gif)
        XCTAssertEqual(a.storedWidth, 240)
        XCTAssertEqual(a.pixels.width, 120)
        let pa = rgb(a)
        XCTAssertEqual(pa, rgb(b))
        // Output row 0 covers source rows 0-1 (red), row 4 covers 8-9 (blue).
        XCTAssertEqual(Array(pa[0..<3]).map(Int.init), [220, 20, 20])
        let row4 = 4 * a.pixels.width * 3
        XCTAssertEqual(Array(pa[row4..<row4 + 3]).map(Int.init), [20, 20, 220])
        let result = try thumbnail(interlaced)
        XCTAssertEqual(result.format, .gif)
        XCTAssertEqual(result.width, 240)
        XCTAssertEqual(result.thumbnailWidth, 120)
        XCTAssertEqual(result.thumbnailHeight, 80)
    }

    func testTransparentPixelsAreWhite() throws {
        var indices = [UInt8](repeating: 3, count: 100 * 100)
        for y in 0..<100 { for x in 50..<100 { indices[y * 100 + x] = 7 } } // right half transparent
        let bytes = try gif(screen: (100, 100), frame: (0, 0, 100, 100), transparent: 7, indices: indices)
        let image = try decode(bytes, format: .gif)
        let p = image.pixels, pixelBytes = rgb(image)
        XCTAssertEqual(Array(pixelBytes[0..<3]).map(Int.init), [20, 200, 20])
        let right = (p.width - 1) * 3
        XCTAssertEqual(Array(pixelBytes[right..<right + 3]).map(Int.init), [255, 255, 255])
    }

    func testFrameIsPlacedOnTheLogicalScreenWithTheBackground() throws {
        // A 100 × 50 red frame at (200, 100) on a 400 × 300 screen with a black background.
        let bytes = try gif(
            screen: (400, 300), frame: (200, 100, 100, 50), indices: [UInt8](repeating: 0, count: 100 * 50))
        let image = try decode(bytes, format: .gif)
        XCTAssertEqual(image.storedWidth, 400)
        XCTAssertEqual(image.storedHeight, 300)
        XCTAssertEqual(image.scale, 3)
        let p = image.pixels, pixelBytes = rgb(image)
        func pixel(_ x: Int, _ y: Int) -> [Int] {
            let at = (y * p.width + x) * 3
            return Array(pixelBytes[at..<at + 3]).map(Int.init)
        }
        XCTAssertEqual(pixel(0, 0), [0, 0, 0], "outside the frame: the background colour")
        XCTAssertEqual(pixel(80, 40), [220, 20, 20], "inside the frame (source 240, 120)")
        XCTAssertEqual(pixel(120, 90), [0, 0, 0])
    }

    func testHostileGIFsFailWithAReasonAndNeverCrash() throws {
        let good = try gif(screen: (160, 120), frame: (0, 0, 160, 120), interlace: true, indices: bands(160, 120))
        for length in [0, 6, 12, 13, 20, 800, good.count / 2, good.count - 2] {
            XCTAssertThrowsError(try thumbnail(Array(good.prefix(length))), "\(length) bytes") { error in
                XCTAssertFalse("\(error)".isEmpty)
            }
        }
        var state: UInt64 = 0xD1B5_4A32_D192_ED03
        for _ in 0..<300 {
            var bytes = good
            for _ in 0..<3 {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                let at = Int((state >> 33) % UInt64(bytes.count))
                bytes[at] ^= UInt8(1 << ((state >> 20) & 7))
            }
            _ = try? thumbnail(bytes)
        }
        // A screen of 65535 × 65535 is over the pixel limit before anything is decoded.
        var huge = good
        huge[6] = 0xFF; huge[7] = 0xFF; huge[8] = 0xFF; huge[9] = 0xFF
        XCTAssertThrowsError(try thumbnail(huge)) { error in
            guard case .tooLarge(let w, let h, _) = error as? ImageError else { return XCTFail("\(error)") }
            XCTAssertEqual(w, 65535)
            XCTAssertEqual(h, 65535)
        }
    }
}
