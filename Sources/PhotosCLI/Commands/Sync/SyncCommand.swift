import Foundation
import PhotosCore

/// `photos sync (--from LIBRARY | --export CHANGESET [--since-peer ID | --since TOKEN] | --apply CHANGESET)`.
enum SyncCommand: Command {
    static let configuration = CommandConfiguration(
        path: ["sync"],
        abstract: "Replicate changes between libraries of one owner through changesets.",
        discussion: """
            --export writes a changeset folder holding every change of this library after a token
            (rows by uuid with their values and stamps, tombstones for deletes, the originals of
            its photos, this library's id and the token range); --since-peer ID starts after what
            library ID last acknowledged. --apply checks a changeset completely, then applies it
            in one transaction: per attribute the later history timestamp wins (ties: the larger
            library id), a delete wins over every update, duplicate tags are merged afterwards
            (dedupe-tags). A changeset that starts after the last token applied from its sender
            is refused (65) naming the missing range; applying one twice changes nothing.
            --from LIBRARY does both at once, pulling what is new in LIBRARY. --inbox DIR takes a
            shared folder that 'share publish' writes into (a mailbox): it applies, in token order,
            every changeset file there addressed to this library and not applied yet (files not
            whole yet, as a sync tool leaves them while copying, and files for others are left
            alone), then publishes this library's own changesets back into DIR (--no-publish:
            not), and with --prune removes the files it applied; safe to run from cron on every
            machine at once; it never asks. On a terminal, an
            apply or pull that would delete objects here asks first, naming them (--yes skips the
            question; never asked when not on a terminal); with --apply or --from, --dry-run checks
            and applies everything, rolls it back and prints the counts.
            """)

    struct Options: ParsableOptions {
        var from: String?
        var export: String?
        var apply: String?
        var inbox: String?
        var noPublish = false
        var prune = false
        var sincePeer: String?
        var since: Int64?
        var dryRun = false
        var yes = false
        var sshCommand: String?
        var remotePhotos: String?

        static var options: [Option<Options>] {
            [
                .value(\.from, "--from", value: "LIBRARY", help: "Pull and apply what is new in another library."),
                .value(\.export, "--export", value: "CHANGESET", help: "Write a changeset folder."),
                .value(
                    \.sincePeer, "--since-peer", value: "ID", help: "With --export: after what library ID acknowledged."
                ),
                .value(
                    \.since, "--since", value: "TOKEN", help: "With --export: after this change token.", parser: .token),
                .value(\.apply, "--apply", value: "CHANGESET", help: "Check and apply a changeset folder."),
                .value(
                    \.inbox, "--inbox", value: "DIR",
                    help: "Apply the changesets for this library in a shared folder, then publish its own there."),
                .flag(\.noPublish, "--no-publish", help: "With --inbox: do not write this library's changesets."),
                .flag(\.prune, "--prune", help: "With --inbox: remove the files applied here."),
                Confirmation.dryRun(\.dryRun, help: "With --apply or --from: print the counts; change nothing."),
                Confirmation.yes(\.yes),
                RemoteOptions.sshCommand(\.sshCommand),
                RemoteOptions.remotePhotos(\.remotePhotos)
            ]
        }

        mutating func validate() throws {
            let modes = [from, export, apply].compactMap { $0 }
            guard modes.count + (inbox == nil ? 0 : 1) == 1 else {
                throw UsageError("give exactly one of --from, --export, --apply, --inbox")
            }
            if inbox == nil && (noPublish || prune) { throw UsageError("--no-publish and --prune go with --inbox") }
            if inbox != nil && dryRun { throw UsageError("--dry-run goes with --apply or --from") }
            if export == nil && (sincePeer != nil || since != nil) {
                throw UsageError("--since-peer and --since go with --export")
            }
            if sincePeer != nil && since != nil { throw UsageError("give --since-peer or --since, not both") }
            if export != nil && dryRun { throw UsageError("--dry-run goes with --apply or --from") }
            for argument in modes { _ = try RemoteAddress.parse(argument) }
        }
    }

    static func run(_ options: Options, _ ctx: CommandContext) throws {
        let library = try ctx.openLibrary(dryRun: options.dryRun)
        if let inbox = options.inbox {
            try runInbox(Library.resolvePath(explicit: inbox, in: ctx.libraryEnvironment), library, options, ctx)
            return
        }
        let absolute = { (path: String) in Library.resolvePath(explicit: path, in: ctx.libraryEnvironment) }
        if let path = options.export {
            var since = options.since ?? 0
            if let peer = options.sincePeer { since = try library.acknowledgedToken(peer: peer) }
            let report = try ctx.writingChangeset(
                to: path, root: library.root, sshCommand: options.sshCommand, remotePhotos: options.remotePhotos
            ) { target in
                try ctx.console.withProgress("exporting") { bar in
                    try library.exportChangeset(
                        to: target, since: since,
                        progress: { done, total, bytes in bar.update(done: done, total: total, bytes: bytes) })
                }
            }
            if let token = report.unservedToken {
                ctx.console.note(
                    "token \(token) is beyond this library's newest change token \(report.toToken) (restored from a backup?): the changeset holds every change"
                )
            }
            if ctx.global.json {
                ctx.console.printJSON(report.json)
            } else if !ctx.global.quiet {
                ctx.console.print(
                    "Wrote changeset \(path): tokens \(report.fromToken + 1)…\(report.toToken) of library \(report.sender), \(TerminalText.plural(report.objects, "object")), \(TerminalText.plural(report.deletes, "delete")), \(TerminalText.plural(report.originals, "original")), \(TerminalText.bytes(Int64(report.bytes)))"
                )
            }
            return
        }
        let apply: () throws -> ApplyReport
        var cleanup: () -> Void = {}
        defer { cleanup() }
        if let remote = try options.from.flatMap(RemoteAddress.parse) {
            // The far library's changeset, received whole and checked before anything is applied.
            let temp = SSHSession.temporaryFolder(in: library.root)
            cleanup = { try? FileManager.default.removeItem(atPath: temp) }
            try library.requireOriginalsRoot()
            try SSHSession.pull(
                remote, into: temp, databaseName: CompositionRoot.changesets.fileName, ownID: try library.libraryID(),
                appliedToken: { try library.appliedToken(sender: $0) }, sshCommand: options.sshCommand,
                remotePhotos: options.remotePhotos, environment: ctx.environment)
            apply = {
                try ctx.console.withProgress(options.dryRun ? "checking" : "applying") { bar in
                    try library.applyChangeset(
                        at: temp, author: ctx.historyAuthor,
                        progress: { done, total, bytes in bar.update(done: done, total: total, bytes: bytes) })
                }
            }
        } else if let path = options.apply {
            let (local, remove) = try ctx.localChangeset(
                path, root: library.root, sshCommand: options.sshCommand, remotePhotos: options.remotePhotos)
            cleanup = remove
            apply = {
                try ctx.console.withProgress(options.dryRun ? "checking" : "applying") { bar in
                    try library.applyChangeset(
                        at: local, author: ctx.historyAuthor,
                        progress: { done, total, bytes in bar.update(done: done, total: total, bytes: bytes) })
                }
            }
        } else if let from = options.from {
            let otherRoot = absolute(from)
            guard CompositionRoot.libraryExists(at: otherRoot) else {
                throw CommandFailure.noInput("no library at \(otherRoot)")
            }
            let other = try CompositionRoot.openLibrary(root: otherRoot, create: false, busyTimeout: ctx.wait)
            apply = {
                try ctx.console.withProgress(options.dryRun ? "checking" : "syncing") { bar in
                    try library.sync(
                        from: other, author: ctx.historyAuthor,
                        progress: { done, total, bytes in bar.update(done: done, total: total, bytes: bytes) })
                }
            }
        } else {
            return
        }
        let report = try ctx.confirmingDestruction(
            library, yes: options.yes, dryRun: options.dryRun,
            question: { (preview: ApplyReport) in
                (
                    "Apply tokens \(preview.changeset.fromToken + 1)…\(preview.changeset.toToken) of library \(preview.changeset.sender): \(deletions(preview))?",
                    preview.deleted
                )
            }, run: apply)
        noteMergedPhotos(report, ctx)
        if ctx.global.json {
            ctx.console.printJSON(json(report, dryRun: options.dryRun))
        } else if options.dryRun && !ctx.global.quiet && !report.alreadyApplied {
            ctx.console.print(
                "Would apply tokens \(report.changeset.fromToken + 1)…\(report.changeset.toToken) of library \(report.changeset.sender): \(report.accepted) changes accepted, \(report.ignored) superseded; \(report.inserted) inserted, \(report.updated) updated, \(report.deleted) deleted (\(TerminalText.plural(report.photosDeleted, "photo"))), \(report.originalsCopied) originals copied, \(report.tagsMerged) duplicate tags merged (dry run: nothing changed)"
            )
        } else if !ctx.global.quiet {
            if report.alreadyApplied {
                ctx.console.print(
                    "Nothing new: tokens up to \(report.changeset.toToken) of library \(report.changeset.sender) were applied before"
                )
            } else {
                ctx.console.print(
                    "Applied tokens \(report.changeset.fromToken + 1)…\(report.changeset.toToken) of library \(report.changeset.sender): \(report.accepted) changes accepted, \(report.ignored) superseded; \(report.inserted) inserted, \(report.updated) updated, \(report.deleted) deleted, \(report.originalsCopied) originals copied, \(report.tagsMerged) duplicate tags merged"
                )
            }
        }
    }

    /// `sync --inbox DIR`: one line per changeset applied, refused or not whole yet, a line
    /// for invitations waiting, a summary; exit 65 when a file for this library was refused.
    static func runInbox(_ folder: String, _ library: Library, _ options: Options, _ ctx: CommandContext) throws {
        try library.requireOriginalsRoot()
        let report = try library.applyInbox(
            folder, author: ctx.historyAuthor, publish: !options.noPublish, prune: options.prune)
        for (_, applied) in report.applied { noteMergedPhotos(applied, ctx) }
        if ctx.global.json {
            ctx.console.printJSON(report.json)
        } else if !ctx.global.quiet {
            for (file, r) in report.applied {
                ctx.console.print(
                    "Applied \(file): \(r.inserted) inserted, \(r.updated) updated, \(r.deleted) deleted, \(r.originalsCopied) originals copied"
                )
            }
            for file in report.fromRemoved {
                ctx.console.note("\(file) is from a participant no longer in its share: left alone, not applied")
            }
            for file in report.incomplete {
                ctx.console.note("\(file) is not whole yet (still being copied?): left for a later run")
            }
            if !report.invitations.isEmpty {
                ctx.console.note(
                    "\(TerminalText.plural(report.invitations.count, "invitation")) to shares not accepted here: 'photos share accept \(folder)/FILE' takes one (\(report.invitations.joined(separator: ", ")))"
                )
            }
            var line =
                "Inbox \(folder): \(TerminalText.plural(report.applied.count, "changeset")) applied, \(report.alreadyApplied) applied before, \(report.incomplete.count) not whole yet"
            if !options.noPublish { line += "; " + SharePublishCommand.summary(report.published, folder: folder) }
            if options.prune { line += "; \(report.pruned) pruned" }
            ctx.console.print(line)
        }
        if !report.refused.isEmpty {
            throw CommandFailure.dataError(
                report.refused.map { "\($0.file) refused: \($0.reason)" }.joined(separator: "\n"))
        }
    }

    /// The question's words for what an apply deletes here: "delete 3 objects here (1 photo
    /// with its ratings and tag links), insert 2, update 1".
    static func deletions(_ report: ApplyReport) -> String {
        "delete \(TerminalText.plural(report.deleted, "object")) here (\(TerminalText.plural(report.photosDeleted, "photo")) with \(report.photosDeleted == 1 ? "its" : "their") ratings and tag links), insert \(report.inserted), update \(report.updated)"
    }

    /// The report's JSON, with `"photosDeleted"` and `"dryRun"` added.
    static func json(_ report: ApplyReport, dryRun: Bool) -> JSONValue {
        guard case .object(var pairs) = report.json else { return report.json }
        pairs.append(("photosDeleted", .int(report.photosDeleted)))
        pairs.append(("dryRun", .bool(dryRun)))
        return .object(pairs)
    }
}

/// One line on stderr per photo an apply deleted because a photo of its zone has the same
/// original (issue 31 A1: nothing is deleted without a line saying so).
func noteMergedPhotos(_ report: ApplyReport, _ ctx: CommandContext) {
    for m in report.photosMerged {
        ctx.console.note(
            "photo \(m.deleted) deleted: photo \(m.survivor) of zone \(m.zone) has the same original, and takes its tags and ratings"
        )
    }
}
