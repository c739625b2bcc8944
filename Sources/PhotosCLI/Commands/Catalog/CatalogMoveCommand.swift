import Foundation
import PhotosCore
import PhotosModel

/// `photos catalog move --to TARGET`: copies the library's catalog into another backend and
/// makes the library folder use it.
enum CatalogMoveCommand: Command {
    static let configuration = CommandConfiguration(
        path: ["catalog", "move"],
        abstract: "Move the library's catalog to PostgreSQL, or back to SQLite.",
        discussion: """
            Copies every row of the catalog — photos, thumbnails, tags, ratings, shares and
            participants, the history with its tokens, consumers and tombstones, the sync state —
            into TARGET, keeping every id, uuid and token, then points the library folder at it;
            the originals stay where they are. TARGET is a PostgreSQL connection string (libpq,
            as 'photos init --database'; its password is not recorded) or 'sqlite' (the folder's
            photos.sqlite). The target must be empty (exit 73 otherwise). The copy holds the
            library's write lock (other writers wait, --wait; exit 75) and refuses to start while
            an import runs; if it stops part-way, nothing is switched and the library stays on
            its old catalog. The old catalog is kept, never deleted: photos.sqlite is renamed to
            photos.sqlite.moved-TIME; a PostgreSQL database is left as it was, its connection
            kept in catalog.postgresql.moved-TIME.
            """)

    struct Options: ParsableOptions {
        var to = ""
        static var options: [Option<Options>] {
            [
                .required(
                    \.to, "--to", value: "TARGET",
                    help: "A PostgreSQL connection string, or 'sqlite' for the folder's photos.sqlite.")
            ]
        }
    }

    static func run(_ options: Options, _ ctx: CommandContext) throws {
        let root = ctx.libraryPath
        // libpq takes an empty string for "every default" (the local socket, the user's own
        // database): never what a user means by an empty --to.
        guard !options.to.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw UsageError("--to needs a target: a PostgreSQL connection string, or 'sqlite'")
        }
        let (target, from, report) = try copy(to: options.to, root: root, ctx)
        // The old catalog is closed by now: put aside.
        let kept = target.retire()
        if ctx.global.json {
            ctx.console.printJSON(
                .object([
                    ("library", .string(root)), ("from", .string(from)), ("to", .string(target.backendName)),
                    ("target", .string(target.name)), ("rows", .int(report.totalRows)),
                    ("tables", .object(report.rows.map { ($0.table, JSONValue.int($0.count)) })),
                    ("historyToken", .int(Int(report.issuedHistoryToken))), ("oldCatalog", .string(kept))
                ]))
        } else if !ctx.global.quiet {
            ctx.console.print(
                "Moved the catalog of library \(root) from \(from) to \(target.name) (\(report.totalRows) rows); \(kept)"
            )
        }
    }

    /// Opens both catalogs and copies; both are closed when it returns.
    private static func copy(to: String, root: String, _ ctx: CommandContext) throws
        -> (CatalogMoveTarget, String, CatalogCopyReport)
    {
        let library = try ctx.openLibrary()
        let own = root + "/" + Library.externalDataName
        if to == "sqlite", library.originals.isCatalogRoot, library.originals.root != own {
            // Issue 31 item A3: a SQLite library keeps its originals in its own folder.
            throw UsageError(
                "the catalog keeps its originals in \(library.originals.root), and a SQLite library keeps them in \(own): move them there and run 'photos catalog set-originals \(own)' first; nothing was changed"
            )
        }
        let from = CompositionRoot.catalogDescription(root: root)
        let target = try CompositionRoot.catalogMoveTarget(
            to, root: root, sourceBackend: library.backend.name, busyTimeout: ctx.wait)
        do {
            let report = try ctx.console.withProgress("copying the catalog") { bar in
                try library.copyCatalog(
                    into: target.store, targetName: target.name,
                    progress: { done, total in bar.update(done: done, total: total) },
                    switchOver: target.switchOver)
            }
            target.store.close()
            return (target, from, report)
        } catch CatalogCopyError.targetNotEmpty(let name, let table) where to == "sqlite" {
            target.abandon()
            // Not a database to pick anew: the folder's own photos.sqlite, which a PostgreSQL
            // library never uses — an old catalog a move killed before it renamed it aside.
            throw CommandFailure(
                .cantCreate,
                "\(name) is not empty (table \(table) has rows) and is not this library's catalog (it uses \(from)): an old catalog left by an interrupted move? Rename it aside (for example to \(CompositionRoot.sqliteCatalogName).moved-old) and move again"
            )
        } catch {
            target.abandon()
            throw error
        }
    }
}
