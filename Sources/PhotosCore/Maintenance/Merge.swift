import Foundation
import PhotosFiles
import PhotosImaging
import PhotosModel

/// What `photos merge` brought in (or, with `--dry-run`, would bring in).
public struct MergeReport: Equatable {
    public var zones = 0
    public var shares = 0
    public var participants = 0
    public var photos = 0
    /// Photos of the other library that matched one here (by uniqueName, then SHA-256).
    public var matchedPhotos = 0
    /// Matched photos that were in another zone here and moved to the zone both peers settle on.
    public var movedPhotos = 0
    public var ratings = 0
    public var tags = 0
    public var tagLinks = 0
    /// Originals besides a primary added to photos here (issue 24 item 2: a RAW of a RAW+JPEG pair).
    public var originals = 0
    /// Original files copied into this library's external data.
    public var filesCopied = 0
    /// Of those, originals of photos already here that were missing or of another size: the
    /// other library's intact copy restored them (issue 9 item 8, "heal instead of forget").
    public var originalsRestored = 0
    public var bytesCopied: Int64 = 0
    public var dryRun = false

    /// True when nothing would change.
    public var isEmpty: Bool {
        zones + shares + participants + photos + movedPhotos + ratings + tags + tagLinks + originals == 0
    }

    public var json: JSONValue {
        .object([
            ("zones", .int(zones)), ("shares", .int(shares)), ("participants", .int(participants)),
            ("photos", .int(photos)), ("matchedPhotos", .int(matchedPhotos)), ("movedPhotos", .int(movedPhotos)),
            ("ratings", .int(ratings)),
            ("tags", .int(tags)), ("tagLinks", .int(tagLinks)), ("filesCopied", .int(filesCopied)),
            ("originalsRestored", .int(originalsRestored)),
            ("bytesCopied", .int(Int(bytesCopied))), ("dryRun", .bool(dryRun))
        ])
    }
}

extension Library {
    /// The thumbnail a merged photo brings, when it is sound (`thumbnailProblem`); otherwise
    /// one made again from the original here, through the import's `Thumbnailer`, so that a
    /// damaged thumbnail of the other library never comes in (issue 9 item 11). Nil when none
    /// can be had (`verify` then reports the missing thumbnail).
    func soundThumbnail(
        _ source: (data: [UInt8], width: Int, height: Int)?, photoWidth: Int?, photoHeight: Int?,
        original reference: String
    ) throws -> (data: [UInt8], width: Int, height: Int)? {
        guard let w = photoWidth, let h = photoHeight else { return source }
        if let source,
            Library.thumbnailProblem(
                source.data, width: source.width, height: source.height,
                photoWidth: Int(w), photoHeight: Int(h)) == nil
        {
            return source
        }
        guard
            let file = try? ImageFile.read(
                path: externalData.path(for: reference), maxBytes: ThumbnailOptions().maxFileBytes),
            let made = try? file.bytes.withUnsafeBytes({
                try Thumbnailer.makeThumbnail(from: $0, options: ThumbnailOptions())
            })
        else {
            return nil
        }
        return (made.thumbnail, made.thumbnailWidth, made.thumbnailHeight)
    }

    /// The zone two peers settle on for a photo they have in different zones: a share's zone
    /// over the default zone, else the smaller id. Commutative and idempotent, so any order of
    /// merges between any number of peers ends with the same zone everywhere.
    static func mergedZone(_ a: String, _ b: String) -> String {
        if a == ZoneID.default.rawValue { return b }
        if b == ZoneID.default.rawValue { return a }
        return min(a, b)
    }

    /// Brings another library's content into this one, the way two peers' stores meet (SPEC §5
    /// merge): zones and shares matched by id (created when absent, with title, permission and
    /// participants); photos matched by uniqueName, then by SHA-256 (same bytes = same photo;
    /// this library's uniqueName stays); new photos come with their original, thumbnail and
    /// ratings; tags matched by uuid (created with the same uuid in the same zone when absent);
    /// tag links unioned. Same-named tags with different uuids are then duplicates for
    /// `dedupe-tags`. Merging the same library again changes nothing.
    ///
    /// Everything happens under the write lock: the originals this library lacks are copied
    /// (temporary file, fsync, rename), then every row is inserted in one transaction (author
    /// `merge` unless `--author` is given, context `merge`); merge deletes nothing, so it records
    /// no tombstones; when that transaction fails, the copied files are removed.
    ///
    /// A photo the two libraries hold in different zones settles in the same zone on both
    /// (`mergedZone`: a share's zone over the default zone, else the smaller id) and moves
    /// there with its data, thumbnail, ratings and tags, so peers converge.
    ///
    /// A link whose photo lives in another zone here than its tag's zone would cross zones; it is
    /// made to the same-named tag of the photo's zone instead (created when absent), as a move
    /// into a share does.
    ///
    /// `other` is only read, never migrated: one of an older schema version gives its rows as
    /// the migrations would convert them (version 1: capture date kept as wall-clock time,
    /// offset unknown, source `exif`).
    ///
    /// A dry run (`dryRun`, or a library in dry-run mode) runs this same code: the transaction
    /// is rolled back and no original is copied or restored (`filesCopied` and
    /// `originalsRestored` count those a real run copies).
    /// `progress` is called on this thread after each of `other`'s photos has its original in
    /// place (copied, or already here), with (photos done, photos in all, bytes of their originals).
    /// - Throws: `MergeError.intoItself` when `other` is this library, `.originalMismatch` when an
    ///   original there does not have its SHA-256; `LibraryError.busy` when busy; `SQLiteError`.
    public func merge(
        from other: Library, dryRun: Bool = false, author: HistoryAuthor = .default,
        progress: ((_ done: Int, _ total: Int, _ bytes: Int64) -> Void)? = nil
    ) throws -> MergeReport {
        guard (other.root as NSString).standardizingPath != (root as NSString).standardizingPath else {
            throw MergeError.intoItself(library: root)
        }
        return try self.dryRun(dryRun) { try mergeRows(from: other, author: author, progress: progress) }
    }

    private func mergeRows(from other: Library, author: HistoryAuthor, progress: ((Int, Int, Int64) -> Void)?) throws
        -> MergeReport
    {
        let session = try MergeSession(library: self, other: other, author: author)
        session.progress = progress
        // Originals are copied once the write lock is held (so that a merge that cannot get it
        // exits 75 having written nothing) and under the shared import lock, so that
        // `verify --repair` does not take them for orphans.
        var importLock = lockImports(exclusive: false)
        defer { if let importLock { close(importLock) } }
        do {
            try write { try session.run() }
        } catch {
            // Rolled back: the originals copied for it are unreferenced again; removed unless
            // another import, merge or apply may commit them (issue 31 item 16).
            removeUncommittedFiles(session.copied, importLock: &importLock)
            throw error
        }
        return session.report
    }
}
