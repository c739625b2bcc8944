import Foundation

/// How one option is spelled and shown in help.
struct OptionSpec {
    /// Spellings, long first: `["--output", "-o"]`.
    var names: [String]
    /// The value's placeholder (`PATH`), or nil for a flag.
    var value: String?
    /// One line of help.
    var help: String
    /// Shown as `(default: x)`.
    var defaultValue: String?
    /// May be given more than once.
    var repeatable: Bool
    /// Must be given: shown in the usage line and as `(required)`.
    var required: Bool

    init(
        _ names: [String], value: String? = nil, help: String, default defaultValue: String? = nil,
        repeatable: Bool = false, required: Bool = false
    ) {
        self.names = names
        self.value = value
        self.help = help
        self.defaultValue = defaultValue
        self.repeatable = repeatable
        self.required = required
    }

    /// The canonical spelling: the first (long) name, `--output`.
    var name: String { names[0] }
}

/// One positional argument, as help shows it.
struct ArgumentSpec {
    var name: String
    var help: String
    /// Takes one or more words (only the last argument).
    var variadic: Bool
    var optional: Bool

    init(_ name: String, help: String, variadic: Bool = false, optional: Bool = false) {
        self.name = name
        self.help = help
        self.variadic = variadic
        self.optional = optional
    }
}

/// The words given to one command, sorted into options and positionals but not yet decoded.
/// Only the option tables read it (`OptionTable.swift`); commands get typed options.
struct ParsedArguments {
    /// Values by canonical option name; a flag maps to `[""]` per occurrence.
    var values: [String: [String]] = [:]
    var positionals: [String] = []

    /// The values given for `spec` (empty when it was not given).
    func values(of spec: OptionSpec) -> [String] { values[spec.name] ?? [] }
    /// True when `spec` was given.
    func contains(_ spec: OptionSpec) -> Bool { values[spec.name] != nil }
}

/// Sorts `tokens` by `options`: `--opt v`, `--opt=v`, `-o v`, `-ov` (a short option's value
/// attached), flags, `--` (the rest are
/// positionals), and positionals anywhere.
/// - Throws: `UsageError` for an unknown option, a missing value, a value given to a flag, or a
///   non-repeatable option given twice with different values.
func parseArguments(_ tokens: [String], options: [OptionSpec]) throws -> ParsedArguments {
    var tokens = tokens
    var result = ParsedArguments()
    var index = 0
    while index < tokens.count {
        let token = tokens[index]
        index += 1
        if token == "--" {
            result.positionals += tokens[index...]
            break
        }
        guard token.hasPrefix("-"), token.count > 1 else {
            result.positionals.append(token)
            continue
        }
        var name = token
        var inline: String?
        if token.hasPrefix("--"), let eq = token.firstIndex(of: "=") {
            name = String(token[..<eq])
            inline = String(token[token.index(after: eq)...])
        } else if !token.hasPrefix("--"), token.count > 2, !options.contains(where: { $0.names.contains(token) }) {
            // `-n1`: a short option that takes a value, with the value attached (POSIX.1-2017
            // XBD §12.1 Utility Argument Syntax guideline 6 allows it; getopt and
            // swift-argument-parser accept it). A short flag keeps its error below.
            let short = String(token.prefix(2))
            if options.contains(where: { $0.names.contains(short) && $0.value != nil }) {
                name = short
                inline = String(token.dropFirst(2))
            } else if let cluster = shortFlagCluster(token, options: options) {
                // `-qj`: short flags combined (guideline 5), the last one may take a value from
                // the next token (`-qn 5`), as getopt reads them.
                tokens.replaceSubrange((index - 1)..<index, with: cluster)
                index -= 1
                continue
            }
        }
        guard let option = options.first(where: { $0.names.contains(name) }) else {
            let known = options.flatMap(\.names).filter { $0.hasPrefix("--") }
            throw UsageError(
                "unknown option '\(name)'" + (name.hasPrefix("--") ? Suggestions.didYouMean(name, among: known) : ""))
        }
        let value: String
        if let placeholder = option.value {
            if let inline {
                value = inline
            } else {
                guard index < tokens.count else {
                    throw UsageError("missing value for option '\(name)' (\(placeholder))")
                }
                value = tokens[index]
                index += 1
            }
        } else {
            if inline != nil { throw UsageError("option '\(name)' is a flag and takes no value") }
            value = ""
        }
        if !option.repeatable, option.value != nil, let earlier = result.values[option.name], earlier != [value] {
            throw UsageError("option '\(name)' was given more than once")
        }
        result.values[option.name, default: []].append(value)
    }
    return result
}

/// `-abc` as `-a`, `-b`, `-c` when each letter is a short option of `options` and every one
/// but the last is a flag (POSIX.1-2017 XBD §12.2 guideline 5); nil otherwise.
private func shortFlagCluster(_ token: String, options: [OptionSpec]) -> [String]? {
    let letters = token.dropFirst().map { "-\($0)" }
    guard letters.count >= 2 else { return nil }
    for (i, letter) in letters.enumerated() {
        guard let spec = options.first(where: { $0.names.contains(letter) }) else { return nil }
        if spec.value != nil && i != letters.count - 1 { return nil }
    }
    return letters
}
