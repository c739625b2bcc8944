import CImageCodec
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
