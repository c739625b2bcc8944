/// How a store splits a list of keys or rows over parameterised statements of a few fixed sizes,
/// so that a backend that prepares each statement text once (SQLite's statement cache,
/// PostgreSQL's named prepared statements) prepares at most `log2(limit) + 1` texts per query
/// whatever the list's length.
public enum StatementBatches {
    /// The slices of `count` keys to look up with `IN (…)` lists: full slices of `limit`, then
    /// one of the rest; each slice's statement takes `size` parameters (a power of two, at least
    /// the slice's length), the surplus filled with a repeat of a key of the slice.
    /// - Returns: (range into the keys, statement size); empty for `count == 0`.
    public static func lookups(_ count: Int, limit: Int = 512) -> [(range: Range<Int>, size: Int)] {
        var slices: [(Range<Int>, Int)] = []
        var start = 0
        while start < count {
            let end = min(start + limit, count)
            var size = 1
            while size < end - start { size *= 2 }
            slices.append((start..<end, size))
            start = end
        }
        return slices
    }

    /// The slices of `count` rows to write with multi-row `VALUES` lists, each of a power-of-two
    /// length (full slices of `limit`, a power of two, then the binary digits of the rest): rows
    /// cannot be repeated to fill a statement.
    /// - Returns: ranges into the rows; empty for `count == 0`.
    public static func writes(_ count: Int, limit: Int = 256) -> [Range<Int>] {
        var slices: [Range<Int>] = []
        var start = 0
        var size = limit
        while start < count {
            while size > count - start { size /= 2 }
            slices.append(start..<start + size)
            start += size
        }
        return slices
    }

    /// `n` comma-separated copies of `item` (`"?"`, `"(?, ?)"`): a placeholder list.
    public static func placeholders(_ n: Int, _ item: String = "?") -> String {
        Array(repeating: item, count: n).joined(separator: ", ")
    }
}
