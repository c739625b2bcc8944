/// The file formats `photos` decodes (SPEC §6; issue 13 item 2 adds HEIF, AVIF and WebP).
/// The raw value is what the library records in `photo.format`.
public enum ImageFormat: String, Sendable, CaseIterable {
    case jpeg, png
    /// HEIF with HEVC images (HEIC) or other HEIF brands, decoded with libheif (ISO/IEC 23008-12).
    case heif
    /// AVIF: HEIF with AV1 images (AV1 Image File Format §7), decoded with libheif.
    case avif
    /// WebP (RIFF container, VP8/VP8L), decoded with libwebp.
    case webp
    /// A camera RAW file (CR2, CR3, NEF, ARW, RAF, ORF, RW2, PEF, DNG, … — whatever LibRaw
    /// identifies), read with LibRaw (issue 24 item 1).
    case raw
    /// TIFF and BigTIFF (TIFF 6.0; BigTIFF), read with libtiff (issue 24 item 3).
    case tiff
    /// GIF87a/GIF89a, the first frame, read with giflib (issue 24 item 4).
    case gif
    /// JPEG XL (ISO/IEC 18181), codestream or container, read with libjxl (issue 24 item 5).
    case jxl
    /// A video — MOV, MP4/M4V, 3GP, MKV/WebM, AVI, MPEG-2 TS/M2TS — detected by content
    /// (CImageCodec video.c `pc_video_sniff`) and read with FFmpeg's libraries; its thumbnail is
    /// a poster frame (`VideoPoster`, issue 25 item 1). As for `.raw`, the container is not part
    /// of the format: the original keeps its name's extension.
    case video

    /// The usual file name extension, without the dot (export names files that have none).
    public var fileExtension: String {
        switch self {
        case .jpeg: return "jpg"
        case .png: return "png"
        case .heif: return "heic"
        case .avif: return "avif"
        case .webp: return "webp"
        // A RAW file keeps its maker's extension where it is known; "dng" is the open one.
        case .raw: return "dng"
        case .tiff: return "tif"
        case .gif: return "gif"
        case .jxl: return "jxl"
        // A video keeps its own extension where it is known; "mp4" is the common one.
        case .video: return "mp4"
        }
    }

    /// Name extensions (lower case) whose files claim to be images: a file named so that is not
    /// one is a failure, not a skip.
    public static let claimedExtensions: Set<String> = Set([
        "jpg", "jpeg", "png", "heic", "heif", "hif", "avif", "webp", "tif", "tiff", "gif", "jxl"
    ]).union(rawExtensions).union(videoExtensions)

    /// Name extensions (lower case) of video files (issue 25 item 1): claimed, so a truncated or
    /// fake video fails instead of being skipped; never used to detect one.
    public static let videoExtensions: Set<String> = [
        "mov", "qt", "mp4", "m4v", "3gp", "3g2", "mkv", "webm", "avi", "mts", "m2ts", "ts"
    ]

    /// Name extensions (lower case) of camera RAW files (issue 24 item 1): claimed, so such a file
    /// that is not one fails instead of being skipped; never used to detect one.
    public static let rawExtensions: Set<String> = [
        "cr2", "cr3", "crw", "nef", "nrw", "arw", "sr2", "srf", "raf", "orf", "rw2", "rwl", "pef", "dng",
        "srw", "x3f", "3fr", "iiq", "mrw", "erf", "dcr", "kdc", "mos", "mef"
    ]
}
