/// Makes the 120-pixel upright thumbnails of SPEC §6.
///
/// Pipeline: decode at DCT scale (or box-reduced PNG rows) → area-average to the
/// exact size, computed on the stored orientation → apply EXIF orientation on the
/// small image → encode JPEG. No global mutable state: safe to call from many
/// threads at once.
public enum Thumbnailer {
    /// Decodes `bytes` (a whole JPEG, PNG, HEIF/AVIF, WebP, camera RAW, TIFF, GIF, JPEG XL or video
    /// file in memory; a video's thumbnail is its poster frame, `VideoPoster`), applies EXIF orientation (JPEG, PNG, WebP, TIFF tag 274; HEIF's irot/imir are
    /// applied by libheif; RAW: its embedded preview's EXIF Orientation when it has one, else the
    /// RAW's own, `RawThumbnailer`; JPEG XL's codestream orientation; a JPEG XL that recompresses
    /// a JPEG is thumbnailed as that JPEG),
    /// and returns an upright thumbnail JPEG.
    /// - Parameters:
    ///   - bytes: the whole file.
    ///   - options: edge, quality and pixel limit.
    /// - Returns: the thumbnail and the original's upright size, orientation and dates.
    /// - Throws: `ImageError`: `.notAnImage` for other bytes, `.corrupt` with
    ///   libjpeg's/libpng's message, `.tooLarge` over `options.maxPixels`, `.unsupported`.
    public static func makeThumbnail(from bytes: UnsafeRawBufferPointer, options: ThumbnailOptions) throws
        -> ThumbnailResult
    {
        try makeThumbnail(from: bytes, options: options, tuning: .default)
    }

    /// `makeThumbnail(from:options:)` with explicit libjpeg knobs, for measurement.
    /// - Parameters:
    ///   - bytes: the whole file.
    ///   - options: edge, quality and pixel limit.
    ///   - tuning: libjpeg decode knobs.
    /// - Returns: the thumbnail.
    /// - Throws: `ImageError`.
    public static func makeThumbnail(
        from bytes: UnsafeRawBufferPointer, options: ThumbnailOptions,
        tuning: DecoderTuning
    ) throws -> ThumbnailResult {
        guard !bytes.isEmpty else { throw ImageError.notAnImage("empty file") }
        // Only files already taken for images come here (import's sniff, verify --repair's originals).
        guard let format = ImageFormatSniffer.detectFile(bytes, soiSuffices: true) else {
            let start = bytes.prefix(2).map { "0x" + hex($0) }.joined(separator: " ")
            throw ImageError.notAnImage(
                "not a JPEG, PNG, HEIF, AVIF, WebP, TIFF, GIF, JPEG XL or camera RAW file (starts with \(start))"
            )
        }
        if format == .raw { return try RawThumbnailer.makeThumbnail(from: bytes, options: options, tuning: tuning) }
        if format == .video {
            let poster = try VideoPoster.makeThumbnail(from: bytes, options: options)
            return ThumbnailResult(
                format: .video, width: poster.width, height: poster.height, orientation: .up, dateTimeOriginal: nil,
                offsetTimeOriginal: nil, thumbnail: poster.thumbnail, thumbnailWidth: poster.thumbnailWidth,
                thumbnailHeight: poster.thumbnailHeight, warnings: [], video: poster)
        }
        let edge = max(1, options.maxEdge)
        if format == .jxl, let jpeg = try ImageDecoder.reconstructedJPEG(bytes, maxPixels: options.maxPixels) {
            // A recompressed JPEG: its own bytes on the JPEG path (the same thumbnail, EXIF and XMP).
            var result = try jpeg.withUnsafeBytes { try makeThumbnail(from: $0, options: options, tuning: tuning) }
            result.format = .jxl
            return result
        }
        let decoded = try ImageDecoder.decode(
            bytes, format: format, targetEdge: edge,
            maxPixels: options.maxPixels, tuning: tuning)
        let metadata: EmbeddedMetadata
        switch format {
        case .jpeg:
            metadata = EmbeddedMetadata.read(jpeg: bytes)
        case .png:
            metadata = EmbeddedMetadata.read(
                png: bytes, exif: decoded.exif.map { ExifReader.parse($0) } ?? ExifMetadata())
        case .heif, .avif:
            metadata = EmbeddedMetadata.read(heifExif: decoded.exif, xmp: decoded.xmp)
        case .webp:
            metadata = EmbeddedMetadata.read(webp: bytes)
        case .tiff:
            // The file is a TIFF block: IFD0 (Orientation, DateTime) and its Exif IFD are read as
            // EXIF is (ExifReader; classic TIFF only, BigTIFF's 64-bit IFDs give no EXIF).
            metadata = EmbeddedMetadata.read(tiff: bytes, xmp: decoded.xmp)
        case .jxl:
            metadata = EmbeddedMetadata.read(heifExif: decoded.exif, xmp: decoded.xmp)
        case .raw, .gif, .video:
            metadata = EmbeddedMetadata() // (.raw: RawThumbnailer)
        }
        let exif = metadata.exif
        // HEIF/AVIF: libheif has applied irot/imir, which govern display (ISO/IEC 23008-12
        // §6.5.10-11); an EXIF Orientation in the file is informative and never applied on top.
        // JPEG XL: the codestream's orientation governs (ISO/IEC 18181-1 ImageMetadata); an Exif
        // box's Orientation is informative (jxl.c).
        let orientation: Orientation =
            format == .heif || format == .avif ? .up : decoded.codestreamOrientation ?? exif.orientation
        let swap = orientation.swapsDimensions
        let uprightWidth = swap ? decoded.storedHeight : decoded.storedWidth
        let uprightHeight = swap ? decoded.storedWidth : decoded.storedHeight
        let size = thumbnailSize(width: uprightWidth, height: uprightHeight, maxEdge: edge)
        let stored = try Resampler.areaAverage(
            decoded.pixels, width: swap ? size.height : size.width,
            height: swap ? size.width : size.height)
        let upright = try orientation.apply(to: stored)
        let jpeg = try ImageDecoder.encodeJPEG(upright, quality: min(100, max(1, options.quality)))
        var result = ThumbnailResult(
            format: format, width: uprightWidth, height: uprightHeight, orientation: orientation,
            dateTimeOriginal: exif.dateTimeOriginal, offsetTimeOriginal: exif.offsetTimeOriginal,
            thumbnail: jpeg, thumbnailWidth: upright.width, thumbnailHeight: upright.height,
            warnings: decoded.warnings, metadata: metadata)
        // Issue 27 item 1: from the upright reduced pixels, before (not from) the JPEG.
        result.signature = PerceptualSignature(of: upright)
        return result
    }

    /// The thumbnail size rule of SPEC §6: longest edge `maxEdge`, aspect ratio kept,
    /// the other edge rounded to the nearest pixel and at least 1; never upscaled.
    /// - Parameters:
    ///   - width: upright width, pixels.
    ///   - height: upright height, pixels.
    ///   - maxEdge: longest edge, pixels (120).
    /// - Returns: the thumbnail's upright size in pixels.
    public static func thumbnailSize(width: Int, height: Int, maxEdge: Int) -> (width: Int, height: Int) {
        let longEdge = max(width, height)
        guard longEdge > maxEdge else { return (width, height) }
        func scaled(_ edge: Int) -> Int { max(1, (edge * maxEdge * 2 + longEdge) / (longEdge * 2)) }
        return width >= height ? (maxEdge, scaled(height)) : (scaled(width), maxEdge)
    }

    static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 15)]])
    }
}
