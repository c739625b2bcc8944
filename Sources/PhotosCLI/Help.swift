import Foundation

extension CLI {
    static func usageLine(_ command: CommandSpec) -> String {
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

    static func optionLines(_ options: [OptionSpec]) -> String {
        var lines = ""
        for option in options {
            var left = option.names.sorted { $0.count < $1.count }.joined(separator: ", ")
            if let value = option.value { left += " <\(value.lowercased())>" }
            var right = option.help
            if let def = option.defaultValue { right += " (default: \(def))" }
            if option.repeatable { right += " (repeatable)" }
            lines += formatRow(left, right)
        }
        return lines
    }

    static func formatRow(_ left: String, _ right: String) -> String {
        let pad = 28
        if left.count + 2 >= pad {
            return "  \(left)\n" + String(repeating: " ", count: pad + 2) + right + "\n"
        }
        return "  " + left + String(repeating: " ", count: pad - left.count) + right + "\n"
    }

    /// Help for one command, in swift-argument-parser's layout.
    static func help(for command: CommandSpec) -> String {
        var text = "OVERVIEW: \(command.abstract)\n"
        if !command.discussion.isEmpty { text += "\n\(command.discussion)\n" }
        text += "\nUSAGE: \(usageLine(command))\n"
        if !command.arguments.isEmpty {
            text += "\nARGUMENTS:\n"
            for arg in command.arguments { text += formatRow("<\(arg.name)>", arg.help) }
        }
        text += "\nOPTIONS:\n" + optionLines(command.options)
        let shadowed = Set(command.options.flatMap(\.names))
        text += "\nGLOBAL OPTIONS:\n" + optionLines(globalOptions.filter { $0.names.allSatisfy { !shadowed.contains($0) } })
        return text
    }

    static func mainHelp() -> String {
        var text = """
        OVERVIEW: Keep a photo library in SQLite: import folders of JPEG and PNG with 120-pixel
        thumbnails, list, show, export and maintain it — by hand and from cron.

        USAGE: photos [<global options>] <subcommand> [<options>] [<arguments>]

        """
        text += "\nOPTIONS:\n" + optionLines(globalOptions)
        text += "\nSUBCOMMANDS:\n"
        for command in commands { text += formatRow(command.name, command.abstract) }
        text += "\n  See 'photos help <subcommand>' for detailed help.\n"
        return text
    }

    static func groupHelp(_ group: String) -> String {
        var text = "USAGE: photos \(group) <subcommand>\n\nSUBCOMMANDS:\n"
        for command in commands where command.path.first == group { text += formatRow(command.name, command.abstract) }
        text += "\n  See 'photos help \(group) <subcommand>' for detailed help.\n"
        return text
    }
}
