import PhotosModel
import PhotosSQL

/// The insert statements of new photos with their photo data, thumbnail, tag links and ratings
/// (`CatalogInserts`, the text both backends share), prepared once per write transaction: the
/// one write path of `import`'s batch writer and `merge`. SQLite's own: it holds the prepared
/// statements and reads each new id from `sqlite3_last_insert_rowid` (no result row to step
/// through, import's hot path), where PostgreSQL's writer asks for `RETURNING id`.
public final class PhotoWriter: PhotoInserter {
    private let db: Database
    private let photo: Statement
    private let data: Statement
    private let thumbnail: Statement
    private let link: Statement
    private let rating: Statement

    /// Prepares the statements on `db` (inside the caller's write transaction).
    /// - Throws: `SQLiteError`.
    public init(_ db: Database) throws {
        self.db = db
        photo = try db.statement(CatalogInserts.photo)
        data = try db.statement(CatalogInserts.photoData)
        thumbnail = try db.statement(CatalogInserts.thumbnail)
        link = try db.statement(CatalogInserts.link)
        rating = try db.statement(CatalogInserts.rating)
    }

    /// Inserts a photo and its photo data (one per photo), and its thumbnail when given.
    /// - Parameters:
    ///   - row: the photo.
    ///   - sha256: 64 lowercase hex digits of the original.
    ///   - byteSize: the original's size in bytes.
    ///   - fileReference: where the original is in external data.
    ///   - thumbnail: the thumbnail, or nil for none (merge of a photo without a sound one).
    /// - Returns: the new photo's row id.
    /// - Throws: `SQLiteError` (a CONSTRAINT for a duplicate uniqueName).
    public func insert(_ row: PhotoRow, sha256: String, byteSize: Int, fileReference: String, thumbnail: ThumbnailRow?)
        throws -> Int64
    {
        try photo.run(CatalogInserts.photoValues(row))
        let id = db.lastInsertRowID
        try data.run(
            CatalogInserts.photoDataValues(
                PhotoOriginal(
                    role: .primary, sha256: sha256, byteSize: byteSize, fileReference: fileReference, format: row.format
                ),
                ofPhoto: id))
        if let thumbnail { try self.thumbnail.run([id, thumbnail.data, thumbnail.width, thumbnail.height]) }
        return id
    }

    /// Adds `original` (a role the photo has no original of yet) to photo `photoID`.
    /// - Throws: `SQLiteError` (a CONSTRAINT when the photo has an original of that role).
    public func insertOriginal(_ original: PhotoOriginal, ofPhoto photoID: Int64) throws {
        try data.run(CatalogInserts.photoDataValues(original, ofPhoto: photoID))
    }

    /// Links a photo to a tag (nothing when linked already).
    /// - Returns: true when a link was added.
    /// - Throws: `SQLiteError`.
    @discardableResult
    public func link(photo: Int64, tag: Int64) throws -> Bool {
        try link.run([photo, tag])
        return db.changes > 0
    }

    /// Inserts a rating.
    /// - Throws: `SQLiteError`.
    public func insert(_ row: RatingRow) throws {
        try rating.run([row.uuid, row.photoRowID, row.value.rawValue, row.author])
    }
}
