import Foundation
import PhotosCore

/// `photos tag list [--zone ID] [--match TEXT]`.
enum TagListCommand: Command {
    static let configuration = CommandConfiguration(
        path: ["tag", "list"],
        abstract: "List tags with their zone and number of photos.",
        discussion: """
            Tags are per record zone: the default zone and each share have their own. --match keeps
            the names that contain TEXT, ignoring case and diacritics (the seed's CONTAINS[cd]:
            'cafe' matches 'Café'). With --json, one {"uuid","name","zone","photoCount"} per line.
            """)

    struct Options: ParsableOptions {
        var zone: String?
        var match: String?

        static var options: [Option<Options>] {
            [
                TagArguments.zone(\.zone),
                .value(
                    \.match, "--match", value: "TEXT", help: "Only names containing TEXT, ignoring case and diacritics."
                )
            ]
        }
    }

    static func run(_ options: Options, _ ctx: CommandContext) throws {
        let library = try ctx.openLibraryForReading()
        let tags = try library.tags(zone: options.zone.map(ZoneID.init(rawValue:)), matching: options.match)
        if ctx.global.json {
            for tag in tags { ctx.console.printJSON(tag.json) }
            return
        }
        if !ctx.global.quiet { ctx.console.print(row("NAME", "PHOTOS", "ZONE", "UUID")) }
        for tag in tags {
            ctx.console.print(row(TerminalText.printable(tag.name), String(tag.photoCount), tag.zone, tag.uuid))
        }
    }

    private static func row(_ name: String, _ count: String, _ zone: String, _ uuid: String) -> String {
        let t = TerminalText.self
        return "\(t.padRight(name, 24)) \(t.padLeft(count, 6))  \(t.padRight(zone, 36))  \(uuid)"
    }
}
