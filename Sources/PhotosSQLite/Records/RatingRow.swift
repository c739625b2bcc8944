import PhotosModel

/// One row of `rating`: the only place that knows its columns (Lighter's `SQLEntitySchema`).
/// Import, `rate` and merge insert through it, so a new column is added in one place.
public struct RatingRow: Sendable {
    /// The stable identity history and sync name the rating by (schema migration 3).
    public var uuid: String
    /// The photo's row id.
    public var photoRowID: Int64
    /// 1 to 5 stars.
    public var value: RatingValue
    /// The history author who set it (`photos rate`, schema migration 5); nil for an anonymous
    /// rating (one from before migration 5, or read from an XMP sidecar on import).
    public var author: String?

    public init(uuid: String = newObjectUUID(), photoRowID: Int64, value: RatingValue, author: String? = nil) {
        self.uuid = uuid
        self.photoRowID = photoRowID
        self.value = value
        self.author = author
    }

    /// The INSERT of one rating, prepared once per batch by the caller.
    public static let insertSQL = "INSERT INTO rating (uuid, photo_id, value, author) VALUES (?, ?, ?, ?)"

    /// Inserts this row with `statement` (prepared from `insertSQL`).
    /// - Returns: the new row id.
    /// - Throws: `SQLiteError`.
    @discardableResult
    public func insert(with statement: Statement, into db: Database) throws -> Int64 {
        try statement.run([uuid, photoRowID, value.rawValue, author])
        return db.lastInsertRowID
    }

    /// Inserts this row.
    /// - Returns: the new row id.
    /// - Throws: `SQLiteError`.
    @discardableResult
    public func insert(into db: Database) throws -> Int64 {
        try insert(with: db.statement(RatingRow.insertSQL), into: db)
    }
}
