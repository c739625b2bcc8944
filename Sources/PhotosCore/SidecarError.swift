import Foundation

/// Why a sidecar (XMP or JSON, beside an image) or an XMP packet (a sidecar's or one embedded
/// in an image) was not read (`XMPSidecar.load`, `parse`, `parseJSON`), typed with the file as
/// its subject so that callers match on what happened. It carries no exit status: import fails
/// the one file with `description` as its reason, and the CLI's `ErrorReporting` gives the
/// status where one stops a command (the file's data, a read error, or the XMP Toolkit itself).
public enum SidecarError: Error, Equatable, CustomStringConvertible {
    /// The sidecar file at `path` has `bytes` bytes, more than `maximum` (`XMPSidecar.maxBytes`):
    /// refused before reading (fstat(2)).
    case fileTooLarge(path: String, bytes: Int, maximum: Int)
    /// read(2) of the sidecar at `path` failed with `errno`.
    case readFailed(path: String, errno: Int32)
    /// The JSON sidecar at `path` has about `values` values, more than `maximum`
    /// (`XMPSidecar.maxNodes`): refused before decoding.
    case tooManyJSONValues(path: String, values: Int, maximum: Int)
    /// The JSON sidecar at `path` is not JSON, or not a JSON object (RFC 8259 §4).
    case notAJSONObject(path: String)
    /// The XMP packet of `path` has `bytes` bytes, more than `maximum` (`XMPSidecar.maxBytes`).
    case packetTooLarge(path: String, bytes: Int, maximum: Int)
    /// The XMP packet of `path` has about `nodes` elements and attributes, more than `maximum`
    /// (`XMPSidecar.maxNodes`): refused before parsing.
    case tooManyXMPNodes(path: String, nodes: Int, maximum: Int)
    /// The XMP Toolkit (exempi) could not be initialized: `xmp_get_error` gave `code`. The
    /// installation's fault, not the file's.
    case toolkitUnavailable(code: Int32)
    /// The XMP Toolkit could not allocate a packet for `path` (`xmp_new_empty` returned NULL).
    case toolkitAllocationFailed(path: String)
    /// The XMP packet of `path` is malformed or truncated XML or RDF: the toolkit refused it
    /// with `toolkitCode` (`xmp_get_error`, exempi `xmperrors.h`; 0 for an empty packet).
    case malformedPacket(path: String, toolkitCode: Int32)
    /// The XMP packet of `path` (a sidecar's, or one embedded in the image) is UTF-8 XML with
    /// bytes that are not UTF-8 from byte `offset` (issue 31 item 21): its text, a tag name
    /// among it, would be changed by whoever decoded it, so it is not read.
    case notUTF8(path: String, offset: Int)
    /// An IPTC keyword (JSON-quoted as decoded, U+FFFD in place of the bad bytes) of the image
    /// at `path` that its IPTC record declares UTF-8 (1:90) but is not (issue 31 item 21).
    case iptcKeywordNotUTF8(path: String, shown: String)

    /// True for a packet that is XML but that the XMP Toolkit refuses as XMP and that could not
    /// be repaired (`malformedPacket` with XMPErr_BadXMP −203 or XMPErr_BadUnicode −205): a
    /// property given twice beside invalid UTF-8, for example. Import takes the image without
    /// such a sidecar, with a warning, instead of failing it.
    ///
    /// A packet that is not UTF-8 text is one too (issue 31 items 13 and 21): its names would be
    /// changed by any reading, so it is left out whole — said with a warning naming the file,
    /// never replaced silently.
    public var isInvalidXMP: Bool {
        switch self {
        case .malformedPacket(_, let code): return code == -203 || code == -205
        case .notUTF8: return true
        default: return false
        }
    }

    /// The file the error is about; empty for `toolkitUnavailable`.
    public var path: String {
        switch self {
        case .fileTooLarge(let path, _, _), .readFailed(let path, _), .tooManyJSONValues(let path, _, _),
            .notAJSONObject(let path), .packetTooLarge(let path, _, _), .tooManyXMPNodes(let path, _, _),
            .toolkitAllocationFailed(let path), .malformedPacket(let path, _), .notUTF8(let path, _),
            .iptcKeywordNotUTF8(let path, _):
            return path
        case .toolkitUnavailable: return ""
        }
    }

    /// The one line the user reads, naming the file (also import's reason for the file it fails).
    public var description: String {
        switch self {
        case let .fileTooLarge(path, bytes, maximum):
            return
                "\(path): sidecar of \(bytes) bytes is larger than the \(maximum >> 20) MiB a sidecar may have; not read"
        case let .readFailed(path, code): return "\(path): cannot read the sidecar: \(String(cString: strerror(code)))"
        case let .tooManyJSONValues(path, values, maximum):
            return "\(path): JSON sidecar of \(values) values is over the \(maximum) read; not read"
        case .notAJSONObject(let path): return "\(path): not a readable JSON sidecar (expected a JSON object)"
        case let .packetTooLarge(path, bytes, maximum):
            return "\(path): XMP packet of \(bytes) bytes is larger than \(maximum >> 20) MiB; not read"
        case let .tooManyXMPNodes(path, nodes, maximum):
            return "\(path): XMP packet of \(nodes) elements and attributes is over the \(maximum) read; not read"
        case .toolkitUnavailable(let code): return "the XMP Toolkit (exempi) could not be initialized (error \(code))"
        case .toolkitAllocationFailed(let path): return "\(path): the XMP Toolkit could not allocate a packet"
        case let .malformedPacket(path, code):
            return "\(path): not a readable XMP packet: \(XMPToolkit.describe(code))"
        case let .notUTF8(path, offset):
            return "\(path): XMP packet is not UTF-8 text (byte \(offset) starts no UTF-8 character); not read"
        case let .iptcKeywordNotUTF8(path, shown):
            return "\(path): IPTC keyword \(shown) is not UTF-8 text, though its record declares UTF-8; not read"
        }
    }
}
