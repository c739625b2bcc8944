import CImageCodec
import CImageCodecTesting
import Foundation
import XCTest
@testable import PhotosImaging

/// Issue 9 item 3: a JPEG that libjpeg reports as damaged is refused, whichever decoder path
/// (libjpeg baseline, libjpeg progressive, dconly.c) sees it. libjpeg's verdict is its own plain
/// full-size decode (`pc_jpeg_libjpeg_verdict`) with the same warning rule.
enum Verdict {
    /// Encodes `pixels` with libjpeg as `mode` says (`pc_jpeg_scan_mode`, optionally | PC_ARITHMETIC).
    static func encode(
        _ pixels: [UInt8], width: Int, height: Int, components: Int = 3, quality: Int = 85,
        mode: Int32, h: Int = 0, v: Int = 0, restartInterval: Int = 0, chromaTables: Bool = true
    ) throws -> [UInt8] {
        var messages = pc_messages()
        var output: UnsafeMutablePointer<UInt8>?
        var size = 0
        var options = pc_jpeg_encode_options(
            components: Int32(components), quality: Int32(quality), mode: mode,
            h_samp: Int32(h), v_samp: Int32(v), restart_interval: Int32(restartInterval),
            chroma_tables: chromaTables ? 1 : 0)
        let status = pixels.withUnsafeBufferPointer {
            pc_jpeg_encode_ex($0.baseAddress, Int32(width), Int32(height), &options, &output, &size, &messages)
        }
        defer { pc_free(output) }
        guard status == PC_OK, let output else { throw ImageError.corrupt("test encode failed") }
        return Array(UnsafeBufferPointer(start: output, count: size))
    }

    /// libjpeg's verdict: nil when it decodes the file without a damage warning, else its message.
    static func libjpeg(_ bytes: [UInt8]) -> String? {
        var messages = pc_messages()
        let status = bytes.withUnsafeBufferPointer { pc_jpeg_libjpeg_verdict($0.baseAddress, $0.count, &messages) }
        if status == PC_OK { return nil }
        let text = withUnsafeBytes(of: &messages.error) {
            String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
        return text.isEmpty ? "status \(status.rawValue)" : text
    }

    /// What `photos` does with the file: nil when it decodes (and whether dconly.c did it), else the error.
    static func photos(_ bytes: [UInt8], targetEdge: Int) -> (error: String?, dcOnly: Bool) {
        do {
            let decoded = try bytes.withUnsafeBytes {
                try ImageDecoder.decode($0, format: .jpeg, targetEdge: targetEdge, maxPixels: 100_000_000)
            }
            return (nil, decoded.usedDCOnly)
        } catch {
            return ("\(error)", false)
        }
    }

    /// Offset of the first byte after the first SOS segment (the first scan's entropy-coded data).
    static func firstScanData(_ d: [UInt8]) -> Int? {
        var i = 2
        while i + 4 <= d.count, d[i] == 0xFF {
            let m = d[i + 1]
            let length = Int(d[i + 2]) << 8 | Int(d[i + 3])
            if m == 0xDA { return i + 2 + length }
            i += 2 + length
        }
        return nil
    }

    /// (start, end) of each scan's entropy-coded data: after its SOS to the next marker other than RSTn.
    static func scans(_ d: [UInt8]) -> [(sos: Int, start: Int, end: Int)] {
        var out: [(Int, Int, Int)] = []
        var i = 2
        while i + 4 <= d.count, d[i] == 0xFF {
            let m = d[i + 1]
            if m == 0xD9 { break }
            let length = Int(d[i + 2]) << 8 | Int(d[i + 3])
            guard m == 0xDA else { i += 2 + length; continue }
            let start = i + 2 + length
            var j = start
            while j + 1 < d.count, !(d[j] == 0xFF && d[j + 1] != 0 && !(0xD0...0xD7).contains(d[j + 1])) { j += 1 }
            out.append((i, start, j))
            i = j
        }
        return out
    }

    /// `DCOnly.testImage` with deterministic noise, so it compresses to many bytes per MCU.
    static func noisyImage(width: Int, height: Int) -> [UInt8] {
        var p = DCOnly.testImage(width: width, height: height)
        var state: UInt32 = 12345
        for i in p.indices {
            state = state &* 1_103_515_245 &+ 12345
            p[i] = UInt8(clamping: Int(p[i]) + Int((state >> 16) & 63) - 32)
        }
        return p
    }

    struct Tally {
        var flips = 0, refusedByLibjpeg = 0, acceptedByDCOnly = 0
        var disagreements: [String] = []
    }

    /// Flips every bit in `range` one at a time and compares photos' verdict with libjpeg's.
    static func flipEveryBit(_ bytes: [UInt8], in range: Range<Int>, targetEdge: Int) -> Tally {
        var tally = Tally()
        var d = bytes
        for i in range {
            for bit in 0..<8 {
                d[i] ^= UInt8(1 << bit)
                let reference = libjpeg(d)
                let ours = photos(d, targetEdge: targetEdge)
                tally.flips += 1
                if reference != nil { tally.refusedByLibjpeg += 1 }
                if ours.dcOnly { tally.acceptedByDCOnly += 1 }
                if (reference == nil) != (ours.error == nil) {
                    tally.disagreements.append(
                        "byte \(i) bit \(bit): photos \(ours.error ?? "accepts"), libjpeg \(reference ?? "accepts")")
                }
                d[i] ^= UInt8(1 << bit)
            }
        }
        return tally
    }
}

final class DamagedJPEGVerdictTests: XCTestCase {
    static let width = 64, height = 48
    static let pixels = DCOnly.testImage(width: width, height: height)
    static let gray: [UInt8] = (0..<(width * height)).map { pixels[$0 * 3 + 1] }

    /// Example (a) of the issue: a baseline photo with one byte changed in its first scan.
    /// With jpeg_mem_src, libjpeg-turbo's fast Huffman path decoded the bad code as 0 and the
    /// file was imported; it must be refused with libjpeg's message.
    func testBaselineWithABadHuffmanCodeIsRefused() throws {
        let w = 320, h = 240
        let image = Verdict.noisyImage(width: w, height: h)
        let jpeg = try Verdict.encode(image, width: w, height: h, mode: Int32(PC_BASELINE.rawValue))
        XCTAssertNil(Verdict.libjpeg(jpeg))
        XCTAssertNil(Verdict.photos(jpeg, targetEdge: 120).error)
        let start = try XCTUnwrap(Verdict.firstScanData(jpeg))
        // With jpeg_mem_src, libjpeg-turbo 2.1.5 took the fast path wherever >= 512 × 6 bytes
        // (a 4:2:0 MCU) were left: the change must be in that part.
        XCTAssertGreaterThan(jpeg.count - start, 512 * 6 + 600)
        // The first byte change in the scan that libjpeg calls a bad Huffman code.
        var found: [UInt8]?
        search: for i in (start + 100)..<(start + 600) where jpeg[i] != 0xFF && jpeg[i] != 0x00 {
            for value: UInt8 in [0xFE, 0x7F, 0xEF, 0xF7] where jpeg[i] != value {
                var d = jpeg
                d[i] = value
                if Verdict.libjpeg(d) == "Corrupt JPEG data: bad Huffman code" { found = d; break search }
            }
        }
        let damaged = try XCTUnwrap(found, "no one-byte change gives a bad Huffman code")
        let thrown = Verdict.photos(damaged, targetEdge: 120).error
        XCTAssertEqual(thrown, "Corrupt JPEG data: bad Huffman code")
        XCTAssertThrowsError(try thumbnail(damaged)) { error in
            XCTAssertEqual(error as? ImageError, .corrupt("Corrupt JPEG data: bad Huffman code"))
        }
    }

    /// Example (b): a progressive JPEG whose chroma DC scans come after the luma AC scan
    /// (PC_PROGRESSIVE_NON_INTERLEAVED), every bit of that AC scan flipped: dconly.c must refuse
    /// exactly what libjpeg refuses (it used to skip the scan unchecked).
    func testProgressiveLumaACScanBeforeChromaDCFlipsAgreeWithLibjpeg() throws {
        let jpeg = try Verdict.encode(
            Self.pixels, width: Self.width, height: Self.height, quality: 90,
            mode: Int32(PC_PROGRESSIVE_NON_INTERLEAVED.rawValue))
        XCTAssertTrue(Verdict.photos(jpeg, targetEdge: 1).dcOnly)
        let scans = Verdict.scans(jpeg)
        XCTAssertEqual(scans.count, 9)
        let lumaAC = scans[1] // DC0, AC0, DC1, DC2, AC1, AC2, 3 DC refinements
        XCTAssertEqual(jpeg[lumaAC.sos + 4], 1) // one component in the scan
        XCTAssertNotEqual(jpeg[lumaAC.sos + 7], 0) // Ss != 0: an AC scan
        let tally = Verdict.flipEveryBit(jpeg, in: lumaAC.start..<lumaAC.end, targetEdge: 1)
        XCTAssertEqual(tally.disagreements, [], "\(tally.disagreements.count) of \(tally.flips) flips")
        XCTAssertGreaterThan(tally.refusedByLibjpeg, tally.flips / 10, "the flips must reach libjpeg's checks")
        XCTAssertGreaterThan(tally.acceptedByDCOnly, 0, "the accepted flips must go through dconly.c")
    }

    /// Every bit of every scan's entropy-coded data of small files of each layout, and the
    /// headers between scans, through every path: libjpeg baseline (fast path no longer taken),
    /// dconly.c (progressive Huffman at 1/8), libjpeg progressive (at other scales, arithmetic).
    func testEveryBitFlipOfSmallFilesAgreesWithLibjpeg() throws {
        let w = Self.width, h = Self.height, p = Self.pixels
        let baseline = Int32(PC_BASELINE.rawValue), simple = Int32(PC_PROGRESSIVE_SIMPLE.rawValue)
        let late = Int32(PC_PROGRESSIVE_NON_INTERLEAVED.rawValue), refined = Int32(PC_PROGRESSIVE_DC_REFINED.rawValue)
        let arithmetic = Int32(PC_ARITHMETIC.rawValue)
        let noisy = Verdict.noisyImage(width: 96, height: 64)
        let large = try Verdict.encode(noisy, width: 96, height: 64, quality: 95, mode: baseline)
        let cases: [(String, [UInt8], Int, Bool)] = [
            ("baseline 4:2:0", try Verdict.encode(p, width: w, height: h, mode: baseline), 120, false),
            // Large enough per MCU that libjpeg-turbo's fast Huffman path (>= 3072 bytes left) would apply.
            ("baseline 4:2:0 noisy", large, 120, false),
            (
                "baseline 4:4:4, restart every MCU",
                try Verdict.encode(p, width: w, height: h, mode: baseline, h: 1, v: 1, restartInterval: 1), 120, false
            ),
            (
                "baseline gray", try Verdict.encode(Self.gray, width: w, height: h, components: 1, mode: baseline), 120,
                false
            ),
            ("progressive simple 4:2:0", try Verdict.encode(p, width: w, height: h, mode: simple), 1, true),
            (
                "progressive chroma DC after luma AC, 4:2:2",
                try Verdict.encode(p, width: w, height: h, mode: late, h: 2, v: 1), 1, true
            ),
            (
                "progressive simple, restart every 2 MCUs",
                try Verdict.encode(p, width: w, height: h, mode: simple, restartInterval: 2), 1, true
            ),
            (
                "progressive DC refined 4:4:4", try Verdict.encode(p, width: w, height: h, mode: refined, h: 1, v: 1),
                1, true
            ),
            (
                "progressive simple at 4/8 (libjpeg)", try Verdict.encode(p, width: w, height: h, mode: simple), 24,
                false
            ),
            (
                "arithmetic progressive (libjpeg)",
                try Verdict.encode(p, width: w, height: h, mode: simple | arithmetic), 1, false
            )
        ]
        var report: [String] = []
        for (name, jpeg, target, dcOnly) in cases {
            XCTAssertNil(Verdict.libjpeg(jpeg), name)
            XCTAssertEqual(Verdict.photos(jpeg, targetEdge: target).dcOnly, dcOnly, name)
            let start = try XCTUnwrap(Verdict.firstScanData(jpeg), name)
            // Every bit to the end, except in the large file: the part where the fast path applied.
            let end = jpeg.count > 4096 ? jpeg.count - 512 * 6 : jpeg.count - 2
            let tally = Verdict.flipEveryBit(jpeg, in: start..<end, targetEdge: target)
            XCTAssertEqual(
                tally.disagreements.count, 0,
                "\(name): \(tally.disagreements.count) of \(tally.flips) flips disagree: \(tally.disagreements.prefix(5))"
            )
            XCTAssertGreaterThan(
                tally.refusedByLibjpeg, tally.flips / 20, "\(name): the flips must reach libjpeg's checks")
            if dcOnly { XCTAssertGreaterThan(tally.acceptedByDCOnly, 0, name) }
            report.append("\(name): \(tally.flips) flips, \(tally.refusedByLibjpeg) refused")
        }
        print(report.joined(separator: "\n"))
    }

    /// Junk between segments (libjpeg: the harmless "extraneous bytes before marker") keeps the
    /// image on every path, wherever it is: before the tables, between scans, before EOI. A large
    /// progressive file with junk early stays on dconly.c (libjpeg would need its coefficient buffer).
    func testJunkBetweenSegmentsKeepsTheImageOnEveryPath() throws {
        let w = Self.width, h = Self.height, p = Self.pixels
        for (mode, target, dcOnly) in [
            (Int32(PC_BASELINE.rawValue), 120, false), (Int32(PC_PROGRESSIVE_SIMPLE.rawValue), 1, true),
            (Int32(PC_PROGRESSIVE_NON_INTERLEAVED.rawValue), 1, true)
        ] {
            let jpeg = try Verdict.encode(p, width: w, height: h, mode: mode)
            let clean = try jpeg.withUnsafeBytes {
                try ImageDecoder.decode($0, format: .jpeg, targetEdge: target, maxPixels: 100_000_000)
            }
            // Every marker position after SOI: at the SOS segments, at the first DHT/DQT, and before EOI.
            var positions: [Int] = []
            var i = 2
            while i + 4 <= jpeg.count, jpeg[i] == 0xFF {
                positions.append(i)
                if jpeg[i + 1] == 0xD9 { break }
                if jpeg[i + 1] == 0xDA {
                    var j = Verdict.firstScanData(Array(jpeg[i...])).map { $0 + i } ?? jpeg.count
                    while j + 1 < jpeg.count,
                        !(jpeg[j] == 0xFF && jpeg[j + 1] != 0 && !(0xD0...0xD7).contains(jpeg[j + 1]))
                    { j += 1 }
                    i = j
                } else {
                    i += 2 + (Int(jpeg[i + 2]) << 8 | Int(jpeg[i + 3]))
                }
            }
            XCTAssertGreaterThan(positions.count, 5)
            for at in positions {
                let junk: [UInt8] = [0x12, 0x34, 0xFF, 0x00, 0x56]
                let d = Array(jpeg[..<at]) + junk + Array(jpeg[at...])
                XCTAssertNil(Verdict.libjpeg(d), "mode \(mode) junk at \(at)")
                let decoded = try d.withUnsafeBytes {
                    try ImageDecoder.decode($0, format: .jpeg, targetEdge: target, maxPixels: 100_000_000)
                }
                XCTAssertEqual(decoded.usedDCOnly, dcOnly, "mode \(mode) junk at \(at)")
                XCTAssertEqual(meanAbsoluteDifference(decoded.pixels, clean.pixels), 0, "mode \(mode) junk at \(at)")
                XCTAssertTrue(
                    decoded.warnings.isEmpty || decoded.warnings.allSatisfy { $0.contains("extraneous bytes") },
                    "\(decoded.warnings)")
            }
        }
    }

    /// A file truncated anywhere in its scans is refused on every path (libjpeg: "Premature end of JPEG file").
    func testTruncatedFilesAreRefusedOnEveryPath() throws {
        let w = Self.width, h = Self.height, p = Self.pixels
        for (mode, target) in [
            (Int32(PC_BASELINE.rawValue), 120), (Int32(PC_PROGRESSIVE_SIMPLE.rawValue), 1),
            (Int32(PC_PROGRESSIVE_SIMPLE.rawValue | PC_ARITHMETIC.rawValue), 1)
        ] {
            let jpeg = try Verdict.encode(p, width: w, height: h, mode: mode)
            let start = try XCTUnwrap(Verdict.firstScanData(jpeg))
            for cut in stride(from: start, to: jpeg.count - 1, by: 7) {
                let truncated = Array(jpeg[..<cut])
                XCTAssertNotNil(Verdict.libjpeg(truncated), "mode \(mode) cut \(cut)")
                XCTAssertNotNil(Verdict.photos(truncated, targetEdge: target).error, "mode \(mode) cut \(cut)")
            }
        }
    }
}

/// Issue 9 item 4: progressive files that libjpeg decodes (arithmetic coding, or anything dconly.c
/// declines) get every DC scan, refinements included: libjpeg's own 1/8 decode.
final class ProgressiveFallbackRefinementTests: XCTestCase {
    /// The issue's example: 1440×960 flat (10,250,130), quality 75, arithmetic-coded progressive
    /// with a first DC scan at Al = 4 and refinement scans 4→3→2→1→0. Before: centre (0,255,97).
    func testArithmeticDCRefinementScansAreApplied() throws {
        let w = 1440, h = 960
        var flat = [UInt8](repeating: 0, count: w * h * 3)
        for i in 0..<(w * h) { flat[i * 3] = 10; flat[i * 3 + 1] = 250; flat[i * 3 + 2] = 130 }
        let mode = Int32(PC_PROGRESSIVE_DC_REFINED.rawValue | PC_ARITHMETIC.rawValue)
        let jpeg = try Verdict.encode(flat, width: w, height: h, quality: 75, mode: mode)
        let first = Verdict.scans(jpeg)[0].sos, ns = Int(jpeg[first + 4])
        XCTAssertEqual(ns, 3)
        XCTAssertEqual(jpeg[first + 5 + 2 * ns + 2], 0x04, "first DC scan: Ah = 0, Al = 4")
        let result = try thumbnail(jpeg)
        XCTAssertEqual(result.thumbnailWidth, 120)
        let pixels = try decodeJPEG(result.thumbnail)
        let centre = meanColour(pixels, x: 50..<70, y: 35..<45)
        // libjpeg's own scale 1/8 decode (djpeg -scale 1/8) gives (11, 250, 130).
        XCTAssertEqual(centre.0, 11, accuracy: 2)
        XCTAssertEqual(centre.1, 250, accuracy: 2)
        XCTAssertEqual(centre.2, 130, accuracy: 2)

        // The same file with Huffman coding goes through dconly.c and must give the same colour.
        let huffman = try Verdict.encode(
            flat, width: w, height: h, quality: 75, mode: Int32(PC_PROGRESSIVE_DC_REFINED.rawValue))
        let viaDCOnly = try huffman.withUnsafeBytes {
            try ImageDecoder.decode($0, format: .jpeg, targetEdge: 120, maxPixels: 100_000_000)
        }
        let viaLibjpeg = try jpeg.withUnsafeBytes {
            try ImageDecoder.decode($0, format: .jpeg, targetEdge: 120, maxPixels: 100_000_000)
        }
        XCTAssertTrue(viaDCOnly.usedDCOnly)
        XCTAssertFalse(viaLibjpeg.usedDCOnly)
        XCTAssertLessThan(meanAbsoluteDifference(viaDCOnly.pixels, viaLibjpeg.pixels), 1)
    }

    /// A non-flat image: the libjpeg path's 1/8 output equals libjpeg's plain full decode at 1/8
    /// (every scan read), so refinement bits are never dropped, whatever the layout.
    func testLibjpegPathMatchesAFullDecodeForRefinedLayouts() throws {
        let w = 640, h = 480
        let image = DCOnly.testImage(width: w, height: h)
        for base in [PC_PROGRESSIVE_DC_REFINED, PC_PROGRESSIVE_SIMPLE, PC_PROGRESSIVE_NON_INTERLEAVED] {
            let jpeg = try Verdict.encode(
                image, width: w, height: h, quality: 80, mode: Int32(base.rawValue | PC_ARITHMETIC.rawValue))
            let ours = try jpeg.withUnsafeBytes {
                try ImageDecoder.decode($0, format: .jpeg, targetEdge: 60, maxPixels: 100_000_000)
            }
            XCTAssertEqual(ours.scale, 1)
            let full = try jpeg.withUnsafeBytes {
                try ImageDecoder.decode(
                    $0, format: .jpeg, targetEdge: 60, maxPixels: 100_000_000,
                    tuning: DecoderTuning(dctMethod: .islow, fancyUpsampling: true, progressiveDCOnly: false))
            }
            XCTAssertEqual(meanAbsoluteDifference(ours.pixels, full.pixels), 0, "mode \(base.rawValue)")
        }
    }

    /// At 1/8 a block's pixel depends only on its DC coefficient, and a progressive file's DC
    /// values, once every refinement scan is applied, are the sequential file's: so the
    /// progressive file (DC first at Al = 4, refinements 4→3→2→1→0) must decode exactly like
    /// the baseline one, for every layout the libjpeg path takes (arithmetic; CMYK, which
    /// dconly.c declines) and for dconly.c (Huffman YCbCr 4:4:4).
    func testRefinedProgressiveDecodesLikeItsBaselineAtOneEighth() throws {
        let w = 512, h = 384
        let rgb = DCOnly.testImage(width: w, height: h)
        var cmyk = [UInt8](repeating: 0, count: w * h * 4)
        for i in 0..<(w * h) {
            cmyk[i * 4] = rgb[i * 3]; cmyk[i * 4 + 1] = rgb[i * 3 + 1]; cmyk[i * 4 + 2] = rgb[i * 3 + 2]
            cmyk[i * 4 + 3] = UInt8((i % w) * 255 / w)
        }
        let refined = Int32(PC_PROGRESSIVE_DC_REFINED.rawValue), arithmetic = Int32(PC_ARITHMETIC.rawValue)
        let baseline = Int32(PC_BASELINE.rawValue)
        let cases: [(String, [UInt8], Int, Int32, Bool)] = [
            ("YCbCr 4:4:4 arithmetic", rgb, 3, arithmetic, false),
            ("CMYK Huffman", cmyk, 4, 0, false),
            ("CMYK arithmetic", cmyk, 4, arithmetic, false),
            ("YCbCr 4:4:4 Huffman", rgb, 3, 0, true)
        ]
        for (name, pixels, components, coding, dcOnly) in cases {
            let progressive = try Verdict.encode(
                pixels, width: w, height: h, components: components, quality: 75,
                mode: refined | coding, h: 1, v: 1)
            let sequential = try Verdict.encode(
                pixels, width: w, height: h, components: components, quality: 75,
                mode: baseline | coding, h: 1, v: 1)
            let a = try progressive.withUnsafeBytes {
                try ImageDecoder.decode($0, format: .jpeg, targetEdge: 64, maxPixels: 100_000_000)
            }
            let b = try sequential.withUnsafeBytes {
                try ImageDecoder.decode($0, format: .jpeg, targetEdge: 64, maxPixels: 100_000_000)
            }
            XCTAssertEqual(a.scale, 1, name)
            XCTAssertEqual(a.usedDCOnly, dcOnly, name)
            XCTAssertEqual(meanAbsoluteDifference(a.pixels, b.pixels), 0, name)
        }
    }

    func decodeJPEG(_ bytes: [UInt8]) throws -> PixelBuffer {
        try bytes.withUnsafeBytes {
            try ImageDecoder.decode($0, format: .jpeg, targetEdge: 100_000, maxPixels: 100_000_000).pixels
        }
    }
}
