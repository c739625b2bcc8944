/// A photo as `verify` names it: its uniqueName and displayName.
public struct PhotoName: Hashable, Sendable {
    public var uniqueName: String
    public var displayName: String

    public init(uniqueName: String, displayName: String) {
        self.uniqueName = uniqueName
        self.displayName = displayName
    }
}

/// One rating row with its author, as `verify` checks one rating per author per photo.
public struct AuthoredRating: Sendable {
    public var photo: PhotoName
    /// The `rating` row's id.
    public var rowID: Int64
    /// The transaction author who set it, as stored.
    public var author: String
    /// 1-5 stars.
    public var value: Int

    public init(photo: PhotoName, rowID: Int64, author: String, value: Int) {
        self.photo = photo
        self.rowID = rowID
        self.author = author
        self.value = value
    }
}

/// A photo's recorded original (`photo_data` joined to `photo`).
public struct RecordedOriginal: Sendable {
    public var photo: PhotoName
    /// 64 lowercase hex digits, as recorded (verify checks that they are).
    public var sha256: String
    /// Bytes, as recorded.
    public var byteSize: Int
    /// Where the original is in external data (`ab/abcdef…`).
    public var fileReference: String
    public var zone: String
    /// Its `photo_data` row's id: the row order verify reports problems in, whatever order the
    /// store read the rows in (`VerifyStore.forEachRecordedOriginal`).
    public var rowID: Int64

    public init(
        photo: PhotoName, sha256: String, byteSize: Int, fileReference: String, zone: String, rowID: Int64
    ) {
        self.rowID = rowID
        self.photo = photo
        self.sha256 = sha256
        self.byteSize = byteSize
        self.fileReference = fileReference
        self.zone = zone
    }
}

/// A stored thumbnail with the size of its photo, in pixels as stored.
public struct RecordedThumbnail: Sendable {
    public var photo: PhotoName
    /// JPEG bytes.
    public var data: [UInt8]
    public var width: Int
    public var height: Int
    public var photoWidth: Int
    public var photoHeight: Int

    public init(photo: PhotoName, data: [UInt8], width: Int, height: Int, photoWidth: Int, photoHeight: Int) {
        self.photo = photo
        self.data = data
        self.width = width
        self.height = height
        self.photoWidth = photoWidth
        self.photoHeight = photoHeight
    }
}

/// What `verify --quick` reads of a stored thumbnail: its first bytes, its last two and its
/// length (computed by the store, so the rest of the thumbnail is never sent), with the size of
/// its photo, in pixels as stored.
public struct ThumbnailHead: Sendable {
    public var photo: PhotoName
    /// The thumbnail's first bytes: at most the number asked for, all of them when it is shorter.
    public var head: [UInt8]
    /// Its last two bytes (fewer when it is shorter).
    public var last: [UInt8]
    /// Its length, bytes.
    public var byteCount: Int
    public var width: Int
    public var height: Int
    public var photoWidth: Int
    public var photoHeight: Int
    /// Its `thumbnail` row's id: the row order verify reports problems in, whatever order the
    /// store read the rows in (`VerifyStore.forEachThumbnailHead`).
    public var rowID: Int64

    public init(
        photo: PhotoName, head: [UInt8], last: [UInt8], byteCount: Int, width: Int, height: Int, photoWidth: Int,
        photoHeight: Int, rowID: Int64
    ) {
        self.rowID = rowID
        self.photo = photo
        self.head = head
        self.last = last
        self.byteCount = byteCount
        self.width = width
        self.height = height
        self.photoWidth = photoWidth
        self.photoHeight = photoHeight
    }
}

/// A tag link whose tag is of another zone than its photo (SPEC §2 invariant 4).
public struct CrossZoneTagLink: Sendable {
    public var photo: PhotoName
    public var photoZone: String
    public var tagName: String
    public var tagUUID: String
    public var tagZone: String

    public init(photo: PhotoName, photoZone: String, tagName: String, tagUUID: String, tagZone: String) {
        self.photo = photo
        self.photoZone = photoZone
        self.tagName = tagName
        self.tagUUID = tagUUID
        self.tagZone = tagZone
    }
}

/// A foreign key that points nowhere (`PRAGMA foreign_key_check`).
public struct DanglingReference: Sendable {
    /// The table of the referring row.
    public var table: String
    public var rowID: Int64
    /// The table it should reference.
    public var parent: String

    public init(table: String, rowID: Int64, parent: String) {
        self.table = table
        self.rowID = rowID
        self.parent = parent
    }
}

/// A tag as stored.
public struct RecordedTag: Sendable {
    public var uuid: String
    public var name: String
    public var zone: String

    public init(uuid: String, name: String, zone: String) {
        self.uuid = uuid
        self.name = name
        self.zone = zone
    }
}

/// A second connection to a catalog, in a read-only transaction that sees exactly the state the
/// read transaction of the `VerifyStore` that opened it sees (`VerifyStore.openSnapshotReaders`),
/// so that `verify` runs some of its checks on it, on another thread, meanwhile.
///
/// Used by one thread at a time: the thread that opened it hands it to one other thread, which
/// reads through `store` and then `close()`s it (the transaction ended, the connection closed).
public final class VerifySnapshotReader: @unchecked Sendable {
    /// The reads, in the shared snapshot.
    public let store: any VerifyStore
    private var end: (() -> Void)?

    /// - Parameters:
    ///   - store: the second connection, its read transaction begun in the shared snapshot.
    ///   - end: ends that transaction and closes the connection (called once, by `close`).
    public init(store: any VerifyStore, end: @escaping () -> Void) {
        self.store = store
        self.end = end
    }

    /// Ends the read transaction and closes the connection; later calls do nothing.
    public func close() {
        end?()
        end = nil
    }

    deinit { close() }

    /// Up to `count` readers, each a connection made by `connect` (nil: it cannot be opened) whose
    /// read transaction `begin` starts in the shared snapshot; the first connection that cannot
    /// be opened or begun ends the list (fewer readers: verify does their checks itself). `end`
    /// ends a connection's transaction and closes it: at once for one that failed to begin, else
    /// at the reader's `close`.
    public static func open<Store: VerifyStore>(
        count: Int, connect: () -> Store?, begin: (Store) throws -> Void, end: @escaping (Store) -> Void
    ) -> [VerifySnapshotReader] {
        var readers: [VerifySnapshotReader] = []
        for _ in 0..<max(0, count) {
            guard let connection = connect() else { break }
            do {
                try begin(connection)
            } catch {
                end(connection)
                break
            }
            readers.append(VerifySnapshotReader(store: connection) { end(connection) })
        }
        return readers
    }
}

/// The reads `photos verify` checks the SPEC §2 invariants on, and the writes of its repairs.
/// Core decides what is a problem and what repairs it; a store only reads and writes rows.
///
/// Designed for a second implementation on PostgreSQL (libpq) without changing Core:
/// - The reads run inside the caller's read transaction (SQLite: a deferred transaction, a WAL
///   snapshot; PostgreSQL: REPEATABLE READ READ ONLY), so all checks see one state.
/// - `storageProblems` is the backend's own consistency check: SQLite `PRAGMA integrity_check`
///   (`PRAGMA quick_check` when not `thorough`: the same page and record checks without matching
///   every index against its table, O(N) instead of O(N log N), SQLite docs "PRAGMA
///   quick_check"); PostgreSQL has none in SQL (amcheck's `bt_index_check` where installed, else none). Its
///   foreign keys are enforced, so `danglingReferences` is empty there.
/// - Display names come back as bytes (`CAST(… AS BLOB)` here, `convert_to(…, 'UTF8')` there),
///   since a stored NUL would cut a C string short (PostgreSQL text cannot hold NUL at all).
/// - The repair writes run inside the caller's write transaction (`Library.write`: SQLite BEGIN
///   IMMEDIATE; PostgreSQL a transaction-level advisory lock) and name photos by uniqueName,
///   never by a row id Core would have to remember across transactions; the insert of a tag
///   returns its id (`RETURNING id` on both).
public protocol VerifyStore: AnyObject {
    /// The backend's own consistency report, one line per problem; empty when sound. Not
    /// `thorough` (`verify --quick`): the backend's cheaper check, which skips the cross-check
    /// of indexes against tables.
    /// - Throws: the store's error.
    func storageProblems(thorough: Bool) throws -> [String]
    /// Rows whose foreign key points nowhere.
    /// - Throws: the store's error.
    func danglingReferences() throws -> [DanglingReference]
    /// Up to `count` more connections to this catalog, each in a read-only transaction that
    /// sees exactly the snapshot of this store's read transaction (opened first by the caller,
    /// nothing read in it yet), so that checks may run on other threads and still see one state
    /// of the catalog. PostgreSQL: `pg_export_snapshot()` here and `SET TRANSACTION SNAPSHOT`
    /// there (PostgreSQL docs §9.27.5, `SET TRANSACTION`); SQLite has no such call in Debian's
    /// build (`sqlite3_snapshot_open` needs `SQLITE_ENABLE_SNAPSHOT`), so it holds the write
    /// lock on a third connection (`BEGIN IMMEDIATE`) while this one and the others begin their
    /// WAL snapshots: no commit can fall between them (https://www.sqlite.org/wal.html,
    /// "Concurrency"). Empty when that cannot be had (a read-only library, a writer holding
    /// the lock longer than a second): the caller then runs every check on this store.
    /// - Throws: the store's error from this connection; a failure to open another one is
    ///   not an error (fewer readers).
    func openSnapshotReaders(count: Int) throws -> [VerifySnapshotReader]

    /// Tag links across zones, in row order.
    /// - Throws: the store's error.
    func crossZoneTagLinks() throws -> [CrossZoneTagLink]
    /// Photos whose displayName no file can have (empty, a NUL byte, a `/`, `.` or `..`), by
    /// uniqueName, with the displayName's bytes (UTF-8 as stored).
    /// - Throws: the store's error.
    func photosWithImpossibleDisplayName() throws -> [(uniqueName: String, displayName: [UInt8])]
    /// Groups of photos of one record zone whose originals have the same SHA-256, by SHA-256
    /// then zone, each in row order. Photos of different zones may share an original (the
    /// duplicate rule holds per zone, issue 31 A1): one file, which stays while any row of any
    /// zone references it.
    /// - Throws: the store's error.
    func photosSharingOriginals() throws -> [(sha256: String, photos: [PhotoName])]
    /// Groups of photos whose uniqueNames differ only in case, each in row order. uniqueNames
    /// are UUID strings, whose hexadecimal digits are case-insensitive (RFC 9562 §4), so two
    /// of them are one identity (and collide on a case-insensitive file system as sidecar
    /// names); folded as ASCII.
    /// - Throws: the store's error.
    func photosWithUniqueNamesDifferingInCase() throws -> [[PhotoName]]
    /// The authored ratings (author not NULL) of every photo that has at least two of them, by
    /// photo then rating row order: where one author may have rated a photo twice (the one
    /// rating per author per photo of SPEC's ratings, broken only by outside writes).
    /// - Throws: the store's error.
    func authoredRatingsOfPhotosRatedTwice() throws -> [AuthoredRating]
    /// Every tag, by zone, name, then uuid.
    /// - Throws: the store's error.
    func allTags() throws -> [RecordedTag]
    /// Calls `body` with every photo's recorded original, one at a time, each with its row id
    /// (`RecordedOriginal.rowID`), in the order the store reads cheapest: SQLite in row order of
    /// `photo_data`, PostgreSQL in order of the photos' ids (a merge join of two index scans
    /// instead of a million index searches of `photo`). A store reads them as it goes (SQLite
    /// steps its statement, PostgreSQL fetches pages from a cursor), so memory holds one
    /// original (or one page), not the catalog's every row.
    /// - Throws: the store's error, or what `body` throws.
    func forEachRecordedOriginal(_ body: (RecordedOriginal) throws -> Void) throws
    /// Calls `body` with the SHA-256 of each recorded original (`photo_data` row) that starts
    /// with `shard` (two lowercase hex digits: a folder of external data, `ab`), in SHA-256
    /// order, read as the store goes (a range of the index on `photo_data.sha256`: `sha256 >=
    /// 'ab' AND sha256 < 'ac'`, an index-only scan on both backends), so that verify's orphan
    /// check holds one shard's originals (about 1/256 of the catalog), never every reference
    /// (issue 31 item A11).
    /// - Parameter shard: two lowercase hex digits.
    /// - Throws: the store's error, or what `body` throws.
    func forEachRecordedSHA256(inShard shard: String, _ body: (String) throws -> Void) throws
    /// What a deletion of each photo of `uniqueNames` would take along: its ratings and tag
    /// links, by uniqueName (a name without a photo is left out). Asked for the few photos
    /// whose original is missing, after the scan, so that `forEachRecordedOriginal` does not
    /// count them for every photo (two index lookups a row: 1.1 s instead of 0.26 s of the scan
    /// of 100,000 rows on PostgreSQL).
    /// - Throws: the store's error.
    func ratingAndTagLinkCounts(ofPhotos uniqueNames: [String]) throws -> [String: (ratings: Int, tagLinks: Int)]
    /// Number of photos.
    /// - Throws: the store's error.
    func photoCount() throws -> Int
    /// Number of recorded originals (`photo_data` rows).
    /// - Throws: the store's error.
    func recordedOriginalCount() throws -> Int
    /// Photos without their `photo_data` row.
    /// - Throws: the store's error.
    func photosWithoutOriginal() throws -> [PhotoName]
    /// Photos without a thumbnail.
    /// - Throws: the store's error.
    func photosWithoutThumbnail() throws -> [PhotoName]
    /// Calls `body` with each thumbnail in row order, one at a time (never all in memory).
    /// - Throws: the store's error, or what `body` throws.
    func forEachThumbnail(_ body: (RecordedThumbnail) throws -> Void) throws

    /// Calls `body` with the head of each thumbnail, with its row id (`ThumbnailHead.rowID`),
    /// one at a time, in the order the store reads cheapest (SQLite: row order; PostgreSQL: the
    /// photos' ids, as `forEachRecordedOriginal`): its first
    /// `headBytes` bytes, last two bytes and length, cut out by the store's SQL (SQLite
    /// `substr`/`length` on the BLOB, PostgreSQL `substring`/`octet_length` on the BYTEA), so
    /// that a 3 KB thumbnail costs about `headBytes` bytes read out of the store, and nothing more
    /// than that is sent by a server (`verify --quick`).
    /// - Parameter headBytes: how many bytes of each thumbnail's start, at least 1.
    /// - Throws: the store's error, or what `body` throws.
    func forEachThumbnailHead(headBytes: Int, _ body: (ThumbnailHead) throws -> Void) throws
    /// The whole thumbnail of photo `uniqueName`, or nil when it has none (for the rare
    /// thumbnail whose head is too short to check).
    /// - Throws: the store's error.
    func thumbnailData(photo uniqueName: String) throws -> [UInt8]?

    /// Moves the link of photo `uniqueName` (in `zone`) from the tag `tagUUID` of another zone to
    /// the same-named tag of `zone` (names compared in NFC; the smallest uuid when several), creating that tag with
    /// `newUUID` when absent.
    /// - Returns: nil when there is no such crossing link (nothing changed); else whether the
    ///   tag was created.
    /// - Throws: the store's error.
    func relinkTag(
        photo uniqueName: String, zone: String, from tagUUID: String, toTagNamed name: String,
        newUUID: String
    ) throws -> (createdTag: Bool, uuid: String)?
    /// Points the `photo_data` row of photo `uniqueName` recorded as `from` at `to`.
    /// - Returns: the photo's zone, or nil when no such row exists (nothing changed).
    /// - Throws: the store's error.
    func replaceFileReference(photo uniqueName: String, from: String, to: String) throws -> String?
    /// Replaces (or inserts) the thumbnail of photo `uniqueName`; sizes in pixels.
    /// - Returns: the photo's zone and whether a thumbnail was inserted (none before); nil when
    ///   no such photo exists.
    /// - Throws: the store's error.
    func storeThumbnail(photo uniqueName: String, data: [UInt8], width: Int, height: Int) throws -> (
        zone: String, inserted: Bool
    )?
}

/// Photos grouped by a key, from rows that a query returned ordered by that key: consecutive rows
/// with the same key form one group, in row order (the one grouping of `photosSharingOriginals`
/// and `photosWithUniqueNamesDifferingInCase`, whatever the backend).
/// - Parameter rows: (key, photo) pairs, ordered by key.
/// - Returns: one (key, photos) pair per run of equal keys.
public func groupConsecutive(_ rows: [(key: String, photo: PhotoName)]) -> [(key: String, photos: [PhotoName])] {
    var groups: [(key: String, photos: [PhotoName])] = []
    for (key, photo) in rows {
        if groups.last?.key == key {
            groups[groups.count - 1].photos.append(photo)
        } else {
            groups.append((key, [photo]))
        }
    }
    return groups
}

extension VerifyStore {
    /// Every photo's recorded original, in row order of `photo_data` (`forEachRecordedOriginal`
    /// collected: for small catalogs and tests).
    /// - Throws: the store's error.
    public func recordedOriginals() throws -> [RecordedOriginal] {
        var rows: [RecordedOriginal] = []
        try forEachRecordedOriginal { rows.append($0) }
        return rows.sorted { $0.rowID < $1.rowID }
    }
}
