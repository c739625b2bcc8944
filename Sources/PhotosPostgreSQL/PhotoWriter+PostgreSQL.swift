import PhotosModel

/// The insert path of new photos on PostgreSQL (import's batch writer and merge): a photo with
/// its photo data and thumbnail, tag links and ratings.
///
/// The SHA-256 duplicate rule (one photo per original, SPEC §3) is the UNIQUE constraint on
/// `photo_data.sha256` with `ON CONFLICT DO NOTHING` (PostgreSQL docs §"INSERT … ON CONFLICT"),
/// not a check-then-insert: when another importer's transaction has inserted the same original
/// and not yet ended, the insert waits for it, then either skips (it committed) or inserts (it
/// rolled back). Writers that insert several originals in one transaction take them in
/// ascending SHA-256 order, so two of them never wait for each other in a cycle (a deadlock
/// would fail one with `40P01`).
public final class PostgresPhotoWriter {
    private let db: PostgresDatabase

    /// Uses `db` inside the caller's write transaction.
    public init(_ db: PostgresDatabase) { self.db = db }

    /// Inserts a photo, its photo data and its thumbnail (when given), unless a photo of the
    /// same original (`sha256`) exists or is being inserted by a transaction that then commits.
    /// - Parameters:
    ///   - sha256: 64 lowercase hex digits of the original.
    ///   - byteSize: the original's size in bytes.
    ///   - fileReference: where the original is in external data.
    ///   - thumbnail: JPEG bytes and size in pixels, or nil.
    /// - Returns: the new photo's row id, or nil when the original is already in the catalog.
    /// - Throws: `PostgresError` (`23505` for a duplicate unique name; `55P03` busy when another
    ///   importer holding the same original does not end within the busy timeout).
    public func insert(
        _ photo: PhotoRow, sha256: String, byteSize: Int, fileReference: String,
        thumbnail: (data: [UInt8], width: Int, height: Int)?
    ) throws -> Int64? {
        let id = try db.insertReturningID(
            Inserts.photo,
            [
                photo.uniqueName, photo.displayName, photo.importedAt, photo.captureDate, photo.captureOffset,
                photo.captureSource, photo.width, photo.height, photo.format, photo.orientation, photo.zoneID
            ])
        let claimed = try db.statement(Inserts.photoData + " ON CONFLICT (sha256) DO NOTHING RETURNING id")
            .first([id, sha256, byteSize, fileReference]) { $0.int64(0) }
        guard claimed != nil else {
            // Another photo holds this original: the row just inserted goes (nothing refers to it yet).
            try db.run("DELETE FROM photo WHERE id = ?", [id])
            return nil
        }
        if let thumbnail { try db.run(Inserts.thumbnail, [id, thumbnail.data, thumbnail.width, thumbnail.height]) }
        return id
    }

    /// Links a photo to a tag (nothing when linked already).
    /// - Throws: `PostgresError`.
    public func link(photo: Int64, tag: Int64) throws { try db.run(Inserts.link, [photo, tag]) }

    /// Inserts a rating of 1 to 5 stars by `author` (nil: anonymous).
    /// - Returns: the new row id.
    /// - Throws: `PostgresError` (`23505` for a second rating of one author on one photo).
    @discardableResult
    public func insertRating(uuid: String, photo: Int64, value: RatingValue, author: String? = nil) throws -> Int64 {
        try db.insertReturningID(Inserts.rating, [uuid, photo, value.rawValue, author])
    }
}
