import Foundation

/// A shell glob for `photos list --name`: `*` any run of characters, `?` one character,
/// `[abc]`, `[a-z]` and `[!abc]` (or `[^abc]`) one character of (not of) a set, `\x` the
/// character x (POSIX.1-2017 XCU §2.13.1 "Patterns Matching a Single Character", as fnmatch
/// without FNM_PATHNAME or FNM_PERIOD: `*` also matches `/` and a leading dot). The comparison
/// ignores case and diacritics (the name and the pattern are folded first), so `*cafe*`
/// matches `Café.jpg`. Matched by grapheme cluster (`Character`), so a combining mark is
/// part of its letter.
public struct NameGlob: Sendable {
    private enum Element: Sendable {
        case any
        case one
        case literal(Character)
        case set([ClosedRange<Character>], negated: Bool)
    }

    private let elements: [Element]

    /// The first range in a bracket expression whose start sorts after its end (`c-a`, as
    /// written after folding), or nil. POSIX.1-2017 XBD §9.3.5 item 7 leaves such a range
    /// undefined (fnmatch implementations differ), so callers reject the pattern; `matches`
    /// treats its three characters as members of the set.
    public let reversedRange: String?

    /// Parses `pattern`. A `[` without its `]` is a literal `[`.
    public init(_ pattern: String) {
        let chars = Array(NameGlob.fold(pattern))
        var elements: [Element] = []
        var reversed: String?
        var i = 0
        while i < chars.count {
            let c = chars[i]
            switch c {
            case "*":
                if case .any = elements.last {} else { elements.append(.any) }
                i += 1
            case "?":
                elements.append(.one)
                i += 1
            case "\\" where i + 1 < chars.count:
                elements.append(.literal(chars[i + 1]))
                i += 2
            case "[":
                var j = i + 1
                var negated = false
                if j < chars.count, chars[j] == "!" || chars[j] == "^" {
                    negated = true
                    j += 1
                }
                var ranges: [ClosedRange<Character>] = []
                var reversedHere: String?
                var first = true
                while j < chars.count, chars[j] != "]" || first {
                    first = false
                    if j + 2 < chars.count, chars[j + 1] == "-", chars[j + 2] != "]", chars[j] <= chars[j + 2] {
                        ranges.append(chars[j]...chars[j + 2])
                        j += 3
                    } else if j + 2 < chars.count, chars[j + 1] == "-", chars[j + 2] != "]" {
                        if reversedHere == nil { reversedHere = "\(chars[j])-\(chars[j + 2])" }
                        ranges.append(chars[j]...chars[j])
                        ranges.append("-"..."-")
                        ranges.append(chars[j + 2]...chars[j + 2])
                        j += 3
                    } else {
                        ranges.append(chars[j]...chars[j])
                        j += 1
                    }
                }
                if j < chars.count {
                    if reversed == nil { reversed = reversedHere }
                    elements.append(.set(ranges, negated: negated))
                    i = j + 1
                } else {
                    elements.append(.literal("["))
                    i += 1
                }
            default:
                elements.append(.literal(c))
                i += 1
            }
        }
        self.elements = elements
        self.reversedRange = reversed
    }

    /// True when the whole of `name` matches.
    public func matches(_ name: String) -> Bool {
        let text = Array(NameGlob.fold(name))
        // Iterative matching with one backtrack point per `*` (linear in practice, no recursion).
        var t = 0, e = 0
        var starElement = -1, starText = 0
        while t < text.count {
            if e < elements.count {
                switch elements[e] {
                case .any:
                    starElement = e
                    starText = t
                    e += 1
                    continue
                case .one:
                    t += 1
                    e += 1
                    continue
                case .literal(let c) where c == text[t]:
                    t += 1
                    e += 1
                    continue
                case .set(let ranges, let negated) where ranges.contains { $0.contains(text[t]) } != negated:
                    t += 1
                    e += 1
                    continue
                default:
                    break
                }
            }
            guard starElement >= 0 else { return false }
            e = starElement + 1
            starText += 1
            t = starText
        }
        while e < elements.count, case .any = elements[e] { e += 1 }
        return e == elements.count
    }

    /// Case and diacritics folded, NFC: the form both sides are compared in.
    private static func fold(_ text: String) -> String {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
            .precomposedStringWithCanonicalMapping
    }
}
