import Foundation
import PhotosModel

extension Library {
    /// The last change token of this library that `peer` acknowledged (what it has applied from
    /// here, as its changesets report), 0 when it never did: where `sync --export --since-peer`
    /// starts.
    /// - Throws: `LibraryError` for the store's failures.
    public func acknowledgedToken(peer: String, scope: String = Library.wholeLibraryScope) throws -> Int64 {
        do {
            return try store.readTransaction { try syncStore.acknowledgedToken(peer: peer, scope: scope) } ?? 0
        } catch { throw LibraryError.wrap(error, library: root) }
    }

    /// The last change token applied here from `sender`, 0 when none.
    /// - Throws: `LibraryError` for the store's failures.
    public func appliedToken(sender: String, scope: String = Library.wholeLibraryScope) throws -> Int64 {
        do {
            return try store.readTransaction { try syncStore.appliedToken(sender: sender, scope: scope) } ?? 0
        } catch { throw LibraryError.wrap(error, library: root) }
    }

    /// `photos sync --from OTHER`: a changeset of `other` holding what this library has not
    /// applied from it yet (after the last token applied here), written to a temporary folder
    /// inside this library and applied here, then removed. `other` folds its own changes into
    /// its sync state first (a write there, like any export).
    /// - Throws: `MergeError.intoItself` for this library; what `exportChangeset` and
    ///   `applyChangeset` throw.
    public func sync(
        from other: Library, author: HistoryAuthor = .default,
        progress: ((_ done: Int, _ total: Int, _ bytes: Int64) -> Void)? = nil
    ) throws -> ApplyReport {
        guard (other.root as NSString).standardizingPath != (root as NSString).standardizingPath else {
            throw MergeError.intoItself(library: root)
        }
        // Before `other` writes anything: the changeset's originals go into this catalog's
        // originals root (issue 31 item A3).
        try requireOriginalsRoot()
        // A copy with this library's id (restored with --same-identity, a copied folder) is
        // named, not the temporary changeset (issue 31 item 7).
        let otherID = try other.libraryID()
        guard otherID != (try libraryID()) else { throw refusalOfOwnID("library \(other.root)", id: otherID) }
        let since = try appliedToken(sender: otherID)
        let temp = root + "/.photos-sync-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: temp) }
        // `other` learns that this library is a peer and what it has applied from there, so its
        // tombstone compaction waits for this library too (issue 29 item 4).
        try other.recordPull(by: try libraryID(), applied: since)
        _ = try other.exportChangeset(to: temp, since: since, progress: progress)
        return try applyChangeset(at: temp, author: author, progress: progress)
    }
}

extension Library {
    /// Records that library `peer` pulls from here (`sync --from`, locally or over SSH) having
    /// applied this library's changes through token `applied`: its acknowledgement of the whole
    /// library, kept when lower than the one stored, capped at this library's own newest change
    /// token (a larger one is a clock or a restored copy, never an acknowledgement of changes
    /// not made). Tombstone compaction then waits for `peer` as for any peer that sent a
    /// changeset (`TombstoneCompaction`).
    /// - Throws: `SyncError` `.refused` when `peer` is not a library id (a lowercase UUID);
    ///   `LibraryError` for the store's failures.
    public func recordPull(by peer: String, applied: Int64) throws {
        guard SyncValues.isUUID(peer) else { throw SyncError(.refused, "\(peer.debugDescription) is not a library id") }
        do {
            try write {
                let own = try syncStore.syncState().changeToken
                try syncStore.setAcknowledgedToken(
                    peer: peer, scope: Library.wholeLibraryScope, token: max(0, min(applied, own)))
            }
        } catch let error as SyncError {
            throw error
        } catch {
            throw LibraryError.wrap(error, library: root)
        }
    }

    /// The changeset format the composition root injected.
    /// - Throws: `SyncError` `.notConfigured` when none was (a bug of the program that opened the library).
    func changesetBackend() throws -> any ChangesetBackend {
        guard let changesets else {
            throw SyncError(.notConfigured, "no changeset format was configured for library \(root)")
        }
        return changesets
    }
}
