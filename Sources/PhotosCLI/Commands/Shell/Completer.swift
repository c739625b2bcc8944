import Foundation
import PhotosCore
import PhotosImaging
import PhotosModel

/// The candidates for one word of a `photos` command line being typed: the command words the
/// registry knows, the options of the command (and the global ones), the values an option
/// takes, and photo, share, zone and tag names from the library. Reads the library only for
/// those names, read-only, and says nothing about errors (a shell is waiting).
struct Completer {
    /// What the candidates are: words to offer as they are, or a request for the shell's own
    /// file or folder completion.
    enum Kind: String {
        case words, files, dirs
    }

    /// The command line: the program name first.
    let words: [String]
    /// The index in `words` of the word being completed (`words.count` when it is a new word).
    let index: Int
    let context: CommandContext

    /// Option values that are one of a fixed set, by option name.
    static let optionValues: [String: [String]] = [
        "--permission": ["read-only", "read-write"],
        "--public-permission": ["none", "read-only", "read-write"],
        "--sidecar": ["xmp", "json", "none"],
        "--entity": HistoryEntity.allCases.map(\.rawValue),
        "--sort": PhotoQuery.Sort.allCases.map(\.rawValue),
        "--format": ImageFormat.allCases.map(\.rawValue),
        "--group": GalleryGrouping.allCases.map(\.rawValue),
        "--columns": ListCommand.Column.allCases.map(\.rawValue),
        "--until": Completer.relativeDates,
        "--before": Completer.relativeDates
    ]

    /// The relative dates offered for a DATE (`CaptureBound.resolvingRelative`, issue 32 item 7).
    static let relativeDates = ["today", "yesterday", "-7d", "-30d"]

    func complete() -> (kind: Kind, candidates: [String]) {
        let line = Array(words.prefix(index))
        var current = index < words.count ? words[index] : ""
        // bash splits `--opt=value` into `--opt`, `=`, `value`: read it back as one option.
        var optionBeforeEquals: String?
        if current == "=" {
            optionBeforeEquals = line.last
            current = ""
        } else if line.last == "=", line.count >= 2 {
            optionBeforeEquals = line[line.count - 2]
        }
        if let option = optionBeforeEquals {
            return values(forOption: option, prefix: current, in: line)
        }
        if current.hasPrefix("--"), let eq = current.firstIndex(of: "=") {
            let option = String(current[..<eq])
            let prefix = String(current[current.index(after: eq)...])
            let result = values(forOption: option, prefix: prefix, in: line)
            return (result.kind, result.candidates.map { option + "=" + $0 })
        }

        let (command, commandWords, positionals) = parse(Array(line.dropFirst()))
        let specs = (command?.options ?? []) + InformationRequest.globalSpecs
        if let previous = line.last, line.count > 1, let spec = specs.first(where: { $0.names.contains(previous) }),
            spec.value != nil
        {
            return values(forOption: spec.name, prefix: current, in: line)
        }
        if current.hasPrefix("-") { return (.words, matching(specs.map(\.name), current)) }
        let next = positionals == 0 ? nextCommandWords(commandWords) : []
        guard let command else {
            return (.words, matching(commandWords.isEmpty ? next + ["help"] : next, current))
        }
        // A positional: the argument it fills (the last one when it is variadic).
        let arguments = command.arguments
        let argument =
            positionals < arguments.count ? arguments[positionals] : arguments.last.flatMap { $0.variadic ? $0 : nil }
        guard let argument else { return (.words, matching(next, current)) }
        let result = values(forArgument: argument.name, of: command, prefix: current, in: line)
        return next.isEmpty ? result : (.words, matching(next, current) + result.candidates)
    }

    /// The command the words name (after global options), the command words seen (without a
    /// leading `help`), and how many positionals follow them.
    private func parse(_ tokens: [String]) -> (CommandDescriptor?, [String], Int) {
        let globals = InformationRequest.globalSpecs
        var commandWords: [String] = []
        var commandDone = false
        var help = false
        var positionals = 0
        var index = 0
        var afterDoubleDash = false
        while index < tokens.count {
            let token = tokens[index]
            index += 1
            if !afterDoubleDash && token == "--" {
                afterDoubleDash = true
                continue
            }
            if !afterDoubleDash && token.hasPrefix("-") && token.count > 1 {
                let own = commandDone ? (Registry.find(commandWords)?.0.options ?? []) : []
                if !token.contains("="), let spec = (own + globals).first(where: { $0.names.contains(token) }),
                    spec.value != nil
                {
                    index += 1 // its value
                }
                continue
            }
            if !commandDone {
                if commandWords.isEmpty && !help && token == "help" {
                    help = true
                    continue
                }
                let longer = commandWords + [token]
                if Registry.commands.contains(where: { Array($0.path.prefix(longer.count)) == longer }) {
                    commandWords = longer
                    continue
                }
                commandDone = true
            }
            positionals += 1
        }
        guard !help, let (command, consumed) = Registry.find(commandWords), consumed == commandWords.count else {
            return (nil, commandWords, positionals)
        }
        return (command, commandWords, positionals)
    }

    /// The words that may follow `commandWords` in a command's name (`tag` → add, delete, …).
    private func nextCommandWords(_ commandWords: [String]) -> [String] {
        var seen = Set<String>()
        return Registry.commands.compactMap { descriptor -> String? in
            let path = descriptor.path
            guard path.count > commandWords.count, Array(path.prefix(commandWords.count)) == commandWords else {
                return nil
            }
            return path[commandWords.count]
        }.filter { seen.insert($0).inserted }
    }

    private func values(forOption option: String, prefix: String, in line: [String]) -> (
        kind: Kind, candidates: [String]
    ) {
        if let fixed = Completer.optionValues[option] { return (.words, matching(fixed, prefix)) }
        switch option {
        case "--library", "--from": return (.dirs, [])
        case "--output", "-o": return (.files, [])
        case "--share": return (.words, matching(names(.shares, line), prefix))
        case "--zone": return (.words, matching(names(.zones, line), prefix))
        case "--tag": return (.words, matching(names(.tags, line), prefix))
        // `sync --since` takes a token; everywhere else --since takes a DATE.
        case "--since" where !line.contains("sync"): return (.words, matching(Completer.relativeDates, prefix))
        default: return (.words, [])
        }
    }

    private func values(forArgument name: String, of command: CommandDescriptor, prefix: String, in line: [String])
        -> (kind: Kind, candidates: [String])
    {
        switch name {
        case "photo": return (.words, matching(names(.photos, line), prefix))
        case "id" where command.path.first == "share": return (.words, matching(names(.shares, line), prefix))
        case "name" where command.path.first == "tag", "old" where command.path.first == "tag":
            return (.words, matching(names(.tags, line), prefix))
        case "path": return (.files, [])
        case "dest", "library", "destination": return (.dirs, [])
        case "shell": return (.words, matching(CompletionsCommand.Shell.allCases.map(\.rawValue), prefix))
        default: return (.words, [])
        }
    }

    private enum Names { case photos, shares, zones, tags }

    /// Names from the library the command line names (its `--library`, else the environment's),
    /// opened read-only; none when it cannot be opened.
    private func names(_ kind: Names, _ line: [String]) -> [String] {
        var explicit: String?
        for (i, word) in line.enumerated() {
            if word == "--library", i + 1 < line.count, line[i + 1] != "=" { explicit = line[i + 1] }
            if word == "--library", i + 2 < line.count, line[i + 1] == "=" { explicit = line[i + 2] }
            if word.hasPrefix("--library=") { explicit = String(word.dropFirst("--library=".count)) }
        }
        let path = Library.resolvePath(explicit: explicit ?? context.global.library, in: context.libraryEnvironment)
        guard CompositionRoot.libraryExists(at: path),
            let library = try? CompositionRoot.openLibrary(root: path, create: false, busyTimeout: 1, readOnly: true)
        else { return [] }
        switch kind {
        case .photos:
            var result: [String] = []
            try? library.forEachPhoto(matching: PhotoFilter()) { result.append($0.uniqueName) }
            return result
        case .shares:
            return (try? library.shares().map(\.id)) ?? []
        case .zones:
            return ["default"] + ((try? library.shares().map(\.id)) ?? [])
        case .tags:
            var seen = Set<String>()
            return ((try? library.tags().map(\.name)) ?? []).filter { seen.insert($0).inserted }
        }
    }

    /// The candidates that start with `prefix` (case-insensitively: ids are typed in either
    /// case), in their order.
    private func matching(_ candidates: [String], _ prefix: String) -> [String] {
        guard !prefix.isEmpty else { return candidates }
        let lower = prefix.lowercased()
        return candidates.filter { $0.lowercased().hasPrefix(lower) }
    }
}
