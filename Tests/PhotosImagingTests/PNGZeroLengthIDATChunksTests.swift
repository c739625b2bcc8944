import CImageCodec
import XCTest

/// Zero-length IDAT chunks are valid PNG (PNG spec §11.2.4: the image data is the
/// concatenation of the IDAT chunks' data, "there may be multiple IDAT chunks"; a chunk's
/// length may be 0, §5.3): png.c, which hands libpng the IDAT run re-encoded when it inflates
/// the image data itself (`pc_png_feed_start`), decodes them as libpng alone does — whole,
/// streamed, and with an empty chunk first, between and last in the run.
final class PNGZeroLengthIDATChunksTests: XCTestCase {
    typealias P = PNGWholeInflateTests

    /// `png` with its image data re-split: an empty IDAT where `layout` says 0, else the next
    /// `n` bytes of the zlib stream (the last non-zero piece takes the rest).
    private func resplit(_ png: [UInt8], _ layout: [Int]) -> [UInt8] {
        let all = P.chunks(png)
        guard let first = all.firstIndex(where: { $0.type == "IDAT" }) else { return png }
        let stream = all.filter { $0.type == "IDAT" }.flatMap(\.data)
        var pieces: [P.Chunk] = []
        var at = 0
        let lastData = layout.lastIndex { $0 > 0 }
        for (index, n) in layout.enumerated() {
            let end = index == lastData ? stream.count : min(stream.count, at + n)
            pieces.append(P.Chunk(type: "IDAT", data: Array(stream[at..<end])))
            at = end
        }
        let rest = all.filter { $0.type != "IDAT" }
        return P.assemble(Array(rest[..<first]) + pieces + Array(rest[first...]))
    }

    func testEmptyIDATChunksAnywhereInTheRunDecodeAsLibpngAlone() {
        let layouts: [[Int]] = [
            [0, 1], [0, 0, 1], [0, 100, 0, 1], [1, 0, 1], [100, 0, 0, 1, 0], [2, 1, 0], [0, 1, 0, 0]
        ]
        for interlaced in [false, true] {
            let png = PNGFedRowsTests.synthetic(
                width: 61, height: 47, bitDepth: 8, colorType: 2, interlaced: interlaced, seed: 7)
            let plain = PNGDecoding(png, .libpngAlone, targetEdge: 0, ignoreICC: true)
            XCTAssertEqual(plain.status, PC_OK.rawValue)
            for layout in layouts {
                let name = "\(interlaced ? "Adam7" : "plain") IDAT lengths \(layout)"
                let split = resplit(png, layout)
                let r = PNGFedRowsTests.assertSame(split, name)
                XCTAssertEqual(r.status, PC_OK.rawValue, name)
                XCTAssertTrue(r.streamed, "\(name): the rows were not fed (the case under test)")
                // The same pixels as the file with one IDAT.
                let fed = PNGDecoding(split, .fed, targetEdge: 0, ignoreICC: true)
                XCTAssertTrue(fed.pixels == plain.pixels, "\(name): pixels differ from the one-IDAT file")
            }
        }
    }
}
