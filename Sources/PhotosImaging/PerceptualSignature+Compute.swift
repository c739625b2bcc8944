import Foundation
@_exported import struct PhotosModel.PerceptualSignature

/// The computation of `PerceptualSignature` (issue 27 item 1; the sources are in its
/// description): DCT hash, mean chroma and the low-information flag of an upright sRGB image.
extension PerceptualSignature {
    /// Below this standard deviation of the 32 × 32 luma (levels of 0…255) a picture is
    /// low-information: a flat sky or wall, a black frame (JPEG noise of a flat picture stays
    /// below 1.5 levels; the corpus photos are above 20).
    public static let lowInformationDeviation: Double = 3

    /// The side of the luma image the DCT is taken of.
    static let side = 32

    /// The signature of an upright sRGB image (the thumbnailer's reduced one, any size from
    /// 1 × 1; larger images work but cost their pixel count).
    /// - Parameter image: 8-bit RGB pixels.
    public init(of image: PixelBuffer) {
        let (w, h) = (image.width, image.height)
        let n = PerceptualSignature.side
        var luma = [Double](repeating: 0, count: w * h)
        var sumCb = 0.0
        var sumCr = 0.0
        for i in 0..<(w * h) {
            let r = Double(image.pixels[3 * i]), g = Double(image.pixels[3 * i + 1])
            let b = Double(image.pixels[3 * i + 2])
            // ITU-R BT.601 Y′CbCr, full range (JFIF 1.02 §7).
            luma[i] = 0.299 * r + 0.587 * g + 0.114 * b
            sumCb += -0.168_736 * r - 0.331_264 * g + 0.5 * b
            sumCr += 0.5 * r - 0.418_688 * g - 0.081_312 * b
        }
        let count = Double(w * h)
        let meanCb = UInt8(max(0, min(255, (128 + sumCb / count).rounded())))
        let meanCr = UInt8(max(0, min(255, (128 + sumCr / count).rounded())))
        // Area average to n × n: horizontal pass, then vertical (Resampler's exact spans; a
        // source under n pixels is stretched, each cell the pixel it lies in).
        let xs = Resampler.spans(source: w, target: n)
        let ys = Resampler.spans(source: h, target: n)
        var rows = [Double](repeating: 0, count: n * h)
        for y in 0..<h {
            for (x, span) in xs.enumerated() {
                var s = 0.0
                var total = 0.0
                for (k, weight) in span.weights.enumerated() where span.first + k < w {
                    s += Double(weight) * luma[y * w + span.first + k]
                    total += Double(weight)
                }
                rows[y * n + x] = total > 0 ? s / total : luma[y * w + min(span.first, w - 1)]
            }
        }
        var small = [Double](repeating: 0, count: n * n)
        for (y, span) in ys.enumerated() {
            for x in 0..<n {
                var s = 0.0
                var total = 0.0
                for (k, weight) in span.weights.enumerated() where span.first + k < h {
                    s += Double(weight) * rows[(span.first + k) * n + x]
                    total += Double(weight)
                }
                small[y * n + x] = total > 0 ? s / total : rows[min(span.first, h - 1) * n + x]
            }
        }
        let mean = small.reduce(0, +) / Double(n * n)
        let variance = small.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(n * n)
        let lowInformation = variance.squareRoot() < PerceptualSignature.lowInformationDeviation || w < 8 || h < 8
        // DCT-II basis rows 1…8: C[u][x] = cos((2x + 1)uπ / 2n). Only the 8 × 8 block is needed:
        // D = C · S · Cᵀ over those rows.
        var basis = [Double](repeating: 0, count: 8 * n)
        for u in 1...8 {
            for x in 0..<n { basis[(u - 1) * n + x] = cos(Double(2 * x + 1) * Double(u) * Double.pi / Double(2 * n)) }
        }
        var half = [Double](repeating: 0, count: n * 8) // S · Cᵀ: row y, column u
        for y in 0..<n {
            for u in 0..<8 {
                var s = 0.0
                for x in 0..<n { s += small[y * n + x] * basis[u * n + x] }
                half[y * 8 + u] = s
            }
        }
        var block = [Double](repeating: 0, count: 64) // row v, column u
        for v in 0..<8 {
            for u in 0..<8 {
                var s = 0.0
                for y in 0..<n { s += basis[v * n + y] * half[y * 8 + u] }
                block[v * 8 + u] = s
            }
        }
        let sorted = block.sorted()
        let median = (sorted[31] + sorted[32]) / 2
        var bits: UInt64 = 0
        for i in 0..<64 where block[i] > median { bits |= 1 << UInt64(i) }
        self.init(hash: bits, meanCb: meanCb, meanCr: meanCr, lowInformation: lowInformation)
    }
}
