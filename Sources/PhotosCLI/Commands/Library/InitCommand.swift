import Foundation
import PhotosCore

/// `photos init`: create the library or migrate it to the current schema; idempotent.
enum InitCommand: Command {
    static let configuration = CommandConfiguration(
        path: ["init"],
        abstract: "Create the library, or migrate it to this version's schema.",
        discussion:
            "Safe to run again: an up-to-date library is left as it is. --from-backup DIR makes a new library from a backup folder, as 'photos restore DIR' does."
    )

    struct Options: ParsableOptions {
        var fromBackup: String?
        static var options: [Option<Options>] {
            [.value(\.fromBackup, "--from-backup", value: "DIR", help: "Make the new library from this backup folder.")]
        }
    }

    static func run(_ options: Options, _ ctx: CommandContext) throws {
        if let backup = options.fromBackup { return try RestoreCommand.restore(from: backup, ctx) }
        let path = ctx.libraryPath
        let existed = CompositionRoot.libraryExists(at: path)
        let before: Int
        if existed {
            // Read the version first, so that the message says what was migrated.
            before = try CompositionRoot.openLibrary(
                root: path, create: false, busyTimeout: ctx.wait, readOnly: true,
                acceptingOlderSchema: true
            ).schemaVersion()
        } else {
            before = 0
        }
        let library: Library
        do {
            library = try CompositionRoot.openLibrary(root: path, create: true, busyTimeout: ctx.wait)
        } catch let error
            where ExitStatus(for: error, libraryPath: path) == .noPermission && existed
            && before == CompositionRoot.currentSchemaVersion(forLibraryAt: path)
        {
            // Up to date: nothing to write, so a library this user may only read is fine.
            library = try CompositionRoot.openLibrary(root: path, create: false, busyTimeout: ctx.wait, readOnly: true)
        } catch let error
            where ExitStatus(for: error, libraryPath: path) == .noPermission && existed
            && before < CompositionRoot.currentSchemaVersion(forLibraryAt: path)
        {
            throw CommandFailure(
                .noPermission,
                "library \(path) has schema version \(before) and cannot be upgraded to \(CompositionRoot.currentSchemaVersion(forLibraryAt: path)) by this user (run 'photos init' as a user who can write it): \(CompositionRoot.whatIsNotWritable(path))"
            )
        }
        let version = try library.schemaVersion()
        if ctx.global.json {
            ctx.console.printJSON(
                .object([
                    ("library", .string(path)), ("created", .bool(!existed)),
                    ("previousVersion", .int(before)), ("schemaVersion", .int(version))
                ]))
        } else if !ctx.global.quiet {
            if !existed {
                ctx.console.print("Created library at \(path) (schema version \(version))")
            } else if before < version {
                ctx.console.print("Migrated library at \(path) from schema version \(before) to \(version)")
            } else {
                ctx.console.print("Library at \(path) is up to date (schema version \(version))")
            }
        }
    }
}
