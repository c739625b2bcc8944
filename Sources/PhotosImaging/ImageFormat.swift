/// The two file formats `photos` imports (SPEC §6).
public enum ImageFormat: String, Sendable {
    case jpeg, png
}

/// Tells JPEG from PNG by the file's first bytes, never by its name.
public enum ImageFormatSniffer {
    /// Detects the format from the start of a file.
    ///
    /// JPEG: SOI marker followed by another marker, `FF D8 FF` (ITU-T T.81 §B.1.1.2), or with
    /// `soiSuffices` the SOI marker `FF D8` alone: libjpeg reads a file whose next marker comes
    /// after junk (it warns "extraneous bytes before marker", which keeps the image), so a
    /// file that names itself JPEG is judged by libjpeg, not refused here;
    /// PNG: the 8-byte signature `89 50 4E 47 0D 0A 1A 0A` (PNG spec §5.2).
    /// - Parameters:
    ///   - prefix: the first bytes of the file (at least 8 for PNG, 3 for JPEG).
    ///   - soiSuffices: true when the file's name says JPEG (or it was imported as one).
    /// - Returns: the format, or nil when neither signature matches.
    public static func detect(_ prefix: UnsafeRawBufferPointer, soiSuffices: Bool = false) -> ImageFormat? {
        if prefix.count >= 3, prefix[0] == 0xFF, prefix[1] == 0xD8, prefix[2] == 0xFF {
            return .jpeg
        }
        if soiSuffices, prefix.count >= 2, prefix[0] == 0xFF, prefix[1] == 0xD8 {
            return .jpeg
        }
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        if prefix.count >= 8, (0..<8).allSatisfy({ prefix[$0] == png[$0] }) {
            return .png
        }
        return nil
    }
}
