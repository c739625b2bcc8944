import CImageCodec

/// Owner of an 8-bit interleaved RGB pixel buffer; the memory is freed when the
/// last reference goes, whether it came from the C decoder or from Swift.
public final class PixelBuffer {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// Bytes per pixel; always 3 (R, G, B).
    public let channels = 3
    /// The pixels, row after row, `width * 3` bytes per row, no padding.
    public let pixels: UnsafeMutablePointer<UInt8>

    /// Allocates an uninitialised buffer.
    /// - Parameters:
    ///   - width: pixels, at least 1.
    ///   - height: pixels, at least 1.
    /// - Throws: `ImageError.unsupported` when the memory cannot be had.
    public init(width: Int, height: Int) throws {
        precondition(width > 0 && height > 0, "empty pixel buffer")
        self.width = width
        self.height = height
        guard let raw = pc_malloc(width * height * 3) else {
            throw ImageError.unsupported("out of memory for a \(width)×\(height) pixel buffer")
        }
        pixels = raw.assumingMemoryBound(to: UInt8.self)
    }

    /// Takes ownership of a buffer malloc'd by CImageCodec.
    init(adopting pointer: UnsafeMutablePointer<UInt8>, width: Int, height: Int) {
        self.width = width
        self.height = height
        self.pixels = pointer
    }

    /// Creates a buffer holding a copy of `bytes` (RGB, `width * height * 3` of them).
    /// - Parameters:
    ///   - width: pixels.
    ///   - height: pixels.
    ///   - bytes: RGB bytes, row-major.
    /// - Throws: `ImageError.unsupported` when the memory cannot be had.
    public convenience init(width: Int, height: Int, rgb bytes: [UInt8]) throws {
        precondition(bytes.count == width * height * 3, "RGB byte count does not match the size")
        try self.init(width: width, height: height)
        bytes.withUnsafeBufferPointer { pixels.update(from: $0.baseAddress!, count: bytes.count) }
    }

    deinit { pc_free(pixels) }

    /// The bytes as an array (for tests and small images).
    public var bytes: [UInt8] { Array(UnsafeBufferPointer(start: pixels, count: width * height * 3)) }

    /// The (R, G, B) of one pixel.
    /// - Parameters:
    ///   - x: column, 0-based from the left.
    ///   - y: row, 0-based from the top.
    public func pixel(x: Int, y: Int) -> (UInt8, UInt8, UInt8) {
        let i = (y * width + x) * 3
        return (pixels[i], pixels[i + 1], pixels[i + 2])
    }
}
