import PhotosModel

extension ParticipantRow {
    /// Inserts this row; with `ignoringExisting`, a participant already in the share (same
    /// share and e-mail) is left as it is.
    /// - Returns: true when a row was inserted.
    /// - Throws: `SQLiteError`.
    @discardableResult
    public func insert(into db: Database, ignoringExisting: Bool = false) throws -> Bool {
        try db.run(
            "INSERT \(ignoringExisting ? "OR IGNORE " : "")INTO participant (uuid, share_id, email, role, permission, acceptance) VALUES (?, ?, ?, ?, ?, ?)",
            [uuid, shareID, email.rawValue, role.rawValue, permission.rawValue, acceptance.rawValue])
        return db.changes > 0
    }
}
