import Foundation
import XCTest
import PhotosTestSupport
@testable import PhotosImaging

/// Issue 24 items 5 and 6: JPEG XL with libjxl (corpus rows, cjxl's JPEG recompression and PNG
/// encodes, hostile bytes) and HDR PQ/HLG thumbnails (AVIF made by avifenc, JXL by cjxl).
final class JPEGXLAndHDRTests: TemporaryFolderTestCase {
    override var label: String { "photos-jxlhdr" }

    /// Runs a public encoder (cjxl, avifenc) from /usr/bin, or skips when it is not installed.
    func tool(_ name: String, _ args: [String]) throws {
        let path = "/usr/bin/" + name
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw XCTSkip("\(name) is not installed (Debian libjxl-tools / libavif-bin): test skipped")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = args
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "\(name) \(args)")
    }

    func thumbnail(_ path: String, tuning: DecoderTuning = .default) throws -> (ThumbnailResult, PixelBuffer) {
        let bytes = try XCTUnwrap(FileManager.default.contents(atPath: path), path)
        let result = try bytes.withUnsafeBytes {
            try Thumbnailer.makeThumbnail(from: $0, options: ThumbnailOptions(quality: 100), tuning: tuning)
        }
        let pixels = try result.thumbnail.withUnsafeBytes {
            try ImageDecoder.decode($0, format: .jpeg, targetEdge: 10_000, maxPixels: 1_000_000).pixels
        }
        return (result, pixels)
    }

    static func meanAbsoluteDifference(_ a: PixelBuffer, _ b: PixelBuffer) -> Double {
        let x = a.bytes, y = b.bytes
        return Double(zip(x, y).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }) / Double(max(1, x.count))
    }

    /// Mean and standard deviation of BT.601 luma, 0...255.
    static func luma(_ image: PixelBuffer) -> (mean: Double, deviation: Double) {
        let b = image.bytes
        let values = stride(from: 0, to: b.count - 2, by: 3).map {
            0.299 * Double(b[$0]) + 0.587 * Double(b[$0 + 1]) + 0.114 * Double(b[$0 + 2])
        }
        let mean = values.reduce(0, +) / Double(max(1, values.count))
        let variance = values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(max(1, values.count))
        return (mean, variance.squareRoot())
    }

    /// Every JPEG XL row of camera-formats/MANIFEST.tsv: `ok` files give the manifest's size,
    /// orientation (exiftool's, 1 when it reads none) and capture time; `reject` files are refused
    /// with a reason; `either` files do not crash.
    func testCorpusJPEGXLRows() throws {
        let corpus = try requireCorpus()
        let rows = try loadManifest(corpus + "/camera-formats").filter { $0.format == "jxl" }
        XCTAssertGreaterThanOrEqual(rows.count, 1, "camera-formats has JPEG XL rows")
        for row in rows {
            let bytes = try XCTUnwrap(FileManager.default.contents(atPath: corpus + "/" + row.path), row.path)
            let result = Result {
                try bytes.withUnsafeBytes { try Thumbnailer.makeThumbnail(from: $0, options: ThumbnailOptions()) }
            }
            switch (row.expect, result) {
            case ("ok", .success(let thumbnail)):
                XCTAssertEqual(thumbnail.format, .jxl, row.path)
                XCTAssertEqual([thumbnail.width, thumbnail.height], [row.width, row.height], row.path)
                XCTAssertEqual(max(thumbnail.thumbnailWidth, thumbnail.thumbnailHeight), 120, row.path)
                let orientation = row.note.range(of: "\"Orientation\":").map {
                    Int(row.note[$0.upperBound...].prefix(while: \.isNumber)) ?? 1
                }
                XCTAssertEqual(thumbnail.orientation.rawValue, orientation ?? 1, row.path)
                if row.note.contains("DateTimeOriginal") {
                    XCTAssertNotNil(thumbnail.dateTimeOriginal, row.path)
                } else {
                    XCTAssertNil(thumbnail.dateTimeOriginal, row.path)
                }
                let (mean, deviation) = Self.luma(
                    try thumbnail.thumbnail.withUnsafeBytes {
                        try ImageDecoder.decode($0, format: .jpeg, targetEdge: 10_000, maxPixels: 1_000_000).pixels
                    })
                XCTAssertGreaterThan(deviation, 10, "\(row.path): a picture, not a flat field (mean \(mean))")
            case ("ok", .failure(let error)):
                XCTFail("\(row.path): \(error)")
            case ("reject", .success):
                XCTFail("\(row.path) should be refused")
            case ("reject", .failure(let error)):
                XCTAssertFalse("\(error)".isEmpty, row.path)
            default:
                break // either: decoded or refused, not crashed
            }
        }
    }

    /// `cjxl` of a JPEG recompresses it losslessly (a jbrd box): the thumbnail is the JPEG's, byte
    /// for byte, with its EXIF capture time and orientation.
    func testRecompressedJPEGGivesTheJPEGsThumbnailBytes() throws {
        for name in ["ladybird.jpg", "dune-orientation6.jpg", "colorful-cups-progressive.jpg"] {
            let jxl = dir + "/" + name + ".jxl"
            try tool("cjxl", [samplesDir + "/" + name, jxl])
            let (fromJXL, _) = try thumbnail(jxl)
            let (fromJPEG, _) = try thumbnail(samplesDir + "/" + name)
            XCTAssertEqual(fromJXL.format, .jxl, name)
            XCTAssertEqual(fromJXL.thumbnail, fromJPEG.thumbnail, "\(name): the same thumbnail bytes")
            XCTAssertEqual([fromJXL.width, fromJXL.height], [fromJPEG.width, fromJPEG.height], name)
            XCTAssertEqual(fromJXL.orientation, fromJPEG.orientation, name)
            XCTAssertEqual(fromJXL.dateTimeOriginal, fromJPEG.dateTimeOriginal, name)
            let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: jxl)[.size] as? Int)
            XCTAssertLessThan(size, try XCTUnwrap(FileManager.default.contents(atPath: samplesDir + "/" + name)).count)
        }
        XCTAssertEqual(try thumbnail(dir + "/dune-orientation6.jpg.jxl").0.orientation, .right)
    }

    /// kite.png (1024×640) through cjxl: lossless within 1 level of the PNG's own thumbnail (mean
    /// absolute difference per channel; the float path rounds once more), lossy `-d 1` within 3;
    /// the lossy one's DC pass (1/8: 128 px), with PHOTOS_JXL_DC_PASS=1, is within 2 of the whole decode.
    func testJPEGXLFromPNGMatchesThePNG() throws {
        let png = samplesDir + "/kite.png"
        try tool("cjxl", [png, dir + "/lossless.jxl", "-d", "0"])
        try tool("cjxl", [png, dir + "/lossy.jxl", "-d", "1"])
        let (reference, referencePixels) = try thumbnail(png)
        let (lossless, losslessPixels) = try thumbnail(dir + "/lossless.jxl")
        XCTAssertEqual([lossless.width, lossless.height], [1024, 640])
        XCTAssertEqual([lossless.thumbnailWidth, lossless.thumbnailHeight], [120, 75])
        XCTAssertEqual(lossless.format, .jxl)
        XCTAssertLessThan(Self.meanAbsoluteDifference(losslessPixels, referencePixels), 1.0)
        let (_, lossyPixels) = try thumbnail(dir + "/lossy.jxl")
        XCTAssertLessThan(Self.meanAbsoluteDifference(lossyPixels, referencePixels), 3.0)
        XCTAssertEqual([reference.thumbnailWidth, reference.thumbnailHeight], [120, 75])

        let bytes = try XCTUnwrap(FileManager.default.contents(atPath: dir + "/lossy.jxl"))
        setenv("PHOTOS_JXL_DC_PASS", "1", 1)
        let dc = try bytes.withUnsafeBytes {
            try ImageDecoder.decode($0, format: .jxl, targetEdge: 120, maxPixels: 100_000_000)
        }
        unsetenv("PHOTOS_JXL_DC_PASS")
        let whole = try bytes.withUnsafeBytes {
            try ImageDecoder.decode(
                $0, format: .jxl, targetEdge: 120, maxPixels: 100_000_000,
                tuning: DecoderTuning(dctMethod: .islow, fancyUpsampling: true, progressiveDCOnly: false))
        }
        XCTAssertTrue(dc.usedDCOnly, "the DC pass keeps 128 px")
        XCTAssertFalse(whole.usedDCOnly)
        XCTAssertEqual([dc.pixels.width, dc.pixels.height], [whole.pixels.width, whole.pixels.height])
        XCTAssertLessThan(Self.meanAbsoluteDifference(dc.pixels, whole.pixels), 2.0)
    }

    /// A flat 16-bit grey PNG of `value` (0...65535), 64 × 48, as RGB (colour type 2: cjxl refuses
    /// an RGB colour space for a grey PNG).
    func greyPNG16(_ path: String, value: Int) throws {
        var raw: [UInt8] = []
        for _ in 0..<48 {
            raw.append(0)
            for _ in 0..<(64 * 3) { raw += [UInt8(value >> 8), UInt8(value & 0xFF)] }
        }
        try writePNG(path, width: 64, height: 48, colourType: 2, raw: raw)
    }

    /// Known values of the tone mapping (hdr.c: BT.2100 PQ EOTF, BT.2390 EETF 1000 → 203 cd/m²,
    /// 203 cd/m² = SDR white, sRGB curve), on lossless JXL greys that cjxl tags Rec.2100 PQ or HLG.
    /// Expected sRGB levels computed independently from the formulas (Python, double precision):
    /// PQ codes 19641, 33297, 38055, 49271 (10, 100, 203, 1000 cd/m²) → 62.7, 185.7, 229.0, 255;
    /// HLG 0.75 (49151: 203 cd/m² through the OOTF at 1000 cd/m²) → 229.0.
    func testToneMappedGreysHaveTheOperatorsValues() throws {
        let cases: [(String, Int, Double)] = [
            ("RGB_D65_202_Rel_PeQ", 19641, 62.7), ("RGB_D65_202_Rel_PeQ", 33297, 185.7),
            ("RGB_D65_202_Rel_PeQ", 38055, 229.0), ("RGB_D65_202_Rel_PeQ", 49271, 255),
            ("RGB_D65_202_Rel_HLG", 49151, 229.0)
        ]
        for (space, code, expected) in cases {
            let png = dir + "/grey-\(code).png", jxl = dir + "/grey-\(code)-\(space).jxl"
            try greyPNG16(png, value: code)
            try tool("cjxl", [png, jxl, "-d", "0", "-x", "color_space=\(space)"])
            let bytes = try XCTUnwrap(FileManager.default.contents(atPath: jxl))
            let decoded = try bytes.withUnsafeBytes {
                try ImageDecoder.decode($0, format: .jxl, targetEdge: 120, maxPixels: 100_000_000)
            }
            let level = decoded.pixels.bytes
            XCTAssertEqual(level.count, 64 * 48 * 3)
            XCTAssertEqual(Double(level[0]), expected, accuracy: 1.5, "\(space) \(code)")
            XCTAssertEqual(level.min(), level.max(), "a flat grey stays flat")
            // Not tone-mapped (colorManagement false): the signal as it is, code/65535 × 255.
            let raw = try bytes.withUnsafeBytes {
                try ImageDecoder.decode(
                    $0, format: .jxl, targetEdge: 120, maxPixels: 100_000_000,
                    tuning: DecoderTuning(
                        dctMethod: .islow, fancyUpsampling: true, progressiveDCOnly: true, colorManagement: false))
            }
            XCTAssertEqual(Double(raw.pixels.bytes[0]), Double(code) / 65535 * 255, accuracy: 1.0)
        }
    }

    /// A real picture (kite.png widened to 16 bits) tagged PQ and HLG: AVIF by avifenc (nclx
    /// 9/16/9 and 9/18/9, 10-bit) and JXL by cjxl. The thumbnail is a picture, not a flat or
    /// washed-out field: luma standard deviation over 25 and mean within 40...200 (kite.png's own
    /// thumbnail: mean 122, deviation 60 — PQ maps the signal darker, mid codes being ~100 cd/m²).
    func testHDRThumbnailsAreToneMappedPictures() throws {
        let png16 = dir + "/kite16.png"
        let source = try XCTUnwrap(FileManager.default.contents(atPath: samplesDir + "/kite.png"))
        let decoded = try source.withUnsafeBytes {
            try ImageDecoder.decode($0, format: .png, targetEdge: 10_000, maxPixels: 100_000_000)
        }
        try rgbPNG16(png16, decoded.pixels)
        try tool("avifenc", ["--cicp", "9/16/9", "-d", "10", "-s", "8", png16, dir + "/pq.avif"])
        try tool("avifenc", ["--cicp", "9/18/9", "-d", "10", "-s", "8", png16, dir + "/hlg.avif"])
        try tool("cjxl", [png16, dir + "/pq.jxl", "-d", "1", "-x", "color_space=RGB_D65_202_Rel_PeQ"])
        for name in ["pq.avif", "hlg.avif", "pq.jxl"] {
            let (result, pixels) = try thumbnail(dir + "/" + name)
            XCTAssertEqual([result.width, result.height], [1024, 640], name)
            let (mean, deviation) = Self.luma(pixels)
            XCTAssertGreaterThan(deviation, 25, "\(name): mean \(mean)")
            XCTAssertTrue((40...200).contains(mean), "\(name): mean \(mean), deviation \(deviation)")
        }
        // PQ and HLG of the same signal are different pictures: below 0.75 (203 cd/m² in both) HLG's
        // codes are darker (signal 0.5: PQ 92 cd/m², HLG 50 cd/m²), so its thumbnail is darker.
        let pq = Self.luma(try thumbnail(dir + "/pq.avif").1).mean
        let hlg = Self.luma(try thumbnail(dir + "/hlg.avif").1).mean
        XCTAssertGreaterThan(pq, hlg + 2, "PQ \(pq), HLG \(hlg)")
    }

    /// A 16-bit RGB PNG of 8-bit pixels (v × 257), as `greyPNG16` writes.
    func rgbPNG16(_ path: String, _ image: PixelBuffer) throws {
        let width = image.width, height = image.height, b = image.bytes
        var raw: [UInt8] = []
        raw.reserveCapacity(height * (1 + width * 6))
        for y in 0..<height {
            raw.append(0)
            for i in (y * width * 3)..<((y + 1) * width * 3) { raw += [b[i], b[i]] }
        }
        try writePNG(path, width: width, height: height, colourType: 2, raw: raw)
    }

    /// Writes a 16-bit PNG of filtered rows `raw` (PNG spec §11.2.2; one IDAT of stored deflate blocks).
    func writePNG(_ path: String, width: Int, height: Int, colourType: UInt8, raw: [UInt8]) throws {
        func be32(_ v: Int) -> [UInt8] {
            [UInt8(v >> 24 & 255), UInt8(v >> 16 & 255), UInt8(v >> 8 & 255), UInt8(v & 255)]
        }
        var table = [UInt32](repeating: 0, count: 256)
        for n in 0..<256 {
            var c = UInt32(n)
            for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
            table[n] = c
        }
        func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
            let body = Array(type.utf8) + data
            var c: UInt32 = 0xFFFF_FFFF
            for byte in body { c = table[Int((c ^ UInt32(byte)) & 255)] ^ (c >> 8) }
            return be32(data.count) + body + be32(Int(c ^ 0xFFFF_FFFF))
        }
        var zlib: [UInt8] = [0x78, 0x01]
        var at = 0
        while at < raw.count {
            let n = min(65535, raw.count - at)
            zlib += [
                at + n == raw.count ? 1 : 0, UInt8(n & 255), UInt8(n >> 8), UInt8(~n & 255), UInt8((~n >> 8) & 255)
            ]
            zlib += raw[at..<(at + n)]
            at += n
        }
        var a: UInt32 = 1, s: UInt32 = 0
        for byte in raw {
            a = (a + UInt32(byte)) % 65521
            s = (s + a) % 65521
        }
        zlib += be32(Int(s << 16 | a))
        let png: [UInt8] =
            [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
            + chunk("IHDR", be32(width) + be32(height) + [16, colourType, 0, 0, 0]) + chunk("IDAT", zlib)
            + chunk("IEND", [])
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(png)))
    }

    /// Truncations and bit flips of JPEG XL seeds (a recompressed JPEG, a lossless and a lossy
    /// encode, the corpus file) are decoded or refused with a reason: none crashes or hangs.
    func testHostileJPEGXLIsRefusedOrDecoded() throws {
        try tool("cjxl", [samplesDir + "/ladybird.jpg", dir + "/recon.jxl"])
        try tool("cjxl", [samplesDir + "/kite.png", dir + "/lossy.jxl", "-d", "2"])
        var seeds = [dir + "/recon.jxl", dir + "/lossy.jxl"]
        if let corpus = corpusDir { seeds.append(corpus + "/camera-formats/jxl/immich_8bit-sRGB.jxl") }
        var refused = 0, decoded = 0
        for seed in seeds {
            let bytes = [UInt8](try XCTUnwrap(FileManager.default.contents(atPath: seed)))
            var variants: [[UInt8]] = [1, 2, 11, 12, 40, 200, bytes.count / 3, bytes.count / 2, bytes.count - 1].map {
                Array(bytes.prefix($0))
            }
            var generator = SystemRandomNumberGenerator()
            for _ in 0..<24 {
                var flipped = bytes
                let at = Int.random(in: 0..<min(bytes.count, 4096), using: &generator)
                flipped[at] ^= UInt8(1 << Int.random(in: 0..<8, using: &generator))
                variants.append(flipped)
            }
            for variant in variants {
                do {
                    let result = try variant.withUnsafeBytes {
                        try Thumbnailer.makeThumbnail(from: $0, options: ThumbnailOptions())
                    }
                    XCTAssertGreaterThan(result.thumbnail.count, 0)
                    decoded += 1
                } catch let error as ImageError {
                    XCTAssertFalse("\(error)".isEmpty)
                    refused += 1
                }
            }
        }
        XCTAssertGreaterThan(refused, 9 * seeds.count - 1, "every truncation is refused")
        XCTAssertEqual(refused + decoded, seeds.count * 33)
    }
}
