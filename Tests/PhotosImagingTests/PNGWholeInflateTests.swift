import CImageCodec
import Foundation
import PhotosTestSupport
import XCTest

/// PNG image data inflated whole by libdeflate (Sources/CImageCodec/png.c, `pc_png_inflate_whole`)
/// against libpng's own streaming zlib inflate of the same file: the same status, error message,
/// warnings, pixels and EXIF, on every PNG of the corpus and on damaged variants of them.
final class PNGWholeInflateTests: XCTestCase {
    /// Decodes both ways and asserts everything but the path taken is equal; returns the default path's result.
    @discardableResult
    static func assertSame(_ bytes: [UInt8], _ name: String, file: StaticString = #filePath, line: UInt = #line)
        -> PNGDecoding
    {
        // Full size for small images (every pixel compared), the thumbnail scale for the bench's large ones.
        let edge: Int32 = bytes.count > 200_000 ? 120 : 0
        let reference = PNGDecoding(bytes, .libpngAlone, targetEdge: edge)
        let fast = PNGDecoding(bytes, .fed, targetEdge: edge)
        XCTAssertFalse(reference.whole, "\(name): the reference took the whole-buffer path", file: file, line: line)
        fast.assertSame(as: reference, name, file: file, line: line)
        return fast
    }

    static func corpusPNGs() throws -> [(name: String, bytes: [UInt8])] {
        let corpus = try requireCorpus()
        return try loadManifest(corpus).filter { $0.format == "png" }.map { entry in
            (entry.path, try [UInt8](Data(contentsOf: URL(fileURLWithPath: corpus + "/" + entry.path))))
        }
    }

    // MARK: PNG structure (PNG spec §5.3), for making variants.

    struct Chunk {
        var type: String
        var data: [UInt8]
        var crc: UInt32? = nil // nil: the right CRC
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for b in bytes {
            crc ^= UInt32(b)
            for _ in 0..<8 { crc = (crc >> 1) ^ (0xEDB8_8320 & (0 &- (crc & 1))) }
        }
        return ~crc
    }

    static func be32(_ d: [UInt8], _ i: Int) -> Int {
        Int(d[i]) << 24 | Int(d[i + 1]) << 16 | Int(d[i + 2]) << 8 | Int(d[i + 3])
    }

    static func chunks(_ d: [UInt8]) -> [Chunk] {
        var out: [Chunk] = []
        var i = 8
        while i + 12 <= d.count {
            let length = be32(d, i)
            guard i + 12 + length <= d.count else { break }
            out.append(
                Chunk(
                    type: String(decoding: d[(i + 4)..<(i + 8)], as: UTF8.self),
                    data: Array(d[(i + 8)..<(i + 8 + length)]), crc: UInt32(be32(d, i + 8 + length))))
            i += 12 + length
        }
        return out
    }

    static func assemble(_ chunks: [Chunk]) -> [UInt8] {
        var out: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        for c in chunks {
            let n = UInt32(c.data.count)
            out += [UInt8(n >> 24), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)]
            let body = Array(c.type.utf8) + c.data
            out += body
            let crc = c.crc ?? crc32(body)
            out += [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)]
        }
        return out
    }

    /// The file with its image data joined and re-split into IDAT chunks of `size` bytes (right CRCs).
    static func rechunked(_ d: [UInt8], size: Int) -> [UInt8] {
        let all = chunks(d)
        guard let first = all.firstIndex(where: { $0.type == "IDAT" }) else { return d }
        let stream = all.filter { $0.type == "IDAT" }.flatMap(\.data)
        var pieces: [Chunk] = []
        var at = 0
        while at < stream.count {
            pieces.append(Chunk(type: "IDAT", data: Array(stream[at..<min(at + size, stream.count)])))
            at += size
        }
        let rest = all.filter { $0.type != "IDAT" }
        return assemble(Array(rest[..<first]) + pieces + Array(rest[first...]))
    }

    // MARK: Tests

    /// Every PNG of the corpus (valid, damaged, and the bench's large ones) decodes alike both ways,
    /// and the whole-buffer path is really taken for the valid ones it covers.
    func testEveryCorpusPNGDecodesAsLibpngStreamingDoes() throws {
        var taken = 0
        var bench: [String] = []
        for (name, bytes) in try Self.corpusPNGs() {
            let result = Self.assertSame(bytes, name)
            if result.whole { taken += 1 }
            if result.whole && name.hasPrefix("bench/") { bench.append(name) }
        }
        // 170 PngSuite files, most with one 32 KiB-window zlib stream.
        XCTAssertGreaterThan(taken, 100, "whole-buffer inflate taken for \(taken) corpus PNGs")
        // The bench PNGs (25–59 MB inflated, plus the joined copy of their many IDAT chunks) are
        // over the 24 MiB cap that keeps an import's peak RSS under 100 MB: streamed.
        XCTAssertEqual(bench, [])
    }

    /// Image data split over many IDAT chunks is joined, inflated whole, and decodes to the same pixels.
    func testImageDataOverManyChunksIsJoined() throws {
        for (name, bytes) in try Self.corpusPNGs() where name.hasPrefix("png-suite/basn") {
            for size in [1, 7, 100] {
                let result = Self.assertSame(Self.rechunked(bytes, size: size), "\(name) in \(size)-byte IDATs")
                XCTAssertTrue(result.whole, "\(name) in \(size)-byte IDATs: whole-buffer path not taken")
            }
        }
    }

    /// Damaged files get libpng's own verdict and message whichever path is allowed: cut anywhere,
    /// a flipped bit in the image data (CRC wrong; or CRC recomputed, so the zlib stream or its
    /// Adler-32 is wrong), a header declaring more or fewer rows than the data holds, a bad CRC on a
    /// chunk after the image data, and a zlib header with a small window.
    func testDamagedVariantsGetLibpngsVerdict() throws {
        let sources = try Self.corpusPNGs().filter {
            ["png-suite/basn2c08.png", "png-suite/basn0g01.png", "png-suite/basi6a08.png", "png-suite/basn3p04.png"]
                .contains($0.name)
        }
        XCTAssertEqual(sources.count, 4)
        var rejected = 0
        for (name, original) in sources {
            let bytes = Self.rechunked(original, size: 40)
            let all = Self.chunks(bytes)
            let idatStart = 8 + all.prefix(while: { $0.type != "IDAT" }).reduce(0) { $0 + 12 + $1.data.count }
            // Cut at every offset from inside the first IDAT to the end.
            for cut in stride(from: idatStart, to: bytes.count, by: 3) {
                let r = Self.assertSame(Array(bytes[..<cut]), "\(name) cut at \(cut)")
                if r.status != PC_OK.rawValue { rejected += 1 }
            }
            // One flipped bit in each IDAT, CRC left wrong, and CRC made right again.
            for (index, chunk) in all.enumerated() where chunk.type == "IDAT" {
                for fixCRC in [false, true] {
                    var damaged = all
                    damaged[index].data[chunk.data.count / 2] ^= 0x10
                    damaged[index].crc = fixCRC ? nil : chunk.crc
                    let r = Self.assertSame(
                        Self.assemble(damaged), "\(name) IDAT \(index) flipped, CRC fixed \(fixCRC)")
                    if r.status != PC_OK.rawValue { rejected += 1 }
                }
            }
            // IHDR height one more and one fewer than the data holds.
            for delta in [1, -1] {
                var changed = all
                let height = Self.be32(changed[0].data, 4) + delta
                changed[0].data[4..<8] = [0, 0, UInt8(height >> 8), UInt8(height & 0xFF)]
                changed[0].crc = nil
                Self.assertSame(Self.assemble(changed), "\(name) height \(delta > 0 ? "+" : "")\(delta)")
            }
            // A wrong CRC on IEND, after the image data (libpng checks it in png_read_end).
            var badEnd = all
            badEnd[badEnd.count - 1].crc = 0x1234_5678
            let r = Self.assertSame(Self.assemble(badEnd), "\(name) IEND CRC wrong")
            if r.status != PC_OK.rawValue { rejected += 1 }
        }
        XCTAssertGreaterThan(rejected, 50, "the damaged variants include rejected files")
    }

    /// A zlib header declaring a window under 32 KiB (RFC 1950 CINFO < 7) is left to libpng's zlib.
    func testSmallWindowStreamIsLeftToLibpng() throws {
        guard let (name, bytes) = try Self.corpusPNGs().first(where: { $0.name == "png-suite/basn2c08.png" }) else {
            return XCTFail("basn2c08.png missing from the corpus manifest")
        }
        var all = Self.chunks(bytes)
        guard let i = all.firstIndex(where: { $0.type == "IDAT" }) else { return XCTFail("\(name): no IDAT") }
        XCTAssertTrue(PNGDecoding(bytes, .fed, targetEdge: 0).whole)
        // CMF 0x78 -> 0x68 (CINFO 6); FLG adjusted so (CMF*256 + FLG) % 31 == 0 again.
        all[i].data[0] = 0x68
        var flg = Int(all[i].data[1]) & 0xE0
        flg += (31 - (0x68 * 256 + flg) % 31) % 31
        all[i].data[1] = UInt8(flg)
        all[i].crc = nil
        let result = Self.assertSame(Self.assemble(all), "\(name) CINFO 6")
        XCTAssertFalse(result.whole)
    }
}
