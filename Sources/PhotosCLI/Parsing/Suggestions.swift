import Foundation

/// "Did you mean …?" for a mistyped command or option, as git (`help.autocorrect` off) and
/// swift-argument-parser suggest: the known names nearest by Damerau–Levenshtein distance
/// (optimal string alignment: insertions, deletions, substitutions and transpositions of
/// adjacent characters each cost 1), within a third of the typed length (at least 1, at
/// most 3), or those the typed word is a prefix of.
enum Suggestions {
    /// The closest of `candidates` to `typed`, best first (several on a tie), or none.
    static func nearest(_ typed: String, among candidates: [String]) -> [String] {
        let word = typed.lowercased()
        let limit = min(3, max(1, word.count / 3))
        var best: [String] = []
        var bestDistance = Int.max
        for candidate in Set(candidates).sorted() {
            let distance = editDistance(word, candidate.lowercased())
            if distance < bestDistance {
                bestDistance = distance
                best = [candidate]
            } else if distance == bestDistance {
                best.append(candidate)
            }
        }
        if bestDistance <= limit { return best }
        // A prefix of exactly one name ("photos verif").
        let prefixed = candidates.filter { $0.lowercased().hasPrefix(word) && word.count >= 3 }
        return Set(prefixed).count == 1 ? [prefixed[0]] : []
    }

    /// ` Did you mean 'x'?`, ` Did you mean 'x' or 'y'?`, or "" when nothing is near.
    static func didYouMean(_ typed: String, among candidates: [String]) -> String {
        let near = nearest(typed, among: candidates).prefix(3).map { "'\($0)'" }
        guard let last = near.last else { return "" }
        let list = near.count == 1 ? last : near.dropLast().joined(separator: ", ") + " or " + last
        return ". Did you mean \(list)?"
    }

    /// The optimal string alignment distance between `a` and `b`, by Character.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let s = Array(a), t = Array(b)
        if s.isEmpty { return t.count }
        if t.isEmpty { return s.count }
        var d = [[Int]](repeating: [Int](repeating: 0, count: t.count + 1), count: s.count + 1)
        for i in 0...s.count { d[i][0] = i }
        for j in 0...t.count { d[0][j] = j }
        for i in 1...s.count {
            for j in 1...t.count {
                let cost = s[i - 1] == t[j - 1] ? 0 : 1
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
                if i > 1, j > 1, s[i - 1] == t[j - 2], s[i - 2] == t[j - 1] {
                    d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
                }
            }
        }
        return d[s.count][t.count]
    }
}
