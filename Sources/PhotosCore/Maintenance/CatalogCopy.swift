import Foundation
import PhotosModel

/// What `Library.copyCatalog` copied.
public struct CatalogCopyReport: Sendable {
    /// Rows copied per table, in `CatalogTables.all` order.
    public var rows: [(table: String, count: Int)] = []
    /// The last history token the source had issued, where the target's token sequence goes on.
    public var issuedHistoryToken: Int64 = 0

    /// Rows copied in all.
    public var totalRows: Int { rows.reduce(0) { $0 + $1.count } }
}

extension Library {
    /// Rows read from the source and written to the target at a time: the memory a copy holds
    /// is one page (at most this many thumbnails of a few KB each).
    public static let catalogCopyPageRows = 256

    /// Copies this library's whole catalog — every row of every table of `CatalogTables.all`,
    /// ids, uuids, history tokens, consumers, tombstones and sync state included — into
    /// `target`, a catalog of another backend that has no rows yet (`photos catalog move`).
    ///
    /// Holds this library's write lock for the whole copy (other writers wait or give up with
    /// busy; readers go on) and the import lock (a running import is refused: it would go on
    /// writing into this catalog). Rows go page by page (`catalogCopyPageRows`) into one write
    /// transaction of `target`, then its sequences continue past the copied ids and the
    /// source's last issued history token (`CatalogCopyStore.finishCatalogCopy`). When the
    /// target has committed, `switchOver` runs — still under this library's write lock — to
    /// point the library folder at the new catalog; if anything fails before, the target's
    /// transaction is rolled back and the library stays on this catalog, unchanged.
    /// - Parameters:
    ///   - target: the other catalog, open and migrated to the current schema.
    ///   - targetName: how messages name the target (a path, or a connection without password).
    ///   - progress: called with tables done and tables in all.
    ///   - switchOver: makes the library folder use the target (the last, atomic step).
    /// - Returns: rows copied per table.
    /// - Throws: `CatalogCopyError.targetNotEmpty` or `.schemaVersion`; `ForeignTablesError`
    ///   for a target whose place holds tables of another program; `.rowsRefused` when
    ///   the target's schema refuses a row (the database's message, without the statement); `LibraryError.busy`
    ///   when another process holds this library's write lock past `busyTimeout` or an import
    ///   runs; `LibraryError` about the target (named `targetName`) or this library; what
    ///   `switchOver` throws (the target then holds the copy, unused).
    public func copyCatalog(
        into target: any LibraryStore, targetName: String, progress: ((Int, Int) -> Void)? = nil,
        switchOver: () throws -> Void
    ) throws -> CatalogCopyReport {
        try requireCopyable(into: target, targetName: targetName)
        guard let importLock = lockImports(exclusive: true) else { throw LibraryError.busy(library: root) }
        defer { close(importLock) }
        var report = CatalogCopyReport()
        try write {
            let tables = CatalogTables.all
            try onTarget(targetName) {
                try target.writeTransaction(waitingUpTo: busyTimeout) {
                    // Empty: no other program's tables, nothing but the rows a new catalog's
                    // migrations insert.
                    try target.requireOnlyCatalogTables()
                    for table in tables {
                        let rows = try target.catalogRows(of: table, after: nil, limit: 2)
                        if rows.contains(where: { !CatalogTables.isSeedRow($0, of: table) }) {
                            throw CatalogCopyError.targetNotEmpty(target: targetName, table: table.name)
                        }
                    }
                    try target.deleteAllCatalogRows()
                    for (done, table) in tables.enumerated() {
                        progress?(done, tables.count)
                        let count = try copyRows(of: table, into: target, targetName: targetName)
                        report.rows.append((table.name, count))
                    }
                    report.issuedHistoryToken = try onSource { try store.issuedHistoryToken() }
                    try target.finishCatalogCopy(issuedHistoryToken: report.issuedHistoryToken)
                    // Ids of rows deleted before the copy are not given again there (#31 A8).
                    let issued = try onSource { try store.issuedIdentities() }
                    try target.continueIdentities(after: issued)
                    progress?(tables.count, tables.count)
                    return .commit
                }
            }
            try switchOver()
        }
        return report
    }

    /// Refuses a copy between catalogs of different schema versions, or into this catalog
    /// under another name.
    /// - Throws: `CatalogCopyError.schemaVersion` or `.sameDatabase`; `LibraryError` about
    ///   either catalog.
    private func requireCopyable(into target: any LibraryStore, targetName: String) throws {
        let expected = CatalogTables.schemaVersion
        let sourceVersion = try schemaVersion()
        guard sourceVersion == expected else {
            throw CatalogCopyError.schemaVersion(catalog: root, found: sourceVersion, expected: expected)
        }
        let targetVersion = try onTarget(targetName) { try target.schemaVersion() }
        guard targetVersion == expected else {
            throw CatalogCopyError.schemaVersion(catalog: targetName, found: targetVersion, expected: expected)
        }
        // The source's catalog under another name (`localhost` for `127.0.0.1`, a service):
        // the target's write lock would be the source's own, held by this copy, and never
        // come (75 after --wait, blaming "another process"). Another schema of the same
        // database is another catalog, with lock keys of its own.
        if let session = try onSource({ try store.catalogSessionIdentity() }),
            try onTarget(targetName, { try target.sharesDatabase(withSession: session) })
        {
            throw CatalogCopyError.sameDatabase(target: targetName)
        }
    }

    /// Copies the rows of `table` a page at a time (keyset paging); returns how many.
    /// - Throws: `CatalogCopyError.rowsRefused` when the target's schema refuses a row;
    ///   `LibraryError` about this catalog.
    private func copyRows(of table: CatalogTable, into target: any LibraryStore, targetName: String) throws -> Int {
        var count = 0
        var after: [CatalogValue]?
        while true {
            let page = try onSource {
                try store.catalogRows(of: table, after: after, limit: Library.catalogCopyPageRows)
            }
            do {
                try target.insertCatalogRows(page, into: table)
            } catch let error as any StoreErrorConvertible
                where [.constraint, .other].contains(error.storeError.kind)
            {
                throw CatalogCopyError.rowsRefused(
                    target: targetName, table: table.name, message: error.storeError.message)
            }
            count += page.count
            guard page.count == Library.catalogCopyPageRows, let last = page.last else { break }
            after = table.keyIndexes.map { last[$0] }
        }
        return count
    }

    /// `body`, its errors but `CatalogCopyError` as `LibraryError` about the target.
    private func onTarget<T>(_ targetName: String, _ body: () throws -> T) throws -> T {
        do { return try body() } catch let error as CatalogCopyError { throw error } catch {
            throw LibraryError.wrap(error, library: targetName)
        }
    }

    /// `body`, its errors as `LibraryError` about this library.
    private func onSource<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch { throw LibraryError.wrap(error, library: root) }
    }
}
