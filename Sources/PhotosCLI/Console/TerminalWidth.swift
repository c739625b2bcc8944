import Foundation

extension TerminalText {
    /// The width tables and help are laid out for, in columns: `$COLUMNS` when it is a whole
    /// number from 20 to 1000 (as argument-parser and git read it), else the terminal's width
    /// when stdout is one (`TIOCGWINSZ`, ioctl_tty(2)), else 80.
    static func columns(environment: [String: String]) -> Int {
        if let text = environment["COLUMNS"], let columns = Int(text), (20...1000).contains(columns) {
            return columns
        }
        var size = winsize()
        if isatty(1) == 1, ioctl(1, UInt(TIOCGWINSZ), &size) == 0, size.ws_col >= 20 { return Int(size.ws_col) }
        return 80
    }

    /// `text` cut to at most `columns` display columns, ending in `…` when cut (a wide
    /// character is never split; a combining mark stays with its letter).
    static func truncated(_ text: String, _ columns: Int) -> String {
        guard width(text) > columns else { return text }
        guard columns > 0 else { return "" }
        var result = ""
        var used = 0
        for character in text {
            let w = width(String(character))
            if used + w > columns - 1 { break }
            result.append(character)
            used += w
        }
        return result + "…"
    }

    /// `text` cut to `columns` and padded to exactly `columns` display columns.
    static func fitted(_ text: String, _ columns: Int) -> String { padRight(truncated(text, columns), columns) }
}
