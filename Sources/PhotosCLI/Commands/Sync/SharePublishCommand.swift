import Foundation
import PhotosCore

/// `photos share publish [SHARE…] --to DIR`.
enum SharePublishCommand: Command {
    static let configuration = CommandConfiguration(
        path: ["share", "publish"],
        abstract: "Write each share's changesets for its other side into a shared folder (a mailbox).",
        discussion: """
            For people whose machines never see each other: DIR is a folder a sync tool
            (Syncthing, Nextcloud), a USB stick or NFS carries between them. Of a share this
            library owns, one changeset per participant not removed (the first holds the whole
            zone, later ones what changed after the participant's acknowledgement, as 'share
            export --for'); of a share accepted here, one back to the owner (as 'share export').
            Each is one file, SHARE.SENDER.RECIPIENT.FROM-TO.aACK.photos-changeset, written under
            a dot-name, fsynced and renamed into place; a newer file replaces this library's
            older one for the same side, and nothing is written when the newest already says
            everything. The other side runs 'sync --inbox DIR' (or 'share accept DIR/FILE' the
            first time). Without SHARE, every share here.
            """)

    struct Options: ParsableOptions {
        var shares: [String] = []
        var folder = ""
        static var options: [Option<Options>] {
            [.required(\.folder, "--to", value: "DIR", help: "The shared folder to write into.")]
        }
        static var arguments: [Argument<Options>] {
            [.optionalMany(\.shares, "id", help: "Shares (ids or titles); every share here without one.")]
        }
    }

    static func run(_ options: Options, _ ctx: CommandContext) throws {
        let library = try ctx.openLibrary()
        let folder = Library.resolvePath(explicit: options.folder, in: ctx.libraryEnvironment)
        let shares = options.shares.isEmpty ? nil : try options.shares.map { try library.resolveSharedZone($0) }
        let report = try library.publishShares(shares, to: folder)
        if ctx.global.json {
            ctx.console.printJSON(report.json)
        } else if !ctx.global.quiet {
            ctx.console.print(SharePublishCommand.summary(report, folder: folder))
        }
    }

    /// "Wrote 2 changesets to DIR (1.2 MB), 1 up to date, 1 older one replaced".
    static func summary(_ report: MailboxPublishReport, folder: String) -> String {
        "Wrote \(TerminalText.plural(report.written.count, "changeset")) to \(folder) (\(TerminalText.bytes(report.bytes))), \(report.upToDate) up to date, \(report.superseded) older replaced"
    }
}
