import Foundation
import PhotosCore

/// `photos history consumers [--remove NAME]`.
enum HistoryConsumersCommand: Command {
    static let configuration = CommandConfiguration(
        path: ["history", "consumers"],
        abstract: "List history consumers and the last token each processed.")

    struct Options: ParsableOptions {
        var remove: String?
        static var options: [Option<Options>] {
            [
                .value(
                    \.remove, "--remove", value: "NAME",
                    help: "Unregister a consumer, so it no longer holds compaction back.")
            ]
        }
    }

    static func run(_ options: Options, _ ctx: CommandContext) throws {
        let library = try ctx.openLibraryForReading(options.remove == nil)
        if let name = options.remove {
            guard try library.removeConsumer(name) else { throw MaintenanceError.consumerNotFound(name) }
            ctx.console.note("removed consumer \(name)")
            return
        }
        let consumers = try library.historyConsumers()
        if ctx.global.json {
            for consumer in consumers {
                ctx.console.printJSON(.object([("name", .string(consumer.name)), ("token", .int(Int(consumer.token)))]))
            }
            return
        }
        // A header like the other listings; NAME as wide as the longest name (display width).
        let width = max(4, consumers.map { TerminalText.width(TerminalText.printable($0.name)) }.max() ?? 0)
        if !ctx.global.quiet { ctx.console.print(TerminalText.padRight("NAME", width) + "  TOKEN") }
        for consumer in consumers {
            ctx.console.print(
                TerminalText.padRight(TerminalText.printable(consumer.name), width) + "  \(consumer.token)")
        }
    }
}
