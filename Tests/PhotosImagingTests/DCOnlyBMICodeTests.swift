import CImageCodec
import CImageCodecTesting
import Foundation
import PhotosTestSupport
import XCTest

/// dconly.c compiles its AC-scan loops twice — baseline x86-64 and POPCNT/BMI1/BMI2, taken
/// when the CPU has them — from the same C: both must give the same status, the same error
/// message and the same pixels for every input, intact or damaged (a difference would make an
/// import's thumbnails or its accepted/refused files depend on the machine).
final class DCOnlyBMICodeTests: XCTestCase {
    /// Both compilations on `bytes`: the same verdict, message and pixels.
    func assertSameBothWays(_ bytes: [UInt8], _ label: String, file: StaticString = #filePath, line: UInt = #line) {
        let fast = DCOnly.decode(bytes)
        let generic = DCOnly.decode(bytes, genericCode: true)
        XCTAssertEqual(fast.status, generic.status, label, file: file, line: line)
        XCTAssertEqual(fast.error, generic.error, label, file: file, line: line)
        XCTAssertEqual(fast.pixels?.width, generic.pixels?.width, label, file: file, line: line)
        XCTAssertEqual(fast.pixels?.height, generic.pixels?.height, label, file: file, line: line)
        XCTAssertEqual(fast.pixels?.bytes, generic.pixels?.bytes, label, file: file, line: line)
    }

    func requireBMICode() throws {
        guard pc_jpeg_dc_only_bmi_code() == 1 else {
            throw XCTSkip(
                "this CPU (or a non-x86-64 build) has no POPCNT/BMI1/BMI2: dconly.c runs only its baseline code")
        }
    }

    /// Every progressive JPEG of the corpus (the malformed ones too), whole.
    func testCorpusProgressiveFilesDecodeTheSameBothWays() throws {
        try requireBMICode()
        let files = try DCOnly.progressiveFiles()
        XCTAssertGreaterThan(files.count, 10)
        var handled = 0
        for path in files {
            let bytes = try Corpus.data(path)
            assertSameBothWays(bytes, path)
            if DCOnly.decode(bytes).status == PC_OK { handled += 1 }
        }
        XCTAssertGreaterThan(handled, 5, "the corpus must exercise the AC scan loops")
    }

    /// Damaged copies of generated progressive files (both scan scripts, restart intervals,
    /// 4:2:0 and 4:2:2): bytes of the entropy-coded data changed at fixed places, and truncations.
    /// Corrupt AC data must be refused with the same message by both compilations.
    func testDamagedProgressiveFilesGetTheSameVerdictBothWays() throws {
        try requireBMICode()
        let sources = [
            try DCOnly.encode(
                DCOnly.testImage(width: 96, height: 64), width: 96, height: 64, components: 3, h: 2, v: 2, quality: 92),
            try DCOnly.encode(
                DCOnly.testImage(width: 80, height: 40), width: 80, height: 40, components: 3, h: 2, v: 1,
                quality: 95, restartInterval: 2, script: 1)
        ]
        var verdicts = Set<String>()
        for (n, source) in sources.enumerated() {
            assertSameBothWays(source, "source \(n)")
            XCTAssertEqual(DCOnly.decode(source).status, PC_OK, "source \(n)")
            let scans = DCOnly.scanOffsets(source)
            XCTAssertGreaterThan(scans.count, 5)
            // Deterministic damage: one byte in the middle of each scan's data, XORed with a
            // few patterns, and the file cut inside each scan.
            for (i, start) in scans.enumerated() {
                let end = i + 1 < scans.count ? scans[i + 1] : source.count - 2
                let middle = start + (end - start) * 2 / 3
                for pattern: UInt8 in [0x01, 0x10, 0x5A, 0xFF] {
                    var bytes = source
                    bytes[middle] ^= pattern
                    assertSameBothWays(bytes, "source \(n) scan \(i) xor \(pattern)")
                    let result = DCOnly.decode(bytes)
                    verdicts.insert("\(result.status.rawValue) \(result.error)")
                }
                assertSameBothWays(Array(source[..<middle]), "source \(n) cut in scan \(i)")
            }
        }
        // The damage reached more than one outcome (accepted, refused with different messages).
        XCTAssertGreaterThan(verdicts.count, 2, "\(verdicts)")
    }
}
