import CImageCodec

/// A video's poster thumbnail and what FFmpeg's libraries say of it (issue 25 item 1; CImageCodec video.c).
public struct VideoPosterResult: Sendable {
    /// The thumbnail as JPEG bytes (8-bit sRGB, baseline), upright, long edge `ThumbnailOptions.maxEdge`.
    public var thumbnail: [UInt8]
    /// Thumbnail width and height, pixels, upright.
    public var thumbnailWidth: Int
    public var thumbnailHeight: Int
    /// The video's frame size after the display matrix's rotation, pixels.
    public var width: Int
    public var height: Int
    /// Duration, seconds (0 when the container does not say).
    public var duration: Double
    /// The video stream's codec, libavcodec's name ("h264", "hevc", "mpeg4").
    public var codec: String
    /// Degrees clockwise applied from the display matrix (ISO/IEC 14496-12 §8.2.2): 0, 90, 180 or 270.
    public var rotation: Int
    /// True when the poster is the container's cover art (attached_pic).
    public var fromCover: Bool
    /// QuickTime `com.apple.quicktime.creationdate` as written (ISO 8601 local time with offset), if any.
    public var quickTimeCreationDate: String?
    /// The container's or stream's `creation_time` (ISO 8601 UTC), if any.
    public var creationTime: String?
    /// `com.apple.quicktime.content.identifier` (kept for Live Photo pairing, issue 25 item 2), if any.
    public var contentIdentifier: String?
    /// Where the video was taken: QuickTime `com.apple.quicktime.location.ISO6709`, else the udta `©xyz`
    /// atom (libavformat's `location`), parsed strictly by `VideoPoster.position(iso6709:)`; nil when
    /// absent or malformed.
    public var position: GeoPosition?
}

/// Poster frames of videos (issue 25 item 1), read in process with libavformat/libavcodec/libswscale.
public enum VideoPoster {
    /// True when the bytes are a video container by content (`pc_video_sniff`): ISO-BMFF with a movie brand
    /// and no HEIF/AVIF image brand (MOV, MP4, M4V, 3GP), Matroska/WebM (EBML), AVI (RIFF `AVI `), MPEG-2
    /// TS/M2TS (0x47 sync bytes every 188 or 192 bytes; ISO/IEC 13818-1 §2.4.3.2).
    /// - Parameter bytes: the file's first bytes (at least 576 for a transport stream) or the whole file.
    public static func isVideo(_ bytes: UnsafeRawBufferPointer) -> Bool {
        pc_video_sniff(bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count) == 1
    }

    /// Makes the poster thumbnail of a whole video file in memory: the cover art if any, else the first
    /// keyframe at or after 1 s (10 % of the duration for clips shorter than 10 s), rotated upright by the
    /// display matrix, scaled by the SPEC §6 size rule.
    /// - Parameters:
    ///   - bytes: the whole file.
    ///   - options: edge, quality and pixel limit (frames over `maxPixels` are refused before decoding).
    /// - Returns: the thumbnail with the video's size, duration, codec and dates.
    /// - Throws: `ImageError.corrupt` with libav's or the bound's one-line reason ("no decodable video frame
    ///   within 64 MB of the file"), `.tooLarge`, `.overBudget`, `.unsupported` (no decoder for the codec).
    public static func makeThumbnail(from bytes: UnsafeRawBufferPointer, options: ThumbnailOptions) throws
        -> VideoPosterResult
    {
        let edge = max(1, options.maxEdge)
        var decodeOptions = pc_decode_options()
        decodeOptions.target_edge = Int32(clamping: edge)
        decodeOptions.max_pixels = UInt64(max(0, options.maxPixels))
        var info = pc_video_info()
        var decoded = pc_decoded()
        var messages = pc_messages()
        let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
        let status = pc_video_decode(base, bytes.count, &decodeOptions, &info, &decoded, &messages)
        guard status == PC_OK, let pixels = decoded.pixels else {
            pc_free(decoded.pixels)
            let reason = withUnsafeBytes(of: &messages.error) {
                String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            switch status {
            case PC_TOO_LARGE:
                throw ImageError.tooLarge(
                    width: Int(decoded.stored_width), height: Int(decoded.stored_height), limit: options.maxPixels)
            case PC_UNSUPPORTED: throw ImageError.unsupported(reason.isEmpty ? "video codec not supported" : reason)
            case PC_OVER_BUDGET: throw ImageError.overBudget(reason)
            case PC_NO_MEMORY: throw ImageError.unsupported("out of memory decoding a video frame")
            default: throw ImageError.corrupt(reason.isEmpty ? "video decoding failed" : reason)
            }
        }
        let frame = PixelBuffer(adopting: pixels, width: Int(decoded.width), height: Int(decoded.height))
        // Cover art has its own size; a frame keeps the stream's (upright) size.
        let width = info.from_cover != 0 ? frame.width : Int(decoded.stored_width)
        let height = info.from_cover != 0 ? frame.height : Int(decoded.stored_height)
        let size = Thumbnailer.thumbnailSize(width: frame.width, height: frame.height, maxEdge: edge)
        let reduced = try Resampler.areaAverage(frame, width: size.width, height: size.height)
        let jpeg = try ImageDecoder.encodeJPEG(reduced, quality: min(100, max(1, options.quality)))
        func text<T>(_ field: T) -> String? {
            let value = withUnsafeBytes(of: field) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
            return value.isEmpty ? nil : value
        }
        return VideoPosterResult(
            thumbnail: jpeg, thumbnailWidth: reduced.width, thumbnailHeight: reduced.height, width: width,
            height: height, duration: info.duration, codec: text(info.codec) ?? "unknown",
            rotation: Int(info.rotation), fromCover: info.from_cover != 0,
            quickTimeCreationDate: text(info.creation_date), creationTime: text(info.creation_time),
            contentIdentifier: text(info.content_identifier),
            position: text(info.location).flatMap(VideoPoster.position(iso6709:)))
    }

    /// A position written in ISO 6709 decimal degrees as QuickTime and MP4 carry it
    /// (`+DD.DDDD+DDD.DDDD[+AAA.AAA]/`, ISO 6709:2008 Annex H): a signed latitude of two integer digits,
    /// a signed longitude of three, an optional signed altitude in metres, then an optional CRS
    /// suffix (`CRSxxxx`, taken as WGS 84) and the closing `/`. Anything else — degrees-minutes forms,
    /// missing signs, out of range (`GeoPosition`'s rule) — is no position.
    /// - Parameter text: the tag's value, e.g. `+32.0929+034.8620+030.000/`.
    /// - Returns: the position in decimal degrees and metres, or nil.
    public static func position(iso6709 text: String) -> GeoPosition? {
        var rest = Substring(text.trimmingCharacters(in: .whitespaces))
        guard rest.hasSuffix("/") else { return nil }
        rest = rest.dropLast()
        if let crs = rest.range(of: "CRS") { rest = rest[..<crs.lowerBound] }
        /// One signed decimal with exactly `digits` integer digits (any when nil) from the front of `rest`.
        func number(_ digits: Int?) -> Double? {
            guard let sign = rest.first, sign == "+" || sign == "-" else { return nil }
            var end = rest.index(after: rest.startIndex)
            var integer = 0
            while end < rest.endIndex, rest[end].isASCII, rest[end].isNumber {
                end = rest.index(after: end)
                integer += 1
            }
            guard integer > 0, digits == nil || integer == digits else { return nil }
            if end < rest.endIndex, rest[end] == "." {
                end = rest.index(after: end)
                var fraction = 0
                while end < rest.endIndex, rest[end].isASCII, rest[end].isNumber {
                    end = rest.index(after: end)
                    fraction += 1
                }
                guard fraction > 0 else { return nil }
            }
            let value = Double(rest[rest.startIndex..<end])
            rest = rest[end...]
            return value
        }
        guard let latitude = number(2), let longitude = number(3) else { return nil }
        var altitude: Double?
        if !rest.isEmpty {
            guard let value = number(nil) else { return nil }
            altitude = value
        }
        guard rest.isEmpty else { return nil }
        return GeoPosition(latitude: latitude, longitude: longitude, altitude: altitude)
    }

    /// The FFmpeg libraries' versions (name and version: "libavformat" "59.27.100", then libavcodec, libswscale, libavutil), for `photos --version`.
    public static var libraryVersions: [(name: String, version: String)] {
        var text = [CChar](repeating: 0, count: 256)
        pc_video_version(&text, text.count)
        let line = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return line.split(separator: ",").compactMap { part in
            let words = part.split(separator: " ")
            return words.count == 2 ? (String(words[0]), String(words[1])) : nil
        }
    }
}
