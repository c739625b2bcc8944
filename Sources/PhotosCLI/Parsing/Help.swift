import Foundation

/// Help text in swift-argument-parser's layout: `OVERVIEW:`, `USAGE:`, `ARGUMENTS:`,
/// `OPTIONS:`, `SUBCOMMANDS:`, defaults as `(default: x)`.
enum Help {
    /// `photos tag add [<options>] <name> <photo> ...`.
    static func usageLine(_ command: CommandDescriptor) -> String {
        var parts = ["photos", command.name]
        if !command.options.isEmpty { parts.append("[<options>]") }
        for arg in command.arguments {
            var text = "<\(arg.name)>"
            if arg.variadic { text += " ..." }
            if arg.optional { text = "[\(text)]" }
            parts.append(text)
        }
        return parts.joined(separator: " ")
    }

    /// The two lines after a usage error's `Error: …` line.
    static func usageReminder(_ command: CommandDescriptor?) -> String {
        guard let command else {
            return "Usage: photos <subcommand> [options]\n  See 'photos --help' for more information.\n"
        }
        return "Usage: \(usageLine(command))\n  See 'photos \(command.name) --help' for more information.\n"
    }

    /// Help for one command.
    static func command(_ command: CommandDescriptor) -> String {
        var text = "OVERVIEW: \(command.configuration.abstract)\n"
        if !command.configuration.discussion.isEmpty { text += "\n\(command.configuration.discussion)\n" }
        text += "\nUSAGE: \(usageLine(command))\n"
        if !command.arguments.isEmpty {
            text += "\nARGUMENTS:\n"
            for arg in command.arguments { text += row("<\(arg.name)>", arg.help) }
        }
        text += "\nOPTIONS:\n" + optionRows(command.options)
        let shadowed = Set(command.options.flatMap(\.names))
        text +=
            "\nGLOBAL OPTIONS:\n"
            + optionRows(InformationRequest.globalSpecs.filter { $0.names.allSatisfy { !shadowed.contains($0) } })
        return text
    }

    /// `photos --help`.
    static func main() -> String {
        var text = """
            OVERVIEW: Keep a photo library in SQLite: import folders of JPEG, PNG, HEIF, AVIF and WebP
            with 120-pixel thumbnails, list, show, export and maintain it — by hand and from cron.

            USAGE: photos [<global options>] <subcommand> [<options>] [<arguments>]

            """
        text += "\nOPTIONS:\n" + optionRows(InformationRequest.globalSpecs)
        text += "\nSUBCOMMANDS:\n"
        for command in Registry.commands { text += row(command.name, command.configuration.abstract) }
        text += "\n  See 'photos help <subcommand>' for detailed help.\n"
        return text
    }

    /// `photos tag --help`: the family's subcommands.
    static func family(_ group: String) -> String {
        var text = "USAGE: photos \(group) <subcommand>\n\nSUBCOMMANDS:\n"
        for command in Registry.family(group) { text += row(command.name, command.configuration.abstract) }
        text += "\n  See 'photos help \(group) <subcommand>' for detailed help.\n"
        return text
    }

    private static func optionRows(_ options: [OptionSpec]) -> String {
        var lines = ""
        for option in options {
            var left = option.names.sorted { $0.count < $1.count }.joined(separator: ", ")
            if let value = option.value { left += " <\(value.lowercased())>" }
            var right = option.help
            if let def = option.defaultValue { right += " (default: \(def))" }
            if option.repeatable { right += " (repeatable)" }
            lines += row(left, right)
        }
        return lines
    }

    /// `  left    right`, the right column at 30; a long left part gets a line of its own.
    private static func row(_ left: String, _ right: String) -> String {
        let column = 28
        if TerminalText.width(left) + 2 >= column {
            return "  \(left)\n" + String(repeating: " ", count: column + 2) + right + "\n"
        }
        return "  " + TerminalText.padRight(left, column) + right + "\n"
    }
}
