import Foundation
import PhotosCore
import PhotosModel
import PhotosPostgreSQL

/// `photos init --database CONNINFO LIBRARY`: a library whose catalog is a PostgreSQL database.
enum DatabaseInit {
    /// Connects with `database` (the password, if given, only for this process), creates the
    /// folder and migrates the catalog, then records the connection without the password in
    /// `LIBRARY/catalog.postgresql`. Run again with the same connection: migrates, or says it is
    /// up to date.
    /// - Throws: `UsageError` (64) for a string libpq cannot parse, or a folder that already
    ///   has another catalog; `CommandFailure` 73 for a schema holding another program's
    ///   tables (`ForeignTablesError`, checked before the folder is made); what opening the library throws (74 when the server cannot be
    ///   reached, 77 for a refused login, 75 busy).
    ///
    /// A catalog that exists already (made from another library folder, maybe on another
    /// machine) is joined (issue 31 item A3): the folder uses the catalog's recorded originals
    /// root, which must be mounted here (its marker naming the catalog: 66 otherwise, nothing
    /// made); a catalog of photos that records no root needs `originals` (64). For a new
    /// catalog, `originals` (absolute; default `path/ExternalData`) is recorded as the root.
    /// - Throws: as above; `OriginalsRootChoiceError` (64, or 65 for another catalog's
    ///   folder) and `OriginalsRootError` (66, 73) about `originals`.
    static func run(database: String, path: String, originals: String?, _ ctx: CommandContext) throws {
        let info: ConnectionInfo
        do {
            info = try ConnectionInfo(database)
        } catch let error as PostgresError {
            throw UsageError("--database: \(error.message)")
        }
        if CompositionRoot.sqliteCatalogExists(at: path) {
            throw UsageError(
                "library \(path) already has a SQLite catalog (\(CompositionRoot.sqliteCatalogName)); give --database a new folder"
            )
        }
        let recorded = try? PostgresCatalogBackend.recordedConnection(root: path)
        if let recorded, let old = try? ConnectionInfo(recorded), old != info.withoutPassword {
            throw UsageError("library \(path) already keeps its catalog in \(old.display), not \(info.display)")
        }
        let backend = PostgresCatalogBackend(connectionString: database)
        let existed = recorded != nil
        // The version before, so that the message says what was migrated (0: an empty schema).
        let before: Int
        // What the catalog holds already: its photos, and the originals root it records.
        var photos = 0
        var recordedRoot: OriginalsRootRecord?
        do {
            let store = try backend.open(root: path, options: StoreOpenOptions(readOnly: true, lockWait: ctx.wait))
            defer { store.close() }
            before = try store.schemaVersion()
            // Before anything is made: a schema of another program's tables is not a catalog's
            // (the same refusal as `catalog move --to`; the first migration checks it again).
            try store.requireOnlyCatalogTables()
            if before > 0 && before <= backend.currentSchemaVersion {
                photos = try store.photoCount()
                // Absent before the migration that records it (issue 31 item A3): none recorded.
                recordedRoot = (try? store.catalogPlaces(host: "", folder: path))?.originals
            }
        } catch let error as any CatalogPlaceRefusal {
            throw CommandFailure(.cantCreate, "--database \(info.display): \(error)")
        } catch {
            throw LibraryError.wrap(error, library: path)
        }
        let joining = !existed && before > 0
        if joining, let recordedRoot {
            // Joining from here: the catalog's originals must be mounted here first.
            if let originals, originals != recordedRoot.root {
                throw UsageError(
                    "--originals \(originals): the catalog in \(info.display) keeps its originals in \(recordedRoot.root); every library folder on it uses that root (change it with 'photos catalog set-originals PATH')"
                )
            }
            if let problem = Library.originalsRootProblem(recordedRoot.root, catalogID: recordedRoot.catalogID),
                problem.isNotMounted
            {
                throw OriginalsRootError(
                    library: path, root: recordedRoot.root, catalogID: recordedRoot.catalogID, problem: problem)
            }
        } else if joining, photos > 0, originals == nil {
            throw UsageError(
                "the catalog in \(info.display) holds \(TerminalText.plural(photos, "photo")) but records no originals root (it was made by an earlier photos): give --originals PATH, the folder every machine mounts that holds its originals, or first run any photos command in the library folder that holds them"
            )
        }
        if let originals, recordedRoot == nil {
            // Before the folder and the catalog are made: a root that cannot be recorded.
            try Library.checkNewOriginalsRoot(originals, library: path)
        }
        let library = try CompositionRoot.openLibrary(
            root: path, backend: backend, create: true, busyTimeout: ctx.wait, originalsRoot: originals)
        let own = path + "/" + Library.externalDataName
        if library.originals.root != own {
            // The folder's own external data, made empty by the open, is not used.
            rmdir(own)
        }
        if !existed {
            do {
                try PostgresCatalogBackend.record(info, root: path)
            } catch {
                throw CommandFailure(
                    .cantCreate,
                    "library \(path): cannot write \(PostgresCatalogBackend.connectionFileName): \(error.localizedDescription)"
                )
            }
        }
        let version = try library.schemaVersion()
        let root = library.originals.root
        if ctx.global.json {
            ctx.console.printJSON(
                .object([
                    ("library", .string(path)), ("created", .bool(!existed)), ("joined", .bool(joining)),
                    ("photos", .int(photos)), ("database", .string(info.display)), ("originals", .string(root)),
                    ("previousVersion", .int(before)), ("schemaVersion", .int(version))
                ]))
        } else if !ctx.global.quiet {
            if joining {
                ctx.console.print(
                    "Library at \(path) joined an existing catalog of \(TerminalText.plural(photos, "photo")) (originals in \(root)) in \(info.display) (schema version \(version))"
                )
                if let problem = library.originals.problem {
                    ctx.console.note("the originals root \(root) cannot be used for writing here: \(problem)")
                }
            } else if !existed {
                ctx.console.print(
                    "Created library at \(path) with its catalog in \(info.display) (schema version \(version)); its originals are in \(root)"
                )
                if info["password"] != nil {
                    ctx.console.print(
                        "The password was not recorded: give it to later commands through PGPASSWORD, ~/.pgpass or a service file"
                    )
                }
            } else if before < version {
                ctx.console.print("Migrated library at \(path) from schema version \(before) to \(version)")
                ctx.noteOriginals(of: library)
            } else {
                ctx.console.print("Library at \(path) is up to date (schema version \(version))")
            }
        }
    }
}
