import Foundation

/// The rule for a transaction author or a rating's author (SPEC §4, §5): one rule for
/// `--author`, `$PHOTOS_AUTHOR` and the authors that arrive in changesets from other libraries,
/// so that what one library accepts another never refuses, and one person is one author of
/// ratings everywhere.
public enum AuthorName {
    /// The longest author accepted, in UTF-8 bytes.
    public static let maximumBytes = 200

    /// `author` without leading and trailing white space, in Unicode Normalization Form C
    /// (Unicode Standard Annex #15), as tag names are: `rate` keeps one rating per author, so
    /// "é" typed as one code point (most keyboards) and as e + U+0301 (macOS file names, some
    /// input methods) and "alice " from a sloppy `export PHOTOS_AUTHOR` are the same author.
    public static func normalize(_ author: String) -> String {
        author.trimmingCharacters(in: .whitespacesAndNewlines).precomposedStringWithCanonicalMapping
    }

    /// Why `author` (already normalized) is not an author, or nil when it is one: empty; longer
    /// than `maximumBytes`; or holding a control character (C0, DEL, C1, the line and paragraph
    /// separators U+2028/U+2029) or a bidirectional formatting character (UAX #9 §2: ALM, LRM,
    /// RLM, LRE…RLO, LRI…PDI, which reorder the rest of a printed line: "Trojan Source",
    /// CVE-2021-42574). `photos history` and `rate` print authors as one line of a table.
    public static func problem(_ author: String) -> String? {
        if author.isEmpty { return "must not be empty" }
        if author.utf8.count > maximumBytes { return "must be at most \(maximumBytes) bytes of UTF-8" }
        if author.unicodeScalars.contains(where: isControl) {
            return "must not contain control characters (newlines, escapes, bidirectional controls)"
        }
        return nil
    }

    /// Whether `author` is stored as it must be: normalized (`normalize`) and without a
    /// `problem`. Authors read from changesets and other libraries must pass this.
    public static func isValid(_ author: String) -> Bool {
        isNormalized(author) && problem(author) == nil
    }

    /// Whether `author` is already what `normalize` makes of it, compared by bytes: Swift's
    /// `String ==` is canonical equivalence, under which a decomposed name equals its NFC form.
    public static func isNormalized(_ author: String) -> Bool {
        normalize(author).utf8.elementsEqual(author.utf8)
    }

    /// A control or bidirectional formatting scalar (Unicode general category Cc, U+2028,
    /// U+2029, and UAX #9 §2.1–§2.6's ALM U+061C, LRM U+200E, RLM U+200F, U+202A–U+202E,
    /// U+2066–U+2069).
    public static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        let v = scalar.value
        return v < 0x20 || (0x7F...0x9F).contains(v) || v == 0x2028 || v == 0x2029 || v == 0x061C || v == 0x200E
            || v == 0x200F || (0x202A...0x202E).contains(v) || (0x2066...0x2069).contains(v)
    }
}
