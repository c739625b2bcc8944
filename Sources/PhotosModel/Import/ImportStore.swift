/// The photo a library already holds for an original's bytes.
public struct ImportedOriginal: Sendable {
    public var uniqueName: String
    public var displayName: String
    /// Where its original is in external data (`ab/abcdef…`).
    public var fileReference: String
    /// The record zone the photo is in.
    public var zone: String

    public init(uniqueName: String, displayName: String, fileReference: String, zone: String) {
        self.uniqueName = uniqueName
        self.displayName = displayName
        self.fileReference = fileReference
        self.zone = zone
    }
}

/// Where a photo of the same original makes a new one a duplicate (issue 31 A1: the duplicate
/// rule is an identity rule, and identity rules hold within the zones of one owner only).
public enum DuplicateScope: Sendable, Equatable {
    /// The photos of this zone only: a zone shared with this library by its owner (a
    /// participant's own copy of a file stays its own), or the zone a changeset writes.
    case zone(String)
    /// The photos of every zone of the private store (scope `private`: the default zone and
    /// this library's own shares), so that importing a folder again never makes a second
    /// photo of a file this library moved into one of its shares.
    case privateStore

    /// The one rule of which photos make a photo coming into `zone` a duplicate (SPEC §5
    /// "an identical file already in the library is skipped as a duplicate" and `merge`'s "same
    /// bytes = same photo", held within the zones of one owner by issue 31 A1): into a zone of
    /// scope `shared` (`zoneScope`, another library's share), its own photos only; into the
    /// default zone or a share of this library (scope `private`, or a zone not known yet), a
    /// photo of any zone of the private store. Import and merge both decide by this function.
    public static func forPhotos(into zone: String, zoneScope: String?) -> DuplicateScope {
        zoneScope == ZoneScope.shared.rawValue ? .zone(zone) : .privateStore
    }
}

/// The read `photos import`'s workers make per file: is this original's photo here already
/// ("same bytes = same photo", SPEC §5)? New photos are written by the batch writer through
/// the insert path merge shares (`PhotoWriter`).
///
/// Called from several worker threads, each on its own read connection (SQLite: a reader
/// connection per worker, WAL; PostgreSQL: a connection per worker from the pool), so a call
/// must not share a statement across connections. One indexed lookup per file (`photo_data`
/// by `sha256`), prepared once per connection.
public protocol ImportStore: AnyObject {
    /// The first photo (by row) of `scope` whose original has SHA-256 `sha256` (64 lowercase
    /// hex digits), or nil. A photo outside `scope` with the same original is no duplicate
    /// (issue 31 A1).
    /// - Throws: the store's error.
    func importedOriginal(sha256: String, in scope: DuplicateScope) throws -> ImportedOriginal?

    /// True when some photo of `scope` has an original of SHA-256 `sha256`: the batch writer's
    /// check, under the write lock, that no other process imported the same bytes there
    /// meanwhile (one indexed probe per new photo). On PostgreSQL it first takes the
    /// transaction-level advisory lock of `sha256`, so that two importers of one original
    /// never both see none (the second waits for the first to end).
    /// - Throws: the store's error (PostgreSQL `55P03`, busy, past the lock timeout).
    func hasOriginal(sha256: String, in scope: DuplicateScope) throws -> Bool

    /// True when some photo has uniqueName `uniqueName`: import's check, under the write lock,
    /// that the uniqueName a sidecar names (`photos:uniqueName`) is still free before the new
    /// photo takes it (one probe of the unique index per photo whose sidecar names one). The
    /// same requirement as `ExportStore.photoExists(uniqueName:)`: one implementation serves both.
    /// - Throws: the store's error.
    func photoExists(uniqueName: String) throws -> Bool
}
