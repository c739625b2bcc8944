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
            --tree shows the names split at '/' as a tree, each level once with the photos of its
            own tag (- for a level no tag has) and the photos of it and every tag beneath it, each
            photo counted once; with --json, one {"zone","path","name","depth","photoCount",
            "totalCount"} per node, photoCount null for a level without a tag.
            """)

    struct Options: ParsableOptions {
        var zone: String?
        var match: String?
        var tree = false

        static var options: [Option<Options>] {
            [
                TagArguments.zone(\.zone),
                .value(
                    \.match, "--match", value: "TEXT", help: "Only names containing TEXT, ignoring case and diacritics."
                ),
                .flag(
                    \.tree, "--tree", help: "Show the tags as a tree split at '/', with counts with the tags beneath.")
            ]
        }
    }

    static func run(_ options: Options, _ ctx: CommandContext) throws {
        let library = try ctx.openLibraryForReading()
        if options.tree { return try printTree(options, library, ctx) }
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

    /// `--tree`: `PHOTOS  TOTAL  NAME` rows, the name indented two spaces per level, a `zone`
    /// line before each zone's nodes when the library's tags are in more than one zone.
    /// --match keeps the nodes whose whole path contains the text, and their ancestors.
    private static func printTree(_ options: Options, _ library: Library, _ ctx: CommandContext) throws {
        var nodes = try library.tagTree(zone: options.zone.map(ZoneID.init(rawValue:)))
        if let match = options.match {
            let kept = nodes.filter { TagName.matches($0.path, match) }
            nodes = nodes.filter { node in
                kept.contains { $0.zone == node.zone && TagName.isInBranch($0.path, node.path) }
            }
        }
        if ctx.global.json {
            for node in nodes { ctx.console.printJSON(node.json) }
            return
        }
        let t = TerminalText.self
        let zones = Set(nodes.map(\.zone)).count
        if !ctx.global.quiet { ctx.console.print("\(t.padLeft("PHOTOS", 6))  \(t.padLeft("TOTAL", 6))  NAME") }
        var zone: String? = nil
        for node in nodes {
            if zones > 1, node.zone != zone { ctx.console.print("zone \(node.zone)") }
            zone = node.zone
            let indent = String(repeating: "  ", count: node.depth + (zones > 1 ? 1 : 0))
            ctx.console.print(
                "\(t.padLeft(node.photoCount.map(String.init) ?? "-", 6))  \(t.padLeft(String(node.totalCount), 6))  \(indent)\(t.printable(node.name))"
            )
        }
    }

    private static func row(_ name: String, _ count: String, _ zone: String, _ uuid: String) -> String {
        let t = TerminalText.self
        return "\(t.padRight(name, 24)) \(t.padLeft(count, 6))  \(t.padRight(zone, 36))  \(uuid)"
    }
}
