/// Why a file could not be turned into a thumbnail (SPEC §6 "Limits", §7).
public enum ImageError: Error, Equatable, CustomStringConvertible {
    /// The bytes are neither JPEG nor PNG; the reason names what was found,
    /// e.g. "empty file" or "not a JPEG, PNG, HEIF, AVIF, WebP, TIFF, GIF, JPEG XL or camera RAW file (starts with 0x47 0x49)".
    case notAnImage(String)
    /// Corrupt or truncated data, with libjpeg's or libpng's own message,
    /// e.g. "Premature end of JPEG file".
    case corrupt(String)
    /// Stored width × height (pixels) is over the limit (`--max-pixels`);
    /// refused before any pixel buffer is allocated.
    case tooLarge(width: Int, height: Int, limit: Int)
    /// Valid but not decodable with libjpeg-turbo 2.1 / libpng 1.6,
    /// e.g. "Unsupported JPEG data precision 12".
    case unsupported(String)
    /// Decoding would allocate more than the per-worker decode budget
    /// (`ImageDecoder.decodeBudgetBytes`, bytes) for buffers sized by what the file
    /// declares; the reason names the budget, e.g. "decoding this 10000x10000
    /// progressive JPEG needs 293 MB, over the per-worker decode budget of 64 MB".
    case overBudget(String)

    /// One line, suitable after "path: error: ".
    public var description: String {
        switch self {
        case .notAnImage(let reason): return reason
        case .corrupt(let message): return message
        case .unsupported(let message): return message
        case .overBudget(let message): return message
        case .tooLarge(let width, let height, let limit):
            return "image is \(width)×\(height) pixels (\(width * height)), over the limit of \(limit) (--max-pixels)"
        }
    }
}
