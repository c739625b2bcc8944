import CImageCodec
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
}
