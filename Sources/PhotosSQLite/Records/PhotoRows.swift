import PhotosModel

extension PhotoRow {
    static let insertSQL = """
        INSERT INTO photo (unique_name, display_name, imported_at, capture_date, capture_offset, capture_source, \
        width, height, format, orientation, zone_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """

    var values: [SQLBindable] {
        [
            uniqueName, displayName, importedAt, captureDate, captureOffset, captureSource, width, height, format,
            orientation, zoneID
        ]
    }
}

extension ThumbnailRow {
    static let insertSQL = "INSERT INTO thumbnail (photo_id, data, width, height) VALUES (?, ?, ?, ?)"
}

/// The insert statements of new photos with their photo data, thumbnail, tag links and ratings,
/// prepared once per write transaction: the one write path of `import`'s batch writer and
/// `merge`, so the columns of a new photo are spelled in one place.
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
        photo = try db.statement(PhotoRow.insertSQL)
        data = try db.statement("INSERT INTO photo_data (photo_id, sha256, byte_size, file_ref) VALUES (?, ?, ?, ?)")
        thumbnail = try db.statement(ThumbnailRow.insertSQL)
        link = try db.statement(TagRows.linkSQL)
        rating = try db.statement(RatingRow.insertSQL)
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
        try photo.run(row.values)
        let id = db.lastInsertRowID
        try data.run([id, sha256, byteSize, fileReference])
        if let thumbnail { try self.thumbnail.run([id, thumbnail.data, thumbnail.width, thumbnail.height]) }
        return id
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
    public func insert(_ row: RatingRow) throws { try row.insert(with: rating, into: db) }
}
