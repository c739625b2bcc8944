import Foundation
import PhotosCore

/// `photos tag list|add|remove|delete|rename` (SPEC §5).
enum TagCommands {
    static let zoneOption = OptionSpec(["--zone"], value: "ID", help: "Only tags of this record zone (default, or a share's id).", default: "every zone")

    static let list = CommandSpec(
        path: ["tag", "list"],
        abstract: "List tags with their zone and number of photos.",
        discussion: """
        Tags are per record zone: the default zone and each share have their own. --match keeps
        the names that contain TEXT, ignoring case and diacritics (the seed's CONTAINS[cd]:
        'cafe' matches 'Café'). With --json, one {"uuid","name","zone","photoCount"} per line.
        """,
        options: [
            zoneOption,
            OptionSpec(["--match"], value: "TEXT", help: "Only names containing TEXT, ignoring case and diacritics."),
        ],
        run: { args, ctx in
            let library = try ctx.openLibraryForReading()
            let tags = try library.tags(zone: args.value("zone"), matching: args.value("match"))
            if ctx.json {
                for tag in tags { ctx.printJSON(tag.json) }
                return .ok
            }
            if !ctx.quiet { ctx.print(row("NAME", "PHOTOS", "ZONE", "UUID")) }
            for tag in tags { ctx.print(row(printable(tag.name), String(tag.photoCount), tag.zone, tag.uuid)) }
            return .ok
        })

    static let add = CommandSpec(
        path: ["tag", "add"],
        abstract: "Add a tag to photos.",
        discussion: """
        The name is trimmed and stored NFC-normalized; an empty name or one with control
        characters is refused (exit 65). Each photo gets the same-named tag of its own zone,
        created with a fresh random UUID when the zone has none. A photo that already has the tag
        is left unchanged. Every photo is resolved first: if one is unknown or ambiguous, nothing
        changes.
        """,
        arguments: [ArgumentSpec("name", help: "The tag name."),
                    ArgumentSpec("photo", help: "uniqueNames or unambiguous prefixes of at least 4 characters.", variadic: true)],
        positionals: (2, nil),
        run: { args, ctx in
            let name = try TagName.normalize(args.positionals[0])
            let library = try ctx.openLibrary()
            let photos = try args.positionals.dropFirst().map(library.resolvePhoto)
            let added = try library.addTag(name, to: photos, author: ctx.historyAuthor)
            if ctx.json { ctx.printJSON(.object([("tag", .string(name)), ("added", .int(added))])) }
            else if !ctx.quiet { ctx.print("Tagged \(plural(added, "photo")) with '\(printable(name))'") }
            return .ok
        })

    static let remove = CommandSpec(
        path: ["tag", "remove"],
        abstract: "Remove a tag from photos (the tag itself stays).",
        discussion: "Removes every tag of that name in each photo's zone from the photo. Exit 66 when no tag of that name exists in the photos' zones.",
        arguments: [ArgumentSpec("name", help: "The tag name."),
                    ArgumentSpec("photo", help: "uniqueNames or unambiguous prefixes of at least 4 characters.", variadic: true)],
        positionals: (2, nil),
        run: { args, ctx in
            let name = try TagName.normalize(args.positionals[0])
            let library = try ctx.openLibrary()
            let photos = try args.positionals.dropFirst().map(library.resolvePhoto)
            let removed = try library.removeTag(name, from: photos, author: ctx.historyAuthor)
            if ctx.json { ctx.printJSON(.object([("tag", .string(name)), ("removed", .int(removed))])) }
            else if !ctx.quiet { ctx.print("Removed '\(printable(name))' from \(plural(removed, "photo"))") }
            return .ok
        })

    static let delete = CommandSpec(
        path: ["tag", "delete"],
        abstract: "Delete a tag; its photos stay.",
        discussion: "Deletes every tag of that name in the zone given by --zone, or in every zone. The photos keep everything else (delete rule nullify). History keeps a tombstone with the name and uuid. Exit 66 when there is no such tag.",
        arguments: [ArgumentSpec("name", help: "The tag name.")],
        options: [zoneOption],
        positionals: (1, 1),
        run: { args, ctx in
            let library = try ctx.openLibrary()
            let deleted = try library.deleteTag(args.positionals[0], zone: args.value("zone"), author: ctx.historyAuthor)
            if ctx.json {
                ctx.printJSON(.object([("deleted", .int(deleted.count)),
                                       ("tags", .array(deleted.map { .object([("uuid", .string($0.uuid)), ("name", .string($0.name)), ("zone", .string($0.zone))]) }))]))
            } else if !ctx.quiet {
                let zones = Set(deleted.map(\.zone)).sorted().joined(separator: ", ")
                ctx.print("Deleted \(plural(deleted.count, "tag")) named '\(printable(deleted.first?.name ?? ""))' (zone \(zones))")
            }
            return .ok
        })

    static let rename = CommandSpec(
        path: ["tag", "rename"],
        abstract: "Rename a tag (merging it into an existing tag of the new name).",
        discussion: """
        Renames the tags named OLD in the zone given by --zone, or in every zone. Where a zone
        already has a tag named NEW, OLD is merged into it: its photos get the existing tag and
        OLD is deleted, so a rename never makes duplicate tags. Exit 66 when there is no tag OLD.
        """,
        arguments: [ArgumentSpec("old", help: "The current name."), ArgumentSpec("new", help: "The new name.")],
        options: [zoneOption],
        positionals: (2, 2),
        run: { args, ctx in
            let old = try TagName.normalize(args.positionals[0])
            let new = try TagName.normalize(args.positionals[1])
            let library = try ctx.openLibrary()
            let count = try library.renameTag(old, to: new, zone: args.value("zone"), author: ctx.historyAuthor)
            if ctx.json { ctx.printJSON(.object([("from", .string(old)), ("to", .string(new)), ("renamed", .int(count))])) }
            else if !ctx.quiet { ctx.print("Renamed \(plural(count, "tag")) '\(printable(old))' to '\(printable(new))'") }
            return .ok
        })

    static func row(_ name: String, _ count: String, _ zone: String, _ uuid: String) -> String {
        func pad(_ s: String, _ n: Int) -> String { s.count >= n ? s : s + String(repeating: " ", count: n - s.count) }
        func lpad(_ s: String, _ n: Int) -> String { s.count >= n ? s : String(repeating: " ", count: n - s.count) + s }
        return "\(pad(name, 24)) \(lpad(count, 6))  \(pad(zone, 36))  \(uuid)"
    }
}

/// `n thing` or `n things`.
func plural(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }

/// Text with control characters replaced by `?`, safe to print on a terminal.
func printable(_ text: String) -> String {
    String(String.UnicodeScalarView(text.unicodeScalars.map { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) ? "?" : $0 }))
}
