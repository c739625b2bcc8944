import Foundation
import PhotosCore

extension ValueParser where Value == Email {
    /// An e-mail address, checked and lower-cased (`Email(parsing:)`); a refusal names the option.
    static var email: ValueParser {
        ValueParser { text, name in try parseOption(name, text) { try Email(parsing: $0) } }
    }
}

/// `photos share export SHARE [--for EMAIL] -o CHANGESET`.
enum ShareExportCommand: Command {
    static let configuration = CommandConfiguration(
        path: ["share", "export"],
        abstract: "Write a share's changeset for a participant, or a participant's back to the owner.",
        discussion: """
            The owner names the participant with --for: the first changeset holds the whole zone,
            later ones what changed after the participant's last acknowledged token. A participant
            writes its own changes back (its acceptance or leave always; edits only with
            read-write permission). The other side applies it with 'share accept' (the first
            time) or 'sync --apply'.
            """)

    struct Options: ParsableOptions {
        var share = ""
        var email: Email?
        var output = ""
        var sshCommand: String?
        var remotePhotos: String?
        static var options: [Option<Options>] {
            [
                .value(\.email, "--for", value: "EMAIL", help: "The participant (owner's side).", parser: .email),
                .required(\.output, "-o", "--output", value: "CHANGESET", help: "The changeset folder to write."),
                RemoteOptions.sshCommand(\.sshCommand), RemoteOptions.remotePhotos(\.remotePhotos)
            ]
        }

        mutating func validate() throws { _ = try RemoteAddress.parse(output) }
        static var arguments: [Argument<Options>] { [ShareArguments.share(\.share)] }
    }

    static func run(_ options: Options, _ ctx: CommandContext) throws {
        let library = try ctx.openLibrary()
        let share = try library.resolveSharedZone(options.share)
        let report = try ctx.writingChangeset(
            to: options.output, root: library.root, sshCommand: options.sshCommand, remotePhotos: options.remotePhotos
        ) { path in
            try ctx.console.withProgress("exporting") { bar in
                try library.exportShare(
                    share, for: options.email, to: path,
                    progress: { done, total, bytes in bar.update(done: done, total: total, bytes: bytes) })
            }
        }
        if let token = report.unservedToken {
            ctx.console.note(
                "token \(token) is beyond this library's newest change token \(report.toToken) (restored from a backup?): the changeset holds every change of the share"
            )
        }
        if ctx.global.json {
            ctx.console.printJSON(report.json)
        } else if !ctx.global.quiet {
            ctx.console.print(
                "Wrote changeset \(options.output) of share \(share.id): tokens \(report.fromToken + 1)…\(report.toToken), \(TerminalText.plural(report.objects, "object")), \(TerminalText.plural(report.deletes, "delete")), \(TerminalText.plural(report.originals, "original")), \(TerminalText.bytes(Int64(report.bytes)))"
            )
        }
    }
}

/// `photos share accept CHANGESET`.
enum ShareAcceptCommand: Command {
    static let configuration = CommandConfiguration(
        path: ["share", "accept"],
        abstract: "Accept a share: apply the owner's changeset into a zone of scope shared.",
        discussion: """
            The zone comes in with the owner's title, participants and permissions; this library
            becomes the participant the changeset is for and marks itself accepted (its next
            'share export' tells the owner). With read-only permission every write to the zone
            exits 77. On a terminal, an accept that would delete objects here (a share accepted
            before, whose changeset now deletes photos, ratings or tags) asks first, naming them
            (--yes skips the question; never asked when not on a terminal); --dry-run (on an
            existing library) checks and applies the changeset, rolls it back and prints the counts.
            """)

    struct Options: ParsableOptions {
        var path = ""
        var dryRun = false
        var yes = false
        var sshCommand: String?
        var remotePhotos: String?
        static var options: [Option<Options>] {
            [
                Confirmation.dryRun(\.dryRun), Confirmation.yes(\.yes), RemoteOptions.sshCommand(\.sshCommand),
                RemoteOptions.remotePhotos(\.remotePhotos)
            ]
        }
        static var arguments: [Argument<Options>] {
            [.one(\.path, "changeset", help: "The owner's changeset folder (or host:path, ssh://host/path).")]
        }

        mutating func validate() throws { _ = try RemoteAddress.parse(path) }
    }

    static func run(_ options: Options, _ ctx: CommandContext) throws {
        let library = try options.dryRun ? ctx.openLibrary(dryRun: true) : ctx.openOrCreateLibrary()
        let (path, cleanup) = try ctx.localChangeset(
            options.path, root: library.root, sshCommand: options.sshCommand, remotePhotos: options.remotePhotos)
        defer { cleanup() }
        let report = try ctx.confirmingDestruction(
            library, yes: options.yes, dryRun: options.dryRun,
            question: { (preview: ApplyReport) in
                ("Accept share \(preview.changeset.scope): \(SyncCommand.deletions(preview))?", preview.deleted)
            },
            run: {
                try ctx.console.withProgress(options.dryRun ? "checking" : "accepting") { bar in
                    try library.acceptShare(
                        at: path, author: ctx.historyAuthor,
                        progress: { done, total, bytes in bar.update(done: done, total: total, bytes: bytes) })
                }
            })
        noteMergedPhotos(report, ctx)
        if ctx.global.json {
            ctx.console.printJSON(SyncCommand.json(report, dryRun: options.dryRun))
        } else if !ctx.global.quiet {
            ctx.console.print(
                "\(options.dryRun ? "Would accept" : "Accepted") share \(report.changeset.scope) from library \(report.changeset.sender): \(report.inserted) inserted, \(report.updated) updated, \(report.deleted) deleted, \(report.originalsCopied) originals copied"
            )
        }
    }
}

/// `photos share leave SHARE`.
enum ShareLeaveCommand: Command {
    static let configuration = CommandConfiguration(
        path: ["share", "leave"],
        abstract: "Remove me: leave a share shared with this library and delete its zone here.",
        discussion:
            "The next 'share export' of the share tells the owner, who then shows the participant as removed. On a terminal it asks first, naming the photos, ratings and tags it deletes here (--yes skips the question; never asked when not on a terminal); --dry-run prints what would be deleted and changes nothing."
    )

    struct Options: ParsableOptions {
        var share = ""
        var dryRun = false
        var yes = false
        static var options: [Option<Options>] { [Confirmation.dryRun(\.dryRun), Confirmation.yes(\.yes)] }
        static var arguments: [Argument<Options>] { [ShareArguments.share(\.share)] }
    }

    static func run(_ options: Options, _ ctx: CommandContext) throws {
        let library = try ctx.openLibrary(dryRun: options.dryRun)
        let share = try library.resolveSharedZone(options.share)
        let report = try ctx.confirmingDestruction(
            library, yes: options.yes, dryRun: options.dryRun,
            question: { (preview: PurgeReport) in
                (
                    "Leave share \(share.id) and delete \(PurgeCommand.counts(preview)) here, with their original files?",
                    max(1, preview.photos + preview.ratings + preview.tags)
                )
            },
            run: { try library.leaveShare(share, author: ctx.historyAuthor) })
        if ctx.global.json {
            ctx.console.printJSON(
                .object([
                    ("share", .string(share.id)), ("photos", .int(report.photos)), ("ratings", .int(report.ratings)),
                    ("tags", .int(report.tags)), ("filesRemoved", .int(report.filesRemoved)),
                    ("dryRun", .bool(options.dryRun))
                ]))
        } else if !ctx.global.quiet {
            ctx.console.print(
                options.dryRun
                    ? "Would leave share \(share.id); would delete \(PurgeCommand.counts(report)) here"
                    : "Left share \(share.id); deleted its \(report.photos) photos here")
        }
    }
}

/// `photos share stop SHARE`.
enum ShareStopCommand: Command {
    static let configuration = CommandConfiguration(
        path: ["share", "stop"],
        abstract: "Stop sharing: move the share's photos back to the default zone, then purge the share.",
        discussion:
            "Participants' next apply of the share's changeset removes the zone from their libraries. On a terminal it asks first, naming the photos moved back and the participants removed (--yes skips the question; never asked when not on a terminal); --dry-run prints what would change and changes nothing."
    )

    struct Options: ParsableOptions {
        var share = ""
        var dryRun = false
        var yes = false
        static var options: [Option<Options>] { [Confirmation.dryRun(\.dryRun), Confirmation.yes(\.yes)] }
        static var arguments: [Argument<Options>] { [ShareArguments.share(\.share)] }
    }

    static func run(_ options: Options, _ ctx: CommandContext) throws {
        let library = try ctx.openLibrary(dryRun: options.dryRun)
        let share = try library.resolveSharedZone(options.share)
        let (moved, purge) = try ctx.confirmingDestruction(
            library, yes: options.yes, dryRun: options.dryRun,
            question: { (preview: (moved: Int, purge: PurgeReport)) in
                (
                    "Stop sharing \(share.id): move \(TerminalText.plural(preview.moved, "photo")) back to the default zone and remove the share with \(TerminalText.plural(preview.purge.participants, "participant"))?",
                    max(1, preview.purge.participants + preview.purge.shares)
                )
            },
            run: { try library.stopShare(share, author: ctx.historyAuthor) })
        if ctx.global.json {
            ctx.console.printJSON(
                .object([
                    ("share", .string(share.id)), ("movedPhotos", .int(moved)),
                    ("participants", .int(purge.participants)), ("dryRun", .bool(options.dryRun))
                ]))
        } else if !ctx.global.quiet {
            ctx.console.print(
                options.dryRun
                    ? "Would stop sharing \(share.id); would move \(moved) photos back to the default zone and remove \(TerminalText.plural(purge.participants, "participant"))"
                    : "Stopped sharing \(share.id); moved \(moved) photos back to the default zone")
        }
    }
}
