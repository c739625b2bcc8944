import CImageCodec
import Foundation
import PhotosTestSupport
import XCTest

/// PNG image data inflated and unfiltered by png.c and handed to libpng as rows of filter type
/// None (Sources/CImageCodec/png.c, `pc_png_feed_start`; unfilter.c), both ways it is inflated —
/// whole by libdeflate, or by zlib's streaming inflate a row at a time — against libpng alone:
/// the same status, error message, warnings, pixels and EXIF for every filter type at every
/// pixel size, interlaced or not, for every PNG of the corpus and for damaged variants.
final class PNGFedRowsTests: XCTestCase {
    /// Decodes with libpng alone and both fed ways; asserts all three alike. Returns (status, fed whole, fed streaming).
    @discardableResult
    static func assertSame(
        _ bytes: [UInt8], _ name: String, targetEdge: Int32 = 0, file: StaticString = #filePath, line: UInt = #line
    ) -> (status: UInt32, whole: Bool, streamed: Bool) {
        let reference = PNGDecoding(bytes, .libpngAlone, targetEdge: targetEdge, ignoreICC: true)
        XCTAssertFalse(reference.fed, "\(name): libpng alone was fed", file: file, line: line)
        let whole = PNGDecoding(bytes, .fed, targetEdge: targetEdge, ignoreICC: true)
        let streamed = PNGDecoding(bytes, .fedStreaming, targetEdge: targetEdge, ignoreICC: true)
        XCTAssertFalse(streamed.whole, "\(name): inflated whole though told never to", file: file, line: line)
        whole.assertSame(as: reference, "\(name) fed", file: file, line: line)
        streamed.assertSame(as: reference, "\(name) fed streaming", file: file, line: line)
        return (reference.status, whole.fed && whole.whole, streamed.fed)
    }

    // MARK: Synthetic images: every filter type on rows of random bytes.

    struct Generator {
        var state: UInt64
        mutating func next() -> UInt8 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 33)
        }
    }

    /// A PNG whose rows (of each Adam7 pass when interlaced) are random bytes behind filter types
    /// 0-4 in turn (or all `filter`), stored uncompressed (TinyPNG.zlibStored).
    static func synthetic(
        width: Int, height: Int, bitDepth: Int, colorType: Int, interlaced: Bool, filter: Int? = nil, seed: UInt64
    ) -> [UInt8] {
        let channels = [0: 1, 2: 3, 3: 1, 4: 2, 6: 4][colorType] ?? 1
        let bits = channels * bitDepth
        var rng = Generator(state: seed)
        var raw: [UInt8] = []
        var rowIndex = 0
        func rows(_ columns: Int, _ count: Int) {
            guard columns > 0, count > 0 else { return }
            for _ in 0..<count {
                raw.append(UInt8(filter ?? rowIndex % 5))
                rowIndex += 1
                for _ in 0..<((columns * bits + 7) / 8) { raw.append(rng.next()) }
            }
        }
        if interlaced {
            // PNG spec §8.2: (first column, column step, first row, row step) of the seven passes.
            for (x0, dx, y0, dy) in [
                (0, 8, 0, 8), (4, 8, 0, 8), (0, 4, 4, 8), (2, 4, 0, 4), (0, 2, 2, 4), (1, 2, 0, 2), (0, 1, 1, 2)
            ] {
                rows((width - x0 + dx - 1) / dx, (height - y0 + dy - 1) / dy)
            }
        } else {
            rows(width, height)
        }
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        png += TinyPNG.chunk(
            "IHDR",
            TinyPNG.be32(UInt32(width)) + TinyPNG.be32(UInt32(height))
                + [UInt8(bitDepth), UInt8(colorType), 0, 0, interlaced ? 1 : 0])
        if colorType == 3 {
            var palette: [UInt8] = []
            for _ in 0..<(3 << bitDepth) { palette.append(rng.next()) }
            png += TinyPNG.chunk("PLTE", palette)
        }
        png += TinyPNG.chunk("IDAT", TinyPNG.zlibStored(raw))
        png += TinyPNG.chunk("IEND", [])
        return png
    }

    /// Every colour type and bit depth (1-8 bytes a pixel, and the packed ones), interlaced or not,
    /// odd sizes: the fed rows give libpng's own pixels, both ways.
    func testEveryFilterAtEveryPixelSizeDecodesAsLibpngAlone() {
        let kinds: [(colorType: Int, depths: [Int])] = [
            (0, [1, 2, 4, 8, 16]), (2, [8, 16]), (3, [1, 2, 4, 8]), (4, [8, 16]), (6, [8, 16])
        ]
        var seed: UInt64 = 1
        for (colorType, depths) in kinds {
            for depth in depths {
                for interlaced in [false, true] {
                    for (width, height) in [(1, 1), (37, 23), (130, 9)] {
                        seed += 1
                        let name = "type \(colorType) depth \(depth) \(width)x\(height) interlaced \(interlaced)"
                        let png = Self.synthetic(
                            width: width, height: height, bitDepth: depth, colorType: colorType,
                            interlaced: interlaced, seed: seed)
                        let r = Self.assertSame(png, name)
                        XCTAssertEqual(r.status, PC_OK.rawValue, name)
                        XCTAssertTrue(r.whole, "\(name): not inflated whole")
                        XCTAssertTrue(r.streamed, "\(name): not fed streaming")
                    }
                }
            }
        }
    }

    /// One filter type on every row, each in turn (a Paeth row under a Paeth row, and so on).
    func testEachFilterTypeAloneDecodesAsLibpngAlone() {
        for filter in 0...4 {
            for (colorType, depth) in [(2, 8), (6, 8), (0, 8), (6, 16)] {
                let name = "filter \(filter) type \(colorType) depth \(depth)"
                let png = Self.synthetic(
                    width: 61, height: 17, bitDepth: depth, colorType: colorType, interlaced: false, filter: filter,
                    seed: UInt64(filter * 10 + colorType))
                XCTAssertEqual(Self.assertSame(png, name).status, PC_OK.rawValue, name)
            }
        }
    }

    /// A filter type over 4 is libpng's error ("bad adaptive filter value"), fed either way.
    func testAFilterTypeOverFourIsLibpngsError() {
        for filter in [5, 255] {
            let png = Self.synthetic(
                width: 20, height: 6, bitDepth: 8, colorType: 2, interlaced: false, filter: filter, seed: 7)
            let r = Self.assertSame(png, "filter \(filter)")
            XCTAssertEqual(r.status, PC_CORRUPT.rawValue)
            XCTAssertEqual(
                PNGDecoding(png, .fedStreaming, targetEdge: 0, ignoreICC: true).error, "bad adaptive filter value")
        }
    }

    // MARK: The corpus, and damaged variants streamed

    /// Every PNG of the corpus alike three ways; the bench's large ones (over the whole-buffer
    /// caps) are fed streaming by default.
    func testEveryCorpusPNGDecodesAsLibpngAlone() throws {
        var fed = 0
        for (name, bytes) in try PNGWholeInflateTests.corpusPNGs() {
            let edge: Int32 = bytes.count > 200_000 ? 120 : 0
            let r = Self.assertSame(bytes, name, targetEdge: edge)
            if r.streamed { fed += 1 }
            if name.hasPrefix("bench/") {
                XCTAssertTrue(r.streamed, "\(name): not fed")
                XCTAssertTrue(
                    PNGDecoding(bytes, .fed, targetEdge: edge, ignoreICC: true).fed, "\(name): not fed by default")
            }
        }
        XCTAssertGreaterThan(fed, 100, "fed streaming for \(fed) corpus PNGs")
    }

    /// Damaged files streamed get libpng's own verdict and message: cut anywhere in or after the
    /// image data, a flipped bit in the image data (CRC left wrong, or made right so the DEFLATE
    /// data or its Adler-32 is wrong), a header declaring a row more or fewer than the data
    /// holds, data after the zlib stream, and a wrong CRC after the image data.
    func testDamagedVariantsStreamedGetLibpngsVerdict() throws {
        let names = [
            "png-suite/basn2c08.png", "png-suite/basn0g01.png", "png-suite/basi6a08.png", "png-suite/basn3p04.png"
        ]
        let sources = try PNGWholeInflateTests.corpusPNGs().filter { names.contains($0.name) }
        XCTAssertEqual(sources.count, 4)
        typealias P = PNGWholeInflateTests
        var rejected = 0
        for (name, original) in sources {
            let bytes = P.rechunked(original, size: 40)
            let all = P.chunks(bytes)
            let idatStart = 8 + all.prefix(while: { $0.type != "IDAT" }).reduce(0) { $0 + 12 + $1.data.count }
            for cut in stride(from: idatStart, to: bytes.count, by: 3) {
                if Self.assertSame(Array(bytes[..<cut]), "\(name) cut at \(cut)").status != PC_OK.rawValue {
                    rejected += 1
                }
            }
            for (index, chunk) in all.enumerated() where chunk.type == "IDAT" {
                for fixCRC in [false, true] {
                    var damaged = all
                    damaged[index].data[chunk.data.count / 2] ^= 0x10
                    damaged[index].crc = fixCRC ? nil : chunk.crc
                    let r = Self.assertSame(P.assemble(damaged), "\(name) IDAT \(index) flipped, CRC fixed \(fixCRC)")
                    if r.status != PC_OK.rawValue { rejected += 1 }
                }
            }
            for delta in [1, -1] {
                var changed = all
                let height = P.be32(changed[0].data, 4) + delta
                changed[0].data[4..<8] = [0, 0, UInt8(height >> 8), UInt8(height & 0xFF)]
                changed[0].crc = nil
                Self.assertSame(P.assemble(changed), "\(name) height \(delta > 0 ? "+" : "")\(delta)")
            }
            // Bytes after the zlib stream's Adler-32, in the last IDAT.
            for count in [1, 3, 9] {
                var extra = all
                if let last = extra.lastIndex(where: { $0.type == "IDAT" }) {
                    extra[last].data += [UInt8](repeating: 0x5A, count: count)
                    extra[last].crc = nil
                    Self.assertSame(P.assemble(extra), "\(name) \(count) bytes after the stream")
                }
            }
            var badEnd = all
            badEnd[badEnd.count - 1].crc = 0x1234_5678
            if Self.assertSame(P.assemble(badEnd), "\(name) IEND CRC wrong").status != PC_OK.rawValue { rejected += 1 }
        }
        XCTAssertGreaterThan(rejected, 50, "the damaged variants include rejected files")
    }
}
