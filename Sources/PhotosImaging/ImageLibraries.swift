import CImageCodec

/// The image libraries this build decodes and encodes with.
public enum ImageLibraries {
    /// LibRaw's version, "0.20.2" (`libraw_versionNumber`).
    static var libRawVersion: String {
        var text = [CChar](repeating: 0, count: 32)
        pc_raw_version(&text, text.count)
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Name and version of each image library, in a fixed order: libjpeg-turbo (the version text
    /// found in the loaded libjpeg.so, its libjpeg 6.2 ABI having no call that says; the version
    /// compiled against when not found), libpng, Little CMS, libheif, libwebp, libtiff and libjxl
    /// (asked of the library linked at run time), giflib (the version compiled against: giflib has no
    /// call that says), then LibRaw (`libRawVersion`), then FFmpeg's libavformat, libavcodec,
    /// libswscale and libavutil (`VideoPoster.libraryVersions`, asked at run time).
    public static var versions: [(name: String, version: String)] {
        var v = pc_library_versions_t()
        pc_library_versions(&v)
        func text<T>(_ field: T) -> String {
            withUnsafeBytes(of: field) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
        }
        return [
            ("libjpeg-turbo", text(v.jpeg)), ("libpng", text(v.png)), ("lcms2", text(v.lcms)),
            ("libheif", text(v.heif)), ("libwebp", text(v.webp)),
            ("libtiff", text(v.tiff)), ("giflib", text(v.gif)), ("libjxl", text(v.jxl))
        ] + [("LibRaw", libRawVersion)] + VideoPoster.libraryVersions
    }

    /// Whether our own JPEG code (the reduced decoders of dconly.c, the thumbnail encoder of
    /// thumbjpeg.c) runs in this process, and why: only when the linked libjpeg-turbo is a
    /// version it was checked against and a probe decode and encode give libjpeg's own answers,
    /// unless the environment says `PHOTOS_JPEG_CLONE=off` (CImageCodec jpegclone.c; checked once
    /// per process). When off, libjpeg does all the work with the same verdicts.
    /// - Returns: `active`, and a one-line `reason` such as
    ///   "on (libjpeg-turbo 2.1.5, a checked version; the probe matched)".
    public static var jpegClone: (active: Bool, reason: String) {
        var reason = [CChar](repeating: 0, count: 256)
        let active = pc_jpeg_clone_state(&reason, reason.count)
        let text = reason.withUnsafeBytes { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
        return (active != 0, text)
    }
}
