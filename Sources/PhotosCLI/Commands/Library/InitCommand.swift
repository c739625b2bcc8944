import Foundation
import PhotosCore

/// `photos init [--database CONNINFO] [LIBRARY]`: create the library or migrate it to the
/// current schema; idempotent. With `--database`, the catalog is a PostgreSQL database.
enum InitCommand: Command {
    static let configuration = CommandConfiguration(
        path: ["init"],
        abstract: "Create the library, or migrate it to this version's schema.",
        discussion: """
            Safe to run again: an up-to-date library is left as it is. --from-backup DIR makes a
            new library from a backup folder, as 'photos restore DIR' does. With --database, the
            library's catalog lives in that PostgreSQL database (a libpq connection string such as
            postgresql://user@host/db?sslmode=require); the folder keeps the originals and records
            the connection without its password (libpq reads that from PGPASSWORD, ~/.pgpass or
            a service file), and every later command on the folder uses it. Several library
            folders (machines) may name one catalog: it records one originals root that every
            one of them uses (--originals PATH, a folder every machine mounts at the same path;
            default LIBRARY/ExternalData), marked by PATH/.photos-originals. init --database on
            an existing catalog joins it ("joined an existing catalog of N photos"), after
            checking that its originals root is mounted here (66 otherwise).
            """)

    struct Options: ParsableOptions {
        var fromBackup: String?
        var database: String?
        var originals: String?
        var library: String?

        static var options: [Option<Options>] {
            [
                .value(
                    \.fromBackup, "--from-backup", value: "DIR", help: "Make the new library from this backup folder."),
                .value(
                    \.database, "--database", value: "CONNINFO",
                    help: "Keep the catalog in this PostgreSQL database (libpq connection string).", parser: .string),
                .value(
                    \.originals, "--originals", value: "PATH",
                    help:
                        "With a PostgreSQL catalog: the originals root every machine mounts (default: LIBRARY/ExternalData).",
                    parser: .string)
            ]
        }

        static var arguments: [Argument<Options>] {
            [
                Argument(
                    spec: ArgumentSpec(
                        "library", help: "The library folder (default: --library, $PHOTOS_LIBRARY, …).", optional: true)
                ) { options, words in options.library = words.first }
            ]
        }

        func validate() throws {
            if fromBackup != nil && database != nil {
                throw UsageError("--from-backup and --database cannot be combined")
            }
            if fromBackup != nil && originals != nil {
                throw UsageError("--from-backup and --originals cannot be combined")
            }
            if originals?.isEmpty == true { throw UsageError("--originals needs a folder") }
            if fromBackup != nil && library != nil {
                throw UsageError("with --from-backup, give the library folder with --library")
            }
        }
    }

    static func run(_ options: Options, _ ctx: CommandContext) throws {
        if let backup = options.fromBackup { return try RestoreCommand.restore(from: backup, ctx) }
        let path = Library.resolvePath(explicit: options.library ?? ctx.global.library, in: ctx.libraryEnvironment)
        let originals = options.originals.map { Library.resolvePath(explicit: $0, in: ctx.libraryEnvironment) }
        if let database = options.database {
            try DatabaseInit.run(database: database, path: path, originals: originals, ctx)
            return
        }
        if let originals {
            // An existing folder on a PostgreSQL catalog: records the root when the catalog
            // records none yet (or checks it is the recorded one).
            let backend = CompositionRoot.catalogBackend(forLibraryAt: path)
            guard backend.sharesCatalog, CompositionRoot.libraryExists(at: path) else {
                throw UsageError(
                    "--originals goes with a PostgreSQL catalog (photos init --database URL --originals PATH LIBRARY); a SQLite library keeps its originals in LIBRARY/\(Library.externalDataName)"
                )
            }
            let library = try CompositionRoot.openLibrary(
                root: path, backend: backend, create: false, busyTimeout: ctx.wait, originalsRoot: originals)
            ctx.noteOriginals(of: library)
            if !ctx.global.quiet {
                ctx.console.print("Library at \(path) keeps its originals in \(library.originals.root)")
            }
            return
        }
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
