import PhotosModel
import PhotosSQL

/// The insert path of new photos on PostgreSQL (import's batch writer and merge): a photo with
/// its photo data and thumbnail, tag links and ratings, by the statements both backends share
/// (`CatalogInserts`), each new id read back with `RETURNING id` (PostgreSQL has no "last
/// insert id" of a connection; `PGStatement` keeps each statement prepared).
///
/// The SHA-256 duplicate rule (one photo per original in one record zone, SPEC §3, issue 31
/// A1) is the caller's check under the advisory lock of the original (`hasOriginal(sha256:in:)`,
/// taken until the transaction ends), not a UNIQUE constraint: a photo of another zone may have
/// the same original (one file in external data, two `photo_data` rows), which no constraint of
/// `photo_data` alone can tell apart. Writers that insert several originals in one transaction
/// take them in ascending SHA-256 order, so two of them never wait for each other in a cycle.
public final class PostgresPhotoWriter {
    private let db: PostgresDatabase

    /// Uses `db` inside the caller's write transaction.
    public init(_ db: PostgresDatabase) { self.db = db }

    /// Inserts a photo, its photo data and its thumbnail (when given). The caller has checked,
    /// in this transaction, that no photo of the same zone has the original (`hasOriginal`).
    /// - Parameters:
    ///   - sha256: 64 lowercase hex digits of the original.
    ///   - byteSize: the original's size in bytes.
    ///   - fileReference: where the original is in external data.
    ///   - thumbnail: JPEG bytes and size in pixels, or nil.
    /// - Returns: the new photo's row id.
    /// - Throws: `PostgresError` (`23505` for a duplicate unique name).
    public func insert(
        _ photo: PhotoRow, sha256: String, byteSize: Int, fileReference: String,
        thumbnail: (data: [UInt8], width: Int, height: Int)?
    ) throws -> Int64 {
        let id = try db.insertReturningID(sql: CatalogInserts.photo, arguments: CatalogInserts.photoValues(photo))
        try db.execute(
            sql: CatalogInserts.photoData,
            arguments: CatalogInserts.photoDataValues(
                PhotoOriginal(
                    role: .primary, sha256: sha256, byteSize: byteSize, fileReference: fileReference,
                    format: photo.format),
                ofPhoto: id))
        if let thumbnail {
            try db.execute(
                sql: CatalogInserts.thumbnail, arguments: [id, thumbnail.data, thumbnail.width, thumbnail.height])
        }
        return id
    }

    /// Adds `original` (a role the photo has no original of yet) to photo `photoID`. The caller
    /// holds the advisory lock of `original.sha256` (`hasOriginal`), as for `insert`.
    /// - Throws: `PostgresError` (`23505` when the photo has an original of that role).
    public func insertOriginal(_ original: PhotoOriginal, ofPhoto photoID: Int64) throws {
        try db.execute(
            sql: CatalogInserts.photoData, arguments: CatalogInserts.photoDataValues(original, ofPhoto: photoID))
    }

    /// Links a photo to a tag (nothing when linked already).
    /// - Throws: `PostgresError`.
    public func link(photo: Int64, tag: Int64) throws {
        try db.execute(sql: CatalogInserts.link, arguments: [photo, tag])
    }

    /// Inserts a rating of 1 to 5 stars by `author` (nil: anonymous).
    /// - Returns: the new row id.
    /// - Throws: `PostgresError` (`23505` for a second rating of one author on one photo).
    @discardableResult
    public func insertRating(uuid: String, photo: Int64, value: RatingValue, author: String? = nil) throws -> Int64 {
        try db.insertReturningID(sql: CatalogInserts.rating, arguments: [uuid, photo, value.rawValue, author])
    }
}
