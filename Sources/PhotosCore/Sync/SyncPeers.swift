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
        _ = try other.exportChangeset(to: temp, since: since, progress: progress)
        return try applyChangeset(at: temp, author: author, progress: progress)
    }
}

extension Library {
    /// The changeset format the composition root injected.
    /// - Throws: `SyncError` `.notConfigured` when none was (a bug of the program that opened the library).
    func changesetBackend() throws -> any ChangesetBackend {
        guard let changesets else {
            throw SyncError(.notConfigured, "no changeset format was configured for library \(root)")
        }
        return changesets
    }
}
