import Foundation
import PhotosCore
import PhotosFiles
import PhotosImaging

/// The `photos` command line: global options, dispatch to the registry's commands, help, and
/// the exit status.
public enum CLI {
    /// The version `--version` prints.
    public static let version = "0.1.0"

    /// Runs `photos` with `arguments` (without the program name) and returns the exit status.
    public static func main(arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment)
        -> Int32
    {
        run(arguments: arguments, environment: environment, output: .standard(environment: environment)).rawValue
    }

    static func run(arguments: [String], environment: [String: String], output: OutputStreams) -> ExitStatus {
        let console = Console(streams: output)
        // --json anywhere before `--`: a failure is then a JSON object on stderr too.
        let json = arguments.prefix(while: { $0 != "--" }).contains("--json")
        do {
            return try dispatch(arguments, environment: environment, console: console)
        } catch let failure as CommandLineFailure {
            return report(failure, console: console, json: json)
        } catch {
            return .software
        }
    }

    /// An error on the way to a command's result, with the command it concerns (nil before one
    /// was found) and the library it was working on.
    private struct CommandLineFailure: Error {
        var error: Error
        var command: CommandDescriptor?
        var libraryPath = ""
    }

    private static func dispatch(_ arguments: [String], environment: [String: String], console: Console) throws
        -> ExitStatus
    {
        let width = TerminalText.columns(environment: environment)
        // 1. Global options before the command name, then the command's words.
        let globalSpecs = InformationRequest.globalSpecs
        var index = 0
        var leadingTokens: [String] = []
        while index < arguments.count, arguments[index].hasPrefix("-"), arguments[index] != "--" {
            leadingTokens.append(arguments[index])
            let name = arguments[index].split(separator: "=", maxSplits: 1).first.map(String.init) ?? ""
            if let spec = globalSpecs.first(where: { $0.names.contains(name) }), spec.value != nil,
                !arguments[index].contains("=")
            {
                index += 1
                if index < arguments.count { leadingTokens.append(arguments[index]) }
            }
            index += 1
        }
        var words = Array(arguments[min(index, arguments.count)...])
        let leading: ParsedArguments
        do { leading = try parseArguments(leadingTokens, options: globalSpecs) } catch {
            throw CommandLineFailure(error: error)
        }
        let leadingRequest = try InformationRequest.decode(leading)
        if leadingRequest.version {
            return printVersion(console, json: (try? GlobalOptions.decode(leading))?.json ?? false)
        }

        if words.first == "help" {
            words.removeFirst()
            if words.isEmpty { console.printText(Help.main(width: width)); return .ok }
            guard let (command, _) = Registry.find(words) else {
                // `photos help tag`: the family's usage, as `photos tag` and `photos tag --help`.
                if words.count == 1, !Registry.family(words[0]).isEmpty {
                    console.printText(Help.family(words[0], width: width))
                    return .ok
                }
                let typed = words.joined(separator: " ")
                throw CommandLineFailure(
                    error: UsageError(
                        "unknown command '\(typed)'"
                            + Suggestions.didYouMean(typed, among: Registry.commands.map(\.name))))
            }
            console.printText(Help.command(command, width: width))
            return .ok
        }
        guard let first = words.first else {
            if leadingRequest.help { console.printText(Help.main(width: width)); return .ok }
            console.usageError("missing command", command: nil, usage: "\n" + Help.main(width: width))
            return .usage
        }
        guard let (command, consumed) = Registry.find(words) else {
            guard !Registry.family(first).isEmpty else {
                let firstWords = Registry.commands.map { $0.path[0] }
                throw CommandLineFailure(
                    error: UsageError("unknown command '\(first)'" + Suggestions.didYouMean(first, among: firstWords)))
            }
            guard words.count == 1 || words.dropFirst().first?.hasPrefix("-") == true else {
                // `photos tag bogus`: the error, then the family's usage (issue 32 item 8).
                let typed = "\(first) \(words[1])"
                let message =
                    "unknown subcommand '\(typed)'"
                    + Suggestions.didYouMean(typed, among: Registry.family(first).map(\.name))
                console.usageError(message, command: nil, usage: "\n" + Help.family(first, width: width))
                return .usage
            }
            if leadingRequest.help || words.contains("--help") || words.contains("-h") {
                console.printText(Help.family(first, width: width))
                return .ok
            }
            console.usageError(
                "'\(first)' needs a subcommand", command: nil, usage: "\n" + Help.family(first, width: width))
            return .usage
        }

        // 2. The command's options, with the global ones it does not shadow.
        var libraryPath = ""
        do {
            let own = Set(command.options.flatMap(\.names))
            let parsed = try parseArguments(
                Array(words[consumed...]), options: command.options + globalSpecs.filter { !shadowed($0, by: own) })
            let globals = mergedGlobals(leading: leading, trailing: parsed, specs: globalSpecs, own: own)
            let request = try InformationRequest.decode(globals)
            if request.help { console.printText(Help.command(command, width: width)); return .ok }
            if request.version { return printVersion(console, json: try GlobalOptions.decode(globals).json) }
            var global = try GlobalOptions.decode(globals)
            if global.owner == nil, let owner = try GlobalOptions.environmentOwner(environment) {
                (global.owner, global.ownerFromEnvironment) = (owner, true)
            }
            if global.author == nil, let author = GlobalOptions.environmentAuthor(environment) {
                try GlobalOptions.checkAuthor(author, source: "$PHOTOS_AUTHOR")
            }
            console.quiet = global.quiet
            let context = CommandContext(global: global, environment: environment, console: console)
            libraryPath = context.libraryPath
            let count = parsed.positionals.count
            if count < command.positionals.min {
                let missing = command.arguments.filter { !$0.optional }.dropFirst(count).first
                throw UsageError("missing argument <\(missing?.name ?? "argument")>")
            }
            if let max = command.positionals.max, count > max {
                throw UsageError("unexpected argument '\(parsed.positionals[max])'")
            }
            // verify checks for the signal between its repair steps and hash chunks: a plain
            // (--quick) verify only reads, and keeps the default action.
            if stopsAtBatchBoundaries.contains(command.name),
                command.name != "verify" || words.contains("--repair")
            {
                StopSignal.install()
            }
            try command.execute(parsed, context)
            return console.status
        } catch {
            throw CommandLineFailure(error: error, command: command, libraryPath: libraryPath)
        }
    }

    /// The long commands that stop at their next batch boundary on SIGINT, SIGTERM or SIGHUP,
    /// clean up and exit 130, 143 or 129 (`StopSignal`, issue 31 item 19); the others keep the
    /// signals' default action (they commit in one transaction, or only read; so does
    /// `verify` without `--repair`).
    static let stopsAtBatchBoundaries: Set<String> = [
        "import", "export", "merge", "sync", "share accept", "backup", "restore", "thumbnails", "verify", "purge"
    ]

    /// True when `spec` is a global option the command has an option of the same name for.
    private static func shadowed(_ spec: OptionSpec, by own: Set<String>) -> Bool {
        spec.names.contains(where: own.contains)
    }

    /// The global options in effect: one given after the command name wins over the same
    /// option before it, unless the command has its own option of that name; then only the
    /// spelling before the command name is the global one (SPEC §5).
    private static func mergedGlobals(
        leading: ParsedArguments, trailing: ParsedArguments, specs: [OptionSpec], own: Set<String>
    ) -> ParsedArguments {
        var merged = ParsedArguments()
        for spec in specs {
            let before = leading.values(of: spec)
            let after = shadowed(spec, by: own) ? [] : trailing.values(of: spec)
            let values = spec.value == nil ? before + after : (after.isEmpty ? before : after)
            if !values.isEmpty { merged.values[spec.name] = values }
        }
        return merged
    }

    /// `photos --version`: the version, then one `  name version` line per linked C library
    /// (`LinkedLibraries`), then `JPEG decoders: on|off (why)` (`ImageLibraries.jpegClone`); with
    /// `--json`, one object `{"version", "libraries": {name: version}, "jpegDecoders": "on (…)"}`.
    private static func printVersion(_ console: Console, json: Bool = false) -> ExitStatus {
        let libraries = LinkedLibraries.versions
        if json {
            console.printJSON(
                .object([
                    ("version", .string(version)),
                    ("libraries", .object(libraries.map { ($0.name, JSONValue.string($0.version)) })),
                    ("jpegDecoders", .string(ImageLibraries.jpegClone.reason))
                ]))
            return .ok
        }
        console.print("photos \(version)")
        let width = libraries.map(\.name.count).max() ?? 0
        for library in libraries {
            console.print("  " + TerminalText.padRight(library.name, width + 1) + library.version)
        }
        console.print("JPEG decoders: " + ImageLibraries.jpegClone.reason)
        return .ok
    }

    /// Prints what stopped the run and returns its exit status: every error as
    /// `photos CMD: error: message` (`photos: error:` when no command was recognised), a
    /// usage error followed by the usage line.
    private static func report(_ failure: CommandLineFailure, console: Console, json: Bool) -> ExitStatus {
        let report = ErrorReporting.report(for: failure.error, libraryPath: failure.libraryPath)
        if json {
            // Under --json a failing command says why as one JSON object on stderr (stdout
            // keeps only data): {"error":{"message":"…","exitStatus":66,"command":"list"}}.
            var fields: [(String, JSONValue)] = [
                ("message", .string(report.message)), ("exitStatus", .int(Int(report.status.rawValue)))
            ]
            if let command = failure.command { fields.append(("command", .string(command.name))) }
            console.errorText(JSONValue.object([("error", .object(fields))]).serialized() + "\n")
        } else if report.isUsage {
            console.usageError(
                report.message, command: failure.command?.name, usage: Help.usageReminder(failure.command))
        } else if let command = failure.command {
            console.commandError(command: command.name, report.message)
        }
        return report.status
    }
}
