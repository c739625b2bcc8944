import Foundation
import PhotosCore

/// `photos tag add NAME PHOTO...`.
enum TagAddCommand: Command {
    static let configuration = CommandConfiguration(
        path: ["tag", "add"],
        abstract: "Add a tag to photos.",
        discussion: """
            The name is trimmed and stored NFC-normalized; an empty name or one with control
            characters is refused (exit 64). The name finds tags as --tag does, ignoring case and
            diacritics: each photo gets the tag of its own zone that the name finds ('cafe' adds
            the existing 'Café', and says so on stderr), created with a fresh random UUID when the
            zone has none. With --new a tag spelled as given is created beside one that only
            differs by case or accents (said on stderr too). When the name finds several tags of
            one zone ('Café' and 'cafe'), nothing changes and the tags are listed (exit 65). A
            photo that already has the tag is left unchanged. Every photo is resolved first: if
            one is unknown or ambiguous, nothing changes.
            """,
        examples: [
            "photos tag add Beach 3f2a 9b1c",
            "photos list --untagged --json | jq -r .uniqueName | photos tag add inbox -"
        ])

    struct Options: ParsableOptions {
        var name = TagName(rawValue: "")
        var photos: [String] = []
        var new = false
        static var options: [Option<Options>] {
            [
                .flag(
                    \.new, "--new",
                    help: "Create a tag spelled as given where the zone's tag differs only by case or accents.")
            ]
        }
        static var arguments: [Argument<Options>] {
            [TagArguments.name(\.name), .many(\.photos, "photo", help: PhotoArguments.many)]
        }
    }

    static func run(_ options: Options, _ ctx: CommandContext) throws {
        let library = try ctx.openLibrary()
        let photos = try ctx.resolvePhotos(options.photos, in: library)
        let report = try library.addTagReporting(
            options.name, to: photos, author: ctx.historyAuthor, createNew: options.new)
        let added = report.added
        let typed = TerminalText.printable(options.name.rawValue)
        if !report.existing.isEmpty {
            let names = report.existing.map { "'\(TerminalText.printable($0))'" }.joined(separator: ", ")
            ctx.console.note(
                "'\(typed)' is the existing tag \(names) (case and accents are ignored; --new creates '\(typed)')")
        }
        if !report.createdBeside.isEmpty {
            let names = report.createdBeside.map { "'\(TerminalText.printable($0))'" }.joined(separator: ", ")
            ctx.console.note("created the tag '\(typed)' beside \(names) (--new)")
        }
        if ctx.global.json {
            ctx.console.printJSON(.object([("tag", .string(options.name.rawValue)), ("added", .int(added))]))
        } else if !ctx.global.quiet {
            ctx.console.print(
                "Tagged \(TerminalText.plural(added, "photo")) with '\(TerminalText.printable(options.name.rawValue))'")
        }
    }
}
