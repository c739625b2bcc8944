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
    static func run(database: String, path: String, _ ctx: CommandContext) throws {
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
        do {
            let store = try backend.open(root: path, options: StoreOpenOptions(readOnly: true, lockWait: ctx.wait))
            defer { store.close() }
            before = try store.schemaVersion()
            // Before anything is made: a schema of another program's tables is not a catalog's
            // (the same refusal as `catalog move --to`; the first migration checks it again).
            try store.requireOnlyCatalogTables()
        } catch let error as any CatalogPlaceRefusal {
            throw CommandFailure(.cantCreate, "--database \(info.display): \(error)")
        } catch {
            throw LibraryError.wrap(error, library: path)
        }
        let library = try CompositionRoot.openLibrary(root: path, backend: backend, create: true, busyTimeout: ctx.wait)
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
        if ctx.global.json {
            ctx.console.printJSON(
                .object([
                    ("library", .string(path)), ("created", .bool(!existed)), ("database", .string(info.display)),
                    ("previousVersion", .int(before)), ("schemaVersion", .int(version))
                ]))
        } else if !ctx.global.quiet {
            if !existed {
                ctx.console.print(
                    "Created library at \(path) with its catalog in \(info.display) (schema version \(version))")
                if info["password"] != nil {
                    ctx.console.print(
                        "The password was not recorded: give it to later commands through PGPASSWORD, ~/.pgpass or a service file"
                    )
                }
            } else if before < version {
                ctx.console.print("Migrated library at \(path) from schema version \(before) to \(version)")
            } else {
                ctx.console.print("Library at \(path) is up to date (schema version \(version))")
            }
        }
    }
}
