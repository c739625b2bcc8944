import CImageCodec
import PhotosModel

/// What LibRaw says of a camera RAW file besides its pixels (raw.c `pc_raw_info`).
public struct CameraRawInfo: Sendable, Equatable {
    /// The container's lower-case name, from the file's content (`pc_raw_sniff`): "dng", "cr2",
    /// "cr3", "nef", "arw", "raf", "orf", "rw2", "pef", ...; "raw" for a TIFF raw of an unknown maker.
    public var cameraFormat: String
    /// Camera maker and model as LibRaw normalises them ("Canon", "EOS 350D"); empty when unknown.
    public var make: String
    public var model: String
    /// The lens LibRaw read from the maker notes or EXIF; empty when unknown.
    public var lens: String
    /// Where the thumbnail came from.
    public var source: Source
    /// The embedded preview used or looked at, pixels (0 when there was none).
    public var previewWidth: Int
    public var previewHeight: Int

    /// The picture the thumbnail was made from.
    public enum Source: Sendable, Equatable {
        /// The camera's embedded JPEG preview (decoded by our JPEG path).
        case jpegPreview
        /// An embedded RGB bitmap preview.
        case bitmapPreview
        /// LibRaw's half-size develop of the raw data (no usable preview).
        case developed
    }
}

/// A RAW file decoded by LibRaw: either the embedded JPEG preview to decode, or pixels.
struct DecodedRaw {
    var info: pc_raw_info
    var jpeg: [UInt8]?
    var pixels: PixelBuffer?
    var warnings: [String]
}

extension ImageDecoder {
    /// Decodes a camera RAW file with LibRaw (raw.c `pc_raw_decode`, in the photos-decoder process): the
    /// embedded preview, else a half-size develop, as `pc_raw_decode` documents.
    /// - Parameters:
    ///   - bytes: the whole file.
    ///   - targetEdge: pixels the long edge of returned pixels keeps.
    ///   - maxPixels: developed width × height limit, pixels.
    /// - Returns: the preview JPEG or the pixels, with LibRaw's sizes and orientation.
    /// - Throws: `ImageError.corrupt` (LibRaw's reason), `.tooLarge`, `.unsupported`, `.overBudget`.
    static func decodeRaw(_ bytes: UnsafeRawBufferPointer, targetEdge: Int, maxPixels: Int) throws -> DecodedRaw {
        var options = pc_decode_options()
        options.target_edge = Int32(clamping: targetEdge)
        options.max_pixels = UInt64(max(0, maxPixels))
        var info = pc_raw_info()
        var decoded = pc_decoded()
        var messages = pc_messages()
        var jpeg: UnsafeMutablePointer<UInt8>?
        var jpegSize = 0
        let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
        let status = pc_raw_decode(base, bytes.count, &options, &info, &decoded, &jpeg, &jpegSize, &messages)
        let warnings = messageLines(&messages)
        guard status == PC_OK else {
            pc_free(decoded.pixels)
            pc_free(jpeg)
            throw error(
                status, messages: &messages, width: Int(decoded.stored_width), height: Int(decoded.stored_height),
                limit: maxPixels, format: .raw)
        }
        var result = DecodedRaw(info: info, jpeg: nil, pixels: nil, warnings: warnings)
        if let jpeg {
            result.jpeg = Array(UnsafeBufferPointer(start: jpeg, count: jpegSize))
            pc_free(jpeg)
        }
        if let pixels = decoded.pixels {
            result.pixels = PixelBuffer(adopting: pixels, width: Int(decoded.width), height: Int(decoded.height))
        }
        guard result.jpeg != nil || result.pixels != nil else {
            throw ImageError.corrupt("LibRaw gave no image for this RAW file")
        }
        return result
    }
}

enum RawThumbnailer {
    /// The camera format `pc_raw_sniff` names for these bytes, nil when they are not a RAW file.
    static func cameraFormat(_ bytes: UnsafeRawBufferPointer) -> String? {
        var name = [CChar](repeating: 0, count: 16)
        let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
        guard pc_raw_sniff(base, bytes.count, &name, name.count) == 1 else { return nil }
        return String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func text<T>(_ field: T) -> String {
        withUnsafeBytes(of: field) {
            String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self).trimmingSpaces()
        }
    }

    /// "YYYY:MM:DD HH:MM:SS" of a wall-clock time in seconds since 1970 (civil-from-days, proleptic Gregorian).
    static func exifDate(_ seconds: Int64) -> String? {
        guard seconds > 0 else { return nil }
        let days = seconds / 86_400, rest = seconds % 86_400
        let z = days + 719_468
        let era = z / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        func two(_ v: Int64) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(year):\(two(month)):\(two(day)) \(two(rest / 3600)):\(two(rest / 60 % 60)):\(two(rest % 60))"
    }

    /// The thumbnail of a RAW file: see `Thumbnailer.makeThumbnail(from:options:)`.
    static func makeThumbnail(
        from bytes: UnsafeRawBufferPointer, options: ThumbnailOptions, tuning: DecoderTuning
    ) throws -> ThumbnailResult {
        let edge = max(1, options.maxEdge)
        let raw = try ImageDecoder.decodeRaw(bytes, targetEdge: edge, maxPixels: options.maxPixels)
        // The RAW's own EXIF: the file is a TIFF (or RW2/ORF under their own magic) for most makers.
        var metadata = EmbeddedMetadata()
        metadata.exif = ExifReader.parse(bytes, rawMagic: true)
        // A DNG's (or other TIFF RAW's) own XMP packet, IFD0 tag 700 (issue 24 item 1).
        if let xmp = ExifReader.xmpPacket(inTIFF: bytes, maxBytes: EmbeddedMetadata.maxXMPBytes) {
            metadata.xmp = Array(bytes[xmp])
        }
        // A RAF keeps the camera's EXIF in the JPEG its header points at, which need not be the
        // preview LibRaw gives (the exiftool sample's is an 8×8 JPEG without EXIF).
        if let jpeg = ExifReader.rafEmbeddedJPEG(bytes) {
            metadata.exif = EmbeddedMetadata.read(jpeg: UnsafeRawBufferPointer(rebasing: bytes[jpeg])).exif
        }
        var orientation = Orientation(rawValue: Int(raw.info.orientation)) ?? .up
        if metadata.exif.hasOrientation { orientation = metadata.exif.orientation }
        let stored: PixelBuffer
        var warnings = raw.warnings
        if let jpeg = raw.jpeg {
            let preview = try jpeg.withUnsafeBytes { buffer -> (DecodedImage, EmbeddedMetadata) in
                do {
                    let decoded = try ImageDecoder.decode(
                        buffer, format: .jpeg, targetEdge: edge, maxPixels: options.maxPixels, tuning: tuning)
                    return (decoded, EmbeddedMetadata.read(jpeg: buffer))
                } catch let error as ImageError {
                    throw ImageError.corrupt("the RAW file's embedded JPEG preview cannot be decoded: \(error)")
                }
            }
            stored = preview.0.pixels
            warnings += preview.0.warnings
            // The preview's own orientation wins for its pixels (issue 24: "upright by the preview's
            // own EXIF Orientation when it has one, else by LibRaw's flip").
            if preview.1.exif.hasOrientation { orientation = preview.1.exif.orientation }
            // RAF, CR3 and others keep their EXIF in the preview: fill what the RAW's own lacked.
            if metadata.exif.dateTimeOriginal == nil {
                let camera = metadata.exif.camera
                metadata.exif = preview.1.exif
                // Part by part: the RAW's own make and model, the preview's lens when the RAW has none.
                metadata.exif.camera = CameraIdentity.merged(camera, preview.1.exif.camera)
            }
            if metadata.xmp == nil { metadata.xmp = preview.1.xmp }
            if metadata.iptcKeywords.isEmpty { metadata.iptcKeywords = preview.1.iptcKeywords }
        } else if let pixels = raw.pixels {
            stored = pixels
        } else {
            throw ImageError.corrupt("LibRaw gave no image for this RAW file")
        }
        if metadata.exif.dateTimeOriginal == nil, let date = exifDate(raw.info.timestamp) {
            metadata.exif.dateTimeOriginal = date
        }
        let swap = orientation.swapsDimensions
        let width = Int(raw.info.width), height = Int(raw.info.height)
        let uprightWidth = swap ? height : width
        let uprightHeight = swap ? width : height
        // The thumbnail has the size SPEC §6 gives the photo's recorded (developed, upright) size,
        // as every other photo's does and as `verify` checks: a preview cropped to another aspect,
        // or one smaller than the thumbnail (a stub's 8×8 preview), is resampled to it.
        let size = Thumbnailer.thumbnailSize(width: uprightWidth, height: uprightHeight, maxEdge: edge)
        let reduced = try Resampler.areaAverage(
            stored, width: swap ? size.height : size.width, height: swap ? size.width : size.height)
        let upright = try orientation.apply(to: reduced)
        let thumbnail = try ImageDecoder.encodeJPEG(upright, quality: min(100, max(1, options.quality)))
        let source: CameraRawInfo.Source
        switch raw.info.source {
        case PC_RAW_SOURCE_JPEG_PREVIEW: source = .jpegPreview
        case PC_RAW_SOURCE_BITMAP_PREVIEW: source = .bitmapPreview
        default: source = .developed
        }
        var result = ThumbnailResult(
            format: .raw, width: uprightWidth, height: uprightHeight, orientation: orientation,
            dateTimeOriginal: metadata.exif.dateTimeOriginal, offsetTimeOriginal: metadata.exif.offsetTimeOriginal,
            thumbnail: thumbnail, thumbnailWidth: upright.width, thumbnailHeight: upright.height,
            warnings: warnings, metadata: metadata)
        result.signature = PerceptualSignature(of: upright)
        result.camera = CameraRawInfo(
            cameraFormat: cameraFormat(bytes) ?? "raw", make: text(raw.info.make), model: text(raw.info.model),
            lens: text(raw.info.lens), source: source, previewWidth: Int(raw.info.preview_width),
            previewHeight: Int(raw.info.preview_height))
        return result
    }
}

extension String {
    fileprivate func trimmingSpaces() -> String {
        var s = Substring(self)
        while s.last == " " { s.removeLast() }
        while s.first == " " { s.removeFirst() }
        return String(s)
    }
}
