import CImageCodec

/// The image libraries this build decodes and encodes with.
public enum ImageLibraries {
    /// Name and version of each image library, in a fixed order: libjpeg-turbo (the version
    /// compiled against: its libjpeg 6.2 ABI has no call that says), libpng, Little CMS,
    /// libheif, libwebp and libjxl (asked of the library linked at run time).
    public static var versions: [(name: String, version: String)] {
        var v = pc_library_versions_t()
        pc_library_versions(&v)
        func text<T>(_ field: T) -> String {
            withUnsafeBytes(of: field) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
        }
        return [
            ("libjpeg-turbo", text(v.jpeg)), ("libpng", text(v.png)), ("lcms2", text(v.lcms)),
            ("libheif", text(v.heif)), ("libwebp", text(v.webp)), ("libjxl", text(v.jxl))
        ]
    }
}
