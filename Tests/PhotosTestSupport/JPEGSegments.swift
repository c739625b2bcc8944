/// Walking a JPEG's marker segments in tests that damage one of them (ITU-T T.81 §B.1.1.4: a
/// segment is 0xFF, its marker byte, and a 2-byte big-endian length that counts itself).
public enum JPEGSegments {
    /// The byte offset of the 0xFF of the first segment with `marker` (0xC0: SOF0, 0xDB:
    /// DQT …), walking the segments after SOI; nil when none comes before the bytes end.
    public static func offset(of marker: UInt8, in bytes: [UInt8]) -> Int? {
        var i = 2
        while i + 4 <= bytes.count {
            if bytes[i + 1] == marker { return i }
            i += 2 + (Int(bytes[i + 2]) << 8 | Int(bytes[i + 3]))
        }
        return nil
    }
}
