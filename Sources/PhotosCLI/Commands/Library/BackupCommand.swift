import Foundation
import PhotosCore

/// `photos backup DEST [--originals]`.
enum BackupCommand: Command {
    static let configuration = CommandConfiguration(
        path: ["backup"],
        abstract: "Write a consistent copy of the library into a folder, while other commands run.",
        discussion: """
            DEST (created when absent) becomes a library of its own: DEST/photos.sqlite is one
            consistent snapshot of the catalog taken with SQLite's online backup API while imports
            and other commands go on. With --originals the originals it references go to
            DEST/ExternalData as independent copies (reflinks where the file system can, else
            copies; never hard links): those already there with the right size and SHA-256 are
            kept, others replaced, an original damaged in the library is not copied (named), and
            those no longer referenced are removed, so a nightly backup into the same DEST stays a
            mirror. The new catalog replaces the old one last, so a backup that fails or is
            stopped leaves the previous one whole. A DEST holding a catalog or ExternalData that 'photos backup' did not write
            (another library) is refused (exit 73); a backup writes DEST/.photos-backup. Check it
            with 'photos verify --library DEST'; make a library of it with 'photos restore DEST'
            or 'photos init --from-backup DEST'.
            """)

    struct Options: ParsableOptions {
        var destination = ""
        var originals = false
        static var options: [Option<Options>] {
            [
                .flag(
                    \.originals, "--originals",
                    help: "Also back up the originals (independent copies: reflinks where the file system can)."
                )
            ]
        }
        static var arguments: [Argument<Options>] {
            [.one(\.destination, "dest", help: "The backup folder (created when absent).")]
        }
    }

    static func run(_ options: Options, _ ctx: CommandContext) throws {
        let library = try ctx.openLibraryForReading()
        let destination = Library.resolvePath(explicit: options.destination, in: ctx.libraryEnvironment)
        let report = try ctx.console.withProgress("backing up") { bar in
            try library.backup(
                to: destination, originals: options.originals,
                progress: { done, total in bar.update(done: done, total: total) })
        }
        for reference in report.missing {
            ctx.console.itemError(reference, "original deleted while the backup ran; it is not in the backup")
        }
        for reference in report.damaged {
            ctx.console.itemError(
                reference,
                "original damaged in the library (its bytes do not have its SHA-256): not copied, the backup keeps what it had; repair it with 'photos verify' and import"
            )
        }
        if ctx.global.json {
            ctx.console.printJSON(report.json)
        } else if !ctx.global.quiet || !report.missing.isEmpty || !report.damaged.isEmpty {
            var line = "Backed up the catalog (\(TerminalText.bytes(report.catalogBytes))) to \(report.destination)"
            if report.originals {
                line +=
                    "; originals: \(report.copied) copied, \(report.replaced) replaced, \(report.kept) already there, \(report.removed) removed"
            }
            ctx.console.print(line)
        }
    }
}

/// `photos restore BACKUP` (also `photos init --from-backup BACKUP`).
enum RestoreCommand: Command {
    static let configuration = CommandConfiguration(
        path: ["restore"],
        abstract: "Make a new library from a backup folder.",
        discussion: """
            Creates the library (--library, else the default) from BACKUP, a folder 'photos backup'
            wrote: the catalog is restored and migrated to this version's schema, and the originals
            are copied (reflinks where the file system can, never hard links). The new library has
            a library id of its own, so it can sync with the library it was copied from;
            --same-identity keeps the backed-up library's id (the real restore of a lost library,
            which its peers know by it). A library that exists, or a folder that
            is not empty, is never written to (exit 73): choose another --library or move it
            away. The library is built beside it and renamed into place at the end, so a restore
            that is killed leaves no half-restored library.
            """)

    struct Options: ParsableOptions {
        var backup = ""
        var sameIdentity = false
        static var options: [Option<Options>] {
            [
                .flag(
                    \.sameIdentity, "--same-identity",
                    help: "Keep the backed-up library's library id (restoring a lost library).")
            ]
        }
        static var arguments: [Argument<Options>] {
            [.one(\.backup, "backup", help: "The backup folder.")]
        }
    }

    static func run(_ options: Options, _ ctx: CommandContext) throws {
        try restore(from: options.backup, sameIdentity: options.sameIdentity, ctx)
    }

    /// Restores `backup` into the context's library and says so.
    static func restore(from backup: String, sameIdentity: Bool = false, _ ctx: CommandContext) throws {
        let source = Library.resolvePath(explicit: backup, in: ctx.libraryEnvironment)
        let library = try Library.restore(
            from: source, to: ctx.libraryPath, backend: CompositionRoot.catalogBackend(forLibraryAt: ctx.libraryPath),
            exportStates: CompositionRoot.exportStates, busyTimeout: ctx.wait, sameIdentity: sameIdentity)
        let version = try library.schemaVersion()
        if ctx.global.json {
            ctx.console.printJSON(
                .object([
                    ("library", .string(ctx.libraryPath)), ("backup", .string(source)), ("schemaVersion", .int(version))
                ]))
        } else if !ctx.global.quiet {
            ctx.console.print("Restored library at \(ctx.libraryPath) from \(source) (schema version \(version))")
        }
    }
}
