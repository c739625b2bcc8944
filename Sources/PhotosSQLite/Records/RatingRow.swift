import PhotosModel

extension RatingRow {
    /// The INSERT of one rating, prepared once per batch by the caller.
    public static let insertSQL = "INSERT INTO rating (uuid, photo_id, value) VALUES (?, ?, ?)"

    /// Inserts this row with `statement` (prepared from `insertSQL`).
    /// - Returns: the new row id.
    /// - Throws: `SQLiteError`.
    @discardableResult
    public func insert(with statement: Statement, into db: Database) throws -> Int64 {
        try statement.run([uuid, photoRowID, value.rawValue])
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
