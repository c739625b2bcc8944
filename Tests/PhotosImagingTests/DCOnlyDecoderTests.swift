import CImageCodec
import CImageCodecTesting
import Foundation
import XCTest
import PhotosTestSupport
@testable import PhotosImaging

/// The C DC-only decoder (Sources/CImageCodec/dconly.c) against libjpeg's full decode.
enum DCOnly {
    struct Result {
        var status: pc_status
        var pixels: PixelBuffer?
        var error: String
    }

    /// Calls `pc_jpeg_decode_dc_only` directly; `genericCode` runs its AC scans in the baseline
    /// x86-64 code even on a CPU with POPCNT/BMI (`pc_decode_options.dconly_generic_code`).
    static func decode(_ bytes: [UInt8], maxPixels: UInt64 = 100_000_000, genericCode: Bool = false) -> Result {
        var options = pc_decode_options()
        options.target_edge = 1
        options.max_pixels = maxPixels
        options.dconly_generic_code = genericCode ? 1 : 0
        var decoded = pc_decoded()
        var messages = pc_messages()
        let status = bytes.withUnsafeBufferPointer {
            pc_jpeg_decode_dc_only($0.baseAddress, $0.count, &options, &decoded, &messages)
        }
        let error = withUnsafeBytes(of: &messages.error) {
            String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
        var pixels: PixelBuffer?
        if let p = decoded.pixels {
            if status == PC_OK {
                pixels = PixelBuffer(adopting: p, width: Int(decoded.width), height: Int(decoded.height))
            } else {
                pc_free(p)
            }
        }
        return Result(status: status, pixels: pixels, error: error)
    }

    /// libjpeg at scale 1/8, decoding every scan (no early stop, no DC-only decoder), without
    /// colour management (pc_jpeg_decode_dc_only itself returns the encoded values).
    static func libjpegFull(_ bytes: [UInt8]) throws -> PixelBuffer {
        try bytes.withUnsafeBytes {
            try ImageDecoder.decode(
                $0, format: .jpeg, targetEdge: 1, maxPixels: 100_000_000,
                tuning: DecoderTuning(
                    dctMethod: .islow, fancyUpsampling: true, progressiveDCOnly: false,
                    colorManagement: false)
            ).pixels
        }
    }

    /// First frame marker of a JPEG (0xC0...0xCF except DHT/JPG/DAC), found by walking the marker segments.
    static func frameMarker(_ d: [UInt8]) -> UInt8? {
        guard d.count > 4, d[0] == 0xFF, d[1] == 0xD8 else { return nil }
        var i = 2
        while i + 4 <= d.count {
            guard d[i] == 0xFF else { return nil }
            let m = d[i + 1]
            if m == 0xFF { i += 1; continue }
            if m == 0x01 || (0xD0...0xD8).contains(m) { i += 2; continue }
            if m == 0xDA || m == 0xD9 { return nil }
            if (0xC0...0xCF).contains(m), m != 0xC4, m != 0xC8, m != 0xCC { return m }
            i += 2 + (Int(d[i + 2]) << 8 | Int(d[i + 3]))
        }
        return nil
    }

    /// Luma sampling factors (h, v) and the component count from the SOF segment.
    static func sampling(_ d: [UInt8]) -> (h: Int, v: Int, components: Int)? {
        var i = 2
        while i + 4 <= d.count, d[i] == 0xFF {
            let m = d[i + 1]
            if m == 0xC2 { return (Int(d[i + 11] >> 4), Int(d[i + 11] & 15), Int(d[i + 9])) }
            i += 2 + (Int(d[i + 2]) << 8 | Int(d[i + 3]))
        }
        return nil
    }

    /// Offsets of the SOS markers (the FF byte), walking entropy-coded data as a decoder does.
    static func scanOffsets(_ d: [UInt8]) -> [Int] {
        var out: [Int] = []
        var i = 2
        while i + 1 < d.count {
            if d[i] != 0xFF { i += 1; continue }
            let m = d[i + 1]
            if m == 0x00 || m == 0xFF || (0xD0...0xD7).contains(m) { i += m == 0xFF ? 1 : 2; continue }
            if m == 0xD9 { break }
            if m == 0xDA { out.append(i) }
            guard i + 3 < d.count else { break }
            i += 2 + (Int(d[i + 2]) << 8 | Int(d[i + 3]))
        }
        return out
    }

    /// Every progressive JPEG (SOF2) in the corpus, relative paths.
    static func progressiveFiles() throws -> [String] {
        try Corpus.requireCorpus()
        let root = Corpus.root
        guard let walker = FileManager.default.enumerator(atPath: root.path) else { return [] }
        var out: [String] = []
        for case let path as String in walker
        where path.lowercased().hasSuffix(".jpg") || path.lowercased().hasSuffix(".jpeg") {
            let bytes = try Corpus.data(path)
            if frameMarker(bytes) == 0xC2 { out.append(path) }
        }
        return out.sorted()
    }

    /// Encodes a progressive JPEG through libjpeg (`pc_jpeg_encode_ex`): script 0 is
    /// jpeg_simple_progression, 1 one DC scan per component with DC refinement scans last.
    static func encode(
        _ pixels: [UInt8], width: Int, height: Int, components: Int, h: Int = 1, v: Int = 1,
        quality: Int = 100, restartInterval: Int = 0, script: Int = 0
    ) throws -> [UInt8] {
        try Verdict.encode(
            pixels, width: width, height: height, components: components, quality: quality,
            mode: Int32(script == 1 ? PC_PROGRESSIVE_NON_INTERLEAVED.rawValue : PC_PROGRESSIVE_SIMPLE.rawValue),
            h: h, v: v, restartInterval: restartInterval)
    }

    /// A smooth RGB test image with edges: gradients plus a few solid rectangles.
    static func testImage(width: Int, height: Int) -> [UInt8] {
        var p = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let i = (y * width + x) * 3
                p[i] = UInt8((x * 255) / max(1, width - 1))
                p[i + 1] = UInt8((y * 255) / max(1, height - 1))
                p[i + 2] = UInt8(((x + y) * 255) / max(1, width + height - 2))
                if (x / 32 + y / 16) % 3 == 0 { p[i] = 200; p[i + 1] = 30; p[i + 2] = 90 } // MCU-aligned edges
            }
        }
        return p
    }
}

final class DCOnlyDecoderTests: XCTestCase {
    /// Every progressive corpus file: handled (or left to libjpeg), and close to libjpeg's full decode.
    func testCorpusProgressiveFilesMatchLibjpegFullDecode() throws {
        let files = try DCOnly.progressiveFiles()
        XCTAssertGreaterThanOrEqual(files.count, 14, "bench has 14 progressive JPEGs")
        var thumbnailDiffs: [(String, Double)] = []
        var handled = 0
        for path in files {
            let bytes = try Corpus.data(path)
            let dc = DCOnly.decode(bytes)
            let full = try? DCOnly.libjpegFull(bytes)
            guard dc.status == PC_OK, let dcPixels = dc.pixels else {
                // Not handled or rejected: only malformed files (libjpeg decides those).
                XCTAssertTrue(path.hasPrefix("malformed/"), "\(path): status \(dc.status.rawValue) \(dc.error)")
                continue
            }
            handled += 1
            guard let full else {
                // libjpeg's full decode rejects it (a corrupt AC scan the DC decoder never reads): malformed only.
                XCTAssertTrue(path.hasPrefix("malformed/"), "\(path): libjpeg rejects what the DC decoder accepts")
                continue
            }
            XCTAssertEqual(dcPixels.width, full.width, path)
            XCTAssertEqual(dcPixels.height, full.height, path)
            guard dcPixels.width == full.width, dcPixels.height == full.height else { continue }
            let layout = DCOnly.sampling(bytes)
            if let layout, !(layout.components == 3 && layout.h == 2 && layout.v == 2) {
                // No chroma filter involved: exactly libjpeg's 1/8 output (DC refinement scans applied).
                XCTAssertEqual(meanAbsoluteDifference(dcPixels, full), 0, "\(path) \(layout)")
            }
            // The 120-pixel thumbnail, as Thumbnailer computes it from the 1/8 image.
            let size = Thumbnailer.thumbnailSize(width: full.width, height: full.height, maxEdge: 120)
            let a = try Resampler.areaAverage(dcPixels, width: size.width, height: size.height)
            let b = try Resampler.areaAverage(full, width: size.width, height: size.height)
            let diff = meanAbsoluteDifference(a, b)
            // Files decoded at 1/8 for a real thumbnail have a long edge of at least 8 × 120.
            if max(full.width, full.height) >= 120 {
                XCTAssertLessThan(diff, 2, path)
                thumbnailDiffs.append((path, diff))
            }
        }
        XCTAssertGreaterThanOrEqual(handled, 14)
        let mean = thumbnailDiffs.map(\.1).reduce(0, +) / Double(max(1, thumbnailDiffs.count))
        let worst = thumbnailDiffs.max { $0.1 < $1.1 }
        print(
            String(
                format: "DC-only vs libjpeg full decode, 120-px thumbnails of %d files: mean %.3f, worst %.3f (%@)",
                thumbnailDiffs.count, mean, worst?.1 ?? 0, worst?.0 ?? "-"))
    }

    /// The import path (Thumbnailer → pc_jpeg_decode) takes the DC-only decoder for a bench file.
    func testDecodePathUsesDCOnlyDecoder() throws {
        let bytes = try Corpus.data("bench/lomiri_Dragonfly_by_Bolly.jpg")
        let viaDecoder = try bytes.withUnsafeBytes {
            try ImageDecoder.decode($0, format: .jpeg, targetEdge: 120, maxPixels: 100_000_000)
        }
        XCTAssertTrue(viaDecoder.usedDCOnly)
        XCTAssertEqual(viaDecoder.scale, 1)
        let direct = try XCTUnwrap(DCOnly.decode(bytes).pixels)
        XCTAssertEqual(viaDecoder.pixels.bytes, direct.bytes)
        XCTAssertEqual(viaDecoder.storedWidth, 4224)
        XCTAssertEqual(viaDecoder.storedHeight, 3168)
        let result = try thumbnail(bytes)
        XCTAssertEqual(result.thumbnailWidth, 120)
        XCTAssertEqual(result.thumbnailHeight, 90)
    }

    /// Truncated copies are rejected: inside the first DC scan, right after it, in the AC scans,
    /// inside the late DC refinement scan, and just before EOI.
    func testTruncatedCopiesAreRejected() throws {
        for path in ["bench/plasma_ColorfulCups_2560x1600.jpg", "bench/lomiri_Picture_0B_by_freespace.jpg"] {
            let bytes = try Corpus.data(path)
            let scans = DCOnly.scanOffsets(bytes)
            XCTAssertGreaterThanOrEqual(scans.count, 8, path)
            guard scans.count >= 8 else { continue }
            // simple_progression: scan 0 is DC first, scan 6 the DC refinement.
            let cuts = [
                scans[0] + 20, (scans[0] + scans[1]) / 2, scans[1] - 1, scans[1] + 1, scans[1] + 40,
                (scans[3] + scans[4]) / 2, scans[6] + 30, (scans[6] + scans[7]) / 2,
                bytes.count - 2, bytes.count - 1
            ]
            for cut in cuts {
                let truncated = Array(bytes[..<cut])
                let dc = DCOnly.decode(truncated)
                XCTAssertEqual(dc.status, PC_CORRUPT, "\(path) cut at \(cut)")
                XCTAssertEqual(dc.error, "Premature end of JPEG file", "\(path) cut at \(cut)")
                XCTAssertThrowsError(try thumbnail(truncated), "\(path) cut at \(cut)") { error in
                    guard case ImageError.corrupt = error else { return XCTFail("\(path) cut at \(cut): \(error)") }
                }
            }
        }
    }

    /// A DC scan cut short by a marker is corrupt data, as libjpeg reports it.
    func testDCScanEndingEarlyIsCorrupt() throws {
        let bytes = try Corpus.data("bench/plasma_summer_1am_2560x1600.jpg")
        let scans = DCOnly.scanOffsets(bytes)
        // Remove the second half of the first DC scan's data: the next segment follows too early.
        let start = scans[0] + 2 + (Int(bytes[scans[0] + 2]) << 8 | Int(bytes[scans[0] + 3]))
        let cut = Array(bytes[..<(start + (scans[1] - start) / 2)]) + Array(bytes[scans[1]...])
        let dc = DCOnly.decode(cut)
        XCTAssertEqual(dc.status, PC_CORRUPT)
        XCTAssertEqual(dc.error, "Corrupt JPEG data: premature end of data segment")
        XCTAssertThrowsError(try thumbnail(cut))
    }

    /// malformed/ files with SOF2 never crash, and every answer is a status, not a guess.
    func testMalformedProgressiveFilesNeverCrash() throws {
        let entries = try Corpus.manifest()
        for entry in entries where entry.path.hasPrefix("malformed/") {
            let bytes = try Corpus.data(entry.path)
            guard DCOnly.frameMarker(bytes) == 0xC2 else { continue }
            let dc = DCOnly.decode(bytes)
            XCTAssertTrue([PC_OK, PC_CORRUPT, PC_NOT_HANDLED].contains(dc.status), entry.path)
            if entry.expect == "reject" {
                XCTAssertThrowsError(try thumbnail(bytes), entry.path)
            }
            _ = try? thumbnail(bytes)
        }
    }

    /// Random byte damage of small progressive files: no crash, no read out of bounds (run under ASan to see).
    func testDamagedInputsNeverCrash() throws {
        var generator = SystemRandomNumberGenerator()
        let sources = [
            try DCOnly.encode(
                DCOnly.testImage(width: 96, height: 64), width: 96, height: 64, components: 3, h: 2, v: 2, quality: 80),
            try DCOnly.encode(
                DCOnly.testImage(width: 80, height: 40), width: 80, height: 40, components: 3, h: 2, v: 1,
                quality: 80, restartInterval: 2, script: 1)
        ]
        for source in sources {
            for _ in 0..<300 {
                var bytes = source
                for _ in 0..<Int.random(in: 1...6, using: &generator) {
                    bytes[Int.random(in: 2..<bytes.count, using: &generator)] = UInt8.random(
                        in: 0...255, using: &generator)
                }
                let dc = DCOnly.decode(bytes)
                XCTAssertTrue([PC_OK, PC_CORRUPT, PC_NOT_HANDLED, PC_TOO_LARGE].contains(dc.status))
                if dc.status == PC_OK, let p = dc.pixels {
                    XCTAssertGreaterThan(p.width, 0)
                }
            }
        }
    }

    /// A hand-built grayscale progressive JPEG of solid 8×8 blocks decodes to those exact values.
    func testTinyGrayProgressiveDecodesToKnownValues() throws {
        let levels: [UInt8] = [0, 17, 128, 255, 64, 200, 99, 1]
        let width = 32, height = 16
        var pixels = [UInt8](repeating: 0, count: width * height)
        for y in 0..<height { for x in 0..<width { pixels[y * width + x] = levels[(y / 8) * 4 + x / 8] } }
        for script in [0, 1] {
            let jpeg = try DCOnly.encode(
                pixels, width: width, height: height, components: 1, quality: 100, script: script)
            let dc = DCOnly.decode(jpeg)
            XCTAssertEqual(dc.status, PC_OK, dc.error)
            let p = try XCTUnwrap(dc.pixels)
            XCTAssertEqual(p.width, 4)
            XCTAssertEqual(p.height, 2)
            for (i, level) in levels.enumerated() {
                XCTAssertEqual(p.pixel(x: i % 4, y: i / 4).0, level, "script \(script) block \(i)")
                XCTAssertEqual(p.pixel(x: i % 4, y: i / 4).2, level)
            }
        }
    }

    /// Colour, sampling layouts, restart intervals and non-interleaved DC scans with late refinement:
    /// identical to libjpeg's full 1/8 decode except 4:2:0 chroma (libjpeg uses the AC there).
    func testGeneratedLayoutsMatchLibjpeg() throws {
        let width = 203, height = 77 // partial MCUs on both edges
        let rgb = DCOnly.testImage(width: width, height: height)
        for (h, v) in [(1, 1), (2, 1), (1, 2), (2, 2)] {
            for restart in [0, 1, 3] {
                for script in [0, 1] {
                    let jpeg = try DCOnly.encode(
                        rgb, width: width, height: height, components: 3, h: h, v: v,
                        quality: 90, restartInterval: restart, script: script)
                    let label = "\(h)x\(v) restart \(restart) script \(script)"
                    let dc = DCOnly.decode(jpeg)
                    XCTAssertEqual(dc.status, PC_OK, "\(label): \(dc.error)")
                    let p = try XCTUnwrap(dc.pixels, label)
                    let full = try DCOnly.libjpegFull(jpeg)
                    XCTAssertEqual(p.width, (width + 7) / 8, label)
                    XCTAssertEqual(p.height, (height + 7) / 8, label)
                    let diff = meanAbsoluteDifference(p, full)
                    if h == 2 && v == 2 { XCTAssertLessThan(diff, 4, label) } else { XCTAssertEqual(diff, 0, label) }
                }
            }
        }
    }

    /// Files it does not take are left to libjpeg with nothing reported.
    func testNotHandledCases() throws {
        let rgb = DCOnly.testImage(width: 64, height: 32)
        // Baseline JPEG: not SOF2.
        let baseline = try ImageDecoder.encodeJPEG(try PixelBuffer(width: 64, height: 32, rgb: rgb), quality: 80)
        var r = DCOnly.decode(baseline)
        XCTAssertEqual(r.status, PC_NOT_HANDLED)
        XCTAssertEqual(r.error, "")
        // 4:1:1 luma sampling (h = 4).
        let wide = try DCOnly.encode(rgb, width: 64, height: 32, components: 3, h: 4, v: 1, quality: 80)
        r = DCOnly.decode(wide)
        XCTAssertEqual(r.status, PC_NOT_HANDLED)
        // Still decodes through libjpeg.
        XCTAssertNoThrow(try DCOnly.libjpegFull(wide))
        // Over the pixel limit.
        let ok = try DCOnly.encode(rgb, width: 64, height: 32, components: 3, quality: 80)
        XCTAssertEqual(DCOnly.decode(ok, maxPixels: 100).status, PC_TOO_LARGE)
        // Not a JPEG at all.
        XCTAssertEqual(DCOnly.decode([0x89, 0x50, 0x4E, 0x47]).status, PC_NOT_HANDLED)
        XCTAssertEqual(DCOnly.decode([]).status, PC_NOT_HANDLED)
    }
}
