import CImageCodec
import CImageCodecTesting
import Foundation
import XCTest
@testable import PhotosImaging

/// The reduced decoder for sequential JPEGs (dconly.c `pc_jpeg_decode_reduced`) against libjpeg's
/// decode at the same scale, through `ImageDecoder.decode` with the flag on and off.
enum Reduced {
    struct Outcome {
        var pixels: PixelBuffer?
        var error: String?
        var usedReduced: Bool
        var scale: Int
    }

    /// Decodes with colour management off; `reduced` is `DecoderTuning.sequentialReduced`.
    static func decode(_ bytes: [UInt8], targetEdge: Int, reduced: Bool, fancy: Bool = true) -> Outcome {
        do {
            let d = try bytes.withUnsafeBytes {
                try ImageDecoder.decode(
                    $0, format: .jpeg, targetEdge: targetEdge, maxPixels: 100_000_000,
                    tuning: DecoderTuning(
                        dctMethod: .islow, fancyUpsampling: fancy, progressiveDCOnly: true, colorManagement: false,
                        sequentialReduced: reduced))
            }
            return Outcome(pixels: d.pixels, error: nil, usedReduced: d.usedReduced, scale: d.scale)
        } catch {
            return Outcome(pixels: nil, error: "\(error)", usedReduced: false, scale: 0)
        }
    }

    /// The target edge that makes jpeg.c pick scale/8 (1 or 2) for a long edge of `long` pixels.
    static func targetEdge(long: Int, scale: Int) -> Int { scale == 1 ? (long + 7) / 8 : (long + 7) / 8 + 1 }

    /// Whether jpeg.c's `pc_pick_scale` picks exactly `scale`/8 for `targetEdge(long:scale:)`.
    static func reachable(long: Int, scale: Int) -> Bool {
        let target = targetEdge(long: long, scale: scale)
        guard long > target else { return false }
        let picked = (1..<8).first { (long * $0 + 7) / 8 >= target } ?? 8
        return picked == scale
    }

    /// Largest per-channel absolute difference of two same-sized buffers.
    static func maxDifference(_ a: PixelBuffer, _ b: PixelBuffer) -> Int {
        precondition(a.width == b.width && a.height == b.height)
        var worst = 0
        for i in 0..<(a.width * a.height * 3) { worst = max(worst, abs(Int(a.pixels[i]) - Int(b.pixels[i]))) }
        return worst
    }

    /// A test picture with edges, gradients and noise, so blocks have many AC coefficients.
    static func picture(width: Int, height: Int, components: Int) -> [UInt8] {
        let rgb = Verdict.noisyImage(width: width, height: height)
        if components == 3 { return rgb }
        return (0..<(width * height)).map { rgb[$0 * 3 + 1] }
    }

    /// Compares both paths on `bytes` at `scale`; returns a description of any difference.
    static func compare(_ bytes: [UInt8], long: Int, scale: Int, fancy: Bool = true) -> String? {
        let edge = targetEdge(long: long, scale: scale)
        let ours = decode(bytes, targetEdge: edge, reduced: true, fancy: fancy)
        let reference = decode(bytes, targetEdge: edge, reduced: false, fancy: fancy)
        guard let a = ours.pixels, let b = reference.pixels else {
            return "ours \(ours.error ?? "ok"), libjpeg \(reference.error ?? "ok")"
        }
        if !ours.usedReduced { return "reduced path not taken" }
        if reference.usedReduced { return "flag off still took the reduced path" }
        if ours.scale != scale || reference.scale != scale {
            return "scale \(ours.scale)/\(reference.scale), expected \(scale)"
        }
        if a.width != b.width || a.height != b.height { return "size \(a.width)x\(a.height) vs \(b.width)x\(b.height)" }
        let worst = maxDifference(a, b)
        return worst == 0 ? nil : "max difference \(worst)"
    }
}

final class ReducedSequentialDecoderTests: XCTestCase {
    /// Generated baseline files of every handled layout, odd sizes and restart intervals, at 1/8
    /// and 2/8, fancy upsampling on and off: the reduced decoder's pixels equal libjpeg's.
    func testGeneratedFilesMatchLibjpegBitForBit() throws {
        let layouts: [(name: String, components: Int, h: Int, v: Int)] = [
            ("4:2:0", 3, 2, 2), ("4:4:4", 3, 1, 1), ("4:2:2", 3, 2, 1), ("4:4:0", 3, 1, 2), ("gray", 1, 1, 1),
            ("gray 2x2", 1, 2, 2)
        ]
        let sizes = [(17, 9), (9, 17), (64, 48), (33, 47), (100, 75), (2, 2), (3, 1), (1, 3), (250, 13), (15, 31)]
        var failures: [String] = []
        var compared = 0
        for layout in layouts {
            for (w, h) in sizes {
                let pixels = Reduced.picture(width: w, height: h, components: layout.components)
                for restart in [0, 1, 3] {
                    for quality in [50, 95] {
                        let bytes = try Verdict.encode(
                            pixels, width: w, height: h, components: layout.components, quality: quality,
                            mode: Int32(PC_BASELINE.rawValue), h: layout.h, v: layout.v, restartInterval: restart)
                        for scale in [1, 2] where Reduced.reachable(long: max(w, h), scale: scale) {
                            for fancy in [true, false] {
                                compared += 1
                                if let problem = Reduced.compare(bytes, long: max(w, h), scale: scale, fancy: fancy) {
                                    failures.append(
                                        "\(layout.name) \(w)x\(h) q\(quality) restart \(restart) scale \(scale) fancy \(fancy): \(problem)"
                                    )
                                }
                            }
                        }
                    }
                }
            }
        }
        XCTAssertGreaterThan(compared, 1000)
        print("compared \(compared)")
        XCTAssertEqual(
            failures, [], "\(failures.count) of \(compared):\n" + failures.prefix(40).joined(separator: "\n"))
    }
}

/// Every sequential JPEG of the shared corpus at 1/8 and 2/8 (where its size reaches them).
final class ReducedSequentialCorpusTests: XCTestCase {
    func testCorpusSequentialJPEGsMatchLibjpeg() throws {
        var failures: [String] = []
        var taken = 0, leftToLibjpeg: [String] = []
        for entry in try Corpus.manifest() where entry.format == "jpeg" {
            let bytes = try Corpus.data(entry.path)
            guard let marker = DCOnly.frameMarker(bytes), marker == 0xC0 || marker == 0xC1,
                let width = entry.width, let height = entry.height
            else { continue }
            let long = max(width, height)
            for scale in [1, 2] where Reduced.reachable(long: long, scale: scale) {
                let edge = Reduced.targetEdge(long: long, scale: scale)
                let ours = Reduced.decode(bytes, targetEdge: edge, reduced: true)
                let reference = Reduced.decode(bytes, targetEdge: edge, reduced: false)
                if reference.usedReduced { failures.append("\(entry.path): flag off took the reduced path") }
                if ours.usedReduced { taken += 1 } else { leftToLibjpeg.append("\(entry.path) @\(scale)") }
                switch (ours.pixels, reference.pixels) {
                case (let a?, let b?):
                    if a.width != b.width || a.height != b.height {
                        failures.append("\(entry.path) @\(scale): size differs")
                    } else if Reduced.maxDifference(a, b) != 0 {
                        failures.append("\(entry.path) @\(scale): max difference \(Reduced.maxDifference(a, b))")
                    }
                case (.none, .none):
                    if ours.error != reference.error {
                        failures.append("\(entry.path) @\(scale): \(ours.error ?? "") vs \(reference.error ?? "")")
                    }
                default:
                    failures.append(
                        "\(entry.path) @\(scale): ours \(ours.error ?? "ok"), libjpeg \(reference.error ?? "ok")")
                }
            }
        }
        print("reduced path: \(taken) decodes; left to libjpeg: \(leftToLibjpeg)")
        XCTAssertGreaterThan(taken, 20)
        XCTAssertEqual(failures, [], failures.joined(separator: "\n"))
    }
}

/// Damaged files get the same verdict (accepted, or refused with the same message) with the
/// reduced decoder as with libjpeg's decode at the same scale.
final class ReducedSequentialDamageTests: XCTestCase {
    static func encoded(_ components: Int, h: Int, v: Int, restart: Int, width: Int = 40, height: Int = 24) throws
        -> [UInt8]
    {
        try Verdict.encode(
            Reduced.picture(width: width, height: height, components: components), width: width, height: height,
            components: components, quality: 90, mode: Int32(PC_BASELINE.rawValue), h: h, v: v,
            restartInterval: restart)
    }

    /// Both paths on one file at one scale: nil when they agree (same error, or equal pixels).
    static func disagreement(_ bytes: [UInt8], long: Int, scale: Int) -> String? {
        let edge = Reduced.targetEdge(long: long, scale: scale)
        let ours = Reduced.decode(bytes, targetEdge: edge, reduced: true)
        let reference = Reduced.decode(bytes, targetEdge: edge, reduced: false)
        switch (ours.pixels, reference.pixels) {
        case (let a?, let b?): return Reduced.maxDifference(a, b) == 0 ? nil : "pixels differ"
        case (.none, .none): return ours.error == reference.error ? nil : "\(ours.error!) vs \(reference.error!)"
        default: return "ours \(ours.error ?? "ok"), libjpeg \(reference.error ?? "ok")"
        }
    }

    func testTruncatedFilesAreRefusedAsLibjpegRefusesThem() throws {
        var failures: [String] = []
        var refused = 0
        for (components, h, v, restart) in [(3, 2, 2, 0), (3, 1, 1, 2), (1, 1, 1, 1), (3, 2, 1, 0)] {
            let bytes = try Self.encoded(components, h: h, v: v, restart: restart)
            let start = Verdict.firstScanData(bytes)!
            for cut in stride(from: start - 3, to: bytes.count, by: 1) {
                let truncated = Array(bytes[..<cut])
                for scale in [1, 2] {
                    if let problem = Self.disagreement(truncated, long: 40, scale: scale) {
                        failures.append("\(components)c \(h)x\(v) r\(restart) cut \(cut) @\(scale): \(problem)")
                    }
                }
                let ours = Reduced.decode(truncated, targetEdge: 5, reduced: true)
                if ours.error != nil { refused += 1 }
            }
        }
        XCTAssertGreaterThan(refused, 500)
        XCTAssertEqual(failures, [], failures.prefix(20).joined(separator: "\n"))
    }

    func testEveryBitFlipOfTheEntropyDataAgreesWithLibjpeg() throws {
        var failures: [String] = []
        var refused = 0, flips = 0
        for (components, h, v, restart) in [(3, 2, 2, 0), (3, 1, 2, 1), (1, 1, 1, 2), (3, 2, 1, 0), (3, 1, 1, 0)] {
            let bytes = try Self.encoded(components, h: h, v: v, restart: restart, width: 24, height: 16)
            var d = bytes
            for scan in Verdict.scans(bytes) {
                for i in scan.start..<scan.end {
                    for bit in 0..<8 {
                        d[i] ^= UInt8(1 << bit)
                        for scale in [1, 2] {
                            flips += 1
                            if Reduced.decode(d, targetEdge: Reduced.targetEdge(long: 24, scale: scale), reduced: true)
                                .error != nil
                            {
                                refused += 1
                            }
                            if let problem = Self.disagreement(d, long: 24, scale: scale) {
                                failures.append("\(components)c \(h)x\(v) byte \(i) bit \(bit) @\(scale): \(problem)")
                            }
                        }
                        d[i] ^= UInt8(1 << bit)
                    }
                }
            }
        }
        XCTAssertGreaterThan(refused, flips / 10)
        XCTAssertLessThan(refused, flips)
        XCTAssertEqual(failures, [], "\(failures.count) of \(flips):\n" + failures.prefix(30).joined(separator: "\n"))
    }

    func testAWrongRestartMarkerIsRefusedWithLibjpegsMessage() throws {
        var bytes = try Self.encoded(3, h: 2, v: 2, restart: 1)
        let scan = Verdict.scans(bytes)[0]
        let rst = (scan.start..<scan.end - 1).first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xD1 }!
        bytes[rst + 1] = 0xD3
        for scale in [1, 2] {
            let ours = Reduced.decode(bytes, targetEdge: Reduced.targetEdge(long: 40, scale: scale), reduced: true)
            XCTAssertEqual(ours.error?.contains("found marker 0xd3 instead of RST1"), true, ours.error ?? "accepted")
            XCTAssertNil(Self.disagreement(bytes, long: 40, scale: scale))
        }
    }

    /// A DHT whose code lengths need more codes than fit (libjpeg's JERR_BAD_HUFF_TABLE): the
    /// reduced decoder leaves the file to libjpeg, which refuses it.
    func testAHuffmanTableWithAnImpossibleCodeIsLeftToLibjpeg() throws {
        var bytes = try Self.encoded(3, h: 2, v: 2, restart: 0)
        let dht = (2..<bytes.count - 1).first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xC4 }!
        bytes[dht + 5] = 2 // two codes of length 1 after one... first table: BITS[1] = 2
        bytes[dht + 6] = 3 // and three of length 2: the Kraft sum is over 1
        let ours = Reduced.decode(bytes, targetEdge: 5, reduced: true)
        let reference = Reduced.decode(bytes, targetEdge: 5, reduced: false)
        XCTAssertNotNil(ours.error)
        XCTAssertEqual(ours.error, reference.error)
        XCTAssertTrue(ours.error?.contains("Huffman") ?? false, ours.error ?? "")
    }
}

/// Files the reduced decoder leaves to libjpeg: the flag says libjpeg decoded them, with the same result.
final class ReducedSequentialLeftToLibjpegTests: XCTestCase {
    /// 24x16, three sequential scans of one component each (jpegtran -scans '0: 0 63 0 0;' ...).
    static let multiScan = [UInt8](
        Data(
            base64Encoded:
                "/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAgGBgcGBQgHBwcJCQgKDBQNDAsLDBkSEw8UHRofHh0aHBwgJC4nICIsIxwcKDcpLDAxNDQ0Hyc5PTgyPC4zNDL/2wBDAQkJCQwLDBgNDRgyIRwhMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjL/wAARCAAQABgDASIAAhEBAxEB/8QAHwAAAQUBAQEBAQEAAAAAAAAAAAECAwQFBgcICQoL/8QAtRAAAgEDAwIEAwUFBAQAAAF9AQIDAAQRBRIhMUEGE1FhByJxFDKBkaEII0KxwRVS0fAkM2JyggkKFhcYGRolJicoKSo0NTY3ODk6Q0RFRkdISUpTVFVWV1hZWmNkZWZnaGlqc3R1dnd4eXqDhIWGh4iJipKTlJWWl5iZmqKjpKWmp6ipqrKztLW2t7i5usLDxMXGx8jJytLT1NXW19jZ2uHi4+Tl5ufo6erx8vP09fb3+Pn6/9oACAEBAAA/AJZ3uVhTT5CsdhHbrGhlWKYSRqdmGBLZOMnKjk5APTFB45bGVZ7to55Z0coH8xTG7MFCbRggHLNuUdcDgAmrcjXd1axSzAEO8cDMJF37OQzSMAN65YcrjBjOWyoxVFqWhFz9vSaWIeTc+SJsyZHzMpBy2AN4LLyFHXtoQy2k9sbyCWRIJY4FM8imEbyoWN0ZUfcwBIA6g/UVXcrb3MRFl572pdXQTO4CsuHbcw/dsE2qfm+Ut0y2T//EAB8BAAMBAQEBAQEBAQEAAAAAAAABAgMEBQYHCAkKC//EALURAAIBAgQEAwQHBQQEAAECdwABAgMRBAUhMQYSQVEHYXETIjKBCBRCkaGxwQkjM1LwFWJy0QoWJDThJfEXGBkaJicoKSo1Njc4OTpDREVGR0hJSlNUVVZXWFlaY2RlZmdoaWpzdHV2d3h5eoKDhIWGh4iJipKTlJWWl5iZmqKjpKWmp6ipqrKztLW2t7i5usLDxMXGx8jJytLT1NXW19jZ2uLj5OXm5+jp6vLz9PX29/j5+v/aAAgBAhEAPwAlFU26kVva6Wju9NX5t9/8nV+TZ8t/NfrJbbdfM//aAAgBAxEAPwCI1FZ3SV1tZpdVb7tWnbrfV3NE6kkpKbjfzt+HMvT+kf/Z"
        )!)

    static func expectLibjpeg(_ bytes: [UInt8], targetEdge: Int, _ what: String, scale: Int? = nil) {
        let ours = Reduced.decode(bytes, targetEdge: targetEdge, reduced: true)
        let reference = Reduced.decode(bytes, targetEdge: targetEdge, reduced: false)
        XCTAssertFalse(ours.usedReduced, what)
        if let scale { XCTAssertEqual(reference.scale, scale, what) }
        XCTAssertEqual(ours.error, reference.error, what)
        if let a = ours.pixels, let b = reference.pixels { XCTAssertEqual(Reduced.maxDifference(a, b), 0, what) }
    }

    func testOtherKindsOfJPEGGoToLibjpeg() throws {
        let rgb = Reduced.picture(width: 40, height: 24, components: 3)
        let modes: [(String, Int32)] = [
            ("progressive", Int32(PC_PROGRESSIVE_SIMPLE.rawValue)),
            ("arithmetic", Int32(PC_BASELINE.rawValue | PC_ARITHMETIC.rawValue))
        ]
        for (name, mode) in modes {
            let bytes = try Verdict.encode(rgb, width: 40, height: 24, mode: mode)
            Self.expectLibjpeg(bytes, targetEdge: 5, name, scale: 1)
            Self.expectLibjpeg(bytes, targetEdge: 6, name, scale: 2)
        }
        let cmyk = (0..<(40 * 24 * 4)).map { UInt8(truncatingIfNeeded: $0 &* 37) }
        let cmykFile = try Verdict.encode(cmyk, width: 40, height: 24, components: 4, mode: Int32(PC_BASELINE.rawValue))
        Self.expectLibjpeg(cmykFile, targetEdge: 5, "CMYK", scale: 1)
        // 4:1:1 (luma 4x1): sampling the reduced decoder does not take.
        let odd = try Verdict.encode(rgb, width: 40, height: 24, mode: Int32(PC_BASELINE.rawValue), h: 4, v: 1)
        Self.expectLibjpeg(odd, targetEdge: 5, "4:1:1", scale: 1)
        Self.expectLibjpeg(Self.multiScan, targetEdge: 3, "multi-scan sequential", scale: 1)
        Self.expectLibjpeg(Self.multiScan, targetEdge: 4, "multi-scan sequential", scale: 2)
        // 12-bit: the SOF's precision byte changed (libjpeg refuses it here; so does the flag-on path).
        var twelve = try Verdict.encode(rgb, width: 40, height: 24, mode: Int32(PC_BASELINE.rawValue))
        let sof = (2..<twelve.count - 1).first { twelve[$0] == 0xFF && twelve[$0 + 1] == 0xC0 }!
        twelve[sof + 4] = 12
        Self.expectLibjpeg(twelve, targetEdge: 5, "12-bit")
        // Scales 3/8 and up: libjpeg.
        let baseline = try Verdict.encode(rgb, width: 40, height: 24, mode: Int32(PC_BASELINE.rawValue))
        for (edge, scale) in [(15, 3), (20, 4), (40, 8)] {
            Self.expectLibjpeg(baseline, targetEdge: edge, "scale \(scale)", scale: scale)
        }
        XCTAssertTrue(Reduced.decode(baseline, targetEdge: 5, reduced: true).usedReduced)
    }

    /// A header declaring 65500x65500 over a few bytes of data is refused before anything is
    /// allocated by size: by max_pixels, and by the decode budget when the limit is raised.
    func testAHugeDeclaredSizeIsRefusedWithoutAllocating() throws {
        var bytes = try Verdict.encode(
            Reduced.picture(width: 16, height: 16, components: 3), width: 16, height: 16,
            mode: Int32(PC_BASELINE.rawValue))
        let sof = (2..<bytes.count - 1).first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xC0 }!
        for i in 0..<2 { bytes[sof + 5 + 2 * i] = 0xFF; bytes[sof + 6 + 2 * i] = 0xDC } // 65500 x 65500
        XCTAssertThrowsError(
            try bytes.withUnsafeBytes {
                try ImageDecoder.decode($0, format: .jpeg, targetEdge: 120, maxPixels: 100_000_000)
            })
        var options = pc_decode_options()
        options.target_edge = 120
        options.max_pixels = UInt64.max
        options.sequential_reduced = 1
        var decoded = pc_decoded()
        var messages = pc_messages()
        let viaJpeg = bytes.withUnsafeBufferPointer {
            pc_jpeg_decode($0.baseAddress, $0.count, &options, &decoded, &messages)
        }
        XCTAssertEqual(viaJpeg, PC_OVER_BUDGET)
        XCTAssertNil(decoded.pixels)
        // Called directly (no jpeg.c checks before it): its own budget check refuses it.
        var direct = pc_decoded()
        var directMessages = pc_messages()
        let status = bytes.withUnsafeBufferPointer {
            pc_jpeg_decode_reduced($0.baseAddress, $0.count, &options, 1, &direct, &directMessages)
        }
        XCTAssertEqual(status, PC_OVER_BUDGET)
        XCTAssertNil(direct.pixels)
    }
}

/// The scan loop compiled for POPCNT/BMI1/BMI2 and in baseline x86-64 code gives the same bytes.
final class ReducedSequentialBMICodeTests: XCTestCase {
    static func direct(_ bytes: [UInt8], scale: Int32, generic: Bool) -> (pc_status, [UInt8]) {
        var options = pc_decode_options()
        options.max_pixels = 100_000_000
        options.fancy_upsampling = 1
        options.dconly_generic_code = generic ? 1 : 0
        var decoded = pc_decoded()
        var messages = pc_messages()
        let status = bytes.withUnsafeBufferPointer {
            pc_jpeg_decode_reduced($0.baseAddress, $0.count, &options, scale, &decoded, &messages)
        }
        defer { pc_free(decoded.pixels) }
        guard let p = decoded.pixels else { return (status, []) }
        return (status, Array(UnsafeBufferPointer(start: p, count: Int(decoded.width * decoded.height * 3))))
    }

    func testBothCompilationsAgree() throws {
        var compared = 0
        for (components, h, v) in [(3, 2, 2), (3, 1, 1), (3, 2, 1), (3, 1, 2), (1, 1, 1)] {
            let bytes = try Verdict.encode(
                Reduced.picture(width: 77, height: 45, components: components), width: 77, height: 45,
                components: components, quality: 92, mode: Int32(PC_BASELINE.rawValue), h: h, v: v,
                restartInterval: 2)
            for scale: Int32 in [1, 2] {
                let a = Self.direct(bytes, scale: scale, generic: false)
                let b = Self.direct(bytes, scale: scale, generic: true)
                XCTAssertEqual(a.0, PC_OK)
                XCTAssertEqual(a.0, b.0)
                XCTAssertFalse(a.1.isEmpty)
                XCTAssertEqual(a.1, b.1, "\(components) components \(h)x\(v) scale \(scale)")
                compared += 1
            }
        }
        XCTAssertEqual(compared, 10)
    }
}
