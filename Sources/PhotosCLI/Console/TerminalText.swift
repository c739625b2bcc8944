import Foundation
import PhotosModel

/// The one place of text made for a terminal: control characters made harmless, columns
/// padded by display width, plurals and byte sizes.
enum TerminalText {
    /// True for characters a terminal acts on instead of showing: C0 controls, DEL, C1 controls
    /// (U+0080–U+009F, e.g. U+009B CSI), the Unicode line and paragraph separators, and the
    /// bidirectional formatting characters of Unicode Standard Annex #9 §2 (U+061C, U+200E,
    /// U+200F, U+202A–U+202E, U+2066–U+2069), which reorder the rest of the line they are on
    /// ("Trojan Source", CVE-2021-42574) and take no column, so a name holding one would
    /// scramble and misalign a table row.
    /// The set is the author rule's (`AuthorName.isControl`): one definition for what may be
    /// stored as a printable name and what a terminal must not be sent.
    static func isControl(_ scalar: Unicode.Scalar) -> Bool { AuthorName.isControl(scalar) }

    /// `text` with control characters written as escapes (`\n`, `\t`, `\r`, `\u{1B}`), for
    /// one-line messages that name user-supplied paths.
    static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": result += "\\n"
            case "\t": result += "\\t"
            case "\r": result += "\\r"
            case _ where isControl(scalar): result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// `text` with each control character replaced by `?`, for names shown in tables and
    /// summaries (one character per character, so columns stay where they were).
    static func printable(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        return String(String.UnicodeScalarView(text.unicodeScalars.map { isControl($0) ? "?" : $0 }))
    }

    /// How many terminal columns `text` takes: two for each East Asian wide or fullwidth
    /// character and emoji presentation (Unicode UAX #11, as Markus Kuhn's `wcwidth`), one for
    /// any other character (a grapheme cluster: combining marks add nothing).
    static func width(_ text: String) -> Int {
        text.reduce(0) { sum, character in
            guard let first = character.unicodeScalars.first else { return sum }
            return sum + (isWide(first) ? 2 : 1)
        }
    }

    /// East Asian Wide (W) and Fullwidth (F) ranges of UAX #11 (EastAsianWidth.txt), and emoji
    /// shown as pictures by default.
    private static func isWide(_ scalar: Unicode.Scalar) -> Bool {
        let v = scalar.value
        if v < 0x1100 { return false }
        if scalar.properties.isEmojiPresentation { return true }
        return (0x1100...0x115F).contains(v) || (0x2E80...0x303E).contains(v) || (0x3041...0x33FF).contains(v)
            || (0x3400...0x4DBF).contains(v) || (0x4E00...0x9FFF).contains(v) || (0xA000...0xA4CF).contains(v)
            || (0xAC00...0xD7A3).contains(v) || (0xF900...0xFAFF).contains(v) || (0xFE30...0xFE4F).contains(v)
            || (0xFF00...0xFF60).contains(v) || (0xFFE0...0xFFE6).contains(v) || (0x20000...0x3FFFD).contains(v)
    }

    /// `text` followed by spaces up to `columns` display columns (never cut).
    static func padRight(_ text: String, _ columns: Int) -> String {
        let w = width(text)
        return w >= columns ? text : text + String(repeating: " ", count: columns - w)
    }

    /// Spaces up to `columns` display columns, then `text` (never cut).
    static func padLeft(_ text: String, _ columns: Int) -> String {
        let w = width(text)
        return w >= columns ? text : String(repeating: " ", count: columns - w) + text
    }

    /// `n noun` or `n nouns`: "1 photo", "2 photos", "0 photos".
    static func plural(_ n: Int, _ noun: String) -> String { "\(n) \(pluralized(n, noun))" }

    /// `noun`, or `nouns` unless `n` is 1.
    static func pluralized(_ n: Int, _ noun: String) -> String { n == 1 ? noun : noun + "s" }

    /// `bytes` in decimal units with one decimal, as people read file sizes: `512 B`, `2.3 MB`,
    /// `1.0 GB` (SI prefixes, 1 kB = 1000 B, IEC 80000-13). The one size format of every
    /// command's human output (list, show, stats, import/export summaries, progress, backup);
    /// JSON keeps whole bytes.
    static func bytes(_ bytes: Int64) -> String {
        let units = ["B", "kB", "MB", "GB", "TB", "PB"]
        var value = Double(bytes)
        var unit = 0
        while value >= 999.95 && unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        return unit == 0 ? "\(bytes) B" : String(format: "%.1f", value) + " " + units[unit]
    }

    /// A duration in seconds with one decimal: `2.5`.
    static func seconds(_ seconds: Double) -> String { String(format: "%.1f", seconds) }
}
