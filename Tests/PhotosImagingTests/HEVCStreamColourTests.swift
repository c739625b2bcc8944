import CImageCodec
import CImageCodecTesting
import Foundation
import XCTest
@testable import PhotosImaging

/// A HEIC whose colour is described only inside its HEVC stream (the SPS VUI's
/// colour_primaries/transfer_characteristics; no colr box, no ICC profile) is converted to
/// sRGB like one with an nclx colr box: libheif 1.15 reports neither, so heif.c reads the VUI
/// itself (hevcvui.c). libheif 1.15's x265 path writes exactly such files: the nclx given to
/// the encoder goes into the VUI only.
final class HEVCStreamColourTests: XCTestCase {
    static func flat(_ rgb: [UInt8]) -> [UInt8] {
        var pixels: [UInt8] = []
        for _ in 0..<(HEIFWebPTests.width * HEIFWebPTests.height) { pixels += rgb }
        return pixels
    }

    /// The file has no colr box: the VUI is where its colour is.
    func assertNoColrBox(_ file: [UInt8], _ message: String) {
        XCTAssertNil(file.firstRange(of: Array("colr".utf8)), message)
    }

    func testDisplayP3InTheHEVCStreamIsConverted() throws {
        let icc = try ColorManagementTests.profile(PC_TEST_PROFILE_DISPLAY_P3)
        let flat = Self.flat([200, 40, 40])
        let p3File = try HEIFWebPTests.heif(nclxPrimaries: 12, pixels: flat)
        assertNoColrBox(p3File, "P3")
        let (_, plain) = try HEIFWebPTests.thumbnail(try HEIFWebPTests.heif(nclxPrimaries: 1, pixels: flat))
        let (_, p3) = try HEIFWebPTests.thumbnail(p3File)
        let p = plain.pixel(x: 60, y: 40), c = p3.pixel(x: 60, y: 40)
        ColorManagementTests.assertNear([p.0, p.1, p.2], [200, 40, 40], 4, "BT.709 in the VUI: untouched")
        let want = ColorManagementTests.lcms(icc, format: ColorManagementTests.typeRGB8, [p.0, p.1, p.2])
        ColorManagementTests.assertNear([c.0, c.1, c.2], want, 3, "P3 in the VUI, as lcms2 converts P3")
        XCTAssertGreaterThan(Int(c.0), Int(p.0) + 10, "P3 red is redder than sRGB red: \(c) vs \(p)")
    }

    /// BT.2020 primaries in the VUI give the colours the same picture gets from a BT.2020 nclx
    /// colr box (an AVIF, read through libheif's nclx profile).
    func testBT2020InTheHEVCStreamMatchesAnNCLXBox() throws {
        let flat = Self.flat([60, 170, 90])
        let heic = try HEIFWebPTests.heif(nclxPrimaries: 9, pixels: flat)
        assertNoColrBox(heic, "BT.2020")
        let (_, fromVUI) = try HEIFWebPTests.thumbnail(heic)
        let (_, fromBox) = try HEIFWebPTests.thumbnail(
            try HEIFWebPTests.heif(av1: true, nclxPrimaries: 9, pixels: flat))
        let (_, plain) = try HEIFWebPTests.thumbnail(try HEIFWebPTests.heif(pixels: flat))
        let v = fromVUI.pixel(x: 60, y: 40), b = fromBox.pixel(x: 60, y: 40), p = plain.pixel(x: 60, y: 40)
        ColorManagementTests.assertNear([v.0, v.1, v.2], [b.0, b.1, b.2], 4, "VUI BT.2020 = colr nclx BT.2020")
        XCTAssertGreaterThan(abs(Int(v.1) - Int(p.1)) + abs(Int(v.0) - Int(p.0)), 20, "converted: \(v) vs \(p)")
    }
}
