import Foundation

/// A command's options as a typed value: a declarative table binds each option and positional
/// to a field, decoding happens once, then `validate()` checks what involves more than one
/// field (swift-argument-parser's `ParsableArguments` + `validate()`, without property
/// wrappers).
protocol ParsableOptions: SendableMetatype {
    /// Every field at its default: what an absent option means.
    init()
    /// The options, in the order help lists them and decoding converts them.
    static var options: [Option<Self>] { get }
    /// The positionals, in order; only the last may be variadic.
    static var arguments: [Argument<Self>] { get }
    /// Checks that need more than one field, after every field is decoded.
    /// - Throws: `UsageError` (64), or an input error of the data (65).
    mutating func validate() throws
}

extension ParsableOptions {
    static var options: [Option<Self>] { [] }
    static var arguments: [Argument<Self>] { [] }
    mutating func validate() throws {}

    /// How many positionals are needed: a variadic argument takes at least one word.
    static var positionalCount: (min: Int, max: Int?) {
        let min = arguments.filter { !$0.spec.optional }.count
        return (min, arguments.contains(where: { $0.spec.variadic }) ? nil : arguments.count)
    }

    /// Decodes `parsed` (whose positional count was checked): the options in table order, then
    /// the positionals, then `validate()`.
    /// - Throws: `UsageError` for a value that does not convert, and what the conversions and
    ///   `validate()` throw.
    static func decode(_ parsed: ParsedArguments) throws -> Self {
        var result = Self()
        for option in options { try option.decode(&result, parsed.values(of: option.spec)) }
        var rest = parsed.positionals[...]
        for argument in arguments {
            let taken = argument.spec.variadic ? rest : rest.prefix(1)
            rest = rest.dropFirst(taken.count)
            try argument.decode(&result, Array(taken))
        }
        try result.validate()
        return result
    }
}

/// Converts an option's text to a typed value; `name` is the option's canonical spelling,
/// for the message.
struct ValueParser<Value> {
    let parse: (_ text: String, _ name: String) throws -> Value
}

extension ValueParser where Value == String {
    /// The text as it is.
    static var string: ValueParser { ValueParser { text, _ in text } }
}

extension ValueParser where Value == Int {
    /// A whole number within `range`.
    static func int(in range: ClosedRange<Int>) -> ValueParser {
        ValueParser { text, name in
            guard let v = Int(text), range.contains(v) else {
                throw UsageError(
                    "\(name) takes a whole number from \(range.lowerBound) to \(range.upperBound), not '\(text)'")
            }
            return v
        }
    }
}

extension ValueParser where Value == Int64 {
    /// A history token: a whole number ≥ 0.
    static var token: ValueParser {
        ValueParser { text, name in
            guard let token = Int64(text), token >= 0 else {
                throw UsageError("\(name) takes a token (a whole number ≥ 0), not '\(text)'")
            }
            return token
        }
    }
}

extension ValueParser where Value == Double {
    /// A number of seconds ≥ 0.
    static var seconds: ValueParser {
        ValueParser { text, name in
            guard let v = Double(text), v >= 0, v.isFinite else {
                throw UsageError("\(name) takes a number of seconds, not '\(text)'")
            }
            return v
        }
    }
}

/// One row of an option table: how the option is spelled and shown, and which field of
/// `Options` its value goes to.
struct Option<Options> {
    let spec: OptionSpec
    /// Stores the values given (none when absent) into the options.
    let decode: (inout Options, [String]) throws -> Void

    /// A flag: true when given.
    static func flag(_ field: WritableKeyPath<Options, Bool>, _ names: String..., help: String) -> Option {
        Option(spec: OptionSpec(names, help: help)) { options, values in
            if !values.isEmpty { options[keyPath: field] = true }
        }
    }

    /// An option with one value (the last one given), converted by `parser`.
    static func value<Value>(
        _ field: WritableKeyPath<Options, Value?>, _ names: String..., value placeholder: String, help: String,
        default defaultValue: String? = nil, parser: ValueParser<Value>
    ) -> Option {
        let spec = OptionSpec(names, value: placeholder, help: help, default: defaultValue)
        return Option(spec: spec) { options, values in
            if let text = values.last { options[keyPath: field] = try parser.parse(text, spec.name) }
        }
    }

    /// An option with one text value (the last one given).
    static func value(
        _ field: WritableKeyPath<Options, String?>, _ names: String..., value placeholder: String, help: String,
        default defaultValue: String? = nil
    ) -> Option {
        Option(spec: OptionSpec(names, value: placeholder, help: help, default: defaultValue)) { options, values in
            if let text = values.last { options[keyPath: field] = text }
        }
    }

    /// An option that must be given (the last value counts): "missing --output FILE" otherwise.
    static func required(
        _ field: WritableKeyPath<Options, String>, _ names: String..., value placeholder: String, help: String
    ) -> Option {
        let spec = OptionSpec(names, value: placeholder, help: help)
        return Option(spec: spec) { options, values in
            guard let text = values.last else { throw UsageError("missing \(spec.name) \(placeholder)") }
            options[keyPath: field] = text
        }
    }

    /// A repeatable option: every value given, in order.
    /// A repeatable option converted by `parser`, every occurrence kept in order.
    static func values<Value>(
        _ field: WritableKeyPath<Options, [Value]>, _ names: String..., value placeholder: String, help: String,
        parser: ValueParser<Value>
    ) -> Option {
        let spec = OptionSpec(names, value: placeholder, help: help, repeatable: true)
        return Option(spec: spec) { options, values in
            options[keyPath: field] = try values.map { try parser.parse($0, spec.name) }
        }
    }

    static func values(
        _ field: WritableKeyPath<Options, [String]>, _ names: String..., value placeholder: String, help: String
    ) -> Option {
        Option(spec: OptionSpec(names, value: placeholder, help: help, repeatable: true)) { options, values in
            options[keyPath: field] = values
        }
    }

    /// This option as a row of a larger table, decoding into the `part` field of `Outer`
    /// (option groups shared by commands, like the photo filter of `list` and `export`).
    func lifted<Outer>(_ part: WritableKeyPath<Outer, Options>) -> Option<Outer> {
        let decode = self.decode
        return Option<Outer>(spec: spec) { outer, values in try decode(&outer[keyPath: part], values) }
    }
}

/// One positional of a table: its help and the field its word(s) go to.
struct Argument<Options> {
    let spec: ArgumentSpec
    /// Stores the word(s) for this argument into the options.
    let decode: (inout Options, [String]) throws -> Void

    /// One word, converted by `parse` (which throws the usage or data error).
    static func one<Value>(
        _ field: WritableKeyPath<Options, Value>, _ name: String, help: String,
        parse: @escaping (String) throws -> Value
    ) -> Argument {
        Argument(spec: ArgumentSpec(name, help: help)) { options, words in
            if let word = words.first { options[keyPath: field] = try parse(word) }
        }
    }

    /// One word as it is.
    static func one(_ field: WritableKeyPath<Options, String>, _ name: String, help: String) -> Argument {
        one(field, name, help: help, parse: { $0 })
    }

    /// One or more words (the last argument).
    static func many(_ field: WritableKeyPath<Options, [String]>, _ name: String, help: String) -> Argument {
        Argument(spec: ArgumentSpec(name, help: help, variadic: true)) { options, words in
            options[keyPath: field] = words
        }
    }
}
