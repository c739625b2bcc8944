/// Name arithmetic on POSIX path strings ("/"-separated bytes; nothing is looked up on disk):
/// a path's last component, its parent and its last component's extension, as NSString's
/// `lastPathComponent`, `deletingLastPathComponent` and `pathExtension` define them.
///
/// Why not NSString: in swift-corelibs-foundation (Swift 6.3.1) `deletingLastPathComponent`
/// traps on a one-component path of one character (`"a"`, `"a/"`, `"."`), which took
/// `photos thumbnail --output a` down with SIGILL; and each of those calls costs tens of
/// thousands of instructions (callgrind: 4 % of a small-file import's instructions).
///
/// Rules (NSString's, except that nothing traps): repeated slashes count as one and a trailing
/// slash is dropped ("a//b/" is "a/b"); "/" stays "/".
public enum PathName {
    /// The last component: `"/a/b.jpg"` → `"b.jpg"`, `"a/b/"` → `"b"`, `"/"` → `"/"`, `""` → `""`.
    public static func lastComponent(_ path: String) -> String {
        let bytes = normalized(path)
        if bytes.count <= 1 { return String(decoding: bytes, as: UTF8.self) }
        guard let slash = bytes.lastIndex(of: slash) else { return String(decoding: bytes, as: UTF8.self) }
        return String(decoding: bytes[(slash + 1)...], as: UTF8.self)
    }

    /// The path without its last component: `"/a/b.jpg"` → `"/a"`, `"/a"` → `"/"`, `"a"` → `""`,
    /// `"a/b/"` → `"a"`, `"/"` → `"/"`, `""` → `""`. An empty result means "the current folder".
    public static func parent(_ path: String) -> String {
        let bytes = normalized(path)
        if bytes == [slash] { return "/" }
        guard let slashIndex = bytes.lastIndex(of: slash) else { return "" }
        if slashIndex == 0 { return "/" }
        return String(decoding: bytes[..<slashIndex], as: UTF8.self)
    }

    /// The last component's extension, without its dot and in its own case: `"a/B.JPG"` →
    /// `"JPG"`, `"x.tar.gz"` → `"gz"`. Empty when the component has no dot, only a leading one
    /// (`".jpg"`, a hidden file's name) or ends with one (`"a."`, `".."`).
    public static func pathExtension(_ path: String) -> String {
        let bytes = normalized(path)
        let start = (bytes.lastIndex(of: slash) ?? -1) + 1
        guard let dot = bytes[start...].lastIndex(of: UInt8(ascii: ".")), dot > start, dot < bytes.count - 1
        else { return "" }
        return String(decoding: bytes[(dot + 1)...], as: UTF8.self)
    }

    /// The path without its last component's extension and that extension's dot, normalized:
    /// `"/x/a.jpg"` → `"/x/a"`, `"a.b/"` → `"a"`; a path whose `pathExtension` is empty comes back
    /// as it is (normalized): `".jpg"`, `"a."`, `"a"`.
    public static func deletingPathExtension(_ path: String) -> String {
        let bytes = normalized(path)
        let ext = pathExtension(path).utf8.count
        guard ext > 0 else { return String(decoding: bytes, as: UTF8.self) }
        return String(decoding: bytes[..<(bytes.count - ext - 1)], as: UTF8.self)
    }

    private static let slash = UInt8(ascii: "/")

    /// The path's UTF-8 bytes with runs of "/" made one and a trailing "/" dropped (not a lone "/").
    private static func normalized(_ path: String) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(path.utf8.count)
        for byte in path.utf8 where !(byte == slash && out.last == slash) { out.append(byte) }
        if out.count > 1, out.last == slash { out.removeLast() }
        return out
    }
}
