/// Checks that a stored thumbnail is what the library promises (SPEC §6): a whole JPEG
/// (SOI … EOI, ITU-T T.81 §B.2.1), that decodes with libjpeg without a warning, of its recorded
/// size, with a long edge of at most `maxEdge` pixels. Used by `photos verify`, `photos
/// thumbnail` and `export --thumbnails`; `verify --quick` checks `structure` only (no decode).
public enum ThumbnailCheck {
    /// Why `bytes` is not a sound thumbnail of `width` × `height` pixels, or nil when it is.
    ///
    /// The decode is bounded by the recorded size: a blob declaring more than `maxEdge` ×
    /// `maxEdge` pixels is refused before any pixel is allocated (memory ≤ 3 × maxEdge² bytes).
    /// Cost, measured on this 2-core machine (release build, `verify --quick` of a library with
    /// 20,034 thumbnails of 120×80): 0.21 s without the check, 1.67 s with a full decode,
    /// 0.9–1.2 s decoding at 1/8 scale as here — about 40 µs per thumbnail.
    /// - Parameters:
    ///   - bytes: the stored JPEG.
    ///   - width: recorded width, pixels.
    ///   - height: recorded height, pixels.
    ///   - maxEdge: the thumbnail size rule's long edge, pixels (SPEC §6: 120).
    /// - Returns: one line, e.g. "is empty (0 bytes)", "is not a JPEG (starts with 0xde 0xad)",
    ///   "is 160×120 pixels, recorded 120×90", or nil.
    public static func problem(_ bytes: [UInt8], width: Int, height: Int, maxEdge: Int = 120) -> String? {
        // The structure first (what `verify --quick` checks), then the decode.
        if case .damaged(let reason) = structure(
            head: bytes[...], byteCount: bytes.count, last: bytes.suffix(2), width: width, height: height,
            maxEdge: maxEdge)
        {
            return reason
        }
        let limit = max(1, maxEdge) * max(1, maxEdge)
        let decoded: DecodedImage
        do {
            decoded = try bytes.withUnsafeBytes {
                // At libjpeg's 1/8 scale: every Huffman code is still decoded (and a corrupt one
                // still warns), only the inverse DCT shrinks to 1×1 — 4× faster than a full
                // decode. Never the DC-only early stop: it would skip AC scans unchecked.
                try ImageDecoder.decode(
                    $0, format: .jpeg, targetEdge: 1, maxPixels: limit,
                    tuning: DecoderTuning(dctMethod: .islow, fancyUpsampling: false, progressiveDCOnly: false))
            }
        } catch ImageError.tooLarge(let w, let h, _) {
            return "declares \(w)×\(h) pixels, more than a \(maxEdge)-pixel thumbnail has (recorded \(width)×\(height))"
        } catch {
            return "does not decode: \(error)"
        }
        if let warning = decoded.warnings.first { return "is corrupt: \(warning)" }
        guard decoded.storedWidth == width, decoded.storedHeight == height else {
            return "is \(decoded.storedWidth)×\(decoded.storedHeight) pixels, recorded \(width)×\(height)"
        }
        guard max(width, height) <= maxEdge else {
            return "is \(width)×\(height) pixels, larger than the \(maxEdge)-pixel thumbnail size"
        }
        return nil
    }
}

/// What the structural check of a thumbnail's first bytes found.
public enum ThumbnailStructure: Equatable, Sendable {
    /// Whole and of its recorded size, as far as the marker segments tell.
    case sound
    /// Damaged: one line, as `ThumbnailCheck.problem` words it.
    case damaged(String)
    /// The frame header lies beyond the bytes given: check again with more of them.
    case needsMoreBytes
}

extension ThumbnailCheck {
    /// Bytes of a thumbnail's start that `structure` needs for a JPEG as libjpeg writes it
    /// (SOI, the 18-byte JFIF APP0, two quantization tables, the frame header: 177 bytes),
    /// with room to spare; a thumbnail with larger segments before its frame header asks for
    /// more (`ThumbnailStructure.needsMoreBytes`).
    public static let structureHeadBytes = 256

    /// The structural check of `verify --quick`: whether a thumbnail is a whole JPEG of its
    /// recorded size, from its marker segments alone, without decoding anything. Checks that
    /// it starts with SOI and a marker, ends with EOI (ITU-T T.81 §B.2.1), that the marker
    /// segments from SOI up to the frame header are well formed (each `0xFF` marker with a
    /// length ≥ 2 that stays inside the thumbnail, §B.1.1.4), and that the frame header is a
    /// Huffman baseline, extended sequential or progressive one (SOF0, SOF1, SOF2, §B.2.2)
    /// with 8-bit samples, 1, 3 or 4 components of sampling factors 1–4, and its length
    /// matching them, whose size is at most `maxEdge` × `maxEdge` pixels in all, the recorded
    /// `width` × `height`, and at most `maxEdge` on the long edge. The entropy-coded data
    /// after the frame header is not checked (the full `problem` decodes it).
    /// - Parameters:
    ///   - head: the thumbnail's first bytes (all of them, or at least `structureHeadBytes`).
    ///   - byteCount: the thumbnail's length, bytes.
    ///   - last: its last two bytes (fewer when it is shorter).
    ///   - width: recorded width, pixels.
    ///   - height: recorded height, pixels.
    ///   - maxEdge: the thumbnail size rule's long edge, pixels (SPEC §6: 120).
    /// - Returns: `.sound`, `.damaged(reason)` worded as `problem` words it, or
    ///   `.needsMoreBytes` when `head` ends before the frame header.
    public static func structure(
        head: ArraySlice<UInt8>, byteCount: Int, last: ArraySlice<UInt8>, width: Int, height: Int, maxEdge: Int = 120
    ) -> ThumbnailStructure {
        let head = head.count > byteCount ? head.prefix(byteCount) : head
        guard byteCount > 0 else { return .damaged("is empty (0 bytes)") }
        func at(_ i: Int) -> UInt8 { head[head.startIndex + i] }
        guard byteCount >= 4, head.count >= 3, at(0) == 0xFF, at(1) == 0xD8, at(2) == 0xFF else {
            let shown = head.prefix(4).map { "0x" + Thumbnailer.hex($0) }.joined(separator: " ")
            return .damaged("is not a JPEG (\(byteCount) byte\(byteCount == 1 ? "" : "s") starting with \(shown))")
        }
        guard last.count == 2, last[last.startIndex] == 0xFF, last[last.startIndex + 1] == 0xD9 else {
            return .damaged(
                "is truncated or has trailing bytes (\(byteCount) bytes, no JPEG end-of-image marker at the end)")
        }
        // The segments before EOI; a marker may be preceded by fill bytes 0xFF (§B.1.1.2).
        let end = byteCount - 2
        var position = 2
        while true {
            guard position + 4 <= end else {
                return .damaged("ends at byte \(position) before its frame header (SOF)")
            }
            guard position + 4 <= head.count else { return .needsMoreBytes }
            guard at(position) == 0xFF else {
                return .damaged(
                    "has no marker at byte \(position) (0x\(Thumbnailer.hex(at(position))) before its frame header)")
            }
            let marker = at(position + 1)
            if marker == 0xFF {
                position += 1
                continue
            }
            switch marker {
            case 0x00, 0x01, 0xD0...0xD9:
                return .damaged(
                    "has the marker 0xff\(Thumbnailer.hex(marker)) at byte \(position) before its frame header")
            default: break
            }
            let length = Int(at(position + 2)) << 8 | Int(at(position + 3))
            guard length >= 2, position + 2 + length <= end else {
                return .damaged(
                    "has a segment 0xff\(Thumbnailer.hex(marker)) at byte \(position) of \(length) bytes, past its end")
            }
            switch marker {
            case 0xC0, 0xC1, 0xC2:
                return frameHeader(
                    head, at: position + 4, length: length, width: width, height: height, maxEdge: maxEdge)
            case 0xC3, 0xC5...0xC7, 0xC9...0xCB, 0xCD...0xCF:
                return .damaged(
                    "has the frame header 0xff\(Thumbnailer.hex(marker)) (not baseline, extended or progressive Huffman)"
                )
            case 0xDA:
                return .damaged("has a scan (SOS) at byte \(position) before its frame header")
            default:
                position += 2 + length
            }
        }
    }

    /// The frame header's fields (ITU-T T.81 §B.2.2) from `start` on: P, Y, X, Nf, then Nf ×
    /// (C, H/V, Tq); `length` as its segment declares.
    private static func frameHeader(
        _ head: ArraySlice<UInt8>, at start: Int, length: Int, width: Int, height: Int, maxEdge: Int
    ) -> ThumbnailStructure {
        guard length >= 8 else { return .damaged("has a frame header of \(length) bytes, too short") }
        guard start + length - 2 <= head.count else { return .needsMoreBytes }
        func at(_ i: Int) -> UInt8 { head[head.startIndex + start + i] }
        let precision = Int(at(0))
        let lines = Int(at(1)) << 8 | Int(at(2))
        let columns = Int(at(3)) << 8 | Int(at(4))
        let components = Int(at(5))
        guard precision == 8 else { return .damaged("has \(precision)-bit samples, not 8-bit") }
        guard [1, 3, 4].contains(components), length == 8 + 3 * components else {
            return .damaged("has a frame header of \(length) bytes for \(components) components")
        }
        for c in 0..<components {
            let factors = at(6 + 3 * c + 1)
            guard (1...4).contains(factors >> 4), (1...4).contains(factors & 15), at(6 + 3 * c + 2) <= 3 else {
                return .damaged("has a frame header with component \(c + 1) out of range")
            }
        }
        let limit = max(1, maxEdge) * max(1, maxEdge)
        guard columns > 0, lines > 0 else {
            return .damaged("declares \(columns)×\(lines) pixels (recorded \(width)×\(height))")
        }
        if columns * lines > limit {
            return .damaged(
                "declares \(columns)×\(lines) pixels, more than a \(maxEdge)-pixel thumbnail has (recorded \(width)×\(height))"
            )
        }
        guard columns == width, lines == height else {
            return .damaged("is \(columns)×\(lines) pixels, recorded \(width)×\(height)")
        }
        guard max(width, height) <= maxEdge else {
            return .damaged("is \(width)×\(height) pixels, larger than the \(maxEdge)-pixel thumbnail size")
        }
        return .sound
    }
}
