/// A statement as an error message shows it (issue 31 item 21: a PostgreSQL error printed its
/// whole 30 KB statement): whitespace runs as one space, at most `limit` characters — enough
/// to name it (`INSERT INTO photo (…`) — and, when cut, how long it was.
///
/// `summary("INSERT INTO t VALUES ($1), ($2), …")` with a 30,000-character statement gives
/// `INSERT INTO t VALUES ($1), ($2), … (cut; 30000 characters)`.
public enum StatementSummary {
    /// Characters of a statement shown in an error message.
    public static let limit = 160

    /// Characters of a server's or library's message shown (the rest is cut the same way).
    public static let messageLimit = 1000

    /// `text` with whitespace runs made one space, cut after `limit` characters with
    /// "… (cut; N characters)".
    public static func summary(_ text: String, limit: Int = StatementSummary.limit) -> String {
        var out = ""
        var count = 0
        var lastWasSpace = false
        for character in text {
            let space = character.isWhitespace
            if space && lastWasSpace { continue }
            lastWasSpace = space
            if count < limit { out.append(space ? " " : character) }
            count += 1
        }
        if out.hasSuffix(" ") { out.removeLast() }
        guard count > limit else { return out }
        return out + "… (cut; \(text.count) characters)"
    }
}
