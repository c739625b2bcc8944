import CImageCodec
import CImageCodecTesting
import CLCMS2
import Foundation
import XCTest
@testable import PhotosImaging

/// Issue 13 item 1: embedded ICC profiles are converted to sRGB with Little CMS (perceptual
/// intent) and thumbnails say sRGB. Expected values come from lcms2 itself, called here directly.
final class ColorManagementTests: XCTestCase {
    // lcms2.h pixel formats (the macros are not imported into Swift): COLORSPACE_SH | CHANNELS_SH | BYTES_SH.
    static let typeRGB8: UInt32 = 4 << 16 | 3 << 3 | 1
    static let typeGray8: UInt32 = 3 << 16 | 1 << 3 | 1
    static let typeCMYK8Rev: UInt32 = 6 << 16 | 4 << 3 | 1 | 1 << 13
    static let intentPerceptual: UInt32 = 0

    static func profile(_ kind: pc_test_profile, gamma: Double = 0) throws -> [UInt8] {
        var output: UnsafeMutablePointer<UInt8>?
        var size = 0
        let status = pc_icc_test_profile(Int32(kind.rawValue), gamma, &output, &size)
        defer { pc_free(output) }
        guard status == PC_OK, let output else { throw ImageError.unsupported("profile \(kind) not made") }
        return Array(UnsafeBufferPointer(start: output, count: size))
    }

    /// The Display-P3 test profile made larger by a copyright tag holding `copyright` (lcms2
    /// stores it as UTF-16, so about 2 bytes per character): for the multi-segment and size-limit
    /// tests.
    static func paddedDisplayP3(copyright: String) throws -> [UInt8] {
        let small = try profile(PC_TEST_PROFILE_DISPLAY_P3)
        let handle = small.withUnsafeBytes { cmsOpenProfileFromMem($0.baseAddress, UInt32($0.count)) }
        defer { cmsCloseProfile(handle) }
        let mlu = cmsMLUalloc(nil, 1)
        cmsMLUsetASCII(mlu, "en", "US", copyright)
        XCTAssertEqual(cmsWriteTag(handle, cmsSigCopyrightTag, UnsafeRawPointer(mlu)), 1)
        cmsMLUfree(mlu)
        var size: UInt32 = 0
        XCTAssertEqual(cmsSaveProfileToMem(handle, nil, &size), 1)
        var big = [UInt8](repeating: 0, count: Int(size))
        XCTAssertEqual(big.withUnsafeMutableBytes { cmsSaveProfileToMem(handle, $0.baseAddress, &size) }, 1)
        return big
    }

    /// lcms2's own conversion of one pixel to sRGB (what tificc/jpgicc -t0 give).
    static func lcms(_ icc: [UInt8], format: UInt32, _ pixel: [UInt8]) -> [UInt8] {
        let source = icc.withUnsafeBytes { cmsOpenProfileFromMem($0.baseAddress, UInt32($0.count)) }
        let srgb = cmsCreate_sRGBProfile()
        defer { cmsCloseProfile(source); cmsCloseProfile(srgb) }
        let transform = cmsCreateTransform(source, format, srgb, typeRGB8, intentPerceptual, 0)
        defer { cmsDeleteTransform(transform) }
        var out: [UInt8] = [0, 0, 0]
        pixel.withUnsafeBytes { input in
            out.withUnsafeMutableBytes { cmsDoTransform(transform, input.baseAddress, $0.baseAddress, 1) }
        }
        return out
    }

    /// A flat JPEG (quality 100, 4:4:4) with `icc` embedded.
    static func flatJPEG(_ value: [UInt8], width: Int = 400, height: Int = 300, icc: [UInt8]?) throws -> [UInt8] {
        let components = value.count
        var pixels: [UInt8] = []
        pixels.reserveCapacity(width * height * components)
        for _ in 0..<(width * height) { pixels += value }
        var options = pc_jpeg_encode_options(
            components: Int32(components), quality: 100, mode: Int32(PC_BASELINE.rawValue),
            h_samp: 1, v_samp: 1, restart_interval: 0, chroma_tables: 0)
        var output: UnsafeMutablePointer<UInt8>?
        var size = 0
        var messages = pc_messages()
        let profile = icc ?? []
        let status = pixels.withUnsafeBufferPointer { p in
            profile.withUnsafeBufferPointer { i in
                pc_jpeg_encode_icc(
                    p.baseAddress, Int32(width), Int32(height), &options, i.baseAddress, i.count, &output, &size,
                    &messages)
            }
        }
        defer { pc_free(output) }
        guard status == PC_OK, let output else { throw ImageError.corrupt("encode failed") }
        return Array(UnsafeBufferPointer(start: output, count: size))
    }

    /// The centre pixel of the thumbnail made from `file` (quality 100, so the thumbnail's own
    /// JPEG adds at most a level).
    static func thumbnailCentre(_ file: [UInt8]) throws -> ([UInt8], ThumbnailResult) {
        let result = try file.withUnsafeBytes {
            try Thumbnailer.makeThumbnail(from: $0, options: ThumbnailOptions(quality: 100))
        }
        let decoded = try result.thumbnail.withUnsafeBytes {
            try ImageDecoder.decode($0, format: .jpeg, targetEdge: 10_000, maxPixels: 1_000_000)
        }
        let p = decoded.pixels.pixel(x: decoded.pixels.width / 2, y: decoded.pixels.height / 2)
        return ([p.0, p.1, p.2], result)
    }

    static func assertNear(
        _ got: [UInt8], _ want: [UInt8], _ tolerance: Int = 3, _ message: String,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        let ok = got.count == want.count && zip(got, want).allSatisfy { abs(Int($0) - Int($1)) <= tolerance }
        XCTAssertTrue(ok, "\(message): got \(got), want \(want) ±\(tolerance)", file: file, line: line)
    }

    func testRGBProfilesConvertToSRGBAsLittleCMSDoes() throws {
        let cases: [(pc_test_profile, [UInt8], String)] = [
            (PC_TEST_PROFILE_SRGB, [200, 40, 40], "sRGB"),
            (PC_TEST_PROFILE_DISPLAY_P3, [200, 40, 40], "Display P3"),
            (PC_TEST_PROFILE_ADOBE_RGB, [60, 170, 90], "Adobe RGB"),
            (PC_TEST_PROFILE_PROPHOTO, [150, 110, 60], "ProPhoto")
        ]
        for (kind, value, name) in cases {
            let icc = try Self.profile(kind)
            let want = Self.lcms(icc, format: Self.typeRGB8, value)
            let (got, _) = try Self.thumbnailCentre(try Self.flatJPEG(value, icc: icc))
            Self.assertNear(got, want, 3, name)
            if kind != PC_TEST_PROFILE_SRGB {
                // Not what the encoded values give unconverted: the conversion happened.
                XCTAssertGreaterThan(
                    zip(want, value).map { abs(Int($0) - Int($1)) }.max() ?? 0, 6,
                    "\(name) test colour too close to sRGB")
            }
        }
    }

    /// The example: the Display-P3 pixel whose sRGB rendering is (220,0,17) — P3
    /// (202,43,36), found with lcms2 2.14 (sRGB (220,0,17) → P3 → sRGB gives (220,1,18)) — must not
    /// come out as the washed-out encoded values an unmanaged thumbnail shows. Hard-coded numbers.
    func testDisplayP3RedIsNotWashedOut() throws {
        let icc = try Self.profile(PC_TEST_PROFILE_DISPLAY_P3)
        // A lossless PNG: the JPEG encode of the input alone moves P3 blue by a level, which the
        // steep sRGB toe turns into 3 (JPEG input: (220,1,21)).
        let (got, _) = try Self.thumbnailCentre(TinyPNG.flat([202, 43, 36], extra: [("iCCP", TinyPNG.iCCP(icc))]))
        Self.assertNear(got, [220, 0, 17], 3, "Display P3 red")
        XCTAssertGreaterThan(abs(Int(got[1]) - 40), 30, "green not washed out")
    }

    func testGrayGamma22Profile() throws {
        let icc = try Self.profile(PC_TEST_PROFILE_GRAY, gamma: 2.2)
        // γ2.2 and the sRGB curve agree in the mid-tones and part in the shadows (sRGB's linear toe).
        let want = Self.lcms(icc, format: Self.typeGray8, [12])
        XCTAssertGreaterThan(abs(Int(want[0]) - 12), 3, "gamma 2.2 and sRGB differ at 12")
        let (got, _) = try Self.thumbnailCentre(try Self.flatJPEG([12], icc: icc))
        Self.assertNear(got, want, 3, "gray γ2.2")
        XCTAssertEqual(got[0], got[1]); XCTAssertEqual(got[1], got[2])
    }

    /// A CMYK JPEG with a profile goes through it; without one, today's naive conversion stays.
    /// libjpeg writes CMYK with an Adobe marker, so the stored values read back inverted (255 = no ink).
    func testCMYKWithAndWithoutProfile() throws {
        let icc = try Self.profile(PC_TEST_PROFILE_CMYK)
        let stored: [UInt8] = [200, 120, 230, 250] // inverted: C 55, M 135, Y 25, K 5 of 255
        let want = Self.lcms(icc, format: Self.typeCMYK8Rev, stored)
        let naive = (0..<3).map { UInt8((Int(stored[$0]) * Int(stored[3]) + 127) / 255) }
        XCTAssertGreaterThan(
            zip(want, naive).map { abs(Int($0) - Int($1)) }.max() ?? 0, 6,
            "profile must differ from the naive conversion")
        let (managed, _) = try Self.thumbnailCentre(try Self.flatJPEG(stored, icc: icc))
        Self.assertNear(managed, want, 3, "CMYK through its profile")
        let (plain, _) = try Self.thumbnailCentre(try Self.flatJPEG(stored, icc: nil))
        Self.assertNear(plain, naive, 3, "CMYK without a profile")
    }

    /// PNG: iCCP (RGB and gray), sRGB chunk (nothing to do), and gAMA + cHRM without a profile.
    func testPNGProfilesAndChromaticities() throws {
        for (kind, value) in [
            (PC_TEST_PROFILE_DISPLAY_P3, [UInt8]([200, 40, 40])), (PC_TEST_PROFILE_PROPHOTO, [150, 110, 60])
        ] {
            let icc = try Self.profile(kind)
            let (got, _) = try Self.thumbnailCentre(TinyPNG.flat(value, extra: [("iCCP", TinyPNG.iCCP(icc))]))
            Self.assertNear(got, Self.lcms(icc, format: Self.typeRGB8, value), 3, "PNG iCCP \(kind)")
        }
        let gray = try Self.profile(PC_TEST_PROFILE_GRAY, gamma: 2.2)
        let (g, _) = try Self.thumbnailCentre(TinyPNG.flat([12], extra: [("iCCP", TinyPNG.iCCP(gray))]))
        Self.assertNear(g, Self.lcms(gray, format: Self.typeGray8, [12]), 3, "PNG gray iCCP")
        // An sRGB chunk (rendering intent 0) and its gAMA: the values stay.
        let (s, _) = try Self.thumbnailCentre(
            TinyPNG.flat([200, 40, 40], extra: [("sRGB", [0]), ("gAMA", TinyPNG.be32(45_455))]))
        Self.assertNear(s, [200, 40, 40], 1, "PNG sRGB chunk")
        // gAMA 1/2.2 with Adobe RGB chromaticities (×100000, PNG spec §11.3.3.3): the same as an
        // Adobe-RGB-primaries profile with gamma 2.2, built in the test through lcms2.
        let chrm = [31_270, 32_900, 64_000, 33_000, 21_000, 71_000, 15_000, 6_000].flatMap { TinyPNG.be32(UInt32($0)) }
        let adobe22 = try Self.profile(PC_TEST_PROFILE_ADOBE_RGB, gamma: 1 / 0.45455)
        let (c, _) = try Self.thumbnailCentre(
            TinyPNG.flat([60, 170, 90], extra: [("gAMA", TinyPNG.be32(45_455)), ("cHRM", chrm)]))
        Self.assertNear(c, Self.lcms(adobe22, format: Self.typeRGB8, [60, 170, 90]), 3, "PNG gAMA + cHRM")
        XCTAssertGreaterThan(abs(Int(c[0]) - 60), 6, "cHRM converted")
    }

    /// A profile bigger than one APP2 segment (65,519 bytes) is split by the writer and joined
    /// again before use (ICC.1:2010 Annex B.4).
    func testProfileSplitOverSeveralSegments() throws {
        let big = try Self.paddedDisplayP3(copyright: String(repeating: "padding ", count: 20_000))
        XCTAssertGreaterThan(big.count, 2 * 65_519, "three segments at least")
        let jpeg = try Self.flatJPEG([200, 40, 40], icc: big)
        // Count the APP2 ICC_PROFILE segments written.
        var segments = 0, p = 2
        while p + 4 < jpeg.count, jpeg[p] == 0xFF, jpeg[p + 1] != 0xDA {
            let length = Int(jpeg[p + 2]) << 8 | Int(jpeg[p + 3])
            if jpeg[p + 1] == 0xE2, Array(jpeg[(p + 4)..<(p + 15)]) == Array("ICC_PROFILE".utf8) { segments += 1 }
            p += 2 + length
        }
        XCTAssertGreaterThanOrEqual(segments, 3)
        let (got, _) = try Self.thumbnailCentre(jpeg)
        Self.assertNear(got, Self.lcms(big, format: Self.typeRGB8, [200, 40, 40]), 3, "multi-segment profile")
    }

    /// A profile over PC_ICC_MAX_BYTES (4 MiB) is not assembled: the image is kept in its encoded
    /// values with a warning naming the limit (memory bounded whatever the segments declare).
    func testProfileOverFourMiBIsIgnoredWithAWarning() throws {
        // UTF-16 in the tag: 4.4 MB
        let big = try Self.paddedDisplayP3(copyright: String(repeating: "x", count: 2_200_000))
        XCTAssertGreaterThan(big.count, Int(PC_ICC_MAX_BYTES))
        let (got, result) = try Self.thumbnailCentre(try Self.flatJPEG([200, 40, 40], icc: big))
        Self.assertNear(got, [200, 40, 40], 2, "unconverted")
        XCTAssertTrue(result.warnings.contains { $0.contains("over the 4 MiB limit") }, "\(result.warnings)")
    }

    /// A damaged profile keeps the image, unconverted, with a warning.
    func testDamagedProfileIsIgnoredWithAWarning() throws {
        var icc = try Self.profile(PC_TEST_PROFILE_DISPLAY_P3)
        for i in 128..<icc.count { icc[i] = 0xEE } // tag table and tags garbled
        let (got, result) = try Self.thumbnailCentre(try Self.flatJPEG([200, 40, 40], icc: icc))
        Self.assertNear(got, [200, 40, 40], 3, "unconverted")
        XCTAssertTrue(result.warnings.contains { $0.contains("ICC profile") }, "\(result.warnings)")
    }

    /// Thumbnails say sRGB: an APP1 Exif segment with ColorSpace (0xA001) = 1, read back by the
    /// EXIF walker; 54 bytes in the file.
    func testThumbnailCarriesSRGBColorSpaceTag() throws {
        let (_, result) = try Self.thumbnailCentre(try Self.flatJPEG([10, 200, 30], icc: nil))
        let t = result.thumbnail
        XCTAssertEqual(Array(t[0..<2]), [0xFF, 0xD8])
        guard let range = t.withUnsafeBytes({ ExifReader.exifRange(inJPEG: $0) }) else {
            return XCTFail("no Exif APP1 in the thumbnail")
        }
        let tiff = Array(t[range])
        XCTAssertEqual(tiff.count, 44)
        XCTAssertEqual(pc_srgb_exif_app1_size, 50)
        // ColorSpace entry: tag 0xA001, SHORT, count 1, value 1.
        XCTAssertEqual(Array(tiff[28..<38]), [0x01, 0xA0, 3, 0, 1, 0, 0, 0, 1, 0])
    }

    /// No profile: the encoded values are taken as sRGB, untouched.
    func testNoProfileLeavesValues() throws {
        let (got, result) = try Self.thumbnailCentre(try Self.flatJPEG([200, 40, 40], icc: nil))
        Self.assertNear(got, [200, 40, 40], 2, "no profile")
        XCTAssertEqual(result.warnings, [])
    }
}
