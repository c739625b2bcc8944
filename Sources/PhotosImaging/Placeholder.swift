// Temporary stand-in for the imaging layer's API, replaced when the imaging branch merges.
import CImageCodec

public enum ImageFormat: String, Sendable { case jpeg, png }
public enum ImageFormatSniffer {
    public static func detect(_ prefix: UnsafeRawBufferPointer) -> ImageFormat? {
        if prefix.count >= 3, prefix[0] == 0xFF, prefix[1] == 0xD8, prefix[2] == 0xFF { return .jpeg }
        let sig: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        if prefix.count >= 8, Array(prefix[0..<8]) == sig { return .png }
        return nil
    }
}
public struct ThumbnailOptions: Sendable, Equatable {
    public var maxEdge: Int
    public var quality: Int
    public var maxPixels: Int
    public init(maxEdge: Int = 120, quality: Int = 85, maxPixels: Int = 100_000_000) {
        self.maxEdge = maxEdge; self.quality = quality; self.maxPixels = maxPixels
    }
}
public struct ThumbnailResult: Sendable {
    public var format: ImageFormat
    public var width: Int
    public var height: Int
    public var orientation: Int
    public var dateTimeOriginal: String?
    public var offsetTimeOriginal: String?
    public var thumbnail: [UInt8]
    public var thumbnailWidth: Int
    public var thumbnailHeight: Int
    public var warnings: [String]
}
public enum ImageError: Error, Equatable, CustomStringConvertible {
    case notAnImage(String)
    case corrupt(String)
    case tooLarge(width: Int, height: Int, limit: Int)
    case unsupported(String)
    public var description: String {
        switch self {
        case .notAnImage(let m), .corrupt(let m), .unsupported(let m): return m
        case let .tooLarge(w, h, l): return "image is \(w)×\(h) pixels (\(w * h)), over the limit of \(l) (--max-pixels)"
        }
    }
}
public enum Thumbnailer {
    public static func makeThumbnail(from bytes: UnsafeRawBufferPointer, options: ThumbnailOptions) throws -> ThumbnailResult {
        guard let format = ImageFormatSniffer.detect(bytes) else { throw ImageError.notAnImage("not a JPEG or PNG file") }
        return ThumbnailResult(format: format, width: 100, height: 80, orientation: 1, dateTimeOriginal: nil, offsetTimeOriginal: nil,
                               thumbnail: [0xFF, 0xD8, 0xFF, 0xD9], thumbnailWidth: 100, thumbnailHeight: 80, warnings: [])
    }
}
