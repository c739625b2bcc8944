// The enum is the domain's (PhotosModel: the catalog stores it); re-exported alone, with the pixel work here.
@_exported import enum PhotosModel.Orientation

extension Orientation {
    /// Applies an EXIF orientation to RGB pixels, giving the upright image.
    ///
    /// 1 as stored, 2 mirror horizontal, 3 rotate 180°, 4 mirror vertical,
    /// 5 transpose, 6 rotate 90° clockwise, 7 transverse, 8 rotate 90° counter-clockwise
    /// (EXIF 2.32 Table 4).
    /// - Parameter source: stored pixels.
    /// - Returns: the upright pixels (`source` itself for `.up`).
    /// - Throws: `ImageError.unsupported` when the memory cannot be had.
    public func apply(to source: PixelBuffer) throws -> PixelBuffer {
        guard self != .up else { return source }
        let orientation = rawValue
        let w = source.width, h = source.height
        let swapped = swapsDimensions
        let outWidth = swapped ? h : w
        let outHeight = swapped ? w : h
        let result = try PixelBuffer(width: outWidth, height: outHeight)
        let src = source.pixels, dst = result.pixels
        for y in 0..<outHeight {
            for x in 0..<outWidth {
                let sx: Int, sy: Int
                switch orientation {
                case 2: (sx, sy) = (w - 1 - x, y)
                case 3: (sx, sy) = (w - 1 - x, h - 1 - y)
                case 4: (sx, sy) = (x, h - 1 - y)
                case 5: (sx, sy) = (y, x)
                case 6: (sx, sy) = (y, h - 1 - x)
                case 7: (sx, sy) = (w - 1 - y, h - 1 - x)
                default: (sx, sy) = (w - 1 - y, x) // 8
                }
                let s = (sy * w + sx) * 3, d = (y * outWidth + x) * 3
                dst[d] = src[s]
                dst[d + 1] = src[s + 1]
                dst[d + 2] = src[s + 2]
            }
        }
        return result
    }
}
