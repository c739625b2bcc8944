import CImageCodec
import CImageCodecTesting
import Foundation
import XCTest
@testable import PhotosImaging

/// The progressive DC-only path (dconly.c pc_jpeg_decode_dc_only, called from jpeg.c) decides
/// colour as libjpeg's own decode does: the colour space from the markers before the first SOS,
/// and an embedded profile applied with the layout of the file's colour space.
final class DCOnlyColourDecisionTests: XCTestCase {
    /// Decodes at 1/8 (target edge 5 for 40 × 24) with the DC-only path on or off.
    static func decode(_ bytes: [UInt8], dcOnly: Bool, colorManagement: Bool = false) throws -> DecodedImage {
        try bytes.withUnsafeBytes {
            try ImageDecoder.decode(
                $0, format: .jpeg, targetEdge: 5, maxPixels: 100_000_000,
                tuning: DecoderTuning(
                    dctMethod: .islow, fancyUpsampling: true, progressiveDCOnly: dcOnly,
                    colorManagement: colorManagement, sequentialReduced: false))
        }
    }

    /// An Adobe APP14 segment saying `transform` (0: RGB, 1: YCbCr).
    static func app14(transform: UInt8) -> [UInt8] {
        [0xFF, 0xEE, 0x00, 0x0E] + Array("Adobe".utf8) + [0x00, 0x64, 0x00, 0x00, 0x00, 0x00, transform]
    }

    /// A 4:4:4 YCbCr progressive file without its JFIF APP0 (libjpeg then takes YCbCr by
    /// default), with an APP14 saying RGB after its first scan: libjpeg fixed the colour space
    /// at jpeg_read_header and decodes YCbCr; dconly.c read the APP14 wherever it came and
    /// decoded RGB.
    func testAnAdobeMarkerAfterTheFirstScanDoesNotChangeTheColourSpace() throws {
        let rgb = Reduced.picture(width: 40, height: 24, components: 3)
        let encoded = try Verdict.encode(
            rgb, width: 40, height: 24, mode: Int32(PC_PROGRESSIVE_SIMPLE.rawValue), h: 1, v: 1)
        XCTAssertEqual(Array(encoded[2..<4]), [0xFF, 0xE0])
        let app0 = 4 + (Int(encoded[4]) << 8 | Int(encoded[5]))
        let noJFIF = Array(encoded[..<2]) + Array(encoded[app0...])
        let firstScanEnd = Verdict.scans(noJFIF)[0].end
        for transform: UInt8 in [0, 1, 2] {
            let attacked = Array(noJFIF[..<firstScanEnd]) + Self.app14(transform: transform) + noJFIF[firstScanEnd...]
            let ours = try Self.decode(attacked, dcOnly: true)
            let reference = try Self.decode(attacked, dcOnly: false)
            XCTAssertTrue(ours.usedDCOnly, "transform \(transform)")
            XCTAssertEqual(ours.pixels.bytes, reference.pixels.bytes, "transform \(transform)")
        }
        // Before the first SOS it does decide (RGB): both paths agree there too.
        let before = Array(noJFIF[..<2]) + Self.app14(transform: 0) + noJFIF[2...]
        XCTAssertEqual(
            try Self.decode(before, dcOnly: true).pixels.bytes, try Self.decode(before, dcOnly: false).pixels.bytes)
    }

    /// A progressive grayscale file with a gray profile, and with an RGB one: the DC-only path
    /// converts it as libjpeg's path does (jpeg.c passed PC_LAYOUT_RGB for gray files there).
    func testAGrayFileWithAProfileComesOutAlikeOnBothPaths() throws {
        let gray = Reduced.picture(width: 40, height: 24, components: 1)
        for (name, profile) in [
            ("gray 2.2", try ColorManagementTests.profile(PC_TEST_PROFILE_GRAY, gamma: 2.2)),
            ("gray 1.0", try ColorManagementTests.profile(PC_TEST_PROFILE_GRAY, gamma: 1.0)),
            ("Display P3", try ColorManagementTests.profile(PC_TEST_PROFILE_DISPLAY_P3))
        ] {
            var options = pc_jpeg_encode_options(
                components: 1, quality: 90, mode: Int32(PC_PROGRESSIVE_SIMPLE.rawValue), h_samp: 1, v_samp: 1,
                restart_interval: 0, chroma_tables: 0)
            var output: UnsafeMutablePointer<UInt8>?
            var size = 0
            var messages = pc_messages()
            let status = gray.withUnsafeBufferPointer { p in
                profile.withUnsafeBufferPointer { i in
                    pc_jpeg_encode_icc(
                        p.baseAddress, 40, 24, &options, i.baseAddress, i.count, &output, &size, &messages)
                }
            }
            XCTAssertEqual(status, PC_OK)
            let bytes = Array(UnsafeBufferPointer(start: output!, count: size))
            pc_free(output)
            let ours = try Self.decode(bytes, dcOnly: true, colorManagement: true)
            let reference = try Self.decode(bytes, dcOnly: false, colorManagement: true)
            let plain = try Self.decode(bytes, dcOnly: false, colorManagement: false)
            XCTAssertTrue(ours.usedDCOnly, name)
            XCTAssertEqual(ours.pixels.bytes, reference.pixels.bytes, name)
            if name.hasPrefix("gray 1") { XCTAssertNotEqual(reference.pixels.bytes, plain.pixels.bytes, name) }
        }
    }
}
