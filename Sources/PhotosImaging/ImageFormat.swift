import CImageCodec
// The enum is the domain's (PhotosModel); re-exported alone, so that callers of the codecs name formats
// without importing the rest of the domain.
@_exported import enum PhotosModel.ImageFormat

/// Tells the formats apart by the file's first bytes, never by its name.
public enum ImageFormatSniffer {
    /// How many leading bytes `detect` looks at, at most (the ftyp box's compatible brands).
    public static let prefixLength = 64

    /// Detects the format from the start of a file.
    ///
    /// JPEG: SOI marker followed by another marker, `FF D8 FF` (ITU-T T.81 §B.1.1.2), or with
    /// `soiSuffices` the SOI marker `FF D8` alone: libjpeg reads a file whose next marker comes
    /// after junk (it warns "extraneous bytes before marker", which keeps the image), so a
    /// file that names itself JPEG is judged by libjpeg, not refused here;
    /// PNG: the 8-byte signature `89 50 4E 47 0D 0A 1A 0A` (PNG spec §5.2).
    /// With `heifAndWebP`: HEIF/AVIF, an `ftyp` box first (ISO/IEC 14496-12 §4.3) whose major or a
    /// compatible brand is a HEIF image brand (ISO/IEC 23008-12 Annex B: heic, heix, heim, heis,
    /// hevc, hevx, hevm, hevs, mif1, msf1, mif2; AV1 Image File Format §7: avif, avis); AVIF when
    /// an AV1 brand is the major brand, or is listed and no HEVC brand is; WebP, `RIFF` size
    /// `WEBP` (RIFF container of the WebP spec); camera RAW (`.raw`): a RAW container's signature,
    /// or a TIFF with a raw image's tags (CImageCodec raw.c `pc_raw_sniff`; the TIFF tags are read
    /// only within `prefix`, so pass the whole file to tell a TIFF-based RAW from a plain TIFF).
    /// JPEG XL, the codestream signature `FF 0A`
    /// (ISO/IEC 18181-1 §9.1) or the container's signature box `00 00 00 0C 'JXL ' 0D 0A 87 0A`
    /// (ISO/IEC 18181-2 §9.1).
    /// - Parameters:
    ///   - prefix: the first bytes of the file (at least 8 for PNG, 3 for JPEG, 12 for HEIF/WebP;
    ///     HEIF compatible brands are read up to `prefixLength` bytes).
    ///   - soiSuffices: true when the file's name says JPEG (or it was imported as one).
    ///   - heifAndWebP: also detect HEIF, AVIF, WebP, camera RAW, TIFF and GIF (false: JPEG and PNG
    ///     only, as the library's schema before issue 13 allows).
    /// With `heifAndWebP` also camera RAW first (`pc_raw_sniff`: RAW containers' signatures, and a
    /// TIFF whose tags only a raw image has), then TIFF/BigTIFF (`II*\0`, `MM\0*`, 43 for BigTIFF)
    /// and GIF (`GIF87a`, `GIF89a`), then a video container (`.video`, `VideoPoster.isVideo`).
    /// - Returns: the format, or nil when no signature matches.
    public static func detect(
        _ prefix: UnsafeRawBufferPointer, soiSuffices: Bool = false,
        heifAndWebP: Bool = false
    ) -> ImageFormat? {
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
        guard heifAndWebP else { return nil }
        // JPEG XL codestream: `FF 0A` (ISO/IEC 18181-1 §9.1 signature).
        if prefix.count >= 2, prefix[0] == 0xFF, prefix[1] == 0x0A { return .jxl }
        // Before TIFF and ISO-BMFF: a TIFF-based RAW is a TIFF, a CR3 an ISO-BMFF file.
        if RawThumbnailer.cameraFormat(prefix) != nil { return .raw }
        // TIFF: "II" 42 or "MM" 42 (TIFF 6.0 §2 "Image File Header"), BigTIFF 43 (BigTIFF design);
        // GIF: "GIF87a" or "GIF89a" (GIF89a §17 "Header").
        if prefix.count >= 4 {
            let little = prefix[0] == 0x49 && prefix[1] == 0x49 && prefix[3] == 0
            let big = prefix[0] == 0x4D && prefix[1] == 0x4D && prefix[2] == 0
            if (little && (prefix[2] == 42 || prefix[2] == 43)) || (big && (prefix[3] == 42 || prefix[3] == 43)) {
                return .tiff
            }
        }
        if prefix.count >= 6, prefix[0] == 0x47, prefix[1] == 0x49, prefix[2] == 0x46, prefix[3] == 0x38,
            prefix[4] == 0x37 || prefix[4] == 0x39, prefix[5] == 0x61
        {
            return .gif
        }
        // Videos (issue 25 item 1): ISO-BMFF with a movie brand and no HEIF/AVIF image brand,
        // Matroska/WebM, AVI, MPEG-2 TS (`pc_video_sniff`; a transport stream needs 576 bytes).
        if VideoPoster.isVideo(prefix) { return .video }
        guard prefix.count >= 12 else { return nil }
        func text(_ at: Int) -> String { String(decoding: prefix[at..<(at + 4)], as: UTF8.self) }
        if text(0) == "RIFF", text(8) == "WEBP" { return .webp }
        let jxlContainer: [UInt8] = [0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]
        if (0..<12).allSatisfy({ prefix[$0] == jxlContainer[$0] }) { return .jxl }
        guard text(4) == "ftyp" else { return nil }
        let boxSize = Int(prefix[0]) << 24 | Int(prefix[1]) << 16 | Int(prefix[2]) << 8 | Int(prefix[3])
        let hevc: Set<String> = ["heic", "heix", "heim", "heis", "hevc", "hevx", "hevm", "hevs"]
        let av1: Set<String> = ["avif", "avis"]
        let generic: Set<String> = ["mif1", "msf1", "mif2"]
        let major = text(8)
        if hevc.contains(major) { return .heif }
        if av1.contains(major) { return .avif }
        // Compatible brands: from byte 16 to the end of the ftyp box (within the prefix).
        var brands: [String] = []
        var at = 16
        while at + 4 <= min(prefix.count, prefixLength, max(16, boxSize)) { brands.append(text(at)); at += 4 }
        if brands.contains(where: hevc.contains) { return .heif }
        if brands.contains(where: av1.contains) { return .avif }
        if generic.contains(major) || brands.contains(where: generic.contains) { return .heif }
        return nil
    }

    /// `detect` over a whole file, which also tells a camera RAW file in a TIFF container from a
    /// TIFF: `.raw` when IFD0 has DNGVersion (tag 50706), the file has the CR2 signature, or
    /// IFD0's Make names a RAW camera maker and a directory holds CFA data (Photometric 32803 or
    /// 34892, or a compression only RAW files use); CImageCodec tiff.c `pc_tiff_is_raw`, read
    /// with libtiff. A scan whose Make is a camera maker's (Epson) has no CFA data: a TIFF.
    /// - Parameters:
    ///   - bytes: the whole file.
    ///   - soiSuffices: as for `detect`.
    /// - Returns: the format, or nil when no signature matches.
    public static func detectFile(_ bytes: UnsafeRawBufferPointer, soiSuffices: Bool = false) -> ImageFormat? {
        let format = detect(
            UnsafeRawBufferPointer(rebasing: bytes.prefix(prefixLength)), soiSuffices: soiSuffices, heifAndWebP: true)
        if format == nil, VideoPoster.isVideo(bytes) { return .video }
        guard format == .tiff else { return format }
        let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
        return pc_tiff_is_raw(base, bytes.count) != 0 ? .raw : .tiff
    }
}
