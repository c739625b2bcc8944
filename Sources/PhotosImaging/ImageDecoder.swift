import CImageCodec

/// Knobs of the libjpeg decode, exposed so they can be measured; the defaults
/// are what `Thumbnailer` uses.
public struct DecoderTuning: Sendable, Equatable {
    /// libjpeg `dct_method` (libjpeg.txt "dct_method"). It only matters when the
    /// image decodes at 8/8: the scaled IDCTs (1/8...7/8) ignore it.
    public enum DCTMethod: Int32, Sendable { case islow = 0, ifast = 1, float = 2 }
    /// Inverse DCT used at full scale.
    public var dctMethod: DCTMethod
    /// libjpeg `do_fancy_upsampling` (triangle-filtered chroma upsampling).
    public var fancyUpsampling: Bool
    /// Decode only the DC scans of a progressive JPEG when decoding at 1/8: CImageCodec's
    /// DC-only decoder (dconly.c: no whole-image coefficient buffer, DC refinement scans
    /// applied, AC scans entropy-decoded only to refuse damage as libjpeg does). The files it
    /// leaves to libjpeg (arithmetic, CMYK...), and every file when false, get libjpeg's own
    /// decode of every scan, within `ImageDecoder.decodeBudgetBytes`.
    public var progressiveDCOnly: Bool
    /// Decode sequential (baseline) JPEGs at 1/8 and 2/8 with CImageCodec's reduced decoder
    /// (dconly.c `pc_jpeg_decode_reduced`: every block entropy-decoded, only the coefficients
    /// the reduced IDCT uses kept, the same pixels as libjpeg's decode at that scale) instead of
    /// libjpeg. Files it leaves to libjpeg (progressive, arithmetic, multi-scan, CMYK...) and
    /// every file when false get libjpeg's decode.
    public var sequentialReduced: Bool
    /// Convert embedded ICC profiles (and PNG cHRM + gAMA) to sRGB with Little CMS (CImageCodec
    /// color.c); false leaves the file's encoded values (for comparing decoders with each other).
    public var colorManagement: Bool

    /// The measured choice: ISLOW, fancy upsampling, DC-only early stop, reduced sequential decoder.
    ///
    /// Measured on this 2-core machine, release build, one thread (numbers vary ±15% run to run):
    /// - All 30 bench JPEGs (2560–5640 px) decode at 1/8, where the IDCT is 1×1 and chroma is
    ///   IDCT-scaled instead of upsampled: ISLOW/IFAST and fancy on/off give identical 120-px
    ///   results (mean abs difference 0.000) and only noise-level speed differences
    ///   (12.4, 11.2, 14.8, 15.2 images/s for ISLOW+fancy, ISLOW, IFAST+fancy, IFAST).
    /// - The 27 corpus JPEGs with a long edge of 121–959 px (decoded at 2/8–8/8): 1064, 1063,
    ///   1054, 1130 images/s, mean abs difference against ISLOW+fancy 0, 0.35, 0.41, 0.62.
    ///   No speed worth the error, so ISLOW with fancy upsampling.
    /// - DC-only early stop on the 14 progressive bench JPEGs: 5.5 → 35.2 images/s
    ///   (mate_Elephants 0.94 s → 0.12 s); mean abs difference of the 120-px result 0.41
    ///   (worst 0.95), from the missing DC LSB (successive approximation) and chroma that
    ///   libjpeg-turbo decodes with a 2×2 IDCT at 1/8.
    /// - DC-only decoder (dconly.c) on the same 14 files: identical to libjpeg's full 1/8 decode
    ///   for 4:4:4 and 4:2:2 (the DC LSB refinement scans are applied); 4:2:0 chroma replicated:
    ///   120-px mean abs difference 0.10 (worst 0.64). One-file import of mate_Elephants peaks at
    ///   46 MB instead of 114 MB.
    /// - Since issue 9 dconly.c also entropy-decodes the AC scans (to refuse what libjpeg
    ///   refuses): 53 → 440 ms of decode CPU for the 14 files, still 2.7× faster than libjpeg.
    /// - Reduced sequential decoder (dconly.c `pc_jpeg_decode_reduced`, issue 15), callgrind
    ///   instruction counts, release build: `photos import --jobs 1` of 200 small-tree files
    ///   (640×480 4:2:0 baseline, decoded at 2/8) 1.327 G → 1.198 G instructions, pc_jpeg_decode
    ///   668 M → 538 M (50 % → 45 % of the import); lomiri_Kleiber (6028×3391 4:2:2, 1/8) import
    ///   626 M → 510 M, decode 386 M → 270 M. Pixels and thumbnails identical to libjpeg's path.
    public static let `default` = DecoderTuning(dctMethod: .islow, fancyUpsampling: true, progressiveDCOnly: true)

    /// Creates a tuning.
    /// - Parameters:
    ///   - dctMethod: inverse DCT at full scale.
    ///   - fancyUpsampling: libjpeg `do_fancy_upsampling`.
    ///   - progressiveDCOnly: allow the DC-scan early stop.
    ///   - colorManagement: convert embedded profiles to sRGB (default true).
    ///   - sequentialReduced: allow the reduced decoder for sequential JPEGs at 1/8 and 2/8 (default true).
    public init(
        dctMethod: DCTMethod, fancyUpsampling: Bool, progressiveDCOnly: Bool, colorManagement: Bool = true,
        sequentialReduced: Bool = true
    ) {
        self.dctMethod = dctMethod
        self.fancyUpsampling = fancyUpsampling
        self.progressiveDCOnly = progressiveDCOnly
        self.colorManagement = colorManagement
        self.sequentialReduced = sequentialReduced
    }
}

/// A file decoded at reduced size, not yet oriented.
public struct DecodedImage {
    /// RGB pixels at the decode scale, stored orientation.
    public var pixels: PixelBuffer
    /// Width in the file's header, pixels.
    public var storedWidth: Int
    /// Height in the file's header, pixels.
    public var storedHeight: Int
    /// JPEG: numerator of the DCT scale n/8; PNG: the integer box factor.
    public var scale: Int
    /// True when the progressive DC-only early stop was used.
    public var usedDCOnly: Bool
    /// True when a sequential JPEG was decoded by the reduced decoder (`DecoderTuning.sequentialReduced`).
    public var usedReduced: Bool = false
    /// PNG eXIf payload or HEIF Exif item (TIFF block), when the file has one.
    public var exif: [UInt8]?
    /// HEIF XMP item (`application/rdf+xml`) or TIFF XMLPacket (tag 700), when the file has one.
    public var xmp: [UInt8]?
    /// Warnings that did not reject the file.
    public var warnings: [String]
    /// JPEG XL: the codestream's orientation (ISO/IEC 18181-1 ImageMetadata, EXIF values 1...8),
    /// which governs display; the pixels are in stored orientation. nil for the other formats.
    public var codestreamOrientation: Orientation? = nil
}

/// Calls into CImageCodec and turns its status codes into `ImageError`.
public enum ImageDecoder {
    /// The per-worker decode budget, bytes (CImageCodec.h `PC_DECODE_BUDGET_MB`): the most one
    /// decode allocates for buffers sized by what the file declares; SPEC §8, SPEC §6 "Limits".
    public static let decodeBudgetBytes = Int(PC_DECODE_BUDGET_MB) << 20

    /// Decodes a JPEG, PNG, HEIF/AVIF, WebP or JPEG XL held in memory, reduced so its long edge stays >=
    /// `targetEdge`, converted to sRGB when it embeds a colour profile (CImageCodec color.c).
    ///
    /// JPEG: libjpeg DCT scaling, scale_num/8 with scale_num 1...8 (libjpeg.txt
    /// "scale_num, scale_denom"); PNG: integer box reduction while reading rows; HEIF/AVIF:
    /// libheif's decode of the primary image, or of its first thumbnail at least `targetEdge`
    /// on the long edge, box-reduced, already upright (irot/imir); WebP: libwebp's scaled
    /// decode straight to the thumbnail size; TIFF: libtiff's TIFFRGBAImage band by band into the
    /// box reducer, from the first full-resolution page or its smallest reduced-resolution copy of
    /// at least `targetEdge` (CImageCodec tiff.c), orientation not applied; GIF: giflib's first
    /// frame on its logical screen, transparency on white (gif.c).
    /// decode straight to the thumbnail size; JPEG XL: libjxl's decode streamed into a box
    /// reduction (from the DC pass alone with `PHOTOS_JXL_DC_PASS=1`), stored orientation, PQ/HLG
    /// tone-mapped to sRGB.
    /// - Parameters:
    ///   - bytes: the whole file.
    ///   - format: its format (from `ImageFormatSniffer`).
    ///   - targetEdge: pixels the long edge must keep.
    ///   - maxPixels: stored width × height limit, pixels.
    ///   - tuning: libjpeg knobs.
    /// - Returns: the decoded image.
    /// - Throws: `ImageError.corrupt`, `.tooLarge`, `.unsupported`, `.overBudget`.
    public static func decode(
        _ bytes: UnsafeRawBufferPointer, format: ImageFormat, targetEdge: Int,
        maxPixels: Int, tuning: DecoderTuning = .default
    ) throws -> DecodedImage {
        var options = pc_decode_options()
        options.target_edge = Int32(clamping: targetEdge)
        options.max_pixels = UInt64(max(0, maxPixels))
        options.dct_method = tuning.dctMethod.rawValue
        options.fancy_upsampling = tuning.fancyUpsampling ? 1 : 0
        options.progressive_dc_only = tuning.progressiveDCOnly ? 1 : 0
        options.sequential_reduced = tuning.sequentialReduced ? 1 : 0
        options.ignore_icc = tuning.colorManagement ? 0 : 1
        var decoded = pc_decoded()
        var messages = pc_messages()
        let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
        let status: pc_status
        switch format {
        case .jpeg: status = pc_jpeg_decode(base, bytes.count, &options, &decoded, &messages)
        case .png: status = pc_png_decode(base, bytes.count, &options, &decoded, &messages)
        case .heif, .avif: status = pc_heif_decode(base, bytes.count, &options, &decoded, &messages)
        case .webp: status = pc_webp_decode(base, bytes.count, &options, &decoded, &messages)
        case .raw:
            throw ImageError.unsupported("raw files are decoded by RawThumbnailer (LibRaw), not here")
        case .tiff: status = pc_tiff_decode(base, bytes.count, &options, &decoded, &messages)
        case .gif: status = pc_gif_decode(base, bytes.count, &options, &decoded, &messages)
        case .video:
            throw ImageError.unsupported("videos are decoded by VideoPoster (libavcodec), not here")
        case .jxl:
            status = pc_jxl_decode(base, bytes.count, &options, &decoded, &messages)
        }
        var exif: [UInt8]?, xmp: [UInt8]?
        if let pointer = decoded.exif {
            exif = Array(UnsafeBufferPointer(start: pointer, count: decoded.exif_size))
            pc_free(pointer)
        }
        if let pointer = decoded.xmp {
            xmp = Array(UnsafeBufferPointer(start: pointer, count: decoded.xmp_size))
            pc_free(pointer)
        }
        let warnings = messageLines(&messages)
        guard status == PC_OK, let pixels = decoded.pixels else {
            pc_free(decoded.pixels)
            throw error(
                status, messages: &messages, width: Int(decoded.stored_width),
                height: Int(decoded.stored_height), limit: maxPixels, format: format)
        }
        return DecodedImage(
            pixels: PixelBuffer(adopting: pixels, width: Int(decoded.width), height: Int(decoded.height)),
            storedWidth: Int(decoded.stored_width), storedHeight: Int(decoded.stored_height),
            scale: Int(decoded.scale), usedDCOnly: decoded.used_dc_only != 0, usedReduced: decoded.used_reduced != 0,
            exif: exif, xmp: xmp, warnings: warnings,
            codestreamOrientation: format == .jxl ? Orientation(rawValue: Int(decoded.orientation)) ?? .up : nil)
    }

    /// The JPEG a JPEG XL file losslessly recompresses (its `jbrd` box, ISO/IEC 18181-2 §9.1),
    /// reconstructed bit for bit by libjxl (`JXL_DEC_JPEG_RECONSTRUCTION`, CImageCodec jxl.c).
    /// - Parameters:
    ///   - bytes: the whole JPEG XL file.
    ///   - maxPixels: stored width × height limit, pixels (over it: nil, and the pixel decode refuses).
    /// - Returns: the JPEG file's bytes (at most 4 × the file's bytes + 1 MiB), or nil when the
    ///   file holds no JPEG reconstruction data.
    /// - Throws: `ImageError.corrupt` with the reason when libjxl refuses the reconstruction.
    public static func reconstructedJPEG(_ bytes: UnsafeRawBufferPointer, maxPixels: Int) throws -> [UInt8]? {
        var options = pc_decode_options()
        options.max_pixels = UInt64(max(0, maxPixels))
        var messages = pc_messages()
        var output: UnsafeMutablePointer<UInt8>?
        var size = 0
        let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
        let status = pc_jxl_jpeg(base, bytes.count, &options, &output, &size, &messages)
        defer { pc_free(output) }
        if status == PC_NOT_HANDLED { return nil }
        guard status == PC_OK, let output else {
            throw error(status, messages: &messages, width: 0, height: 0, limit: maxPixels, format: .jxl)
        }
        return Array(UnsafeBufferPointer(start: output, count: size))
    }

    /// Encodes RGB pixels as a baseline JPEG (libjpeg defaults: YCbCr 4:2:0, optimized Huffman tables;
    /// up to 240 × 240 pixels the chroma uses the luma's tables, jpeg.c), by our own encoder
    /// (thumbjpeg.c): the same file libjpeg-turbo writes for these settings, in fewer instructions.
    /// - Parameters:
    ///   - image: pixels to encode.
    ///   - quality: 1...100 (libjpeg `jpeg_set_quality`).
    /// - Returns: the JPEG file bytes.
    /// - Throws: `ImageError.corrupt` with libjpeg's message when encoding fails.
    public static func encodeJPEG(_ image: PixelBuffer, quality: Int) throws -> [UInt8] {
        var messages = pc_messages()
        var output: UnsafeMutablePointer<UInt8>?
        var size = 0
        let status = pc_jpeg_encode(
            image.pixels, Int32(image.width), Int32(image.height),
            Int32(clamping: quality), &output, &size, &messages)
        defer { pc_free(output) }
        guard status == PC_OK, let output else {
            throw error(status, messages: &messages, width: image.width, height: image.height, limit: 0, format: .jpeg)
        }
        return Array(UnsafeBufferPointer(start: output, count: size))
    }

    static func messageLines(_ messages: inout pc_messages) -> [String] {
        let text = withUnsafeBytes(of: &messages.warnings) {
            String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
        return text.split(separator: "\n").map(String.init)
    }

    static func error(
        _ status: pc_status, messages: inout pc_messages, width: Int, height: Int,
        limit: Int, format: ImageFormat
    ) -> ImageError {
        var text = withUnsafeBytes(of: &messages.error) {
            String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
        if text.isEmpty { text = "\(format.rawValue.uppercased()) decoding failed" }
        switch status {
        case PC_TOO_LARGE: return .tooLarge(width: width, height: height, limit: limit)
        case PC_UNSUPPORTED: return .unsupported(text)
        case PC_OVER_BUDGET: return .overBudget(text)
        case PC_NO_MEMORY: return .unsupported("out of memory decoding a \(width)×\(height) image")
        default: return .corrupt(text)
        }
    }
}
