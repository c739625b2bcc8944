import Foundation
import XCTest
import PhotosTestSupport
@testable import PhotosImaging

/// A HEIC over the per-worker decode budget without an embedded thumbnail (a 48 MP phone
/// photo) is decoded in the one process-wide large-decode slot (heif.c,
/// PC_HEIF_LARGE_BUDGET_MB); one over that budget is refused with the reason.
final class LargeHEIFDecodeTests: XCTestCase {
    func testA48MegapixelHEICWithoutThumbnailIsThumbnailed() throws {
        let dir = NSTemporaryDirectory() + "large-heif-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // 8064×6048 = 48.8 MP (a 48 MP phone sensor): 326 MB by the 7-bytes-per-pixel estimate.
        try encodeFlatHEIC(width: 8064, height: 6048, y: 81, cb: 90, cr: 240, noiseRows: 400, to: dir + "/big.heic")
        try encodeFlatHEIC(width: 512, height: 384, y: 81, cb: 90, cr: 240, to: dir + "/small.heic")
        let big = try XCTUnwrap(FileManager.default.contents(atPath: dir + "/big.heic"))
        let small = try XCTUnwrap(FileManager.default.contents(atPath: dir + "/small.heic"))
        let (result, pixels) = try HEIFWebPTests.thumbnail(Array(big))
        XCTAssertEqual(result.width, 8064)
        XCTAssertEqual(result.height, 6048)
        XCTAssertEqual(result.thumbnailWidth, 120)
        XCTAssertEqual(result.thumbnailHeight, 90)
        // The same colour as the same picture small enough for the ordinary budget.
        let (_, reference) = try HEIFWebPTests.thumbnail(Array(small))
        let c = pixels.pixel(x: 60, y: 45), r = reference.pixel(x: 60, y: 45)
        ColorManagementTests.assertNear([c.0, c.1, c.2], [r.0, r.1, r.2], 3, "large HEIC colour")
        XCTAssertGreaterThan(Int(c.0), 150, "red, as Y′CbCr (81, 90, 240) is: \(c)")
    }

    /// `heic` with every ispe set to `width` × `height`.
    static func declaring(_ width: Int, _ height: Int) throws -> [UInt8] {
        var heic = try HEIFWebPTests.heif()
        var i = 0
        while let r = heic[i...].firstRange(of: Array("ispe".utf8)) {
            let at = r.upperBound + 4
            for (k, v) in [(0, width), (4, height)] {
                heic[at + k] = UInt8(v >> 24)
                heic[at + k + 1] = UInt8(v >> 16 & 0xFF)
                heic[at + k + 2] = UInt8(v >> 8 & 0xFF)
                heic[at + k + 3] = UInt8(v & 0xFF)
            }
            i = r.upperBound
        }
        return heic
    }

    /// Memory stays bounded by the bytes given: a file of a few KB coding 6000×4000 (a flat
    /// picture: 160 MB to decode) does not get the large-decode slot (at most 512 decode bytes
    /// per file byte) and is refused before decoding.
    func testASmallFileOfALargeImageIsRefused() throws {
        let dir = NSTemporaryDirectory() + "large-heif-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try encodeFlatHEIC(width: 6000, height: 4000, y: 81, cb: 90, cr: 240, to: dir + "/flat.heic")
        let heic = try [UInt8](XCTUnwrap(FileManager.default.contents(atPath: dir + "/flat.heic")))
        XCTAssertLessThan(heic.count, 100_000)
        XCTAssertThrowsError(try HEIFWebPTests.thumbnail(heic)) { error in
            XCTAssertEqual(
                error as? ImageError,
                .overBudget(
                    "decoding this 6000x4000 HEIF image needs 161 MB, over the per-worker decode budget of 100 MB, and a file of \(heic.count) bytes may take at most 512 bytes per byte (it has no thumbnail of at least 120 pixels)"
                ))
        }
    }

    /// 10000×8000 (80 MP, under the 100 MP pixel limit; an AVIF, as HEVC levels stop at 35 MP)
    /// needs 535 MB (rounded up): over the large-decode budget, refused from the header before
    /// decoding.
    func testOverTheLargeDecodeBudgetIsRefused() throws {
        let dir = NSTemporaryDirectory() + "large-heif-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try encodeFlatHEIC(width: 10_000, height: 8_000, y: 81, cb: 90, cr: 240, avif: true, to: dir + "/flat.avif")
        let avif = try [UInt8](XCTUnwrap(FileManager.default.contents(atPath: dir + "/flat.avif")))
        XCTAssertThrowsError(try HEIFWebPTests.thumbnail(avif)) { error in
            XCTAssertEqual(
                error as? ImageError,
                .overBudget(
                    "decoding this 10000x8000 HEIF image needs 535 MB, over the 400 MB a large HEIF decode may take (it has no thumbnail of at least 120 pixels)"
                ))
        }
    }

    /// Issue 31 B15: an ispe declaring another size than the coded stream's (here larger) is
    /// refused as corrupt before libheif is handed the file, whatever the budget would say.
    func testADeclaredSizeOtherThanTheCodedOneIsRefused() throws {
        for (width, height) in [(6000, 4000), (10_000, 8_000)] {
            let heic = try Self.declaring(width, height)
            XCTAssertThrowsError(try HEIFWebPTests.thumbnail(heic)) { error in
                XCTAssertEqual(
                    error as? ImageError,
                    .corrupt(
                        "HEIF file is corrupt: item 1's HEVC SPS codes 480x320 pixels (480x320 shown), its ispe says \(width)x\(height)"
                    ))
            }
        }
    }
}
