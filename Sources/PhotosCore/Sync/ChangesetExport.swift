import Foundation
import PhotosFiles
import PhotosModel

/// What a changeset holds (written by `sync --export`, read back by `sync --apply`).
public struct ChangesetReport: Equatable, Sendable {
    /// The sender's library id.
    public var sender = ""
    /// `library`, or the one zone's id.
    public var scope = "library"
    /// The sender's change tokens covered: after `fromToken` up to and including `toToken`.
    public var fromToken: Int64 = 0
    public var toToken: Int64 = 0
    /// Objects (photos, tags, ratings, links, shares, participants) with at least one entry.
    public var objects = 0
    /// Attribute entries (tombstones included).
    public var entries = 0
    /// Tombstones.
    public var deletes = 0
    /// Originals carried.
    public var originals = 0
    /// Bytes of the changeset folder (database and originals).
    public var bytes: Int64 = 0
    /// The token asked for when it was beyond this library's newest change token, so that the
    /// changeset holds every change instead (nil otherwise).
    public var unservedToken: Int64?
    /// With `originalsInPlace`: each original the changeset names, by its name in the changeset
    /// (`originals/SHA`) and the library file that holds it, for `ChangesetStream.send` to read
    /// from there (nothing is copied into the folder).
    public var originalsInPlace: [ChangesetStream.FileSource] = []

    public init() {}

    public var json: JSONValue {
        .object([
            ("sender", .string(sender)), ("scope", .string(scope)), ("fromToken", .int(Int(fromToken))),
            ("toToken", .int(Int(toToken))), ("objects", .int(objects)), ("entries", .int(entries)),
            ("deletes", .int(deletes)), ("originals", .int(originals)), ("bytes", .int(Int(bytes))),
            ("unservedToken", unservedToken.map { .int(Int($0)) } ?? .null)
        ])
    }
}

extension Library {
    /// The scope name of a changeset of every zone.
    public static let wholeLibraryScope = "library"

    /// Writes a changeset folder at `path` (which must not exist): for `zone` (or every zone),
    /// every change after this library's change token `since` — each changed object's entries
    /// with their values and stamps, tombstones, the thumbnails and originals of its photos, this
    /// library's id as sender, the token range, and what this library has applied from others
    /// (so the receiver knows what it need not send back). This library's own changes are first
    /// folded into its sync state (`SyncReconciler`, one write transaction).
    ///
    /// The folder is built under a temporary name beside `path` and renamed into place, so a
    /// crash never leaves a half-written changeset under `path`.
    /// - Parameters:
    ///   - path: the changeset folder to create.
    ///   - since: a change token of this library (0: everything).
    ///   - zone: one zone, or nil for the whole library.
    ///   - participant: for a share's changeset, the participant it is for.
    /// - Throws: `SyncError` `.cannotCreate` when `path` exists or cannot be created, `.cannotWrite` when writing fails;
    ///   `LibraryError` for the store's failures.
    public func exportChangeset(
        to path: String, since: Int64, zone: String? = nil, participant: String? = nil,
        including include: ((SyncEntry) -> Bool)? = nil, originalsInPlace: Bool = false,
        progress: ((_ done: Int, _ total: Int, _ bytes: Int64) -> Void)? = nil
    ) throws -> ChangesetReport {
        var st = stat()
        if lstat(path, &st) == 0 {
            throw SyncError(.cannotCreate, "\(path) exists; give a new name for the changeset")
        }
        let state = try write { () throws -> SyncState in
            var reconciler = try SyncReconciler(store: syncStore)
            return try reconciler.run()
        }
        // A token beyond this library's newest (it was restored from an older backup, or the
        // peer's acknowledgement is of a library that no longer exists): the range asked for
        // cannot be served, so the changeset holds everything (of the zone), and says so.
        var since = since
        var restarted: Int64?
        if since > state.changeToken {
            restarted = since
            since = 0
        }
        let temp = path + ".photos-tmp-\(getpid())"
        try? FileManager.default.removeItem(atPath: temp)
        do {
            try Library.makeFolders(temp + "/" + changesetOriginalsFolder, library: temp)
        } catch {
            throw SyncError(.cannotCreate, "cannot create changeset \(path): \(error)")
        }
        var report = ChangesetReport()
        do {
            report = try store.readTransaction {
                try writeChangeset(
                    temp, state: state, since: since, zone: zone, participant: participant, include: include,
                    originalsInPlace: originalsInPlace, progress: progress)
            }
            if rename(temp, path) != 0 {
                throw SyncError(.cannotCreate, "cannot create changeset \(path): \(String(cString: strerror(errno)))")
            }
        } catch {
            try? FileManager.default.removeItem(atPath: temp)
            if let e = error as? FileError { throw SyncError(.cannotWrite, "cannot write changeset \(path): \(e)") }
            throw error
        }
        report.bytes = Library.folderBytes(path)
        report.unservedToken = restarted
        return report
    }

    private func writeChangeset(
        _ folder: String, state: SyncState, since: Int64, zone: String?, participant: String?,
        include: ((SyncEntry) -> Bool)?, originalsInPlace: Bool, progress: ((Int, Int, Int64) -> Void)?
    ) throws -> ChangesetReport {
        let file = try changesetBackend().create(path: folder + "/" + changesetBackend().fileName)
        var report = ChangesetReport()
        report.sender = state.libraryID
        report.scope = zone ?? Library.wholeLibraryScope
        report.fromToken = min(since, state.changeToken)
        report.toToken = state.changeToken
        try file.write(
            ChangesetHeader(
                sender: state.libraryID, scope: report.scope, fromToken: report.fromToken, toToken: report.toToken,
                created: ISODate.string(from: Date()), participant: participant))
        for applied in try syncStore.appliedTokens() {
            try file.writeAcknowledgement(library: applied.sender, scope: applied.scope, token: applied.token)
        }
        // Every object with an entry after the token goes whole (all its entries), so that a
        // receiver lacking it can materialize it.
        // Zones shared with this library travel between their owner and this library only
        // (`share export`), never to this library's peers, which are no participants.
        let shared = zone == nil ? Set(try syncStore.memberships().map(\.zone)) : []
        let include: ((SyncEntry) -> Bool)? =
            shared.isEmpty ? include : { e in !shared.contains(e.zone ?? "") && (include?(e) ?? true) }
        var objects: [(SyncEntity, String)] = []
        var seen = Set<String>()
        try syncStore.forEachSyncEntry(after: since, zone: zone) { e in
            guard include?(e) ?? true else { return }
            if seen.insert(e.entity.rawValue + " " + e.objectID).inserted { objects.append((e.entity, e.objectID)) }
        }
        // A photo goes with all its originals (issue 24 item 2): its `PhotoData` objects whole,
        // whether or not they changed after the token, so a receiver lacking the photo gets them.
        var withOriginals: [(SyncEntity, String)] = []
        for (entity, id) in objects {
            withOriginals.append((entity, id))
            guard entity == .photo else { continue }
            for data in SyncEntity.photoDataIDs(ofPhoto: id) where seen.insert("PhotoData " + data).inserted {
                withOriginals.append((.photoData, data))
            }
        }
        objects = withOriginals
        var originalBytes: Int64 = 0
        /// Copies the original `sha` into the changeset once (`originals/SHA`).
        var inPlace = Set<String>()
        func carry(_ sha: String, of id: String) throws {
            let relative = changesetOriginalsFolder + "/" + sha
            var st = stat()
            if lstat(folder + "/" + relative, &st) == 0 || inPlace.contains(sha) { return }
            if originalsInPlace {
                // Named, not copied: the stream reads it from the library, hashed as it is sent
                // (`ChangesetStream.send` stops at a file whose bytes are not its SHA-256).
                let source = externalData.path(for: ExternalDataStore.reference(for: sha))
                guard lstat(source, &st) == 0, st.st_mode & S_IFMT == S_IFREG else {
                    throw SyncError(
                        .refused, "the original \(sha) of photo \(id) is missing or not a file (run 'photos verify')")
                }
                inPlace.insert(sha)
                try file.write(ChangesetOriginal(sha256: sha, byteSize: Int(st.st_size), path: relative))
                report.originalsInPlace.append(ChangesetStream.FileSource(name: relative, path: source))
                report.originals += 1
                originalBytes += Int64(st.st_size)
                return
            }
            // Streamed and hashed as it is copied (memory one chunk, issue 31 item 20).
            let byteCount: Int
            do {
                byteCount = try AtomicFile.copy(
                    from: externalData.path(for: ExternalDataStore.reference(for: sha)), to: folder + "/" + relative,
                    expectedSHA256: sha, durability: .deferred)
            } catch let e as FileError where e.kind == .unacceptable {
                throw SyncError(
                    .refused,
                    "the original \(sha) of photo \(id) does not have its recorded SHA-256 or is sparse (run 'photos verify'): \(e.reason)"
                )
            }
            try file.write(ChangesetOriginal(sha256: sha, byteSize: byteCount, path: relative))
            report.originals += 1
            originalBytes += Int64(byteCount)
        }
        for (index, (entity, id)) in objects.enumerated() {
            defer { progress?(index + 1, objects.count, originalBytes) }
            // SIGINT, SIGTERM, SIGHUP (issue 31 item 19): the half-written folder is removed.
            if index % 64 == 0 { try StopSignal.check() }
            let entries = try syncStore.syncEntries(entity, id).filter { include?($0) ?? true }
            // The originals of a deleted photo went with it (its tombstone says all).
            if entity == .photoData,
                try entries.isEmpty
                    || syncStore.syncEntries(.photo, String(id.prefix { $0 != "/" })).contains(where: {
                        $0.attribute == SyncEntity.deleted
                    })
            {
                continue
            }
            report.objects += 1
            for e in entries {
                try file.write(e)
                report.entries += 1
                if e.attribute == SyncEntity.deleted { report.deletes += 1 }
            }
            if entity == .photoData {
                if let sha = entries.first(where: { $0.attribute == "sha256" })?.value {
                    try carry(sha, of: String(id.prefix { $0 != "/" }))
                }
                continue
            }
            guard entity == .photo, !entries.contains(where: { $0.attribute == SyncEntity.deleted }),
                let sha = entries.first(where: { $0.attribute == "sha256" })?.value,
                let rowID = try syncStore.rowID(.photo, id)
            else { continue }
            if let thumb = try catalogStore.thumbnail(ofPhoto: rowID) {
                try file.writeThumbnail(photo: id, data: thumb.data, width: thumb.width, height: thumb.height)
            }
            try carry(sha, of: id)
        }
        try file.finish()
        try Durability.syncFileSystem(containing: folder)
        return report
    }

    /// Bytes of the regular files under `path`.
    static func folderBytes(_ path: String) -> Int64 {
        var total: Int64 = 0
        guard let walker = FileManager.default.enumerator(atPath: path) else { return 0 }
        for case let name as String in walker {
            var st = stat()
            if lstat(path + "/" + name, &st) == 0, st.st_mode & S_IFMT == S_IFREG { total += Int64(st.st_size) }
        }
        return total
    }
}
