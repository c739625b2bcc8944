import Foundation
import PhotosModel

// HistoryTransaction, HistoryFilter and HistoryConsumer are declared in PhotosModel
// (History/HistoryFeed.swift), next to the store protocol that reads them.

extension Library {
    /// Where the history feed and its consumers are read and written.
    var historyFeed: any HistoryFeedStore { store }
    /// Where old history is deleted and its space reclaimed.
    var historyCompaction: any HistoryCompactionStore { store }
}

extension Library {
    /// The highest token in the history (0 when empty).
    /// - Throws: the store's error.
    public func currentHistoryToken() throws -> Int64 {
        // The store remembers the last token issued even when compaction has deleted every
        // transaction, so a consumer advanced now is never set back to 0.
        try historyFeed.issuedHistoryToken()
    }

    /// True when compaction deleted transactions after `token` that a consumer at `token` had not
    /// processed (Core Data's NSPersistentHistoryTokenExpiredError). The store hands out tokens
    /// in commit order without gaps (`HistoryFeedStore`: a rolled-back transaction takes its
    /// token back), so the only gaps are compaction's.
    /// - Throws: the store's error.
    public func historyExpired(after token: Int64) throws -> Bool {
        guard token < (try currentHistoryToken()) else { return false }
        return try !historyFeed.hasHistoryTransaction(token: token + 1)
    }

    /// Calls `body` for each transaction matching `filter`, in token order, without holding
    /// the whole history in memory.
    /// - Throws: the store's error, or what `body` throws.
    public func forEachHistoryTransaction(matching filter: HistoryFilter, _ body: (HistoryTransaction) throws -> Void)
        throws
    {
        try historyFeed.forEachHistoryTransaction(matching: filter, body)
    }

    /// Every registered consumer, by name.
    /// - Throws: the store's error.
    public func historyConsumers() throws -> [HistoryConsumer] {
        try historyFeed.historyConsumers()
    }

    /// The last token `name` processed, or nil when it is not registered.
    /// - Throws: the store's error.
    public func consumerToken(_ name: String) throws -> Int64? {
        try historyFeed.historyConsumerToken(name)
    }

    /// Registers `name` or moves its token. Call inside a write transaction when it must
    /// commit together with other changes.
    /// - Throws: the store's error.
    public func setConsumerToken(_ name: String, _ token: Int64) throws {
        try historyFeed.setHistoryConsumerToken(name, token)
    }

    /// Removes a consumer, so that it no longer holds compaction back.
    /// - Returns: true when it existed.
    /// - Throws: `LibraryError.busy` when another process holds the lock past the wait,
    ///   `LibraryError` for the store's failures.
    @discardableResult
    public func removeConsumer(_ name: String) throws -> Bool {
        try write { try historyFeed.removeHistoryConsumer(name) }
    }
}

/// Where `history compact` cuts.
public enum CompactionCutoff: Equatable {
    /// Transactions with a timestamp before this instant (Core Data's `deleteHistory(before: Date)`).
    case date(Date)
    /// Transactions with a token below this one (`deleteHistory(before: token)`).
    case token(Int64)
}

/// What `history compact` removed.
public struct CompactionReport: Equatable {
    public var transactions = 0
    public var changes = 0
    /// Bytes the database file shrank by (pages freed × page size, after the incremental vacuum).
    public var bytes: Int64 = 0
    /// The highest token deleted (0 when none).
    public var throughToken: Int64 = 0
    /// True when a consumer's token held the cut back.
    public var limitedByConsumer: String?
    /// Tombstones of the sync state compacted (`TombstoneCompaction`): stamped before a date
    /// cut-off and acknowledged by every known library; with them `syncEntries` entries went.
    public var tombstones = 0
    public var syncEntries = 0
    public var dryRun = false

    public var json: JSONValue {
        .object([
            ("transactions", .int(transactions)), ("changes", .int(changes)), ("bytes", .int(Int(bytes))),
            ("throughToken", .int(Int(throughToken))), ("limitedByConsumer", .optional(limitedByConsumer)),
            ("tombstones", .int(tombstones)), ("syncEntries", .int(syncEntries)), ("dryRun", .bool(dryRun))
        ])
    }
}

extension Library {
    /// Deletes history transactions (and their changes) before `cutoff`, never past the lowest
    /// token of a registered consumer unless `force` — a consumer must still see what it has not
    /// processed. One write transaction, at whose commit the store may return the freed space
    /// to the file system; then `HistoryCompactionStore.reclaimSpace` returns what is left
    /// (libraries are created with incremental auto-vacuum) and checkpoints the write-ahead
    /// log — also when nothing was deleted (that call sets back a library a killed compaction
    /// left in FULL auto-vacuum mode). `bytes` is how much the database shrank from before the deletes. Semantics of Core Data's
    /// `NSPersistentHistoryChangeRequest.deleteHistory(before:)` (SPEC §4). A dry run runs the
    /// same deletes, rolls them back and reclaims nothing; its `bytes` are the free space the
    /// deletes made inside the transaction.
    /// - Throws: `LibraryError.busy` when another process holds the lock past the wait,
    ///   `LibraryError` for the store's failures.
    public func compactHistory(_ cutoff: CompactionCutoff, force: Bool = false, dryRun: Bool = false) throws
        -> CompactionReport
    {
        try self.dryRun(dryRun) { try compact(cutoff, force: force) }
    }

    private func compact(_ cutoff: CompactionCutoff, force: Bool) throws -> CompactionReport {
        let store = historyCompaction
        var report = CompactionReport()
        report.dryRun = isDryRun
        do {
            let freeBefore = try store.freeSpaceBytes()
            var sizeBefore: Int64 = 0
            try write {
                // Every local change goes into the sync state first (issue 11 item 5): changesets
                // are built from it, never from history, so compaction cannot take away a change
                // that a peer or participant has not acknowledged. A sync state nothing has read
                // yet has no such consumer, and its first reconcile compares every object with
                // the catalog whatever history holds (`SyncReconciler.isUnread`): skipped then.
                if !(try SyncReconciler.isUnread(syncStore)) {
                    var reconciler = try SyncReconciler(store: syncStore)
                    _ = try reconciler.run()
                }
                var cut: HistoryCut
                switch cutoff {
                case .token(let t): cut = HistoryCut(throughToken: t - 1)
                case .date(let date):
                    let before = ISODate.millisecondString(from: date)
                    cut = HistoryCut(throughToken: try store.lastHistoryToken(before: before), before: before)
                }
                if !force, let lowest = try store.lowestHistoryConsumer(), lowest.token < cut.throughToken {
                    cut.throughToken = lowest.token
                    report.limitedByConsumer = lowest.name
                }
                let size = try store.historySize(of: cut)
                report.transactions = size.transactions
                report.changes = size.changes
                report.throughToken = size.lastToken
                sizeBefore = try store.databaseSizeBytes()
                // A date cut-off also compacts the sync state's tombstones of before it that every
                // known library acknowledged (issue 29 item 4); a token cut-off names history
                // tokens, which tombstones do not carry, and leaves them.
                if let before = cut.before {
                    let done = try TombstoneCompaction(sync: syncStore, catalog: catalogStore).run(before: before)
                    (report.tombstones, report.syncEntries) = done
                }
                guard size.transactions > 0 else { return }
                try store.deleteHistory(cut, reclaimingSpace: !isDryRun)
                if isDryRun { report.bytes = max(0, try store.freeSpaceBytes() - freeBefore) }
            }
            guard !isDryRun else { return report }
            // Also when nothing was deleted: a compaction killed after its commit left the
            // library FULL (see `HistoryCompactionStore.reclaimSpace`), and the next one, which
            // usually finds nothing left to delete, sets it back. The store may have returned
            // the space at the commit already: the bytes are measured from before the deletes.
            _ = try store.reclaimSpace()
            report.bytes = max(0, sizeBefore - (try store.databaseSizeBytes()))
        } catch {
            throw LibraryError.wrap(error, library: root)
        }
        return report
    }
}
