import Foundation

/// A value typed on the command line (or read from another library) that is not acceptable.
/// Each case says what was wrong in domain words; the CLI's `ErrorReporting` decides the exit
/// status (a bad argument value) and adds option names where it has them.
public enum ValueError: Error, Equatable, CustomStringConvertible, Sendable {
    /// A rating that is not a whole number.
    case ratingNotANumber(String)
    /// A whole number outside 1…5 (as typed, trimmed).
    case ratingOutOfRange(String)
    /// An e-mail address (JSON-quoted as shown) and what is wrong with it.
    case email(shown: String, problem: String)
    /// An empty share title.
    case shareTitleEmpty
    /// A share title (JSON-quoted) with control characters.
    case shareTitleControlCharacters(shown: String)
    /// A permission word that is not one of `accepted`.
    case permission(String, accepted: [String])
    /// A tag name that is empty after trimming.
    case tagNameEmpty
    /// A tag name (JSON-quoted, trimmed) with control characters.
    case tagNameControlCharacters(shown: String)
    /// A tag name (JSON-quoted, trimmed) holding U+FFFD, the character a decoder puts for bytes
    /// that are not UTF-8 (a command-line argument, a changeset's text): the name as given is
    /// lost, so it is refused rather than stored changed (issue 31 item 21).
    case tagNameNotUTF8(shown: String)

    /// True for a value that is malformed as an argument (exit 64), false for one that is
    /// well-formed but wrong as data (exit 65).
    public var isMalformed: Bool {
        switch self {
        case .ratingNotANumber, .permission: return true
        default: return false
        }
    }

    public var description: String {
        switch self {
        case .ratingNotANumber(let text): return "rating '\(text)' is not a whole number; give 1 to 5"
        case .ratingOutOfRange(let text): return "rating \(text) is out of range; a rating is 1 to 5"
        case .email(let shown, let problem): return "e-mail address \(shown) \(problem)"
        case .shareTitleEmpty: return "share title is empty"
        case .shareTitleControlCharacters(let shown): return "share title \(shown) contains control characters"
        case .permission(let text, let accepted): return "takes \(accepted.joined(separator: ", ")), not '\(text)'"
        case .tagNameEmpty: return "tag name is empty"
        case .tagNameControlCharacters(let shown): return "tag name \(shown) contains control characters"
        case .tagNameNotUTF8(let shown):
            return "tag name \(shown) is not UTF-8 text (U+FFFD marks bytes that were not UTF-8)"
        }
    }
}

/// A rating: an integer 1…5 (SPEC §3: Rating.value).
public struct RatingValue: RawRepresentable, Hashable, Comparable, Sendable {
    /// The values a rating may take.
    public static let range = 1...5

    /// 1…5.
    public let rawValue: Int

    /// A rating of `rawValue` stars, nil outside 1…5.
    public init?(rawValue: Int) {
        guard RatingValue.range.contains(rawValue) else { return nil }
        self.rawValue = rawValue
    }

    /// Parses a rating typed on the command line (surrounding spaces allowed).
    /// - Throws: `ValueError.ratingNotANumber` when `text` is not a whole number,
    ///   `.ratingOutOfRange` when it is one outside 1…5 (also one too large for `Int`).
    public init(parsing text: String) throws {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard let value = Int(trimmed) else {
            let digits = trimmed.hasPrefix("-") || trimmed.hasPrefix("+") ? trimmed.dropFirst() : Substring(trimmed)
            if !digits.isEmpty && digits.allSatisfy({ $0.isASCII && $0.isNumber }) {
                throw ValueError.ratingOutOfRange(trimmed)
            }
            throw ValueError.ratingNotANumber(text)
        }
        guard let rating = RatingValue(rawValue: value) else { throw ValueError.ratingOutOfRange(String(value)) }
        self = rating
    }

    public static func < (a: RatingValue, b: RatingValue) -> Bool { a.rawValue < b.rawValue }
}

/// A participant's e-mail address, lower-cased so that `Ann@Example.org` and
/// `ann@example.org` are one participant.
public struct Email: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The lower-cased address.
    public let rawValue: String

    /// Wraps an address read back from the catalog (already normalized).
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Checks, lower-cases and NFC-normalizes an address (Unicode Standard Annex #15, as tag names
    /// and authors are, so "josé@…" typed precomposed and decomposed is one participant):
    /// exactly one `@`, non-empty local and domain parts, no white space or control characters
    /// (surrounding white space is trimmed first), at most `maximumBytes` bytes of UTF-8.
    /// - Throws: `ValueError.email` naming the address and what is wrong with it.
    public init(parsing raw: String) throws {
        let text = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.utf8.count <= Email.maximumBytes else {
            let start = JSONValue.string(String(text.prefix(40))).serialized()
            throw ValueError.email(
                shown: start + "…", problem: "is longer than \(Email.maximumBytes) bytes (\(text.utf8.count))")
        }
        let shown = JSONValue.string(text).serialized()
        if text.unicodeScalars.contains(where: {
            CharacterSet.whitespacesAndNewlines.contains($0) || CharacterSet.controlCharacters.contains($0)
        }) {
            throw ValueError.email(shown: shown, problem: "contains spaces or control characters")
        }
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2 else { throw ValueError.email(shown: shown, problem: "must contain exactly one @") }
        guard !parts[0].isEmpty, !parts[1].isEmpty else {
            throw ValueError.email(shown: shown, problem: "needs a name before and a domain after the @")
        }
        rawValue = text.lowercased().precomposedStringWithCanonicalMapping
    }

    public var description: String { rawValue }

    /// The longest address accepted, in bytes of UTF-8: the longest SMTP carries (RFC 5321
    /// §4.5.3.1.3, a path of 256 octets less its angle brackets); the catalog's
    /// `library_owner.email` CHECK holds the same bound.
    public static let maximumBytes = 254
}

/// A share's title: trimmed, NFC, not empty, no control characters.
public struct ShareTitle: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    /// Wraps a title read back from the catalog.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Trims and NFC-normalizes a title typed on the command line.
    /// - Throws: `ValueError.shareTitleEmpty`, `.shareTitleControlCharacters`.
    public init(parsing raw: String) throws {
        let text = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { throw ValueError.shareTitleEmpty }
        if text.unicodeScalars.contains(where: { CharacterSet.controlCharacters.contains($0) }) {
            throw ValueError.shareTitleControlCharacters(shown: JSONValue.string(text).serialized())
        }
        rawValue = text.precomposedStringWithCanonicalMapping
    }

    /// The seed's default title: `Share-` plus the creation time in UTC, e.g.
    /// `Share-2026-11-29 14:03:12`.
    /// - Parameter iso: the creation time as ISO 8601 UTC (`YYYY-MM-DDTHH:MM:SSZ`).
    public static func defaultTitle(iso: String) -> ShareTitle {
        ShareTitle(
            rawValue: "Share-" + iso.replacingOccurrences(of: "T", with: " ").replacingOccurrences(of: "Z", with: ""))
    }

    public var description: String { rawValue }
}

/// Who may see a share without an invitation, or what an invited participant may do
/// (CloudKit's `CKShare.ParticipantPermission`; SPEC §3).
public enum SharePermission: String, CaseIterable, Sendable {
    /// No access (a share's public permission only).
    case none
    /// May see the share's records.
    case readOnly = "read-only"
    /// May also change them.
    case readWrite = "read-write"

    /// Parses `none`, `read-only` or `read-write` (any case).
    /// - Parameter allowNone: whether `none` is accepted (a public permission) or not (a participant's).
    /// - Throws: `ValueError.permission` listing the accepted words.
    public init(parsing text: String, allowNone: Bool) throws {
        let accepted: [SharePermission] = allowNone ? SharePermission.allCases : [.readOnly, .readWrite]
        guard let value = SharePermission(rawValue: text.lowercased()), accepted.contains(value) else {
            throw ValueError.permission(text, accepted: accepted.map(\.rawValue))
        }
        self = value
    }
}

/// A participant's role in a share (CloudKit's `CKShare.ParticipantRole`; SPEC §3).
public enum ParticipantRole: String, CaseIterable, Sendable {
    case owner
    case privateUser = "private-user"
    case publicUser = "public-user"
}

/// Whether a participant has accepted the invitation (CloudKit's
/// `CKShare.ParticipantAcceptanceStatus`; SPEC §3).
public enum Acceptance: String, CaseIterable, Sendable {
    case unknown, pending, accepted, removed
}

/// The scope of a record zone: ours (`private`) or shared with this library by someone else
/// (`shared`) (SYNC.md: the private and the shared store).
public enum ZoneScope: String, CaseIterable, Sendable {
    case `private`
    case shared
}
