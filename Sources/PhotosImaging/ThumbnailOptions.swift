/// How thumbnails are made (SPEC §6; `--thumbnail-quality`, `--max-pixels`).
public struct ThumbnailOptions: Sendable, Equatable {
    /// Longest edge of the thumbnail, pixels (SPEC §6: 120).
    public var maxEdge: Int
    /// JPEG quality of the thumbnail, 1...100 (libjpeg `jpeg_set_quality`; SPEC §6: 85).
    public var quality: Int
    /// Largest stored width × height, pixels, that is decoded at all (SPEC §6: 100 million).
    public var maxPixels: Int

    /// Creates options.
    /// - Parameters:
    ///   - maxEdge: longest thumbnail edge in pixels (default 120).
    ///   - quality: JPEG quality 1...100 (default 85).
    ///   - maxPixels: stored width × height limit in pixels (default 100,000,000).
    public init(maxEdge: Int = 120, quality: Int = 85, maxPixels: Int = 100_000_000) {
        self.maxEdge = maxEdge
        self.quality = quality
        self.maxPixels = maxPixels
    }

    /// The largest file, bytes, that can hold an image of at most `maxPixels` pixels in a
    /// format read (`maxFileBytes(maxPixels:)`); a larger file is refused before it is read.
    public var maxFileBytes: Int { ThumbnailOptions.maxFileBytes(maxPixels: maxPixels) }

    /// Room for metadata beside the image data in `maxFileBytes`, bytes: 64 MiB (an XMP packet
    /// is read up to 4 MiB, an ICC profile up to 16 MiB, EXIF segments 64 KiB each).
    public static let metadataAllowance = 64 << 20

    /// The largest file, bytes, that can hold an image of at most `maxPixels` pixels (issue 31
    /// item 20): 9 bytes per pixel — the least compact image of the formats read is a PNG of
    /// 16-bit RGBA (8 bytes per pixel) in stored deflate blocks, with a filter byte per row —
    /// plus `metadataAllowance`. At the default 100 million pixels: 967,108,864 bytes (922 MiB). Saturates at
    /// `Int.max`.
    public static func maxFileBytes(maxPixels: Int) -> Int {
        let (pixels, overflow) = max(0, maxPixels).multipliedReportingOverflow(by: 9)
        let (total, overflow2) = pixels.addingReportingOverflow(metadataAllowance)
        return overflow || overflow2 ? Int.max : total
    }
}

/// An upright thumbnail and what the decoder learned about the original.
public struct ThumbnailResult: Sendable {
    /// Format of the original file.
    public var format: ImageFormat
    /// Upright width of the original, pixels (after EXIF orientation, or HEIF irot; SPEC §6).
    public var width: Int
    /// Upright height of the original, pixels.
    public var height: Int
    /// EXIF Orientation that was applied (EXIF 2.32 §4.6.4 Table 4); `.up` when absent or out of
    /// range, and always `.up` for HEIF/AVIF, whose irot/imir libheif applies while decoding.
    public var orientation: Orientation
    /// Raw EXIF DateTimeOriginal (tag 0x9003) "YYYY:MM:DD HH:MM:SS" when present and well-formed.
    public var dateTimeOriginal: String?
    /// Raw EXIF OffsetTimeOriginal (tag 0x9011) "+HH:MM" when present.
    public var offsetTimeOriginal: String?
    /// The thumbnail as JPEG bytes (8-bit sRGB, baseline).
    public var thumbnail: [UInt8]
    /// Thumbnail width, pixels, upright.
    public var thumbnailWidth: Int
    /// Thumbnail height, pixels, upright.
    public var thumbnailHeight: Int
    /// Decoder warnings that did not reject the file (libjpeg/libpng wording).
    public var warnings: [String]
    /// EXIF, XMP and IPTC metadata found in the file (read in the same walk as the EXIF).
    public var metadata = EmbeddedMetadata()
    /// Camera RAW files: the container, camera and where the thumbnail came from; nil for other formats.
    public var camera: CameraRawInfo?
    /// Videos: the poster's source and what FFmpeg's libraries say (duration, codec, dates); nil
    /// for other formats (issue 25 item 1).
    public var video: VideoPosterResult?
    /// Motion Photos (issue 25 item 3): the embedded video's byte range within the file and what
    /// FFmpeg's libraries say of it (`MotionPhoto.embeddedVideo`); nil for other files.
    public var motion: (range: Range<Int>, video: VideoPosterResult)?
    /// The perceptual signature of the upright reduced image the thumbnail was encoded from
    /// (issue 27 item 1, `PerceptualSignature`); nil for videos (a poster frame is not the
    /// picture a duplicate search compares).
    public var signature: PerceptualSignature?
}
