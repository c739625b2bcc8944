import Foundation
import PhotosCore

/// A subcommand as a type: its name and help, its typed options (decoded and validated once,
/// before `run`), and what it does (swift-argument-parser's `ParsableCommand`).
protocol Command: SendableMetatype {
    associatedtype Options: ParsableOptions
    /// Name and help.
    static var configuration: CommandConfiguration { get }
    /// Does the work, saying everything through `context.console`. Finishing without an error
    /// exits 0, or 1 when the console counted diagnostics.
    /// - Throws: what the library throws, `UsageError`; `ErrorReporting` words it.
    static func run(_ options: Options, _ context: CommandContext) throws
}

/// A command's name and help text.
struct CommandConfiguration {
    /// The words that name it: `["import"]`, `["tag", "add"]`.
    var path: [String]
    /// One line, for `OVERVIEW:` and the `SUBCOMMANDS:` list.
    var abstract: String
    /// Paragraphs after the overview.
    var discussion: String = ""
    /// Command lines shown under `EXAMPLES:`, one per line.
    var examples: [String] = []
}

/// A command with its type erased, as the registry, help and dispatch see it.
struct CommandDescriptor: Sendable {
    let configuration: CommandConfiguration
    let options: [OptionSpec]
    let arguments: [ArgumentSpec]
    let positionals: (min: Int, max: Int?)
    /// Decodes the arguments (whose count was checked) and runs the command.
    let execute: @Sendable (ParsedArguments, CommandContext) throws -> Void

    init<C: Command>(_ command: C.Type) {
        configuration = C.configuration
        options = C.Options.options.map(\.spec)
        arguments = C.Options.arguments.map(\.spec)
        positionals = C.Options.positionalCount
        execute = { parsed, context in try C.run(try C.Options.decode(parsed), context) }
    }

    var path: [String] { configuration.path }
    var name: String { path.joined(separator: " ") }
}

/// Options of a command that takes none.
struct NoOptions: ParsableOptions {}
