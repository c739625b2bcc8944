import Foundation
import PhotosCore

/// `photos share create|add|list|show|invite|uninvite|set` (SPEC §5).
enum ShareCommands {
    static let shareArgument = ArgumentSpec("id", help: "A share id, or an unambiguous prefix of at least 4 characters.")
    static let photosArgument = ArgumentSpec("photo", help: "uniqueNames or unambiguous prefixes of at least 4 characters.", variadic: true)
    static let moveOption = OptionSpec(["--move"], help: "Also move photos that are already in another share.")

    static let create = CommandSpec(
        path: ["share", "create"],
        abstract: "Share photos: a new share zone, with the photos moved in.",
        discussion: """
        Creates a share, its own record zone with a fresh random UUID as id, and moves the photos
        into it with their originals, thumbnails and ratings. Each of their tags is replaced by
        the same-named tag of the new zone; the old tag stays with the photos that remain. The
        default title is 'Share-' and the creation date and time in UTC. An owner participant
        (role owner, read-write, accepted) is recorded for --owner or $PHOTOS_OWNER. A photo
        already in another share is refused (exit 65) unless --move. Prints the new share.
        """,
        arguments: [photosArgument],
        options: [
            OptionSpec(["--title"], value: "TITLE", help: "The share's title.", default: "Share-YYYY-MM-DD HH:MM:SS (UTC)"),
            OptionSpec(["--owner"], value: "EMAIL", help: "Record this owner as a participant.", default: "$PHOTOS_OWNER, else none"),
            moveOption,
        ],
        positionals: (1, nil),
        run: { args, ctx in
            let title = try args.value("title").map(ShareTitle.init(parsing:))
            let ownerText = args.value("owner") ?? ctx.environment["PHOTOS_OWNER"].flatMap { $0.isEmpty ? nil : $0 }
            let owner = try ownerText.map(Email.init(parsing:))
            let library = try ctx.openLibrary()
            let photos = try args.positionals.map(library.resolvePhoto)
            let share = try library.createShare(photos: photos, title: title, owner: owner, allowMove: args.flag("move"), author: ctx.historyAuthor)
            if ctx.json { ctx.printJSON(share.json) }
            else if !ctx.quiet { ctx.print("Created share \(share.id) '\(printable(share.title))' with \(plural(share.photoCount, "photo"))") }
            return .ok
        })

    static let add = CommandSpec(
        path: ["share", "add"],
        abstract: "Move photos into an existing share.",
        discussion: """
        Moves the photos into the share's zone the way 'share create' does, then merges the
        zone's same-named tags: the tag with the smallest uuid wins, the photos of the others are
        re-pointed to it and the others are deleted. A photo already in another share is refused
        (exit 65) unless --move.
        """,
        arguments: [shareArgument, photosArgument],
        options: [moveOption],
        positionals: (2, nil),
        run: { args, ctx in
            let library = try ctx.openLibrary()
            let share = try library.resolveShare(args.positionals[0])
            let photos = try args.positionals.dropFirst().map(library.resolvePhoto)
            let result = try library.addToShare(share, photos: photos, allowMove: args.flag("move"), author: ctx.historyAuthor)
            if ctx.json {
                ctx.printJSON(.object([("share", .string(share.id)), ("moved", .int(result.moved)), ("mergedTags", .int(result.mergedTags))]))
            } else if !ctx.quiet {
                var line = "Moved \(plural(result.moved, "photo")) into share \(share.id)"
                if result.mergedTags > 0 { line += "; merged \(plural(result.mergedTags, "duplicate tag"))" }
                ctx.print(line)
            }
            return .ok
        })

    static let list = CommandSpec(
        path: ["share", "list"],
        abstract: "List shares: id, photos, participants, public permission, title.",
        discussion: #"With --json, one {"id","title","scope","publicPermission","photoCount","participants"} per line."#,
        run: { _, ctx in
            let library = try ctx.openLibraryForReading()
            let shares = try library.shares()
            if ctx.json {
                for share in shares { ctx.printJSON(share.json) }
                return .ok
            }
            func pad(_ s: String, _ n: Int) -> String { s.count >= n ? s : s + String(repeating: " ", count: n - s.count) }
            if !ctx.quiet { ctx.print("\(pad("ID", 36))  \(pad("PHOTOS", 6))  \(pad("PEOPLE", 6))  \(pad("PUBLIC", 10))  TITLE") }
            for s in shares {
                ctx.print("\(pad(s.id, 36))  \(pad(String(s.photoCount), 6))  \(pad(String(s.participants.count), 6))  \(pad(s.publicPermission, 10))  \(printable(s.title))")
            }
            return .ok
        })

    static let show = CommandSpec(
        path: ["share", "show"],
        abstract: "Show a share: title, permission, participants and photos.",
        discussion: #"With --json, the share object of 'share list' with "created" and "photos" (uniqueNames) added."#,
        arguments: [shareArgument],
        positionals: (1, 1),
        run: { args, ctx in
            let library = try ctx.openLibraryForReading()
            let share = try library.resolveShare(args.positionals[0])
            var filter = PhotoFilter()
            filter.zone = share.id
            var photos: [PhotoRecord] = []
            try library.forEachPhoto(matching: filter) { photos.append($0) }
            if ctx.json {
                guard case .object(var pairs) = share.json else { return .software }
                pairs.append(("created", .string(share.created)))
                pairs.append(("photos", .array(photos.map { .string($0.uniqueName) })))
                ctx.printJSON(.object(pairs))
                return .ok
            }
            let lines: [(String, String)] = [
                ("id", share.id), ("title", printable(share.title)), ("created", share.created), ("scope", share.scope),
                ("public", share.publicPermission), ("photos", String(share.photoCount)),
            ]
            for (key, value) in lines { ctx.print((key + ":").padding(toLength: 13, withPad: " ", startingAt: 0) + value) }
            ctx.print("participants:" + (share.participants.isEmpty ? " -" : ""))
            for p in share.participants { ctx.print("  \(p.email) (\(p.role), \(p.permission), \(p.acceptance))") }
            if !photos.isEmpty { ctx.print("photos:") }
            for p in photos { ctx.print("  \(p.uniqueName)  \(printable(p.displayName))") }
            return .ok
        })

    static let invite = CommandSpec(
        path: ["share", "invite"],
        abstract: "Invite someone to a share by e-mail.",
        discussion: "The address is checked (one @, a name and a domain, no spaces) and stored lower-cased; the participant gets role private-user and acceptance pending. Inviting the same address again changes nothing (or only its permission).",
        arguments: [shareArgument, ArgumentSpec("email", help: "The participant's e-mail address.")],
        options: [OptionSpec(["--permission"], value: "PERMISSION", help: "read-only or read-write.", default: "read-only")],
        positionals: (2, 2),
        run: { args, ctx in
            let permission = try args.value("permission").map { text in try parseOption("--permission", text) { try SharePermission(parsing: $0, allowNone: false) } } ?? .readOnly
            let email = try Email(parsing: args.positionals[1])
            let library = try ctx.openLibrary()
            let share = try library.resolveShare(args.positionals[0])
            let changed = try library.invite(email, to: share, permission: permission, author: ctx.historyAuthor)
            if ctx.json {
                ctx.printJSON(.object([("share", .string(share.id)), ("email", .string(email.rawValue)), ("permission", .string(permission.rawValue)), ("changed", .bool(changed))]))
            } else if !ctx.quiet {
                ctx.print(changed ? "Invited \(email) to share \(share.id) (\(permission.rawValue))" : "\(email) is already invited to share \(share.id) (\(permission.rawValue)); nothing changed")
            }
            return .ok
        })

    static let uninvite = CommandSpec(
        path: ["share", "uninvite"],
        abstract: "Remove a participant from a share.",
        discussion: "Exit 66 when the address is not a participant; the owner cannot be removed.",
        arguments: [shareArgument, ArgumentSpec("email", help: "The participant's e-mail address.")],
        positionals: (2, 2),
        run: { args, ctx in
            let email = try Email(parsing: args.positionals[1])
            let library = try ctx.openLibrary()
            let share = try library.resolveShare(args.positionals[0])
            try library.uninvite(email, from: share, author: ctx.historyAuthor)
            if ctx.json { ctx.printJSON(.object([("share", .string(share.id)), ("email", .string(email.rawValue)), ("removed", .bool(true))])) }
            else if !ctx.quiet { ctx.print("Removed \(email) from share \(share.id)") }
            return .ok
        })

    static let set = CommandSpec(
        path: ["share", "set"],
        abstract: "Change a share's title or public permission.",
        arguments: [shareArgument],
        options: [
            OptionSpec(["--title"], value: "TITLE", help: "The new title."),
            OptionSpec(["--public-permission"], value: "PERMISSION", help: "none, read-only or read-write: what anyone with the link may do."),
        ],
        positionals: (1, 1),
        run: { args, ctx in
            let title = try args.value("title").map(ShareTitle.init(parsing:))
            let permission = try args.value("public-permission").map { text in try parseOption("--public-permission", text) { try SharePermission(parsing: $0, allowNone: true) } }
            guard title != nil || permission != nil else { throw PhotosError.usage("give --title or --public-permission") }
            let library = try ctx.openLibrary()
            let share = try library.resolveShare(args.positionals[0])
            let changed = try library.updateShare(share, title: title, publicPermission: permission, author: ctx.historyAuthor)
            let now = try library.share(id: share.id)
            if ctx.json { ctx.printJSON(now.json) }
            else if !ctx.quiet {
                ctx.print(changed ? "Updated share \(now.id): title '\(printable(now.title))', public permission \(now.publicPermission)"
                                  : "Share \(now.id) already has these settings; nothing changed")
            }
            return .ok
        })
}
