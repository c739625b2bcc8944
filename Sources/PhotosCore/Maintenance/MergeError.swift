/// Why `photos merge` refused or stopped, typed so that callers match on what happened; the
/// CLI words it and picks the exit status (`ErrorReporting`, both 65: bad input data).
public enum MergeError: Error, Equatable, CustomStringConvertible {
    /// The library to merge from is this library (same folder after standardizing the path).
    case intoItself(library: String)
    /// The other library's original of photo `photo` does not have its recorded SHA-256, so it
    /// is not copied (SPEC §2: originals are content-addressed).
    case originalMismatch(library: String, photo: String)

    public var description: String {
        switch self {
        case .intoItself(let library): return "cannot merge a library into itself (\(library))"
        case let .originalMismatch(library, photo):
            return "\(library): original of photo \(photo) does not match its SHA-256; run 'photos verify' there"
        }
    }
}
