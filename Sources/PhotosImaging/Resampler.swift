/// Area-averaging ("box") resampling of 8-bit RGB: each output pixel is the mean
/// of the source area it covers, fractional pixels weighted by their covered
/// fraction, so non-integer ratios are exact and nothing aliases like
/// nearest-neighbour does (SPEC §6: "a proper area-averaging downscale").
public enum Resampler {
    /// One output sample's source span on one axis.
    struct Span {
        var first: Int
        var weights: [Float] // normalised to sum to 1
    }

    /// Coverage of output cell i, [i·s/t, (i+1)·s/t), over source cells [j, j+1),
    /// in exact integer units of 1/t.
    static func spans(source: Int, target: Int) -> [Span] {
        (0..<target).map { i in
            let start = i * source, end = (i + 1) * source
            let first = start / target
            let last = min(source - 1, (end + target - 1) / target - 1)
            var weights: [Float] = []
            for j in first...max(first, last) {
                let overlap = min(end, (j + 1) * target) - max(start, j * target)
                weights.append(Float(overlap) / Float(source))
            }
            return Span(first: first, weights: weights)
        }
    }

    /// Resamples `source` to exactly `width` × `height` pixels by area averaging.
    /// - Parameters:
    ///   - source: RGB pixels.
    ///   - width: target width, pixels, at least 1.
    ///   - height: target height, pixels, at least 1.
    /// - Returns: a new buffer; `source` itself when the size is unchanged.
    /// - Throws: `ImageError.unsupported` when the memory cannot be had.
    public static func areaAverage(_ source: PixelBuffer, width: Int, height: Int) throws -> PixelBuffer {
        if width == source.width && height == source.height { return source }
        let columns = spans(source: source.width, target: width)
        let rows = spans(source: source.height, target: height)
        let sourceWidth = source.width
        // Horizontal pass into floats for every source row, then the vertical pass.
        var horizontal = [Float](repeating: 0, count: source.height * width * 3)
        horizontal.withUnsafeMutableBufferPointer { tmp in
            let src = source.pixels
            for y in 0..<source.height {
                let row = src + y * sourceWidth * 3
                let outRow = y * width * 3
                for x in 0..<width {
                    let span = columns[x]
                    var r: Float = 0, g: Float = 0, b: Float = 0
                    var p = row + span.first * 3
                    for w in span.weights {
                        r += Float(p[0]) * w
                        g += Float(p[1]) * w
                        b += Float(p[2]) * w
                        p += 3
                    }
                    tmp[outRow + x * 3] = r
                    tmp[outRow + x * 3 + 1] = g
                    tmp[outRow + x * 3 + 2] = b
                }
            }
        }
        let result = try PixelBuffer(width: width, height: height)
        let dst = result.pixels
        horizontal.withUnsafeBufferPointer { tmp in
            var sums = [Float](repeating: 0, count: width * 3)
            for y in 0..<height {
                let span = rows[y]
                for i in 0..<(width * 3) { sums[i] = 0 }
                for (k, w) in span.weights.enumerated() {
                    let base = (span.first + k) * width * 3
                    for i in 0..<(width * 3) { sums[i] += tmp[base + i] * w }
                }
                let outRow = y * width * 3
                for i in 0..<(width * 3) {
                    dst[outRow + i] = UInt8(max(0, min(255, sums[i] + 0.5)))
                }
            }
        }
        return result
    }
}
