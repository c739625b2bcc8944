import CImageCodec
import CImageCodecTesting
import Foundation
import XCTest
@testable import PhotosImaging

/// Faults found by fuzzing and hand-made attacks on dconly.c's reduced sequential decoder
/// (Tests/Fuzz/fuzz_reduced.c): each file gets libjpeg's verdict and pixels at 1/8 and 2/8.
final class ReducedDecoderAttackTests: XCTestCase {
    static func baseline(_ components: Int = 3, h: Int = 2, v: Int = 2, restart: Int = 0) throws -> [UInt8] {
        try ReducedSequentialDamageTests.encoded(components, h: h, v: v, restart: restart)
    }

    /// nil when both paths agree at 1/8 and 2/8 (long edge 40), else what differs.
    static func disagreement(_ bytes: [UInt8]) -> String? {
        for scale in [1, 2] {
            if let problem = ReducedSequentialDamageTests.disagreement(bytes, long: 40, scale: scale) {
                return "@\(scale): \(problem)"
            }
        }
        return nil
    }

    /// After the scan, a marker libjpeg does not know (or does not take: DAC, SOF3, JPGn, RESn),
    /// whose length bytes run past the end of the file. libjpeg refuses the marker itself
    /// ("Unsupported marker type 0x25"); the reduced decoder read its length first and said
    /// "Premature end of JPEG file".
    func testAnUnknownMarkerAfterTheScanGetsLibjpegsVerdictWhateverItsLength() throws {
        let bytes = try Self.baseline()
        XCTAssertEqual(Array(bytes.suffix(2)), [0xFF, 0xD9])
        var failures: [String] = []
        for marker: UInt8 in [0x02, 0x25, 0xBF, 0xC3, 0xC8, 0xCC, 0xDC, 0xDE, 0xDF, 0xF0, 0xFD] {
            for length: [UInt8] in [[0x32, 0x43], [0x00, 0x04, 0x00, 0x00, 0xFF, 0xD9], [0x00]] {
                let attacked = Array(bytes.dropLast(2)) + [0xFF, marker] + length
                if let problem = Self.disagreement(attacked) {
                    failures.append("marker 0x\(String(marker, radix: 16)) \(length): \(problem)")
                }
            }
        }
        XCTAssertEqual(failures, [], failures.joined(separator: "\n"))
    }

    /// After the scan, a SOF, SOS, DHT, DQT or DRI that libjpeg parses field by field and refuses
    /// on what it reads before the declared length ("two SOF markers", "Bogus marker length",
    /// "Bogus Huffman table definition"), with that length past the end of the file or not. The
    /// reduced decoder said "Premature end of JPEG file" from the length alone (fuzzer: a second
    /// SOF after the scan).
    func testASegmentAfterTheScanThatLibjpegRefusesGetsLibjpegsVerdict() throws {
        let bytes = try Self.baseline()
        let body = Array(bytes.dropLast(2))
        let sof = (2..<bytes.count - 1).first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xC0 }!
        let sofSegment = Array(bytes[sof..<(sof + 2 + (Int(bytes[sof + 2]) << 8 | Int(bytes[sof + 3])))])
        let tails: [(String, [UInt8])] = [
            ("second SOF, truncated", Array(sofSegment.prefix(9))),
            ("second SOF, whole", sofSegment + [0xFF, 0xD9]),
            ("SOF, length past the end", [0xFF, 0xC0, 0x32, 0x43, 0x08, 0x00]),
            ("SOS, length past the end", [0xFF, 0xDA, 0x32, 0x43, 0x01, 0x01, 0x00, 0x00, 0x3F, 0x00]),
            ("DRI, length past the end", [0xFF, 0xDD, 0x32, 0x43, 0x00, 0x01]),
            ("DRI, length 5", [0xFF, 0xDD, 0x00, 0x05, 0x00, 0x01, 0x00, 0xFF, 0xD9]),
            ("DHT, too many codes", [0xFF, 0xC4, 0x32, 0x43, 0x00] + [UInt8](repeating: 0xFF, count: 16)),
            ("DQT, length past the end", [0xFF, 0xDB, 0x32, 0x43, 0x00, 0x01]),
            ("DQT, bad table", [0xFF, 0xDB, 0x00, 0x43, 0x05] + [UInt8](repeating: 1, count: 64) + [0xFF, 0xD9]),
            ("COM, length past the end", [0xFF, 0xFE, 0x32, 0x43, 0x41]),
            ("APP0, length past the end", [0xFF, 0xE0, 0x32, 0x43, 0x4A, 0x46]),
            ("APP2, length 1", [0xFF, 0xE2, 0x00, 0x01, 0xFF, 0xD9]),
            ("DHT, one byte of length", [0xFF, 0xC4, 0x00])
        ]
        var failures: [String] = []
        for (name, tail) in tails {
            if let problem = Self.disagreement(body + tail) { failures.append("\(name): \(problem)") }
        }
        XCTAssertEqual(failures, [], failures.joined(separator: "\n"))
    }

    /// `bytes` with its first scan's entropy-coded data replaced by `data`, then `tail`.
    static func withScanData(_ bytes: [UInt8], _ data: [UInt8], tail: [UInt8] = [0xFF, 0xD9]) -> [UInt8] {
        let scan = Verdict.scans(bytes)[0]
        return Array(bytes[..<scan.start]) + data + tail
    }

    /// A code that matches no Huffman code in 16 bits, with exactly 16 bits before the marker or
    /// the end of the file: libjpeg's jpeg_huff_decode reads a 17th bit before it gives up
    /// (maxcode[17] is its sentinel), so it reports the missing bit ("premature end of data
    /// segment", "Premature end of JPEG file"), not the bad code. dconly.c said "bad Huffman code"
    /// at 16 bits (fuzzer), in the sequential and progressive scans alike.
    func testABadCodeEndingExactlyAtTheSegmentEndIsAMissingBitAsInLibjpeg() throws {
        let ones: [UInt8] = [0xFF, 0x00, 0xFF, 0x00] // 16 one bits: no code (none is all ones)
        var failures: [String] = []
        for (components, h, v) in [(3, 2, 2), (1, 1, 1), (3, 1, 1)] {
            let bytes = try Self.baseline(components, h: h, v: v)
            for (name, data, tail) in [
                ("16 bits then EOI", ones, [0xFF, 0xD9]), ("16 bits then the end", ones, []),
                ("17 bits then EOI", ones + [0x80], [0xFF, 0xD9]),
                ("24 bits then EOI", ones + [0xFF, 0x00], [0xFF, 0xD9])
            ] as [(String, [UInt8], [UInt8])] {
                let attacked = Self.withScanData(bytes, data, tail: tail)
                if let problem = Self.disagreement(attacked) { failures.append("\(components)c \(name): \(problem)") }
            }
        }
        // The progressive DC-only path (dconly.c's DC and AC scans) against libjpeg's own verdict.
        let rgb = Reduced.picture(width: 40, height: 24, components: 3)
        let progressive = try Verdict.encode(rgb, width: 40, height: 24, mode: Int32(PC_PROGRESSIVE_SIMPLE.rawValue))
        for (index, scan) in Verdict.scans(progressive).enumerated() {
            for (data, tail) in [(ones, [UInt8]()), (ones, [0xFF, 0xD9])] {
                let attacked = Array(progressive[..<scan.start]) + data + tail
                let reference = Verdict.libjpeg(attacked)
                let ours = Verdict.photos(attacked, targetEdge: 5).error
                if ours?.contains(reference ?? "accepted") != true {
                    failures.append(
                        "progressive scan \(index) tail \(tail): \(ours ?? "accepted") vs \(reference ?? "accepted")")
                }
            }
        }
        XCTAssertEqual(failures, [], failures.joined(separator: "\n"))
    }

    /// A progressive file cut inside a DHT, DQT, DRI or SOS between its scans, with that segment's
    /// fields valid or bogus: the DC-only path's verdict is libjpeg's (it reaches the end of the
    /// file, or refuses a field first), and plain truncation stays dconly.c's own refusal.
    func testAProgressiveFileCutInsideASegmentGetsLibjpegsVerdict() throws {
        let rgb = Reduced.picture(width: 40, height: 24, components: 3)
        let progressive = try Verdict.encode(rgb, width: 40, height: 24, mode: Int32(PC_PROGRESSIVE_SIMPLE.rawValue))
        let scans = Verdict.scans(progressive)
        let cut = scans[3].end // after the fourth scan: a DHT (or SOS) comes next
        XCTAssertEqual(progressive[cut], 0xFF)
        let head = Array(progressive[..<cut])
        let segments: [(String, [UInt8])] = [
            ("next segment", Array(progressive[cut..<min(cut + 40, progressive.count)])),
            ("DHT", [0xFF, 0xC4, 0x00, 0x40, 0x11, 0, 2, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4]),
            ("DHT too many codes", [0xFF, 0xC4, 0x00, 0x40, 0x11] + [UInt8](repeating: 0x20, count: 16) + [1, 2]),
            ("DHT bad index", [0xFF, 0xC4, 0x00, 0x40, 0x17, 0, 1] + [UInt8](repeating: 0, count: 14) + [5, 1, 2]),
            ("DQT", [0xFF, 0xDB, 0x00, 0x43, 0x01] + [UInt8](repeating: 3, count: 30)),
            ("DQT bad index", [0xFF, 0xDB, 0x00, 0x43, 0x07] + [UInt8](repeating: 3, count: 30)),
            ("DRI", [0xFF, 0xDD, 0x00, 0x04, 0x00]),
            ("DRI length 9", [0xFF, 0xDD, 0x00, 0x09, 0x00]),
            ("SOS", [0xFF, 0xDA, 0x00, 0x08, 0x01, 0x01, 0x00, 0x01]),
            ("SOS bad length", [0xFF, 0xDA, 0x00, 0x09, 0x01, 0x01, 0x00, 0x01]),
            ("SOS bad component", [0xFF, 0xDA, 0x00, 0x08, 0x01, 0x09, 0x00, 0x01]),
            ("SOF", [0xFF, 0xC2, 0x00, 0x11, 0x08, 0x00, 0x18])
        ]
        var failures: [String] = []
        var checked = 0
        for (name, segment) in segments {
            for keep in 1..<segment.count {
                let attacked = head + segment.prefix(keep)
                let reference = Verdict.libjpeg(attacked) ?? "accepted"
                let ours = Verdict.photos(attacked, targetEdge: 5).error ?? "accepted"
                checked += 1
                if !ours.contains(reference) { failures.append("\(name) keep \(keep): \(ours) vs \(reference)") }
            }
        }
        XCTAssertGreaterThan(checked, 100)
        XCTAssertEqual(failures, [], failures.joined(separator: "\n"))
    }

    /// Bad codes in data that runs to the end of the file (no EOI): libjpeg fills its bit buffer
    /// ahead to 57 bits and stops at the end of the file ("Premature end of JPEG file") before it
    /// decodes a bad code within the last 7 bytes; the reduced decoder, which reads only the bits
    /// it uses, said "bad Huffman code" (fuzzer). With 8 bytes left, or a marker after the data,
    /// or the damage in an earlier restart interval, libjpeg does see the bad code.
    func testABadCodeNearTheEndOfAFileWithoutEOIGetsLibjpegsVerdict() throws {
        func ones(_ bytes: Int) -> [UInt8] { (0..<bytes).flatMap { _ in [UInt8](arrayLiteral: 0xFF, 0x00) } }
        var failures: [String] = []
        var verdicts: Set<String> = []
        for (components, h, v, restart) in [(3, 2, 2, 0), (1, 1, 1, 0), (3, 1, 1, 1), (3, 2, 1, 2)] {
            let bytes = try Self.baseline(components, h: h, v: v, restart: restart)
            let scan = Verdict.scans(bytes)[0]
            let good = Array(bytes[scan.start..<scan.end])
            for count in 3...9 {
                let cases: [(String, [UInt8], [UInt8])] = [
                    ("\(count) bytes of ones, end of file", ones(count), []),
                    ("\(count) bytes of ones, EOI", ones(count), [0xFF, 0xD9]),
                    ("\(count) bytes of ones, RST0, more data", ones(count) + [0xFF, 0xD0, 0x12, 0x34], []),
                    ("5 good bytes, \(count) bytes of ones", Array(good.prefix(5)) + ones(count), [])
                ]
                for (name, data, tail) in cases {
                    let attacked = Self.withScanData(bytes, data, tail: tail)
                    if let problem = Self.disagreement(attacked) {
                        failures.append("\(components)c \(h)x\(v) r\(restart) \(name): \(problem)")
                    }
                    verdicts.insert(Verdict.libjpeg(attacked) ?? "accepted")
                }
            }
        }
        XCTAssertTrue(verdicts.contains("Premature end of JPEG file"), "\(verdicts)")
        XCTAssertTrue(verdicts.contains("Corrupt JPEG data: bad Huffman code"), "\(verdicts)")
        XCTAssertEqual(failures, [], failures.joined(separator: "\n"))
    }

    /// The same in the progressive DC-only path: a bad code within the last bytes of a scan whose
    /// data runs to the end of the file was "bad Huffman code" where libjpeg says "Premature end
    /// of JPEG file" (its bit reader fills ahead); such a file is now left to libjpeg.
    func testABadCodeNearTheEndOfAProgressiveFileWithoutEOIGetsLibjpegsVerdict() throws {
        let rgb = Reduced.picture(width: 40, height: 24, components: 3)
        let progressive = try Verdict.encode(rgb, width: 40, height: 24, mode: Int32(PC_PROGRESSIVE_SIMPLE.rawValue))
        var failures: [String] = []
        for (index, scan) in Verdict.scans(progressive).enumerated() {
            for count in 2...9 {
                for keep in [0, 3] {
                    let ones = (0..<count).flatMap { _ in [UInt8](arrayLiteral: 0xFF, 0x00) }
                    let attacked = Array(progressive[..<(scan.start + keep)]) + ones
                    let reference = Verdict.libjpeg(attacked) ?? "accepted"
                    let ours = Verdict.photos(attacked, targetEdge: 5).error ?? "accepted"
                    if !ours.contains(reference) {
                        failures.append("scan \(index) keep \(keep) ones \(count): \(ours) vs \(reference)")
                    }
                }
            }
        }
        XCTAssertEqual(failures, [], failures.joined(separator: "\n"))
    }

    /// Every symbol byte of every DHT of a progressive file set to a few values: an AC refinement
    /// scan whose table now gives a symbol of size 6 near the end of its data was "premature end of
    /// data segment" (dconly.c wanted the code's 6 extra bits first) where libjpeg says "bad Huffman
    /// code" as soon as it reads the code (hand-made attack: every byte after the first SOS).
    func testAProgressiveFileWithAlteredHuffmanSymbolsGetsLibjpegsVerdict() throws {
        let rgb = Reduced.picture(width: 24, height: 16, components: 3)
        let progressive = try Verdict.encode(rgb, width: 24, height: 16, mode: Int32(PC_PROGRESSIVE_SIMPLE.rawValue))
        var failures: [String] = []
        var checked = 0
        var i = 2
        while i + 4 <= progressive.count {
            guard progressive[i] == 0xFF, progressive[i + 1] != 0, progressive[i + 1] != 0xFF else { i += 1; continue }
            let marker = progressive[i + 1]
            if marker == 0xD9 { break }
            let length = Int(progressive[i + 2]) << 8 | Int(progressive[i + 3])
            if marker == 0xC4 {
                for at in (i + 21)..<(i + 2 + length) {
                    for value: UInt8 in [0x00, 0x01, 0x02, 0x06, 0x11, 0x13, 0xE1, 0xF0] {
                        var attacked = progressive
                        attacked[at] = value
                        let reference = Verdict.libjpeg(attacked) ?? "accepted"
                        let ours = Verdict.photos(attacked, targetEdge: 3).error ?? "accepted"
                        checked += 1
                        if !ours.contains(reference) {
                            failures.append("byte \(at) = \(value): \(ours) vs \(reference)")
                        }
                    }
                }
            }
            i += 2 + length
        }
        XCTAssertGreaterThan(checked, 200)
        XCTAssertEqual(failures, [], "\(failures.count) of \(checked):\n" + failures.prefix(20).joined(separator: "\n"))
    }
}
