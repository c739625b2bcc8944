import Foundation
import PhotosCore

/// The `photos` command line: global options, the command registry, help and dispatch.
public enum CLI {
    /// The version `--version` prints.
    public static let version = "0.1.0"

    /// Options every command accepts, before or after its name (SPEC §5). A command's own
    /// option of the same name shadows these.
    static let globalOptions: [OptionSpec] = [
        OptionSpec(["--library"], value: "PATH", help: "The library folder.", default: "$PHOTOS_LIBRARY, else $XDG_DATA_HOME/photos/Library"),
        OptionSpec(["--json"], help: "Print data as JSON (one object, or JSON Lines for listings)."),
        OptionSpec(["--quiet", "-q"], help: "Print nothing on success; problems still go to stderr."),
        OptionSpec(["--author"], value: "NAME", help: "Author recorded in history for this run's changes.", default: "$PHOTOS_AUTHOR, else photos"),
        OptionSpec(["--wait"], value: "SECONDS", help: "How long to wait for another process's lock on the library.", default: "30"),
        OptionSpec(["--help", "-h"], help: "Show help information."),
        OptionSpec(["--version"], help: "Show the version."),
    ]

    /// Every command, in the order help lists them.
    static let commands: [CommandSpec] = [
        InitCommand.spec, SchemaCommand.spec, ImportCommand.spec, ListCommand.spec, ShowCommand.spec,
        ThumbnailCommand.spec, DeleteCommand.spec, VerifyCommand.spec,
        TagCommands.list, TagCommands.add, TagCommands.remove, TagCommands.delete, TagCommands.rename,
        RatingCommands.rate, RatingCommands.list, RatingCommands.delete,
        ShareCommands.create, ShareCommands.add, ShareCommands.list, ShareCommands.show,
        ShareCommands.invite, ShareCommands.uninvite, ShareCommands.set,
        ExportCommand.spec,
        DedupeTagsCommand.spec, PurgeCommand.spec, HistoryCommand.spec, HistoryConsumersCommand.spec,
        HistoryCompactCommand.spec, MergeCommand.spec, StatsCommand.spec,
    ]

    /// Runs `photos` with `arguments` (without the program name) and returns the exit status.
    public static func main(arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment) -> Int32 {
        let output = OutputStreams.standard(environment: environment)
        return run(arguments: arguments, environment: environment, output: output).rawValue
    }

    static func run(arguments: [String], environment: [String: String], output: OutputStreams) -> ExitStatus {
        let context = CommandContext(environment: environment, output: output)
        // 1. Global options before the command name, then the command's words.
        var index = 0
        var leading: [String] = []
        while index < arguments.count, arguments[index].hasPrefix("-"), arguments[index] != "--" {
            leading.append(arguments[index])
            let name = arguments[index].split(separator: "=", maxSplits: 1).first.map(String.init) ?? ""
            if let spec = globalOptions.first(where: { $0.names.contains(name) }), spec.value != nil, !arguments[index].contains("=") {
                index += 1
                if index < arguments.count { leading.append(arguments[index]) }
            }
            index += 1
        }
        let rest = Array(arguments[min(index, arguments.count)...])
        let leadingParsed: ParsedArguments
        do {
            leadingParsed = try parseArguments(leading, options: globalOptions)
        } catch let e as PhotosError {
            return usageError(e.message, command: nil, output: output)
        } catch {
            return .software
        }
        if leadingParsed.flag("version") { output.out("photos \(version)\n"); return .ok }

        var words = rest
        if words.first == "help" {
            words.removeFirst()
            if words.isEmpty { output.out(mainHelp()); return .ok }
            guard let command = findCommand(words)?.0 else {
                return usageError("unknown command '\(words.joined(separator: " "))'", command: nil, output: output)
            }
            output.out(help(for: command))
            return .ok
        }
        guard let first = words.first else {
            if leadingParsed.flag("help") { output.out(mainHelp()); return .ok }
            output.err("Error: missing command\n\n" + mainHelp())
            return .usage
        }
        guard let (command, consumed) = findCommand(words) else {
            let group = commands.filter { $0.path.first == first }
            if !group.isEmpty {
                if words.count == 1 || words.dropFirst().first?.hasPrefix("-") == true {
                    if leadingParsed.flag("help") || words.contains("--help") || words.contains("-h") {
                        output.out(groupHelp(first)); return .ok
                    }
                    output.err("Error: '\(first)' needs a subcommand\n\n" + groupHelp(first))
                    return .usage
                }
                return usageError("unknown subcommand '\(first) \(words[1])'", command: nil, output: output)
            }
            return usageError("unknown command '\(first)'", command: nil, output: output)
        }
        // 2. The command's options, with the global ones it does not shadow.
        let own = command.options
        let shadowed = Set(own.flatMap(\.names))
        let merged = own + globalOptions.filter { $0.names.allSatisfy { !shadowed.contains($0) } }
        let parsed: ParsedArguments
        do {
            parsed = try parseArguments(Array(words[consumed...]), options: merged)
        } catch let e as PhotosError {
            return usageError(e.message, command: command, output: output)
        } catch {
            return .software
        }
        // A global option counts wherever it stands, unless the command has its own option of
        // that name: then only the spelling before the command name is the global one (SPEC §5).
        func owns(_ key: String) -> Bool { own.contains(where: { $0.key == key }) }
        func global(_ key: String) -> String? {
            owns(key) ? leadingParsed.value(key) : parsed.value(key) ?? leadingParsed.value(key)
        }
        func globalFlag(_ key: String) -> Bool {
            leadingParsed.flag(key) || (!owns(key) && parsed.flag(key))
        }
        if globalFlag("help") { output.out(help(for: command)); return .ok }
        if globalFlag("version") { output.out("photos \(version)\n"); return .ok }

        context.libraryOption = global("library")
        if let library = context.libraryOption, library.isEmpty {
            // An empty value (an unset shell variable) must not fall back to the default library.
            return usageError("--library needs a path, not an empty string", command: command, output: output)
        }
        context.json = globalFlag("json")
        context.quiet = globalFlag("quiet")
        if let author = global("author") {
            guard !author.trimmingCharacters(in: .whitespaces).isEmpty else {
                return usageError("--author needs a non-empty name", command: command, output: output)
            }
            guard !author.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                return usageError("--author must not contain control characters (newlines, escapes): \(JSONValue.string(author).serialized())", command: command, output: output)
            }
            context.author = author
            context.authorGiven = true
        } else if context.author.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            // History authors are printed by `photos history`: no newlines or escapes in them.
            return usageError("$PHOTOS_AUTHOR must not contain control characters (newlines, escapes): \(JSONValue.string(context.author).serialized())", command: command, output: output)
        }
        if let wait = global("wait") {
            guard let seconds = Double(wait), seconds >= 0, seconds.isFinite else {
                return usageError("--wait takes a number of seconds, not '\(wait)'", command: command, output: output)
            }
            context.wait = seconds
        }
        let count = parsed.positionals.count
        if count < command.positionals.min {
            let missing = command.arguments.dropFirst(count).first?.name ?? "argument"
            return usageError("missing \(missing)", command: command, output: output)
        }
        if let max = command.positionals.max, count > max {
            return usageError("unexpected argument '\(parsed.positionals[max])'", command: command, output: output)
        }
        do {
            return try command.run(parsed, context)
        } catch let e as PhotosError {
            if e.status == .usage { return usageError(e.message, command: command, output: output) }
            output.err("photos \(command.name): \(output.colored("error:", code: "31")) \(escapingControlCharacters(e.message))\n")
            return e.status
        } catch {
            let e = PhotosError.wrap(error, libraryPath: context.libraryPath)
            output.err("photos \(command.name): \(output.colored("error:", code: "31")) \(escapingControlCharacters(e.message))\n")
            return e.status
        }
    }

    /// The command named by the leading words of `words`, and how many words name it.
    static func findCommand(_ words: [String]) -> (CommandSpec, Int)? {
        var best: (CommandSpec, Int)?
        for command in commands where words.count >= command.path.count && Array(words.prefix(command.path.count)) == command.path {
            if best == nil || command.path.count > best!.1 { best = (command, command.path.count) }
        }
        return best
    }

    static func usageError(_ message: String, command: CommandSpec?, output: OutputStreams) -> ExitStatus {
        var text = "Error: \(escapingControlCharacters(message))\n"
        if let command {
            text += "Usage: \(usageLine(command))\n  See 'photos \(command.name) --help' for more information.\n"
        } else {
            text += "Usage: photos <subcommand> [options]\n  See 'photos --help' for more information.\n"
        }
        output.err(text)
        return .usage
    }
}
