import Foundation

/// Help text in swift-argument-parser's layout: `OVERVIEW:`, `USAGE:`, `ARGUMENTS:`,
/// `OPTIONS:`, `SUBCOMMANDS:`, `EXAMPLES:`, defaults as `(default: x)`, wrapped to the
/// terminal's width (`TerminalText.columns`: `$COLUMNS`, default 80) by display width.
enum Help {
    /// The column where the help of an option or argument starts.
    static let helpColumn = 30

    /// `photos tag add [<options>] <name> <photo> ...`; required options are spelled out
    /// (`photos thumbnail --output <file> [<options>] <photo>`).
    static func usageLine(_ command: CommandDescriptor) -> String {
        var parts = ["photos", command.name]
        for option in command.options where option.required {
            parts.append(option.name + (option.value.map { " <\($0.lowercased())>" } ?? ""))
        }
        if command.options.contains(where: { !$0.required }) { parts.append("[<options>]") }
        for arg in command.arguments {
            var text = "<\(arg.name)>"
            if arg.variadic { text += " ..." }
            if arg.optional { text = "[\(text)]" }
            parts.append(text)
        }
        return parts.joined(separator: " ")
    }

    /// The two lines after a usage error's `photos CMD: error: …` line.
    static func usageReminder(_ command: CommandDescriptor?) -> String {
        guard let command else {
            return "Usage: photos <subcommand> [options]\n  See 'photos --help' for more information.\n"
        }
        return "Usage: \(usageLine(command))\n  See 'photos \(command.name) --help' for more information.\n"
    }

    /// Help for one command, `width` columns wide.
    static func command(_ command: CommandDescriptor, width: Int = 80) -> String {
        var text = wrap("OVERVIEW: \(command.configuration.abstract)", width: width, indent: 0) + "\n"
        if !command.configuration.discussion.isEmpty {
            text += "\n" + paragraphs(command.configuration.discussion, width: width)
        }
        text += "\n" + wrap("USAGE: \(usageLine(command))", width: width, indent: 7) + "\n"
        if !command.arguments.isEmpty {
            text += "\nARGUMENTS:\n"
            for arg in command.arguments { text += row("<\(arg.name)>", arg.help, width: width) }
        }
        if !command.options.isEmpty { text += "\nOPTIONS:\n" + optionRows(command.options, width: width) }
        let shadowed = Set(command.options.flatMap(\.names))
        text +=
            "\nGLOBAL OPTIONS:\n"
            + optionRows(
                InformationRequest.globalSpecs.filter { $0.names.allSatisfy { !shadowed.contains($0) } }, width: width)
        text += examples(command.configuration.examples)
        return text
    }

    /// `photos --help`, `width` columns wide.
    static func main(width: Int = 80) -> String {
        var text =
            wrap(
                "OVERVIEW: Keep a photo library in SQLite: import folders of JPEG, PNG, HEIF, AVIF and WebP with 120-pixel thumbnails, list, show, export and maintain it — by hand and from cron.",
                width: width, indent: 0) + "\n"
        text += "\nUSAGE: photos [<global options>] <subcommand> [<options>] [<arguments>]\n"
        text += "\nOPTIONS:\n" + optionRows(InformationRequest.globalSpecs, width: width)
        text += "\nSUBCOMMANDS:\n"
        for command in Registry.commands { text += row(command.name, command.configuration.abstract, width: width) }
        text += examples([
            "photos import ~/Pictures/2024 --tag 2024", "photos list --tag beach --sort rating --reverse",
            "photos list --untagged --json | jq -r .uniqueName | photos tag add inbox -",
            "photos export /media/usb --tag sea --template '{capture:%Y/%m}/{name}'"
        ])
        text += "\n  See 'photos help <subcommand>' for detailed help.\n"
        return text
    }

    /// `photos tag --help`: the family's subcommands.
    static func family(_ group: String, width: Int = 80) -> String {
        var text = "USAGE: photos \(group) <subcommand>\n\nSUBCOMMANDS:\n"
        for command in Registry.family(group) {
            text += row(command.name, command.configuration.abstract, width: width)
        }
        text += "\n  See 'photos help \(group) <subcommand>' for detailed help.\n"
        return text
    }

    private static func examples(_ lines: [String]) -> String {
        guard !lines.isEmpty else { return "" }
        return "\nEXAMPLES:\n" + lines.map { "  \($0)\n" }.joined()
    }

    private static func optionRows(_ options: [OptionSpec], width: Int) -> String {
        var lines = ""
        for option in options {
            var left = option.names.sorted { $0.count < $1.count }.joined(separator: ", ")
            if let value = option.value { left += " <\(value.lowercased())>" }
            var right = option.help
            if option.required { right += " (required)" }
            if let def = option.defaultValue { right += " (default: \(def))" }
            if option.repeatable { right += " (repeatable)" }
            lines += row(left, right, width: width)
        }
        return lines
    }

    /// `  left    right`, the right column at `helpColumn` and wrapped to `width` (continuation
    /// lines indented to it); a long left part gets a line of its own.
    private static func row(_ left: String, _ right: String, width: Int) -> String {
        let column = helpColumn - 2
        let indent = String(repeating: " ", count: helpColumn)
        let lines = wrapLines(right, width: max(20, width - helpColumn))
        let rest = lines.dropFirst().map { indent + $0 + "\n" }.joined()
        if TerminalText.width(left) + 2 >= column {
            return "  \(left)\n" + lines.map { indent + $0 + "\n" }.joined()
        }
        return "  " + TerminalText.padRight(left, column) + (lines.first ?? "") + "\n" + rest
    }

    /// The discussion's paragraphs (separated by blank lines), each reflowed to `width`.
    private static func paragraphs(_ text: String, width: Int) -> String {
        text.components(separatedBy: "\n\n").map { paragraph in
            let words = paragraph.split(whereSeparator: { $0 == " " || $0 == "\n" }).joined(separator: " ")
            return wrap(words, width: width, indent: 0) + "\n"
        }.joined(separator: "\n")
    }

    /// `text` wrapped at spaces to `width` display columns; lines after the first are indented
    /// by `indent` spaces.
    static func wrap(_ text: String, width: Int, indent: Int) -> String {
        let lines = wrapLines(text, width: width, firstLineColumns: width, otherLineColumns: max(20, width - indent))
        let pad = String(repeating: " ", count: indent)
        return lines.enumerated().map { $0.offset == 0 ? $0.element : pad + $0.element }.joined(separator: "\n")
    }

    private static func wrapLines(_ text: String, width: Int) -> [String] {
        wrapLines(text, width: width, firstLineColumns: width, otherLineColumns: width)
    }

    /// Greedy word wrap by display width; a word longer than a line stands alone.
    private static func wrapLines(_ text: String, width: Int, firstLineColumns: Int, otherLineColumns: Int)
        -> [String]
    {
        var lines: [String] = []
        var current = ""
        var currentWidth = 0
        for word in text.split(separator: " ", omittingEmptySubsequences: true).map(String.init) {
            let limit = lines.isEmpty ? firstLineColumns : otherLineColumns
            let w = TerminalText.width(word)
            if current.isEmpty {
                current = word
                currentWidth = w
            } else if currentWidth + 1 + w <= limit {
                current += " " + word
                currentWidth += 1 + w
            } else {
                lines.append(current)
                current = word
                currentWidth = w
            }
        }
        if !current.isEmpty || lines.isEmpty { lines.append(current) }
        return lines
    }
}
