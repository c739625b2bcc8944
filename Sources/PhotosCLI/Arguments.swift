import Foundation
import PhotosCore

/// One option a command accepts.
public struct OptionSpec {
    /// Spellings, long first: `["--output", "-o"]`.
    public var names: [String]
    /// The value's placeholder (`PATH`), or nil for a flag.
    public var value: String?
    /// One line of help.
    public var help: String
    /// Shown as `(default: x)`.
    public var defaultValue: String?
    /// May be given more than once.
    public var repeatable: Bool

    public init(_ names: [String], value: String? = nil, help: String, default defaultValue: String? = nil, repeatable: Bool = false) {
        self.names = names
        self.value = value
        self.help = help
        self.defaultValue = defaultValue
        self.repeatable = repeatable
    }

    /// The canonical name: the first long spelling without dashes.
    public var key: String { String(names[0].drop(while: { $0 == "-" })) }
}

/// One positional argument in help.
public struct ArgumentSpec {
    public var name: String
    public var help: String
    public var variadic: Bool
    public var optional: Bool

    public init(_ name: String, help: String, variadic: Bool = false, optional: Bool = false) {
        self.name = name
        self.help = help
        self.variadic = variadic
        self.optional = optional
    }
}

/// The options and positionals given to one command.
public struct ParsedArguments {
    /// Values by option key; flags map to `[""]` per occurrence.
    public var values: [String: [String]] = [:]
    public var positionals: [String] = []

    /// True when the flag was given.
    public func flag(_ key: String) -> Bool { values[key] != nil }
    /// The last value of an option.
    public func value(_ key: String) -> String? { values[key]?.last }
    /// Every value of a repeatable option.
    public func all(_ key: String) -> [String] { values[key] ?? [] }

    /// An integer option within `range`.
    /// - Throws: `PhotosError` 64 naming the option when it is not an integer in `range`.
    public func int(_ key: String, in range: ClosedRange<Int>) throws -> Int? {
        guard let text = value(key) else { return nil }
        guard let v = Int(text), range.contains(v) else {
            throw PhotosError.usage("--\(key) takes a whole number from \(range.lowerBound) to \(range.upperBound), not '\(text)'")
        }
        return v
    }

    /// A number of seconds (≥ 0) option.
    /// - Throws: `PhotosError` 64 when it is not a non-negative number.
    public func seconds(_ key: String) throws -> Double? {
        guard let text = value(key) else { return nil }
        guard let v = Double(text), v >= 0, v.isFinite else {
            throw PhotosError.usage("--\(key) takes a number of seconds, not '\(text)'")
        }
        return v
    }
}

/// Parses `tokens` against `options`: `--opt v`, `--opt=v`, `-o v`, flags, `--` (the rest are
/// positionals), and positionals anywhere.
/// - Throws: `PhotosError` 64 for an unknown option, a missing value, a value given to a flag,
///   or a non-repeatable option given twice.
func parseArguments(_ tokens: [String], options: [OptionSpec]) throws -> ParsedArguments {
    var result = ParsedArguments()
    var index = 0
    func spec(for name: String) -> OptionSpec? { options.first { $0.names.contains(name) } }
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
        }
        guard let option = spec(for: name) else {
            throw PhotosError.usage("unknown option '\(name)'")
        }
        let value: String
        if option.value != nil {
            if let inline {
                value = inline
            } else {
                guard index < tokens.count else { throw PhotosError.usage("option '\(name)' needs a value (\(option.value ?? "VALUE"))") }
                value = tokens[index]
                index += 1
            }
        } else {
            if inline != nil { throw PhotosError.usage("option '\(name)' is a flag and takes no value") }
            value = ""
        }
        if !option.repeatable, option.value != nil, result.values[option.key] != nil, result.values[option.key] != [value] {
            throw PhotosError.usage("option '\(name)' was given more than once")
        }
        result.values[option.key, default: []].append(value)
    }
    return result
}
