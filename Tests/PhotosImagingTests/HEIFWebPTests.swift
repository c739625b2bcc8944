import CImageCodec
import CImageCodecTesting
import Foundation
import XCTest
@testable import PhotosImaging

/// Issue 13 item 2: HEIF/HEIC, AVIF and WebP decoded with libheif and libwebp. Every input is
/// made here through the libraries' own encoders (x265/aom through libheif, libwebp).
final class HEIFWebPTests: XCTestCase {
    static let width = 480, height = 320
    static let marker: [UInt8] = [230, 30, 30]

    /// Stored 480×320: a smooth blue-grey gradient with a flat red 96×96 marker in the top-left
    /// corner (96 = 24 thumbnail pixels at factor 4, so edges fall on the thumbnail grid).
    static func picture(alpha: Bool = false) -> [UInt8] {
        var p: [UInt8] = []
        p.reserveCapacity(width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                if x < 96 && y < 96 {
                    p += marker
                } else {
                    p += [
                        UInt8(60 + x * 80 / width), UInt8(90 + y * 60 / height),
                        UInt8(150 + (x + y) * 60 / (width + height))
                    ]
                }
                if alpha { p.append(x >= width / 2 ? 0 : 255) } // right half transparent
            }
        }
        return p
    }

    /// A TIFF block: IFD0 Orientation, Exif IFD DateTimeOriginal + OffsetTimeOriginal.
    static func exif(orientation: Int, date: String = "2021:06:01 12:34:56", offset: String = "+02:00") -> [UInt8] {
        func u16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
        func u32(_ v: Int) -> [UInt8] { u16(v & 0xFFFF) + u16(v >> 16) }
        let exifIFD = 8 + 2 + 2 * 12 + 4 // 38
        let dateAt = exifIFD + 2 + 2 * 12 + 4 // 68
        let offsetAt = dateAt + 20 // 88
        var t: [UInt8] = [0x49, 0x49, 42, 0] + u32(8)
        t += u16(2) + u16(0x0112) + u16(3) + u32(1) + u16(orientation) + u16(0)
        t += u16(0x8769) + u16(4) + u32(1) + u32(exifIFD) + u32(0)
        t += u16(2) + u16(0x9003) + u16(2) + u32(20) + u32(dateAt)
        t += u16(0x9011) + u16(2) + u32(7) + u32(offsetAt) + u32(0)
        t += Array(date.utf8) + [0] + Array(offset.utf8) + [0]
        return t
    }

    static func heif(
        av1: Bool = false, orientation: Int = 1, thumbnail: Int = 0, exif: [UInt8]? = nil,
        icc: [UInt8]? = nil, nclxPrimaries: Int = 0, pixels: [UInt8]? = nil,
        width: Int = width, height: Int = height
    ) throws -> [UInt8] {
        var output: UnsafeMutablePointer<UInt8>?
        var size = 0
        var messages = pc_messages()
        let rgb = pixels ?? picture()
        let e = exif ?? [], i = icc ?? []
        let status = rgb.withUnsafeBufferPointer { p in
            e.withUnsafeBufferPointer { eb in
                i.withUnsafeBufferPointer { ib in
                    pc_heif_encode_test(
                        p.baseAddress, Int32(width), Int32(height), av1 ? 1 : 0, 90, Int32(orientation),
                        Int32(thumbnail),
                        eb.baseAddress, eb.count, ib.baseAddress, ib.count, Int32(nclxPrimaries), &output, &size,
                        &messages)
                }
            }
        }
        defer { pc_free(output) }
        guard status == PC_OK, let output else {
            throw ImageError.unsupported(
                "HEIF encode: "
                    + withUnsafeBytes(of: &messages.error) {
                        String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self)
                    })
        }
        return Array(UnsafeBufferPointer(start: output, count: size))
    }

    static func webp(lossless: Bool = false, alpha: Bool = false) throws -> [UInt8] {
        var output: UnsafeMutablePointer<UInt8>?
        var size = 0
        let status = picture(alpha: alpha).withUnsafeBufferPointer {
            pc_webp_encode_test(
                $0.baseAddress, Int32(width), Int32(height), alpha ? 4 : 3, lossless ? 1 : 0, 90, &output, &size)
        }
        defer { pc_free(output) }
        guard status == PC_OK, let output else { throw ImageError.unsupported("WebP encode") }
        return Array(UnsafeBufferPointer(start: output, count: size))
    }

    /// A simple lossy WebP ('VP8 ' chunk) rewrapped as VP8X with EXIF and XMP chunks (WebP
    /// container specification, "Extended File Format").
    static func webpWithMetadata(exif: [UInt8], xmp: [UInt8]) throws -> [UInt8] {
        let simple = try webp()
        XCTAssertEqual(String(decoding: simple[12..<16], as: UTF8.self), "VP8 ")
        func le32(_ v: Int) -> [UInt8] {
            [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24 & 0xFF)]
        }
        func chunk(_ fourCC: String, _ data: [UInt8]) -> [UInt8] {
            Array(fourCC.utf8) + le32(data.count) + data + (data.count % 2 == 1 ? [0] : [])
        }
        let w = width - 1, h = height - 1
        let vp8x = chunk(
            "VP8X",
            [
                0x08 | 0x04, 0, 0, 0, UInt8(w & 0xFF), UInt8(w >> 8 & 0xFF), UInt8(w >> 16),
                UInt8(h & 0xFF), UInt8(h >> 8 & 0xFF), UInt8(h >> 16)
            ])
        let body = Array("WEBP".utf8) + vp8x + Array(simple[12...]) + chunk("EXIF", exif) + chunk("XMP ", xmp)
        return Array("RIFF".utf8) + le32(body.count) + body
    }

    static func thumbnail(_ file: [UInt8], maxPixels: Int = 100_000_000) throws -> (ThumbnailResult, PixelBuffer) {
        let result = try file.withUnsafeBytes {
            try Thumbnailer.makeThumbnail(from: $0, options: ThumbnailOptions(quality: 100, maxPixels: maxPixels))
        }
        let pixels = try result.thumbnail.withUnsafeBytes {
            try ImageDecoder.decode($0, format: .jpeg, targetEdge: 10_000, maxPixels: 1_000_000).pixels
        }
        return (result, pixels)
    }

    /// The library's own full-size decode (no reduction), area-averaged to `width` × `height`.
    static func reference(_ file: [UInt8], format: ImageFormat, width: Int, height: Int) throws -> PixelBuffer {
        let full = try file.withUnsafeBytes {
            try ImageDecoder.decode($0, format: format, targetEdge: 0, maxPixels: 100_000_000)
        }
        XCTAssertEqual(
            max(full.pixels.width, full.pixels.height), max(full.storedWidth, full.storedHeight), "full-size reference")
        return try Resampler.areaAverage(full.pixels, width: width, height: height)
    }

    /// What Thumbnailer resamples from: the reduced decode, area-averaged to `width` × `height`
    /// (compared with `reference` before the thumbnail's own JPEG encode adds its error).
    static func reduced(_ file: [UInt8], format: ImageFormat, width: Int, height: Int) throws -> PixelBuffer {
        let decoded = try file.withUnsafeBytes {
            try ImageDecoder.decode($0, format: format, targetEdge: 120, maxPixels: 100_000_000)
        }
        return try Resampler.areaAverage(decoded.pixels, width: width, height: height)
    }

    static func assertMatchesFullDecode(
        _ file: [UInt8], format: ImageFormat, width: Int, height: Int, _ name: String,
        file f: StaticString = #filePath, line: UInt = #line
    ) throws {
        assertClose(
            try reduced(file, format: format, width: width, height: height),
            try reference(file, format: format, width: width, height: height), name, file: f, line: line)
    }

    /// Mean colour of a 4×4 block at a corner of `image`.
    static func corner(_ image: PixelBuffer, right: Bool, bottom: Bool) -> [Int] {
        var sum = [0, 0, 0]
        for dy in 0..<4 {
            for dx in 0..<4 {
                let x = right ? image.width - 1 - dx : dx, y = bottom ? image.height - 1 - dy : dy
                let p = image.pixel(x: x, y: y)
                sum[0] += Int(p.0); sum[1] += Int(p.1); sum[2] += Int(p.2)
            }
        }
        return sum.map { $0 / 16 }
    }

    /// Which corner holds the red marker, as "TL", "TR", "BL" or "BR" (nil when none or several).
    static func markerCorner(_ image: PixelBuffer) -> String? {
        let corners = [("TL", false, false), ("TR", true, false), ("BL", false, true), ("BR", true, true)]
        let red = corners.filter {
            let c = corner(image, right: $0.1, bottom: $0.2); return c[0] > 200 && c[1] < 70 && c[2] < 70
        }
        return red.count == 1 ? red[0].0 : nil
    }

    /// Every pixel at least 2 pixels away from the marker's edges (4:2:0 chroma of the thumbnail
    /// JPEG smears those) within `tolerance` levels of the reference.
    static func assertClose(
        _ got: PixelBuffer, _ want: PixelBuffer, tolerance: Int = 3, _ name: String,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertEqual(got.width, want.width, name, file: file, line: line)
        XCTAssertEqual(got.height, want.height, name, file: file, line: line)
        guard got.width == want.width, got.height == want.height else { return }
        var worst = 0
        for y in 0..<got.height {
            for x in 0..<got.width {
                let w = want.pixel(x: x, y: y)
                var uniform = true
                for dy in -2...2 {
                    for dx in -2...2 {
                        let nx = min(max(0, x + dx), got.width - 1), ny = min(max(0, y + dy), got.height - 1)
                        let n = want.pixel(x: nx, y: ny)
                        if abs(Int(n.0) - Int(w.0)) > 12 || abs(Int(n.1) - Int(w.1)) > 12
                            || abs(Int(n.2) - Int(w.2)) > 12
                        {
                            uniform = false
                        }
                    }
                }
                guard uniform else { continue }
                let g = got.pixel(x: x, y: y)
                worst = max(worst, abs(Int(g.0) - Int(w.0)), abs(Int(g.1) - Int(w.1)), abs(Int(g.2) - Int(w.2)))
            }
        }
        XCTAssertLessThanOrEqual(
            worst, tolerance, "\(name): largest difference from the library's own decode", file: file, line: line)
    }

    // MARK: detection

    func testMagicBytesDetection() throws {
        func detect(_ bytes: [UInt8]) -> ImageFormat? {
            bytes.withUnsafeBytes { ImageFormatSniffer.detect($0, heifAndWebP: true) }
        }
        XCTAssertEqual(detect(try Self.heif()), .heif)
        XCTAssertEqual(detect(try Self.heif(av1: true)), .avif)
        XCTAssertEqual(detect(try Self.webp()), .webp)
        XCTAssertEqual(detect(try Self.webp(lossless: true)), .webp)
        func ftyp(_ major: String, _ compatible: [String]) -> [UInt8] {
            let body = Array(major.utf8) + [0, 0, 0, 0] + compatible.flatMap { Array($0.utf8) }
            return [0, 0, 0, UInt8(8 + body.count)] + Array("ftyp".utf8) + body + [0, 0, 0, 8] + Array("meta".utf8)
        }
        XCTAssertEqual(detect(ftyp("mif1", ["mif1", "heic"])), .heif)
        XCTAssertEqual(detect(ftyp("mif1", ["mif1", "avif", "miaf"])), .avif)
        XCTAssertEqual(detect(ftyp("msf1", ["msf1"])), .heif)
        XCTAssertEqual(detect(ftyp("heix", [])), .heif)
        XCTAssertEqual(detect(ftyp("avis", [])), .avif)
        XCTAssertEqual(detect(ftyp("isom", ["mp41"])), .video, "an MP4 is a video (issue 25)")
        XCTAssertNil(detect(Array("RIFF\u{0}\u{0}\u{0}\u{0}WAVEfmt ".utf8)), "a WAV is not WebP")
        // Without the flag, as the library's schema before issue 13 wants: JPEG and PNG only.
        XCTAssertNil(try Self.webp().withUnsafeBytes { ImageFormatSniffer.detect($0) })
        XCTAssertNil(try Self.heif().withUnsafeBytes { ImageFormatSniffer.detect($0) })
    }

    // MARK: WebP

    func testWebPLossyAndLosslessThumbnails() throws {
        for lossless in [false, true] {
            let file = try Self.webp(lossless: lossless)
            let (result, pixels) = try Self.thumbnail(file)
            XCTAssertEqual(result.format, .webp)
            XCTAssertEqual([result.width, result.height], [480, 320])
            XCTAssertEqual([result.thumbnailWidth, result.thumbnailHeight], [120, 80])
            XCTAssertEqual(Self.markerCorner(pixels), "TL", "lossless \(lossless)")
            try Self.assertMatchesFullDecode(file, format: .webp, width: 120, height: 80, "WebP lossless \(lossless)")
            Self.assertClose(
                pixels, try Self.reference(file, format: .webp, width: 120, height: 80), tolerance: 6,
                "thumbnail JPEG, WebP lossless \(lossless)")
        }
    }

    func testWebPDecodesScaledNotFull() throws {
        let file = try Self.webp()
        let decoded = try file.withUnsafeBytes {
            try ImageDecoder.decode($0, format: .webp, targetEdge: 120, maxPixels: 100_000_000)
        }
        XCTAssertEqual(
            [decoded.pixels.width, decoded.pixels.height], [120, 80],
            "libwebp's scaled decode, straight to the thumbnail")
        XCTAssertEqual([decoded.storedWidth, decoded.storedHeight], [480, 320])
    }

    func testWebPAlphaIsFlattenedOntoWhite() throws {
        for lossless in [false, true] {
            let file = try Self.webp(lossless: lossless, alpha: true)
            let (_, pixels) = try Self.thumbnail(file)
            let right = Self.corner(pixels, right: true, bottom: true)
            XCTAssertTrue(right.allSatisfy { $0 >= 252 }, "transparent half is white, got \(right)")
            XCTAssertEqual(Self.markerCorner(pixels), "TL")
            try Self.assertMatchesFullDecode(
                file, format: .webp, width: 120, height: 80, "WebP alpha lossless \(lossless)")
        }
    }

    /// WebP takes its orientation from EXIF (it has no container orientation); its EXIF date and
    /// offset and its XMP packet are read like a JPEG's.
    func testWebPExifOrientationDateAndXMP() throws {
        let xmp = Array("<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"/>".utf8)
        let file = try Self.webpWithMetadata(exif: Self.exif(orientation: 6), xmp: xmp)
        let (result, pixels) = try Self.thumbnail(file)
        XCTAssertEqual(result.orientation.rawValue, 6)
        XCTAssertEqual([result.width, result.height], [320, 480], "upright size")
        XCTAssertEqual([pixels.width, pixels.height], [80, 120])
        XCTAssertEqual(Self.markerCorner(pixels), "TR", "rotated 90° clockwise: the top-left marker is now top-right")
        XCTAssertEqual(result.dateTimeOriginal, "2021:06:01 12:34:56")
        XCTAssertEqual(result.offsetTimeOriginal, "+02:00")
        XCTAssertEqual(result.metadata.xmp, xmp)
    }

    // MARK: HEIF / AVIF

    func testHEICAndAVIFThumbnails() throws {
        for av1 in [false, true] {
            let file = try Self.heif(av1: av1)
            let (result, pixels) = try Self.thumbnail(file)
            XCTAssertEqual(result.format, av1 ? .avif : .heif)
            XCTAssertEqual([result.width, result.height], [480, 320])
            XCTAssertEqual([result.thumbnailWidth, result.thumbnailHeight], [120, 80])
            XCTAssertEqual(Self.markerCorner(pixels), "TL", "av1 \(av1)")
            try Self.assertMatchesFullDecode(
                file, format: av1 ? .avif : .heif, width: 120, height: 80, "HEIF av1 \(av1)")
        }
    }

    /// irot 90° (written by libheif from heif_encoding_options.image_orientation = 6, i.e. the
    /// stored landscape displays rotated 90° clockwise): libheif applies it; EXIF is not consulted.
    func testHEICWithIrotIsUpright() throws {
        let file = try Self.heif(orientation: 6)
        XCTAssertNotNil(file.firstRange(of: Array("irot".utf8)), "libheif wrote an irot box")
        let (result, pixels) = try Self.thumbnail(file)
        XCTAssertEqual([result.width, result.height], [320, 480])
        XCTAssertEqual([pixels.width, pixels.height], [80, 120])
        XCTAssertEqual(result.orientation.rawValue, 1, "nothing left to apply")
        XCTAssertEqual(Self.markerCorner(pixels), "TR")
        try Self.assertMatchesFullDecode(file, format: .heif, width: 80, height: 120, "HEIC irot")
    }

    /// EXIF Orientation 6 in a HEIC without irot: HEIF's transformative properties govern display
    /// (ISO/IEC 23008-12 §6.5), as libheif and Apple's decoders do: nothing is rotated. Its
    /// capture date and offset are read from the Exif item.
    func testHEICExifOrientationIsNotAppliedAndDateIsRead() throws {
        let file = try Self.heif(exif: Self.exif(orientation: 6))
        let (result, pixels) = try Self.thumbnail(file)
        XCTAssertEqual([pixels.width, pixels.height], [120, 80])
        XCTAssertEqual(Self.markerCorner(pixels), "TL")
        XCTAssertEqual(result.orientation.rawValue, 1)
        XCTAssertEqual(result.metadata.exif.orientation.rawValue, 6, "read, not applied")
        XCTAssertEqual(result.dateTimeOriginal, "2021:06:01 12:34:56")
        XCTAssertEqual(result.offsetTimeOriginal, "+02:00")
        // irot and EXIF together (as iPhones write them, consistently): rotated once, not twice.
        let both = try Self.heif(orientation: 6, exif: Self.exif(orientation: 6))
        let (_, once) = try Self.thumbnail(both)
        XCTAssertEqual([once.width, once.height], [80, 120])
        XCTAssertEqual(Self.markerCorner(once), "TR")
    }

    /// A thumbnail item of at least 120 pixels is decoded instead of the primary image; a smaller
    /// one is not used.
    func testHEICEmbeddedThumbnailIsUsedWhenBigEnough() throws {
        // Primary 960×640 so that a 160-px thumbnail is a real saving.
        var big: [UInt8] = []
        let small = Self.picture()
        for y in 0..<640 { for x in 0..<960 { let i = ((y / 2) * 480 + x / 2) * 3; big += small[i..<(i + 3)] } }
        let withThumb = try Self.heif(thumbnail: 160, pixels: big, width: 960, height: 640)
        let decoded = try withThumb.withUnsafeBytes {
            try ImageDecoder.decode($0, format: .heif, targetEdge: 120, maxPixels: 100_000_000)
        }
        XCTAssertEqual(decoded.scale, 0, "decoded from the thumbnail item")
        XCTAssertEqual([decoded.pixels.width, decoded.pixels.height], [160, 106], "libheif's 160-px thumbnail")
        XCTAssertEqual([decoded.storedWidth, decoded.storedHeight], [960, 640], "the primary's size is recorded")
        let (_, pixels) = try Self.thumbnail(withThumb)
        XCTAssertEqual(Self.markerCorner(pixels), "TL")
        let tooSmall = try Self.heif(thumbnail: 100, pixels: big, width: 960, height: 640)
        let primary = try tooSmall.withUnsafeBytes {
            try ImageDecoder.decode($0, format: .heif, targetEdge: 120, maxPixels: 100_000_000)
        }
        XCTAssertEqual(primary.scale, 8, "primary image, box factor 960/120")
    }

    /// A HEIC with a Display-P3 profile in its colr box comes out converted like a JPEG's.
    func testHEICProfileIsApplied() throws {
        let icc = try ColorManagementTests.profile(PC_TEST_PROFILE_DISPLAY_P3)
        var flat: [UInt8] = []
        for _ in 0..<(Self.width * Self.height) { flat += [200, 40, 40] }
        let file = try Self.heif(icc: icc, pixels: flat)
        let (_, pixels) = try Self.thumbnail(file)
        let plainFile = try Self.heif(pixels: flat)
        let (_, plain) = try Self.thumbnail(plainFile)
        let p = plain.pixel(x: 60, y: 40), c = pixels.pixel(x: 60, y: 40)
        let want = ColorManagementTests.lcms(icc, format: ColorManagementTests.typeRGB8, [p.0, p.1, p.2])
        ColorManagementTests.assertNear([c.0, c.1, c.2], want, 3, "HEIC P3")
    }

    /// An AVIF whose nclx colr box says Display P3 primaries (ISO/IEC 23091-2 code 12,
    /// SMPTE EG 432-1) with the sRGB curve is converted like a P3 ICC profile; BT.709 is left
    /// alone. (libheif 1.15's x265 path writes nclx only into the HEVC VUI, which
    /// heif_image_handle_get_nclx_color_profile does not report: a HEIC's colours come from its
    /// ICC profile, which is what iPhones write.)
    func testNCLXDisplayP3PrimariesAreConverted() throws {
        let icc = try ColorManagementTests.profile(PC_TEST_PROFILE_DISPLAY_P3)
        var flat: [UInt8] = []
        for _ in 0..<(Self.width * Self.height) { flat += [200, 40, 40] }
        for av1 in [true] {
            let (_, plain) = try Self.thumbnail(try Self.heif(av1: av1, nclxPrimaries: 1, pixels: flat))
            let (_, p3) = try Self.thumbnail(try Self.heif(av1: av1, nclxPrimaries: 12, pixels: flat))
            let p = plain.pixel(x: 60, y: 40), c = p3.pixel(x: 60, y: 40)
            ColorManagementTests.assertNear([p.0, p.1, p.2], [200, 40, 40], 4, "BT.709 nclx untouched (av1 \(av1))")
            let want = ColorManagementTests.lcms(icc, format: ColorManagementTests.typeRGB8, [p.0, p.1, p.2])
            ColorManagementTests.assertNear([c.0, c.1, c.2], want, 3, "nclx P3 (av1 \(av1))")
        }
    }

    /// A WebP with an ICCP chunk (VP8X flag 0x20) is converted through it.
    func testWebPICCPChunkIsApplied() throws {
        let icc = try ColorManagementTests.profile(PC_TEST_PROFILE_ADOBE_RGB)
        var flat: [UInt8] = []
        for _ in 0..<(Self.width * Self.height) { flat += [60, 170, 90] }
        var output: UnsafeMutablePointer<UInt8>?
        var size = 0
        XCTAssertEqual(
            flat.withUnsafeBufferPointer {
                pc_webp_encode_test($0.baseAddress, Int32(Self.width), Int32(Self.height), 3, 1, 100, &output, &size)
            }, PC_OK)
        let simple = Array(UnsafeBufferPointer(start: output, count: size))
        pc_free(output)
        func le32(_ v: Int) -> [UInt8] {
            [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24 & 0xFF)]
        }
        func chunk(_ fourCC: String, _ data: [UInt8]) -> [UInt8] {
            Array(fourCC.utf8) + le32(data.count) + data + (data.count % 2 == 1 ? [0] : [])
        }
        let w = Self.width - 1, h = Self.height - 1
        let vp8x = chunk("VP8X", [0x20, 0, 0, 0, UInt8(w & 0xFF), UInt8(w >> 8), 0, UInt8(h & 0xFF), UInt8(h >> 8), 0])
        let body = Array("WEBP".utf8) + vp8x + chunk("ICCP", icc) + Array(simple[12...])
        let file = Array("RIFF".utf8) + le32(body.count) + body
        let (_, pixels) = try Self.thumbnail(file)
        let c = pixels.pixel(x: 60, y: 40)
        ColorManagementTests.assertNear(
            [c.0, c.1, c.2], ColorManagementTests.lcms(icc, format: ColorManagementTests.typeRGB8, [60, 170, 90]), 3,
            "WebP ICCP")
    }

    // MARK: refusals

    func testTruncatedAndFakeFilesAreRefusedWithAReason() throws {
        let cases: [(String, [UInt8])] = [
            ("HEIC", try Self.heif()), ("AVIF", try Self.heif(av1: true)),
            ("WebP", try Self.webp()), ("WebP lossless", try Self.webp(lossless: true))
        ]
        for (name, file) in cases {
            for cut in [file.count / 2, file.count - 10, 40] {
                let truncated = Array(file.prefix(cut))
                XCTAssertThrowsError(try Self.thumbnail(truncated), "\(name) cut at \(cut)") { error in
                    let text = "\(error)"
                    XCTAssertFalse(text.isEmpty)
                    guard let e = error as? ImageError else { return XCTFail("\(name): \(error)") }
                    switch e {
                    case .corrupt, .unsupported: break
                    default: XCTFail("\(name) cut at \(cut): \(e)")
                    }
                }
            }
            // The header kept, the rest garbage.
            var fake = Array(file.prefix(32))
            fake += [UInt8](repeating: 0x5A, count: 4000)
            XCTAssertThrowsError(try Self.thumbnail(fake), "fake \(name)")
        }
        // Not an image at all, whatever it is called.
        XCTAssertThrowsError(try Self.thumbnail(Array("just text, named photo.heic".utf8))) { error in
            XCTAssertEqual(
                error as? ImageError,
                .notAnImage(
                    "not a JPEG, PNG, HEIF, AVIF, WebP, TIFF, GIF, JPEG XL or camera RAW file (starts with 0x6a 0x75)"))
        }
    }

    /// A HEIC whose ispe declares 100000×100000 is refused from its header, before any decode.
    func testHugeDeclaredSizesAreRefusedBeforeDecoding() throws {
        var heic = try Self.heif()
        var found = 0
        var i = 0
        while let r = heic[i...].firstRange(of: Array("ispe".utf8)) {
            let at = r.upperBound + 4 // version/flags
            for (k, v) in [(0, 100_000), (4, 100_000)] {
                heic[at + k] = UInt8(v >> 24); heic[at + k + 1] = UInt8(v >> 16 & 0xFF)
                heic[at + k + 2] = UInt8(v >> 8 & 0xFF); heic[at + k + 3] = UInt8(v & 0xFF)
            }
            found += 1
            i = r.upperBound
        }
        XCTAssertGreaterThan(found, 0)
        XCTAssertThrowsError(try Self.thumbnail(heic)) { error in
            XCTAssertEqual(error as? ImageError, .tooLarge(width: 100_000, height: 100_000, limit: 100_000_000))
        }
        // WebP: the VP8 frame header's 14-bit sizes set to 16383×16383 (268 Mpx).
        var webp = try Self.webp()
        let frame = 20 + 6 // chunk data + 3-byte frame tag + 3-byte start code
        webp[frame] = 0xFF; webp[frame + 1] = 0x3F; webp[frame + 2] = 0xFF; webp[frame + 3] = 0x3F
        XCTAssertThrowsError(try Self.thumbnail(webp)) { error in
            XCTAssertEqual(error as? ImageError, .tooLarge(width: 16_383, height: 16_383, limit: 100_000_000))
        }
        // And under a small --max-pixels, the real sizes.
        XCTAssertThrowsError(try Self.thumbnail(try Self.webp(), maxPixels: 100_000)) { error in
            XCTAssertEqual(error as? ImageError, .tooLarge(width: 480, height: 320, limit: 100_000))
        }
        XCTAssertThrowsError(try Self.thumbnail(try Self.heif(), maxPixels: 100_000)) { error in
            XCTAssertEqual(error as? ImageError, .tooLarge(width: 480, height: 320, limit: 100_000))
        }
    }
}
